"""What a skill reads at a ref: the one answer to "which files can change this skill's audit?".

``check`` prefetches these files, ``impact`` audits only the skills a diff
touches among them, and ``history`` walks only the commits that change them.
Three copies of this question drifted apart once (a claim linked by a card
comment was seen by ``diff`` and missed by the other two); now each asks
:func:`reads`.

Most references name a path exactly.  A card comment (``# other.py:1-2``,
``# MCore config.py:10``) names a file by the tail of its path, resolved
against the tree's files: those are kept as :class:`Tail` patterns, and
:meth:`Reads.resolve` turns them into paths once the tree's listing is known.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from .model import DEFAULT_CARD_PREFIXES, CardAnchor, Skill, SkillSpec


@dataclass(frozen=True)
class Tail:
    """A file named by the end of its path (``other.py``), optionally under a folder (``megatron/core/``)."""

    file: str
    within: str = ""

    @classmethod
    def of(cls, anchor: CardAnchor, entry: SkillSpec | None) -> Tail:
        """The files a card comment names: its prefix word resolved by the registry's card_prefixes."""
        prefixes = dict(DEFAULT_CARD_PREFIXES + (entry.card_prefixes if entry else ()))
        return cls(anchor.file, prefixes.get(anchor.prefix, ""))

    def matches(self, path: str) -> bool:
        name = self.file.strip("/")
        fits = path == name or path.endswith("/" + name)
        return fits and (not self.within or self.within in path)


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


def reads(skill: Skill, entry: SkillSpec | None) -> Reads:
    """The files ``skill`` (with its registry ``entry``) reads: quotes, conditions, card evidence and comments,
    ``@`` references and the test files its ``N passed`` promises name."""
    paths = {q.path for q in skill.quotes}
    paths |= {c.path for claim in (entry.claims if entry else ()) for c in claim.conditions}
    paths |= {path for path, _ in skill.references}
    paths |= {p.path for p in skill.test_promises}
    tails: set[Tail] = set()
    if skill.card is not None:
        paths |= set(skill.card.evidence)
        tails = {Tail.of(a, entry) for claim in skill.card.claims for a in claim.anchors}
    return Reads(frozenset(paths), frozenset(tails))
