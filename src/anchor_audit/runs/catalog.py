"""A whole skills catalog, each skill audited against its own component's repository.

Every component repository is opened once (a lean fetch into the shared
cache, or a local git dir given with ``--mirror``) at the component's ref;
every skill of the component is audited against it.  A repository that
cannot be reached skips its component's skills, with the reason; it never
lets them be audited against another component's code.  Besides the
audit, each catalog copy is compared with the repository's own copy at
``path``: a difference means the catalog is stale or diverged.
"""

from __future__ import annotations

import os
import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable
from urllib.parse import urlsplit

from ..audit.judge import Judge
from ..audit.kept import kept_or_checked
from ..audit.skills import audit_or_recall, expect_names_past, presearch, spread
from ..checks.links import folder_links
from ..checks.orphans import folder_pages
from ..checks.paths import folder_paths
from ..errors import AuditError, SpecError
from ..model import (
    UNRESOLVED,
    AuditReport,
    ComponentInfo,
    PromiseResult,
    Skill,
    SkillReport,
    SourceInfo,
    SourceKind,
    Spec,
    UnlistedFolder,
)
from ..source import Progress, SourceTree, no_progress
from ..source import url_key as repo_key
from ..source.githistory import folder_dates
from ..source.gitrun import NAME_NOT_RESOLVED, effective_url
from ..spec.card import Content
from ..spec.citations import MAX_CITATIONS
from ..spec.components import CatalogSkill, Component, load_catalog, unlisted_folders
from ..spec.pages import disk_pages, page_citations
from ..spec.skill import MAX_SKILL_BYTES, load_skill
from ..text.fsutil import entries_under, read_input
from .catalogsync import stale_mirror_warnings, sync_facts

# Opens a component's repository: (URL or local git dir, ref) -> tree.  Called from several threads at once.
OpenRepository = Callable[[str, str], SourceTree]
OPEN_AT_ONCE = 8  # component repositories fetched side by side


@dataclass(frozen=True)
class CatalogRun:
    report: AuditReport
    skipped: list[str]  # what could not be audited, one line per cause
    trees: tuple[SourceTree, ...] = ()  # each component's code, as opened (a remembered run's witnesses)


def audit_catalog(
    root: Path,
    spec: Spec | None,
    judge: Judge,
    open_repository: OpenRepository,
    mirrors: dict[str, str] | None = None,
    progress: Progress = no_progress,
    jobs: int = 1,
) -> CatalogRun:
    """Audit every skill of the catalog at ``root`` over ``jobs`` worker processes; ``mirrors`` maps a repository
    (URL or OWNER/NAME) to a git dir."""
    mirrors = {repo_key(url): where for url, where in (mirrors or {}).items()}
    components = load_catalog(root)
    infos: list[ComponentInfo] = []
    opened = open_components(components, mirrors, open_repository, progress)
    dates = folder_dates(str(root), "skills")  # the catalog's last change to each copy, when it is a git checkout
    work: list[Work] = []  # every skill whose repo opened
    for component, (tree, why) in zip(components, opened, strict=True):
        names = tuple(s.catalog_dir for s in component.skills)
        if tree is None:
            infos.append(ComponentInfo(component.file, component.url if component.repo else "", component.ref,
                                       names, skipped=why))  # fmt: skip
            work += [(item, None, why, ()) for item in component.skills]  # its links still checked, in the spread
            continue
        info = replace(tree.info, repo=component.url)  # named by its URL, even when read from a mirror
        infos.append(ComponentInfo(component.file, component.url, component.ref, names, info.commit, info.date))
        folders = tuple(item.path for item in component.skills)  # what its sync checks ask of its history
        work += [(item, tree, info, folders) for item in component.skills]

    weights = expected_costs(root, work)
    order = heaviest_first(work, weights)
    audits = _Audits(root, root.resolve(), spec, judge, [work[i] for i in order], dates)
    done = spread(len(work), audits.one, judge, progress, jobs, audits.step, "skills", audits.prepare,
                  [weights[i] for i in order])  # fmt: skip
    by_item = dict(zip(order, done, strict=True))
    audited = (by_item[i] for i in range(len(work)))
    progress("", 1.0)
    reports: list[SkillReport] = []
    warnings: list[str] = list(spec.warnings) if spec else []
    for component, shown, (tree, _) in zip(components, infos, opened, strict=True):
        mine = [next(audited) for _ in component.skills]
        if tree is not None:
            warnings += stale_mirror_warnings(shown, mine)
        reports += mine
    source = SourceInfo(repo=str(root), ref="components.d", commit=None, kind=SourceKind.CATALOG)
    report = AuditReport(source, tuple(reports), tuple(warnings), components=tuple(infos),
                         unlisted=unlisted_checked(root, unlisted_folders(root, components), judge))  # fmt: skip
    return CatalogRun(report, skip_lines(infos), tuple(tree for tree, _ in opened if tree is not None))


_FENCE = re.compile(rb"^\s*(?:`{3,}|~{3,})\s*\d+:\d+:", re.M)


def heaviest_first(work: list[Work], weights: list[float]) -> list[int]:
    """The order a catalog's skills are audited in: each component's together, the one expected to cost most
    first (its skills share the searches of its tree, and parts cut from the first items are the largest:
    its skills are audited by few processes, in few parts), the catalog's order kept within a component."""
    groups: dict[int, list[int]] = {}
    for i, (_, tree, _, _) in enumerate(work):
        groups.setdefault(id(tree) if tree is not None else -i - 1, []).append(i)
    ranked = sorted(groups.values(), key=lambda members: -sum(weights[i] for i in members))
    return [i for members in ranked for i in members]


# What a component's code costs before its skills do (its listing, the first parses and searches of its tree),
# and what a skill whose repository could not be had costs, in the units of :func:`expected_cost` (one is
# about 20 ms of a skill that quotes code): measured on the real catalog, where the cold `--jobs 2` run took
# 0.66x of `--jobs 1` without them and 0.64x with them.
COMPONENT_COST = 15.0
UNREACHED_COST = 0.3


def expected_costs(root: Path, work: list[Work]) -> list[float]:
    """What auditing each of ``work``'s skills is expected to cost (:func:`expected_cost`), the first of each
    component's carrying what opening its code costs."""
    opened: set[int] = set()
    costs = []
    for item, tree, _, _ in work:
        if tree is None:
            costs.append(UNREACHED_COST)
            continue
        costs.append(expected_cost(root, item) + (COMPONENT_COST if id(tree) not in opened else 0.0))
        opened.add(id(tree))
    return costs


def expected_cost(root: Path, item: CatalogSkill) -> float:
    """What auditing a catalog skill is expected to cost, for cutting the run into parts of even cost: a skill
    that quotes code and has a card costs some twenty times one that does neither (matching, claims, their
    history).  Read from the folder's sizes and fence headers only; 1 where nothing can be read."""
    folder = root / "skills" / item.catalog_dir
    try:
        with open(folder / "SKILL.md", "rb") as handle:
            fences = len(_FENCE.findall(handle.read(MAX_SKILL_BYTES)))
    except OSError:
        return 1.0
    try:
        card = os.stat(folder / "card.yaml").st_size
    except OSError:
        card = 0
    return 1.0 + 2.0 * fences + card / 1000


def _unreached(root: Path, real_root: Path, item: CatalogSkill, judge: Judge, why: str | None) -> SkillReport:
    """A skill whose repository could not be had: skipped, with the checks that need no code, and the skip says
    which ran."""
    shown = f"skills/{item.catalog_dir}"
    promises, ran = _without_code(root, real_root, item.catalog_dir, item.path.strip("/"), judge)
    said = f"{why}; only the checks that need no code ran: {ran}" if ran else why
    return SkillReport(item.catalog_dir, shown, (), (), promises=promises, skipped=said)


def _without_code(
    root: Path, real_root: Path, catalog_dir: str, upstream: str | None, judge: Judge
) -> tuple[tuple[PromiseResult, ...], str]:
    """The checks of a catalog's folder that need no code (its links, scanned from its pages as the other pages
    are, not parsed whole, and followed in the catalog; its pages no link reaches), and which of them found
    something to check; nothing where its SKILL.md cannot be read (said where its repository can be reached)."""
    shown = f"skills/{catalog_dir}"
    folder = root / "skills" / catalog_dir
    if not (folder / "SKILL.md").is_file():
        return (), ""
    try:
        real = refuse_links_out(folder, real_root, shown, ["skills", *catalog_dir.split("/")])
        text = read_input(folder / "SKILL.md", MAX_SKILL_BYTES, "a skill file").decode("utf-8", "replace")
    except (AuditError, OSError):
        return (), ""
    pages = [("SKILL.md", Content.of(text)), *disk_pages(real)]

    def check() -> tuple[tuple[PromiseResult, ...], str]:
        memo = judge.memo.remember
        citations = tuple(c for name, content in pages for c in page_citations(name, content, memo)[:MAX_CITATIONS])
        skill = Skill(catalog_dir, shown, (), None, citations=citations, disk=str(real), disk_root=str(real_root),
                      repo_folder=upstream)  # fmt: skip
        links, paths, unreached = folder_links(skill, shown), folder_paths(skill, shown), folder_pages(skill, shown)
        checks = (("its links, in the catalog", links), ("its paths in its folder", paths),
                  ("its pages no link reaches", unreached))  # fmt: skip
        ran = [what for what, found in checks if found]
        return links + paths + unreached, " and ".join([", ".join(ran[:-1]), ran[-1]] if len(ran) > 1 else ran)

    said = [shown, str(real), str(real_root), upstream, [content.key("page", name) for name, content in pages]]
    promises, ran = kept_or_checked(judge, said, check)
    return tuple(promises), str(ran)


def unlisted_checked(root: Path, folders: list[UnlistedFolder], judge: Judge) -> tuple[UnlistedFolder, ...]:
    """The folders no component names, each with the checks that need no code run on it: the catalog publishes
    them all the same."""
    real_root = root.resolve()
    return tuple(replace(f, promises=_without_code(root, real_root, f.name, None, judge)[0]) for f in folders)


# A skill, its code and where that came from, and its siblings' folders; or, for a component that could not be had,
# a skill, None, and why (only the checks that need no code run).
Work = tuple[CatalogSkill, SourceTree | None, SourceInfo | str | None, tuple[str, ...]]


class _Audits:
    """The audit of each skill of a catalog whose repository opened (an item of a run's spread)."""

    def __init__(
        self, root: Path, real_root: Path, spec: Spec | None, judge: Judge, work: list[Work], dates: dict[str, str]
    ) -> None:
        self.root, self.real_root, self.spec, self.judge = root, real_root, spec, judge
        self.work, self.dates = work, dates  # the catalog's last change to each copy, by its folder
        self.loaded: dict[int, Skill | SpecError] = {}  # a window's skills, read before their trees are searched

    def prepare(self, window: range) -> None:
        """Read the window's skills, then search each component's tree once for all of them (relocated quotes,
        bare names), where each skill would search it alone, and tell it what their names' past will ask."""
        by_tree: dict[int, tuple[SourceTree, list[Skill]]] = {}
        for i in window:
            item, tree = self.work[i][:2]
            if tree is None:
                continue
            self.loaded[i] = skill = self._load(item)
            if isinstance(skill, Skill):
                by_tree.setdefault(id(tree), (tree, []))[1].append(skill)
        for tree, skills in by_tree.values():
            presearch(skills, tree, self.judge)
            expect_names_past(skills, tree)

    def step(self, i: int) -> str:
        return f"skill {i + 1} of {len(self.work)}: {self.work[i][0].catalog_dir}"

    def one(self, i: int) -> SkillReport:
        item, tree, info, siblings = self.work[i]
        if tree is None or not isinstance(info, SourceInfo):
            return _unreached(self.root, self.real_root, item, self.judge, info if isinstance(info, str) else None)
        skill = self.loaded.pop(i) if i in self.loaded else self._load(item)
        if isinstance(skill, SpecError):
            return SkillReport(item.catalog_dir, f"skills/{item.catalog_dir}", (), (), error=str(skill), source=info)
        # The sync first: a copy in sync gives the tree its folder's objects, which the audit's paths then walk.
        folder = self.root / "skills" / item.catalog_dir
        sync = sync_facts(folder, tree, item.path, self.dates.get(item.catalog_dir), siblings)
        result = audit_or_recall(skill, self.spec.skill(skill.name) if self.spec else None, tree, self.judge)
        return replace(result, source=info, sync=sync)

    def _load(self, item: CatalogSkill) -> Skill | SpecError:
        try:
            return load_catalog_skill(self.root, item, self.judge, self.real_root)
        except SpecError as exc:
            return exc


def load_catalog_skill(root: Path, item: CatalogSkill, judge: Judge, real_root: Path | None = None) -> Skill:
    """The catalog's copy of a skill, read from its folder (a link out of the catalog refused), knowing the
    folder it came from upstream; :class:`SpecError` when it cannot be read.  ``real_root``: ``root`` resolved
    (once for a whole catalog)."""
    folder, shown = root / "skills" / item.catalog_dir, f"skills/{item.catalog_dir}"
    inside = real_root or root.resolve()
    real = refuse_links_out(folder, inside, shown, ["skills", *item.catalog_dir.split("/")])
    skill = load_skill(folder, shown_as=shown, memo=judge.memo.remember, real=real)
    return replace(skill, disk_root=str(inside), repo_folder=item.path.strip("/"))


def skip_lines(infos: list[ComponentInfo]) -> list[str]:
    """One line per cause a component was skipped: a host that did not resolve is said once for all of its."""
    lines: list[str] = []
    unresolved: dict[str, list[ComponentInfo]] = {}
    for info in infos:
        host = info.unresolved_host
        if host is not None:
            unresolved.setdefault(host, []).append(info)
        elif info.skipped is not None:
            lines.append(f"skipped: {info.skipped}")
    for host, group in unresolved.items():
        names = [g.repo.removeprefix("https://github.com/") for g in group]
        shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
        skills = sum(len(g.skills) for g in group)
        lines.append(f"skipped {_count(len(group), 'component')} on {host} ({_count(skills, 'skill')}), "
                     f"which could not be resolved (tried once): {shown}")  # fmt: skip
    return lines


def _count(n: int, one: str) -> str:
    return f"{n} {one}{'s' if n != 1 else ''}"


def open_components(
    components: list[Component], mirrors: dict[str, str], open_repository: OpenRepository, progress: Progress
) -> list[tuple[SourceTree | None, str]]:
    """Each component's repository opened (or why not), in the components' order.

    A fetch waits on the network, so they run :data:`OPEN_AT_ONCE` at a time.
    The first component of each host goes alone first: a host whose name
    does not resolve then costs one failed fetch, not one per component, and
    no burst of lookups of a name that will not resolve (a resolver may drop
    simultaneous queries and retry seconds later).
    """
    unresolved: dict[str, str] = {}  # host -> why, once a fetch from it could not even resolve its name
    opened: dict[int, tuple[SourceTree | None, str]] = {}
    first_of_host: dict[str, int] = {}
    for i, component in enumerate(components):
        where = mirrors.get(repo_key(component.repo), component.url) if component.problem is None else ""
        if where == component.url:
            first_of_host.setdefault(urlsplit(where).hostname or "", i)
    progress(f"opening the repositories of {len(components)} components", None)
    for i in first_of_host.values():
        opened[i] = _open(components[i], mirrors, open_repository, unresolved)
    rest = [i for i in range(len(components)) if i not in opened]

    def one(i: int) -> tuple[SourceTree | None, str]:
        return _open(components[i], mirrors, open_repository, unresolved)

    with ThreadPoolExecutor(max_workers=OPEN_AT_ONCE) as pool:
        opened.update(zip(rest, pool.map(one, rest), strict=True))
    return [opened[i] for i in range(len(components))]


def _open(
    component: Component, mirrors: dict[str, str], open_repository: OpenRepository, unresolved: dict[str, str]
) -> tuple[SourceTree | None, str]:
    if component.problem is not None:
        return None, component.problem
    where = mirrors.get(repo_key(component.repo), component.url)
    remote = where == component.url
    # A name that did not resolve a moment ago will not now: one failure, not one per component.  The host is
    # the one git would really try (a url.*.insteadOf may send this repository elsewhere), asked only then.
    if remote and unresolved:
        host = urlsplit(effective_url(where)).hostname or ""
        if host in unresolved:
            return None, f"cannot reach {component.url} at {component.ref}: {unresolved[host]}"
    try:
        return open_repository(where, component.ref), ""
    except AuditError as exc:
        reason = str(exc).removeprefix(f"{component.url}: ")  # the URL is said once (a mirror's dir is kept)
        said = NAME_NOT_RESOLVED.search(reason) if remote else None
        if said:  # one cause for every component of the host, this first one's too
            host = said.group(1) or urlsplit(effective_url(where)).hostname or ""
            reason = unresolved[host] = f"{host}{UNRESOLVED}"
        return None, f"cannot reach {component.url} at {component.ref}: {reason}"



def refuse_links_out(folder: Path, inside: Path, shown: str, below: list[str] | None = None) -> Path:
    """``folder``'s real path; :class:`SpecError` when ``folder``, or a file or folder in it, is a link that
    leaves the catalog whose real path is ``inside``.  ``below``: the parts of ``folder`` under the catalog.

    A catalog arrives in pull requests: a skill folder linked to ``/home/someone`` would have that folder's
    names listed in the report.  A link that stays inside the catalog is an ordinary file.
    """
    real = _real_below(inside, below) if below else None
    real = real or folder.resolve()
    if not real.is_relative_to(inside):  # the folder, or skills/ above it, is a link out
        raise SpecError(f"{shown}: a link to a place outside the catalog; not followed")
    for rel, entry in entries_under(folder):
        if entry.is_symlink() and not Path(entry.path).resolve().is_relative_to(inside):
            raise SpecError(f"{shown}/{rel}: a link to a place outside the catalog; not followed")
    return real


def _real_below(inside: Path, parts: list[str]) -> Path | None:
    """The real path of ``parts`` under the real folder ``inside`` when no part is a link (one lstat each, not
    ``resolve()``'s of every folder from the file system's root); None when one is, or is ``.`` or ``..``."""
    real = inside
    for part in parts:
        real = real / part
        if part in ("", ".", "..") or os.path.islink(real):
            return None
    return real


