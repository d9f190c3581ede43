"""When did each quote and claim change?  Audit the commits that can change anything.

Only a commit that touches a quoted or conditioned file, or the skill itself,
can change a status, so git lists those (``rev-list --first-parent`` with
paths) and only they are audited, oldest first, each change named by the
first commit where it shows.  Results are shared by content (a blob audited
once is never audited again), so a long history costs little more than the
distinct blobs it contains.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from ..audit.judge import Judge
from ..audit.kept import kept_key, recalled, unsettled
from ..audit.skills import audit, spread
from ..checks.reads import reads
from ..errors import NotCarried, SpecError, UnreadableFile, UsageError
from ..model import AuditReport, ChangeKind, Skill, SkillSpec, Spec, Tail
from ..source import Progress, no_progress
from ..source.git import GitTree, fetch_blobs
from ..spec.skill import load_skill_from_tree, parse_skill_md
from .compare import Change, compare


@dataclass(frozen=True)
class CommitInfo:
    sha: str
    date: str  # ISO 8601, committer time
    subject: str


@dataclass(frozen=True)
class Event:
    """A status change (as ``diff`` reports one) and the first commit where it shows."""

    commit: CommitInfo
    change: Change


@dataclass
class History:
    since: str | None
    until: str
    events: list[Event] = field(default_factory=list)
    commits_in_range: int = 0
    commits_touching: int = 0
    skill_paths: list[str] = field(default_factory=list)  # where the skill lived, oldest first (in-repo)
    unsettled: str | None = None  # why a commit's audit is not the code's whole answer (a bound, a submodule)


@dataclass(frozen=True)
class SkillSource:
    """Where a skill comes from: a fixed directory on disk, or a path inside the repository."""

    name: str  # the registry entry's name
    disk: Skill | None = None
    in_repo: str | None = None


def history(
    base: GitTree,
    skills: list[SkillSource],
    spec: Spec | None,
    since: str | None,
    until: str,
    judge: Judge,
    progress: Progress = no_progress,
    max_commits: int | None = None,
    jobs: int = 1,
) -> History:
    """The timeline of every quote and claim of ``skills`` over ``since..until``.

    Consecutive audits are compared with :func:`anchor_audit.runs.compare.compare`, the same comparison ``diff``
    makes; each change is named by its commit.  Over ``max_commits`` commits to audit: the counts, no timeline.
    The commits are audited over ``jobs`` worker processes, each a contiguous run of them.
    """
    until_sha = base.commit.hexsha
    since_sha = _since(base, since, until)
    result = History(since, until)
    locations = {s.name: skill_locations(base, until_sha, s.in_repo) for s in skills if s.in_repo}
    span = _span(base, since_sha, until_sha, locations, in_repo_only=not any(s.disk for s in skills))
    result.skill_paths = list(dict.fromkeys(f for s in skills for _, f in locations.get(s.name, []) if f is not None))
    skill_cache: dict[tuple[str, str | None, str | None], Skill] = {}
    paths = _disk_reads(base, skills, spec) | set(result.skill_paths)
    paths |= _quoted_paths(base, until_sha, result.skill_paths, judge)
    paths |= _cited_paths(base, skills, spec, skill_cache, judge)
    paths |= _gitlinks(base, since_sha, paths)

    result.commits_in_range = base.history.count_commits(span)
    touching = base.history.commits_touching(span, paths)
    result.commits_touching = len(touching)
    walk = ([since_sha] if since_sha else []) + touching
    if max_commits is not None and len(walk) > max_commits:  # a caller's bound: the counts, and no timeline
        return result
    trees = {sha: base.at(sha) for sha in walk}
    skill_files = [f"{folder}/{name}" for folder in result.skill_paths for name in ("SKILL.md", "card.yaml")]
    fetch_blobs((tree, path) for tree in trees.values() for path in skill_files)
    skills_at = _skills_along(walk, trees, skills, spec, locations, skill_cache, judge)
    # What the audits read, brought in one fetch (a lean mirror would fetch each file of each commit on its first
    # read); not for a commit whose every skill's audit is kept.
    files = sorted(paths - set(result.skill_paths))
    todo = [trees[sha] for sha, pairs in zip(walk, skills_at, strict=True) if not _all_kept(pairs, trees[sha], judge)]
    fetch_blobs((tree, path) for tree in todo for path in files)
    audits = _audits(walk, trees, skills_at, spec, judge, progress, jobs if todo else 1)  # all kept: no fork
    result.unsettled = _unsettled(audits)
    previous = AuditReport(base.info, ())
    for sha, current in zip(walk, audits, strict=True):
        date, subject = trees[sha].history.summary
        info = CommitInfo(sha, date, subject)
        result.events += [Event(info, change) for change in compare(previous, current).changes if _event(change)]
        previous = current
    return result


def _unsettled(audits: list[AuditReport]) -> str | None:
    """Why a commit's audit is not the code's whole answer (the first such skill's reason), or None."""
    return next((why for report in audits for skill in report.skills if (why := unsettled(skill))), None)


def _audits(
    walk: list[str],
    trees: dict[str, GitTree],
    skills_at: list[list[tuple[Skill, SkillSpec | None]]],
    spec: Spec | None,
    judge: Judge,
    progress: Progress,
    jobs: int,
) -> list[AuditReport]:
    """The audit of each commit of the walk, over ``jobs`` workers (each a contiguous run of commits)."""

    def one(i: int) -> AuditReport:
        return audit(skills_at[i], trees[walk[i]], spec, judge, facts=False)  # a timeline compares statuses only

    def step(i: int) -> str:
        return f"auditing commit {i + 1} of {len(walk)}"

    return spread(len(walk), one, judge, progress, jobs, step, "commits audited")


def _skills_along(
    walk: list[str],
    trees: dict[str, GitTree],
    skills: list[SkillSource],
    spec: Spec | None,
    locations: dict[str, list[tuple[str, str | None]]],
    skill_cache: dict[tuple[str, str | None, str | None], Skill],
    judge: Judge,
) -> list[list[tuple[Skill, SkillSpec | None]]]:
    """The skills (with their entries) at each commit of the walk: an in-repo skill followed through its
    folder's renames, in order, since where it lies at one commit is where it lay at the last."""
    folder_at: dict[str, str | None] = {}
    follow = {name: dict(locs) for name, locs in locations.items()}
    out = []
    for sha in walk:
        pairs: list[tuple[Skill, SkillSpec | None]] = []
        for source in skills:
            entry = spec.skill(source.name) if spec else None
            if source.disk is not None:
                pairs.append((source.disk, entry))
                continue
            if sha in follow[source.name]:
                folder_at[source.name] = follow[source.name][sha]
            elif source.name not in folder_at:
                folder_at[source.name] = folder_in(trees[sha], locations[source.name])
            skill = _skill_at(trees[sha], folder_at[source.name], source.name, skill_cache, judge)
            pairs += [(skill, entry)] if skill is not None else []
        out.append(pairs)
    return out


def _all_kept(pairs: list[tuple[Skill, SkillSpec | None]], tree: GitTree, judge: Judge) -> bool:
    """Whether every skill's audit at this commit is kept (:mod:`anchor_audit.audit.kept`): nothing of it will be
    read."""
    keys = [kept_key(skill, entry, tree, True, False) for skill, entry in pairs]
    return all(key is not None and recalled(judge, key) is not None for key in keys)


def _since(base: GitTree, since: str | None, until: str) -> str | None:
    """``--since`` as a commit, which must be an ancestor of ``--until`` (this tree's commit)."""
    since_sha = base.history.resolve(since) if since else None
    if since_sha is not None and not base.history.is_ancestor(since_sha, base.commit.hexsha):
        raise UsageError(
            f"--since {since} is not an ancestor of --until {until}: no history runs from one to the other "
            "(are they the wrong way round?)"
        )
    return since_sha


def _gitlinks(base: GitTree, since_sha: str | None, paths: set[str]) -> set[str]:
    """The submodule folders of ``paths``: a file inside a submodule changes when the gitlink does, and
    path-limited git sees the submodule's folder only."""
    ends = [base] + ([base.at(since_sha)] if since_sha else [])
    return {link[0] for path in paths for end in ends if (link := end.gitlink_of(path)) is not None}


def _span(
    base: GitTree,
    since_sha: str | None,
    until_sha: str,
    locations: dict[str, list[tuple[str, str | None]]],
    in_repo_only: bool,
) -> str:
    """The commits to walk: from --since, else (skills that live in the repository only) from where they appear."""
    if since_sha is None and locations and in_repo_only:
        # Skills that live in the repository have no history before they first appear.
        parent = base.history.first_parent(base.history.merge_base([locs[0][0] for locs in locations.values()]))
        return f"{parent}..{until_sha}" if parent else until_sha
    return f"{since_sha}..{until_sha}" if since_sha else until_sha


def _disk_reads(base: GitTree, skills: list[SkillSource], spec: Spec | None) -> set[str]:
    """What the skills read from disk read at ``base`` (:func:`reads`, the same as check's and impact's);
    and every skill's conditions."""
    paths: set[str] = set()
    listing: list[str] | None = None  # the files at the range's end, for the tails card comments name
    for source in skills:
        entry = spec.skill(source.name) if spec else None
        paths |= {c.path for claim in (entry.claims if entry else ()) for c in claim.conditions}
        if source.disk is not None:
            read = reads(source.disk, entry)
            if read.tails and listing is None:
                listing = base.files_under("")
            paths |= read.resolve(listing or [])
    return paths


def _event(change: Change) -> bool:
    """A change the timeline shows: every quote's and claim's, and a promise's move from one status to another
    (the dozens of paths and links a skill cites are not listed as they first appear, only as they break)."""
    return change.kind is not ChangeKind.PROMISE or (change.before is not None and change.after is not None)


def _cited_paths(
    base: GitTree,
    skills: list[SkillSource],
    spec: Spec | None,
    cache: dict[tuple[str, str | None, str | None], Skill],
    judge: Judge,
) -> set[str]:
    """What the in-repository skills' prose cites at the range's end (:func:`reads`): the commits that change a
    path, a link's target or a command's module are in the walk, as quotes' are."""
    paths: set[str] = set()
    for source in (s for s in skills if s.in_repo):
        skill = _skill_at(base, source.in_repo, source.name, cache, judge)
        if skill is None:
            continue
        read = reads(skill, spec.skill(source.name) if spec else None)
        paths |= read.paths
        if read.tails:  # the files they name at this commit, remembered by it (else the whole tree is listed)
            paths |= _tails_at(base, read.tails, judge)
    return paths


def _tails_at(base: GitTree, tails: frozenset[Tail], judge: Judge) -> set[str]:
    def listed() -> dict[str, Any]:
        return {"found": sorted(p for p in base.files_under("") if any(t.matches(p) for t in tails))}

    return set(judge.memo.remember(f"tails|{base.commit.hexsha}|{sorted(repr(t) for t in tails)}", listed)["found"])


def skill_locations(tree: GitTree, until: str, folder: str | None) -> list[tuple[str, str | None]]:
    """Where the skill lived: (the commit that put SKILL.md there, folder), oldest first.

    Renames are followed from ``until`` back: where a folder's SKILL.md was
    added, git's rename detection (limited to SKILL.md files, so only those
    blobs are read) names the folder it came from.
    """
    assert folder is not None
    folder, tip = folder.strip("/"), until
    chain: list[tuple[str, str | None]] = []
    seen: set[str] = set()
    while folder not in seen:
        seen.add(folder)
        added = tree.history.added_in(tip, f"{folder}/SKILL.md")
        if not added:
            break
        chain.append((added, folder))
        parent = tree.history.first_parent(added)
        if parent is None:
            break
        previous = tree.history.renamed_from(parent, added, f"{folder}/SKILL.md")
        if previous is None:
            break
        folder, tip = previous.rsplit("/", 1)[0], parent
    if not chain:
        raise SpecError(f"{folder}: no SKILL.md there in the history of {until[:12]}")
    chain.reverse()
    return chain


def folder_in(tree: GitTree, locations: list[tuple[str, str | None]]) -> str | None:
    """Where the skill is in ``tree``: the newest of its known folders that holds a SKILL.md there."""
    for _, folder in reversed(locations):
        if folder is not None and tree.blob_id(f"{folder}/SKILL.md") is not None:
            return folder
    return None


def _skill_at(
    tree: GitTree, folder: str | None, name: str, cache: dict[tuple[str, str | None, str | None], Skill], judge: Judge
) -> Skill | None:
    """The skill in ``folder`` (None: none here) at this tree, under its registry name; parsed once per content."""
    if folder is None:
        return None
    skill_md = tree.blob_id(f"{folder}/SKILL.md")
    if skill_md is None:
        return None
    key = (folder, skill_md, tree.blob_id(f"{folder}/card.yaml"))
    if key not in cache:
        cache[key] = replace(load_skill_from_tree(tree, folder, judge.memo.remember), name=name)
    return cache[key]


def _quoted_paths(tree: GitTree, until: str, folders: list[str], judge: Judge) -> set[str]:
    """Every path any version of the SKILL.md in ``folders`` up to ``until`` quotes (one git log).

    Each version's paths are remembered by its blob, so a later run reads and parses none of them.
    """
    if not folders:
        return set()
    paths: set[str] = set()
    skill_mds = [f"{f}/SKILL.md" for f in folders]
    versions = [(tree.at(sha), changed) for sha, changed in tree.history.versions_of(until, skill_mds)]
    fetch_blobs((at, path) for at, changed in versions for path in changed)  # one fetch, not one per version
    for at, changed in versions:
        for path in changed:
            blob = at.blob_id(path)
            if blob is None:
                continue  # deleted there

            def quoted(at: GitTree = at, path: str = path) -> dict[str, list[str]]:
                try:
                    source = at.read(path)
                    return {"paths": sorted({q.path for q in parse_skill_md(source.text)} if source else set())}
                except (SpecError, UnreadableFile, NotCarried):
                    return {"paths": []}  # a version that does not parse or read quotes nothing we can use

            paths |= set(judge.memo.remember(f"quoted-paths|{blob}", quoted)["paths"])
    return paths
