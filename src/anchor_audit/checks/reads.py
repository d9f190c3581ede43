"""What a skill reads at a ref: the one answer to "which files can change this skill's audit?".

``check`` prefetches these files, ``impact`` audits only the skills a diff
touches among them, and ``history`` walks only the commits that change them.
Three copies of this question drifted apart once (a claim linked by a card
comment was seen by ``diff`` and missed by the other two); now each asks
:func:`reads`, and :func:`reads` asks each kind's checker (its ``reads``,
beside its check in :data:`anchor_audit.checks.CHECKERS`).

Most references name a path exactly.  A card comment (``# other.py:1-2``,
``# MCore config.py:10``) names a file by the tail of its path, resolved
against the tree's files: those are kept as :class:`Tail` patterns, and
:meth:`Reads.resolve` turns them into paths once the tree's listing is known.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Iterable

from ..model import Reference, Skill, SkillSpec, Tail
from . import CHECKERS

__all__ = ["Reads", "Reference", "Tail", "reads", "references"]


@dataclass(frozen=True)
class Reads:
    """The files one skill's checks read: exact paths, and tails that stand for every path they match."""

    paths: frozenset[str]
    tails: frozenset[Tail] = frozenset()

    def touched_by(self, changed: Iterable[str]) -> bool:
        """Whether any of ``changed`` is a file this skill reads."""
        return bool(self.matching(changed))

    def matching(self, paths: Iterable[str]) -> set[str]:
        """Those of ``paths`` this skill reads (exactly, or through a tail)."""
        return {p for p in paths if p in self.paths or any(t.matches(p) for t in self.tails)}

    def resolve(self, listing: Iterable[str]) -> frozenset[str]:
        """Every path read, the tails resolved against ``listing`` (a tree's files)."""
        if not self.tails:
            return self.paths
        return self.paths | frozenset(p for p in listing if any(t.matches(p) for t in self.tails))


def references(skill: Skill, entry: SkillSpec | None) -> tuple[Reference, ...]:
    """Every citation of ``skill`` (with its registry ``entry``), kind by kind, in the order each kind's are written."""
    return tuple(
        read
        for checker in CHECKERS.values()
        for item in checker.written(skill, entry)
        for read in checker.reads(item, skill, entry)
    )


# A replay of impact over a history asks it of every skill at every commit, where most skills are the very ones
# of the commit before (kept built by their text): the answer is kept for the most recent few.
@functools.lru_cache(maxsize=64)
def reads(skill: Skill, entry: SkillSpec | None) -> Reads:
    """The files ``skill`` (with its registry ``entry``) reads: the union of what its references read."""
    cited = references(skill, entry)
    paths = frozenset(p for r in cited for p in r.paths)
    return Reads(paths, frozenset(r.tail for r in cited if r.tail is not None))
