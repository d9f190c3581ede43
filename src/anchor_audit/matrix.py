"""Which releases each claim holds for: every release tag audited, and per claim the ranges where it holds.

The release tags are the tags whose names parse as versions (``v0.6.0``, ``0.3.0``, ``v1.0.0rc1``), sorted
as versions; pre-releases only when asked.  Each is audited like ``check`` at that ref, with one judge, so
a blob the releases share is judged once.  A claim's ranges are the runs of releases where it holds
(code_verified or doc_only), written as version specifiers (``>=0.3.0,<0.6.0``); its first break is the
first release after one where it held at which it is broken.
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass, field

from .audit import Judge, audit
from .errors import SpecError, UsageError
from .model import Skill, SkillSpec, Spec, Verdict
from .source.git import GitTree
from .spec.skill import load_skill_from_tree

_VERSION = re.compile(r"^v?(\d+(?:\.\d+){0,3})(?:[-.]?(a|b|rc|alpha|beta|pre|dev)[-.]?(\d*))?$", re.I)
_HOLDS = (Verdict.CODE_VERIFIED.value, Verdict.DOC_ONLY.value)
ABSENT = "absent"  # the skill, the claim or the quote is not there at that release
MAX_RELEASES = 200  # tags audited in one matrix


@dataclass(frozen=True)
class Release:
    tag: str
    commit: str
    version: tuple[int, ...]
    pre: bool

    @property
    def number(self) -> str:
        """The version as a specifier writes it (``0.6.0`` for the tag ``v0.6.0``)."""
        return self.tag[1:] if self.tag[:1] in "vV" and self.tag[1:2].isdigit() else self.tag


@dataclass(frozen=True)
class Row:
    """One claim (``kind`` claim) or quote (``kind`` quote) of a skill, its status at each release."""

    skill: str
    kind: str
    key: str
    cells: tuple[str, ...]  # a verdict or an anchor status per release, or "absent"

    def holds_for(self, releases: list[Release]) -> list[str]:
        """The runs of releases where the claim holds, as specifiers (``>=0.3.0,<0.6.0``; the last open)."""
        ranges, start = [], None
        for i, cell in enumerate(self.cells + ("",)):
            holds = cell in _HOLDS
            if holds and start is None:
                start = i
            elif not holds and start is not None:
                upper = f",<{releases[i].number}" if i < len(releases) else ""
                ranges.append(f">={releases[start].number}{upper}")
                start = None
        return ranges

    def first_break(self, releases: list[Release]) -> str | None:
        """The first release after one where the claim held at which it is broken."""
        held = False
        for release, cell in zip(releases, self.cells, strict=True):
            if cell == Verdict.BROKEN.value and held:
                return release.tag
            held = held or cell in _HOLDS
        return None


@dataclass
class Matrix:
    repo: str
    releases: list[Release]
    rows: list[Row] = field(default_factory=list)


def release_tags(base: GitTree, glob: str | None = None, pre: bool = False, since: str | None = None,
                 until: str | None = None) -> list[Release]:  # fmt: skip
    """The release tags of ``base``'s repository, sorted as versions; ``glob`` narrows the names, ``since`` and
    ``until`` (tags or versions) bound the range, both ends included."""
    low, high = _bound(since), _bound(until)
    found = []
    for name, commit in base.history.tags():
        match = _VERSION.match(name)
        if match is None or (glob is not None and not fnmatch.fnmatchcase(name, glob)):
            continue
        is_pre = match.group(2) is not None
        if is_pre and not pre:
            continue
        numbers = tuple(int(n) for n in match.group(1).split("."))
        found.append(Release(name, commit, numbers + (0,) * (4 - len(numbers)), is_pre))
    found.sort(key=lambda r: (r.version, not r.pre, r.tag))  # a pre-release before its release
    found = [r for r in found if (low is None or r.version >= low) and (high is None or r.version <= high)]
    if len(found) > MAX_RELEASES:
        raise UsageError(f"{len(found)} release tags: more than {MAX_RELEASES}; narrow them with --tags or --since")
    return found


def _bound(text: str | None) -> tuple[int, ...] | None:
    """``--since``/``--until`` as a version (a bad one is a usage error, said before any tag is read)."""
    if text is None:
        return None
    match = _VERSION.match(text)
    if match is None:
        raise UsageError(f"{text!r} is not a version or a version tag (like v0.3.0)")
    numbers = tuple(int(n) for n in match.group(1).split("."))
    return numbers + (0,) * (4 - len(numbers))


def build_matrix(
    base: GitTree,
    releases: list[Release],
    disk: list[tuple[Skill, SkillSpec | None]],
    in_repo: list[str],
    spec: Spec | None,
    judge: Judge,
) -> Matrix:
    """Each skill (on disk, or ``in_repo`` folders read at each release) audited at each release."""
    claims: dict[tuple[str, str], dict[int, str]] = {}
    quotes: dict[tuple[str, str], dict[int, str]] = {}
    for i, release in enumerate(releases):
        tree = base.at(release.commit, ref=release.tag)
        pairs = list(disk)
        for folder in in_repo:
            try:
                skill = load_skill_from_tree(tree, folder, memo=judge.remember)
            except SpecError:
                continue  # not at this release, or unreadable there: absent
            pairs.append((skill, spec.skill(skill.name) if spec else None))
        for result in audit(pairs, tree, spec, judge).skills:
            for claim in result.claims:
                claims.setdefault((result.name, claim.id), {})[i] = claim.verdict.value
            for match in result.anchors:
                quotes.setdefault((result.name, match.quote.key), {})[i] = match.status.value
    matrix = Matrix(base.info.repo, releases)
    for kind, table in (("claim", claims), ("quote", quotes)):
        for (name, key), cells in table.items():
            matrix.rows.append(Row(name, kind, key, tuple(cells.get(i, ABSENT) for i in range(len(releases)))))
    return matrix
