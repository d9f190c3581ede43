"""Which releases each claim holds for: every release tag audited, and per claim the ranges where it holds.

The release tags are the tags whose names parse as versions (``v0.6.0``, ``0.3.0``, ``v1.0.0rc1``), sorted
as versions; pre-releases only when asked.  Each is audited like ``check`` at that ref, with one judge, so
a blob the releases share is judged once.  A claim's ranges are the runs of releases where it holds
(code_verified or doc_only), written as version specifiers (``>=0.3.0,<0.6.0``); its first break is the
first release after one where it held at which it is broken.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..audit.judge import Judge
from ..audit.skills import audit
from ..errors import SpecError, UsageError
from ..model import AuditReport, ComponentInfo, EvidenceKind, SkillReport, Spec, UnreadableSkill, Verdict
from ..model.versionspec import VersionKey, is_pre_release, number, version_key
from ..source import Progress
from ..source.git import GitTree, as_git
from ..spec.components import load_catalog
from ..spec.inputs import AuditInputs, SkillInput
from .catalog import OpenRepository, load_catalog_skill, open_components, repo_key, skip_lines

_HOLDS = (Verdict.CODE_VERIFIED.value, Verdict.DOC_ONLY.value, "holds")  # a claim's, or a known constraint's
ABSENT = "not there"  # the skill, or this row of it, is not there at that release
KINDS = ("claim", "condition", "quote", "reference")  # the rows' kinds, in the order reports list them
_GOOD = frozenset({"exists", "holds", "external", "exact"})  # a reference that holds (the worst of a path wins)
_BROKEN = frozenset({Verdict.BROKEN.value, "differs", "missing"})  # a claim, or a known constraint, that fails
MAX_RELEASES = 200  # tags audited in one matrix


class TooManyReleases(UsageError):
    """More release tags than one matrix audits (a usage error for one repository; in a catalog, a skip)."""


@dataclass(frozen=True)
class Release:
    tag: str
    commit: str
    version: VersionKey
    pre: bool

    @property
    def number(self) -> str:
        """The version as a specifier writes it (``0.6.0`` for the tag ``v0.6.0``)."""
        return number(self.tag)


@dataclass(frozen=True)
class Row:
    """One claim, condition, quote or reference of a skill (``kind``), its status at each release."""

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

    @property
    def unlinked(self) -> bool:
        """A claim tagged code_verified that no evidence backs at any release (or that is not there)."""
        return all(c in (Verdict.UNLINKED.value, ABSENT) for c in self.cells)

    @property
    def unchecked(self) -> bool:
        """A claim nothing checked at any release: unlinked, or ``doc_only`` (no evidence to hold or break)."""
        return all(c in (Verdict.UNLINKED.value, Verdict.DOC_ONLY.value, ABSENT) for c in self.cells)

    def first_break(self, releases: list[Release]) -> str | None:
        """The first release after one where the claim held at which it is broken."""
        held = False
        for release, cell in zip(releases, self.cells, strict=True):
            if cell in _BROKEN and held:
                return release.tag
            held = held or cell in _HOLDS
        return None


@dataclass
class Matrix:
    repo: str
    releases: list[Release]
    rows: list[Row] = field(default_factory=list)
    latest: AuditReport | None = None  # the audit at the newest release, for the reports that show its detail

    @property
    def span(self) -> str:
        """``v0.2.0 .. v0.6.0``: the releases audited."""
        return f"{self.releases[0].tag} .. {self.releases[-1].tag}" if self.releases else "no release tags"

    def claim_ranges(self, skill: str) -> dict[str, list[str]]:
        """Each claim of ``skill`` and the runs of releases it holds for (``matrix --write-card`` writes them); a
        claim nothing checked at any release (unlinked, or doc_only) has none to write."""
        return {r.key: r.holds_for(self.releases) for r in self.rows
                if r.kind == "claim" and r.skill == skill and not r.unchecked}  # fmt: skip


def release_tags(base: GitTree, glob: str | None = None, pre: bool = False, since: str | None = None,
                 until: str | None = None) -> list[Release]:  # fmt: skip
    """The release tags of ``base``'s repository, sorted as versions; ``glob`` narrows the names, ``since`` and
    ``until`` (tags or versions) bound the range, both ends included."""
    low, high = _bound(since), _bound(until)
    found = []
    for name, commit in base.history.tags():
        key = version_key(name)
        if key is None or (glob is not None and not fnmatch.fnmatchcase(name, glob)):
            continue
        if is_pre_release(key) and not pre:
            continue
        found.append(Release(name, commit, key, is_pre_release(key)))
    found.sort(key=lambda r: (r.version, r.tag))  # a pre-release before its release (the key says so)
    found = [r for r in found if (low is None or r.version >= low) and (high is None or r.version <= high)]
    if len(found) > MAX_RELEASES:
        raise TooManyReleases(f"{len(found)} release tags: more than {MAX_RELEASES}; narrow them with --tags or "
                              "--since")  # fmt: skip
    return found


def _bound(text: str | None) -> VersionKey | None:
    """``--since``/``--until`` as a version (a bad one is a usage error, said before any tag is read)."""
    if text is None:
        return None
    key = version_key(text)
    if key is None:
        raise UsageError(f"{text!r} is not a version or a version tag (like v0.3.0)")
    return key


def build_matrix(base: GitTree, releases: list[Release], inputs: AuditInputs, judge: Judge) -> Matrix:
    """Each skill (on disk, or in-repo folders and ``--all`` roots read at each release) audited at each
    release; a skill not at a release is "not there" in it."""
    tables: dict[str, dict[tuple[str, str], dict[int, str]]] = {kind: {} for kind in KINDS}
    report: AuditReport | None = None
    for i, release in enumerate(releases):
        tree = base.at(release.commit, ref=release.tag)
        # A cell is a status: the facts of a skill (its owners, its card's dates) are the newest release's detail
        # only; the others ask none, and their audits are kept by commit (audit/kept.py), as a history's are.
        newest = i == len(releases) - 1
        report = audit(inputs.skills_at(tree, absent_ok=True), tree, inputs.spec, judge, facts=newest)
        for result in report.skills:
            for kind, key, status in _cells(result):
                tables[kind].setdefault((result.name, key), {})[i] = status
    matrix = Matrix(base.info.repo, releases, latest=report)
    for kind in KINDS:
        for (name, key), cells in tables[kind].items():
            matrix.rows.append(Row(name, kind, key, tuple(cells.get(i, ABSENT) for i in range(len(releases)))))
    return matrix


def _cells(result: SkillReport) -> list[tuple[str, str, str]]:
    """(kind, key, status) for each claim, condition, quote and reference of one skill at one release.

    A condition is keyed by its claim and what it tests; a reference by its kind and path, the worst of its
    mentions winning (one path named twice, once missing, is missing)."""
    out = [("claim", c.id, c.verdict.value) for c in result.claims]
    out += [("condition", f"{c.id}: {e.ref}", e.status.value)
            for c in result.claims for e in c.evidence if e.kind is EvidenceKind.CONDITION]  # fmt: skip
    out += [("quote", m.quote.key, m.status.value) for m in result.anchors]
    references: dict[str, str] = {}
    for promise in result.promises:
        key = f"{promise.kind.value} {promise.path}"
        if references.get(key) in (None, *_GOOD):
            references[key] = promise.status.value
    return out + [("reference", key, status) for key, status in references.items()]


@dataclass
class CatalogMatrix:
    """``matrix --catalog``: each component's skills (the catalog's copies) over its own repository's releases."""

    catalog: str
    matrices: list[Matrix]  # one per component whose repository opened, in the components' order
    skipped: list[str]  # what could not be read, one line per cause


@dataclass(frozen=True)
class ReleaseFilter:
    """``--tags``, ``--pre``, ``--since``, ``--until``: which release tags a matrix reads."""

    glob: str | None = None
    pre: bool = False
    since: str | None = None
    until: str | None = None

    def of(self, base: GitTree) -> list[Release]:
        return release_tags(base, self.glob, self.pre, self.since, self.until)


def build_catalog_matrix(
    root: Path, spec: Spec | None, judge: Judge, open_repository: OpenRepository, mirrors: dict[str, str],
    which: ReleaseFilter, progress: Progress,
) -> CatalogMatrix:  # fmt: skip
    """Every component's repository opened (with its tags), and its skills' catalog copies audited at each of
    its releases; a component whose repository cannot be had, or that has no release tags, is said once."""
    components = load_catalog(root)
    mirrors = {repo_key(url): where for url, where in mirrors.items()}
    opened = open_components(components, mirrors, open_repository, progress)
    out = CatalogMatrix(str(root), [], [])
    infos = []
    for component, (tree, why) in zip(components, opened, strict=True):
        names = tuple(s.catalog_dir for s in component.skills)
        base = as_git(tree) if tree is not None else None
        if base is None:
            infos.append(ComponentInfo(component.file, component.url, component.ref, names, skipped=why or "no git"))
            continue
        try:
            releases = which.of(base)
        except TooManyReleases as exc:  # one component's too many tags: said once, the others still get their matrix
            out.skipped.append(f"{component.url}: {exc}; its {len(names)} skills have no matrix")
            continue
        if not releases:
            out.skipped.append(f"{component.url}: no release tags; its {len(names)} skills have no matrix")
            continue
        skills: list[SkillInput] = []
        for item in component.skills:
            try:
                skill = load_catalog_skill(root, item, judge)
            except SpecError as exc:
                skills.append(UnreadableSkill(item.catalog_dir, f"skills/{item.catalog_dir}", str(exc)))
                continue
            skills.append((skill, spec.skill(skill.name) if spec else None))
        inputs = AuditInputs(spec, skills, [], component.url, component.ref)
        out.matrices.append(replace(build_matrix(base, releases, inputs, judge), repo=component.url))
    out.skipped[:0] = skip_lines(infos)
    return out
