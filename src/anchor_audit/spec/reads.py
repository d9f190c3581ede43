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

import functools
import posixpath
from dataclasses import dataclass, replace
from typing import Iterable

from ..model import DEFAULT_CARD_PREFIXES, CardAnchor, Citation, Reference, ReferenceKind, Skill, SkillSpec, Tail

__all__ = ["Reads", "Reference", "Tail", "card_tail", "reads", "references"]


def card_tail(anchor: CardAnchor, entry: SkillSpec | None) -> Tail:
    """The files a card comment names: its prefix word resolved by the built-in and the registry's card_prefixes."""
    prefixes = dict(DEFAULT_CARD_PREFIXES + (entry.card_prefixes if entry else ()))
    return Tail(anchor.file, prefixes.get(anchor.prefix, ""))


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
    """Every citation of ``skill`` (with its registry ``entry``), in the order the skill's files make them."""
    K, out = ReferenceKind, list[Reference]()
    for q in skill.quotes:
        out.append(Reference(K.QUOTE, "SKILL.md", q.skill_line, q.key, frozenset({q.path})))
    for path, line in skill.references:
        out.append(Reference(K.AT_PATH, "SKILL.md", line, "@" + path, frozenset({path})))
    for t in skill.test_promises:
        out.append(Reference(K.TESTS, "SKILL.md", t.line, f"{t.promised} passed", frozenset({t.path})))
    for code, line in skill.examples:  # the modules it imports are found at the ref: nothing to read before
        out.append(Reference(K.SYMBOL, "SKILL.md", line, code.split("\n", 1)[0]))
    commands = [c for c in skill.citations if c.kind is K.COMMAND]
    for cited in skill.citations:
        if cited.kind is K.DEFAULT:  # a flag's default is read where the skill's commands define their flags
            out += [replace(_cited(cmd, skill), kind=K.DEFAULT, line=cited.line, text=cited.text) for cmd in commands]
        else:
            out.append(_cited(cited, skill))
    card = skill.card
    if card is not None:
        lines = card.evidence_lines or (0,) * len(card.evidence)
        for path, line in zip(card.evidence, lines, strict=False):
            out.append(Reference(K.EVIDENCE, "card.yaml", line, path, frozenset({path})))
        for a in (a for claim in card.claims for a in claim.anchors):
            text = f"{a.prefix + ' ' if a.prefix else ''}{a.file}:{','.join(str(r) for r in a.ranges)}"
            out.append(Reference(K.CARD_ANCHOR, "card.yaml", a.line, text, tail=card_tail(a, entry)))
    for registered in entry.claims if entry else ():
        for c in registered.conditions:
            out.append(Reference(K.CONDITION, "anchors.yaml", 0, c.describe(), frozenset({c.path})))
    return tuple(out)


def _cited(c: Citation, skill: Skill) -> Reference:
    """What a citation of the prose reads: a path (or any path it is the tail of), a link's target in the
    repository, the repository's pyproject.toml for a version pin."""
    K = ReferenceKind
    if c.kind is K.PIN:
        return Reference(c.kind, "SKILL.md", c.line, c.text, frozenset({"pyproject.toml"}))
    if c.kind is K.LINK:
        folder = skill.repo_folder
        target = posixpath.normpath(f"{folder}/{c.target}") if folder and c.target else None
        return Reference(c.kind, "SKILL.md", c.line, c.text, frozenset({target} if target else ()))
    if c.kind is K.COMMAND:  # its module (wherever the package's root is), its script, or the declared programs
        kind, _, name = c.target.partition(":")
        if kind == "module":
            module = name.replace(".", "/")
            return Reference(c.kind, "SKILL.md", c.line, c.text, frozenset({"pyproject.toml"}), Tail(f"{module}.py"))
        return Reference(c.kind, "SKILL.md", c.line, c.text, frozenset({"pyproject.toml", name}))
    if c.kind is K.NAME:  # pkg.mod.Name: the module's file, wherever the package's root is
        module = "/".join(c.target.split(".")[:-1])
        return Reference(c.kind, "SKILL.md", c.line, c.text, tail=Tail(f"{module}.py") if module else None)
    path = c.target.strip("/")
    tail = Tail(path) if "*" not in path and c.kind in (K.PATH, K.LINES) else None
    return Reference(c.kind, "SKILL.md", c.line, c.text, frozenset({path}), tail)


# A replay of impact over a history asks it of every skill at every commit, where most skills are the very ones
# of the commit before (kept built by their text): the answer is kept for the most recent few.
@functools.lru_cache(maxsize=64)
def reads(skill: Skill, entry: SkillSpec | None) -> Reads:
    """The files ``skill`` (with its registry ``entry``) reads: the union of what its references read."""
    cited = references(skill, entry)
    paths = frozenset(p for r in cited for p in r.paths)
    return Reads(paths, frozenset(r.tail for r in cited if r.tail is not None))
