"""``fix --catalog``: heal a catalog's skills where they come from, as one patch per upstream repository.

A catalog copy cannot be healed where it lies: the catalog signs each copy and its sync overwrites it with
the upstream folder.  So each skill is healed in its own repository: the upstream folder (the component's
``path``, at the component's ref) is copied out of git into a scratch directory laid out as the repository,
audited against that repository and healed there with ``fix``'s own planning; the edits become a unified
diff in the repository's paths, which ``git apply`` takes at the component's ref.  Nothing is written inside
the catalog.  A copy that differs from upstream is said to be out of sync: its patch is made against the
upstream text, never the catalog's.
"""

from __future__ import annotations

import os
import tempfile
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..audit.judge import Judge
from ..audit.skills import audit_skill
from ..errors import AuditError, NotCarried, UnreadableFile
from ..fix import plan_fix
from ..model import AuditReport, ComponentInfo, SkillReport, Spec
from ..source import Progress, SourceTree, no_progress
from ..spec.components import CatalogSkill, Component, load_catalog
from ..spec.repopath import repo_path_problem
from ..spec.skill import load_skill
from ..text.lines import unified_diff
from .catalog import OpenRepository, open_components, repo_key, skip_lines
from .catalogsync import sync_facts

MAX_COPIED_BYTES = 2 * 1024 * 1024  # a file of an upstream skill folder larger than this is not copied out
MAX_SINCE_COMMITS = 60  # commits audited per repository to say since when each drift is there (~0.5 s each)


@dataclass
class RepoPatch:
    """What ``fix --catalog`` makes for one upstream repository."""

    repo: str  # its URL
    ref: str
    commit: str | None
    patch: str = ""  # unified diffs in the repository's own paths ("" when nothing heals)
    files: int = 0
    healed: list[str] = field(default_factory=list)  # what the patch heals
    left: list[str] = field(default_factory=list)  # what it cannot
    notes: list[str] = field(default_factory=list)  # out of sync, absent upstream
    skills: list[SkillReport] = field(default_factory=list)  # each upstream copy's audit (with its owners)
    since: dict[str, list[str]] = field(default_factory=dict)  # skill -> "KEY: STATUS since COMMIT (DAY): SUBJECT"

    name: str = ""  # the file's name without its suffix, unique in the run (see unique_names)

    @property
    def file_name(self) -> str:
        """``OWNER--REPO.patch`` (``OWNER--REPO@REF`` where the catalog names one repository at two refs, then
        ``-2``, ``-3`` for names that are still the same): never a path out of the output folder, never the name
        of another repository's patch."""
        return (self.name or _safe(repo_key(self.repo).replace("/", "--"))) + ".patch"

    @property
    def issue_file(self) -> str:
        return self.file_name.removesuffix(".patch") + ".issue.md"


@dataclass(frozen=True)
class CatalogFix:
    patches: list[RepoPatch]
    skipped: list[str]  # components that could not be reached, one line per cause


def plan_catalog_fix(
    root: Path,
    spec: Spec | None,
    judge: Judge,
    open_repository: OpenRepository,
    mirrors: dict[str, str] | None = None,
    refresh: bool = False,
    update_card: bool = False,
    progress: Progress = no_progress,
    since: bool = False,
) -> CatalogFix:
    """One :class:`RepoPatch` per reachable component repository of the catalog at ``root`` (``since``: with since
    which commit each drifting quote and claim has its status, from the history)."""
    mirrors = {repo_key(url): where for url, where in (mirrors or {}).items()}
    components = load_catalog(root)
    by_repo: dict[str, RepoPatch] = {}
    infos: list[ComponentInfo] = []
    opened = open_components(components, mirrors, open_repository, progress)
    for component, (tree, why) in zip(components, opened, strict=True):
        names = tuple(s.catalog_dir for s in component.skills)
        infos.append(ComponentInfo(component.file, component.url if component.repo else "", component.ref, names,
                                   skipped=why or None))  # fmt: skip
        if tree is None:
            continue
        key = f"{repo_key(component.url)}@{component.ref}"
        patch = by_repo.setdefault(key, RepoPatch(component.url, component.ref, tree.info.commit))
        for item in component.skills:
            _heal_upstream(patch, root, component, item, tree, spec, judge, refresh, update_card)
        if since:
            patch.since.update(_since(tree, patch.skills, spec, judge))
    return CatalogFix(unique_names(list(by_repo.values())), skip_lines(infos))


AGAINST_UPSTREAM = "the patch is made against the upstream text"  # how an out-of-sync copy's note ends


def unique_names(patches: list[RepoPatch]) -> list[RepoPatch]:
    """Each patch named for its repository (and its ref, where one repository comes at two refs), the names made
    unique: two patches never share a file."""
    repos = Counter(repo_key(p.repo) for p in patches)
    taken: set[str] = set()
    for patch in patches:
        key = repo_key(patch.repo)
        base = _safe(key.replace("/", "--") + (f"@{patch.ref}" if repos[key] > 1 else ""))
        name, n = base, 1
        while name.lower() in taken:
            n += 1
            name = f"{base}-{n}"
        taken.add(name.lower())
        patch.name = name
    return patches


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_.@" else "_" for c in name).strip(".") or "repository"


def _since(tree: SourceTree, skills: list[SkillReport], spec: Spec | None, judge: Judge) -> dict[str, list[str]]:
    """For each drifting skill, since which commit each of its quotes and claims has its status now: one walk of
    the history from the earliest ``validated_on`` of them to the ref (``history``'s, shared), when that is at
    most MAX_SINCE_COMMITS commits to audit."""
    from ..findings import skill_findings
    from ..source.git import as_git
    from .history import SkillSource, history

    drifting = [s for s in skills if any(f.drift for f in skill_findings(s))]
    if not drifting:
        return {}
    git_tree = as_git(tree)  # a component's repository is always opened from git
    days = sorted(d for s in drifting if (d := _validated_on(tree, s.path)))
    start = git_tree.history.commit_on_or_before(days[0], git_tree.commit.hexsha) if days else None
    if start is None:
        return {}  # no skill says when it was validated: no start to walk from (the root could be years)
    sources = [SkillSource(s.path.rsplit("/", 1)[-1], in_repo=s.path) for s in drifting]
    try:
        walked = history(git_tree, sources, spec, start, git_tree.commit.hexsha, judge, max_commits=MAX_SINCE_COMMITS)
    except AuditError:
        return {}  # a history this copy does not hold: the issue says what drifts, not since when
    if walked.commits_touching + 1 > MAX_SINCE_COMMITS:  # said once for the repository ("" names no skill)
        said = (f"{walked.commits_touching} commits since {start[:9]} touch these skills or their code, more than "
                f"this run walks ({MAX_SINCE_COMMITS}): `anchor-audit history SKILL_DIR --in-repo` gives each "
                "skill's timeline")  # fmt: skip
        return {"": [said]}
    by_folder = {s.path.rsplit("/", 1)[-1]: s.name for s in drifting}
    last: dict[tuple[str, str], str] = {}
    for event in walked.events:  # oldest first: the last change of each quote or claim is its status's start
        change, commit = event.change, event.commit
        if change.after is not None and change.before is not None:
            last[(change.skill, change.key)] = (f"{change.key}: {change.after.value} since {commit.sha[:9]} "
                                                f"({commit.date[:10]}): {commit.subject}")  # fmt: skip
    out: dict[str, list[str]] = {}
    for (folder, _), said in last.items():
        out.setdefault(by_folder.get(folder, folder), []).append(said)
    return out


def _validated_on(tree: SourceTree, folder: str) -> str | None:
    from ..checks.validation import validation_day
    from ..spec.skill import load_skill_from_tree

    try:
        return validation_day(load_skill_from_tree(tree, folder))
    except AuditError:
        return None


def _heal_upstream(
    patch: RepoPatch, root: Path, component: Component, item: CatalogSkill, tree: SourceTree, spec: Spec | None,
    judge: Judge, refresh: bool, update_card: bool,
) -> None:  # fmt: skip
    folder = item.path.strip("/")
    if repo_path_problem(folder) is not None or not tree.is_folder(folder):
        where = f"{component.url} at {component.ref}"
        patch.notes.append(f"{item.catalog_dir}: {folder} is not in {where}; nothing to heal there")
        return
    sync = sync_facts(root / "skills" / item.catalog_dir, tree, folder)
    if sync.differs:
        patch.notes.append(f"{item.catalog_dir}: the catalog's copy is out of sync ({sync.summary()}); "
                           f"{AGAINST_UPSTREAM}")  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="anchor-audit-upstream-") as scratch:
        try:
            skill = _copied_out(tree, folder, Path(scratch))
        except AuditError as exc:
            patch.left.append(f"{folder}: cannot be read upstream: {str(exc).replace(f'{scratch}{os.sep}', '')}")
            return
        entry = (spec.skill(item.catalog_dir) or spec.skill(skill.name)) if spec else None
        result = audit_skill(skill, entry, tree, judge)
        patch.skills.append(replace(result, name=item.catalog_dir, path=folder))
        report = AuditReport(tree.info, (result,))
        plan = plan_fix(report, [(skill, entry)], None, tree, refresh, update_card)
        shown = lambda text: text.replace(f"{scratch}{os.sep}", "")  # noqa: E731 - the repository's paths
        for edit in plan.edits:
            name = Path(edit.path).relative_to(scratch).as_posix()
            patch.patch += unified_diff(edit.before.decode("utf-8-sig"), edit.after.decode("utf-8-sig"), name)
            patch.files += 1
        patch.healed += [shown(line) for line in plan.done]
        patch.left += [shown(line) for line in plan.left]
        patch.notes += [shown(line) for line in plan.notes]


def _copied_out(tree: SourceTree, folder: str, scratch: Path):  # type: ignore[no-untyped-def]
    """The upstream skill folder written under ``scratch`` at its repository path, and read as a skill."""
    for path in tree.files_under(folder):
        try:
            source = tree.read(path)
        except (NotCarried, UnreadableFile):
            continue
        if source is None or len(source.text) > MAX_COPIED_BYTES or repo_path_problem(path) is not None:
            continue
        target = scratch / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(source.text, encoding="utf-8")
    skill = load_skill(scratch / folder, shown_as=str(scratch / folder))
    return replace(skill, disk_root=str(scratch.resolve()), repo_folder=folder)
