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
from typing import Callable

import git

from .audit import Judge, audit
from .errors import SpecError, UsageError
from .model import AuditReport, LineRange, Skill, SkillSpec, Spec
from .source.git import GitTree, resolve_commit
from .spec.skill import load_skill_from_tree, parse_skill_md


@dataclass(frozen=True)
class CommitInfo:
    sha: str
    date: str  # ISO 8601, committer time
    subject: str


@dataclass(frozen=True)
class Event:
    """A status change: ``before`` -> ``after`` (None: the quote or claim did not exist)."""

    kind: str  # "anchor" | "claim"
    key: str  # PATH:START-END, or the claim id
    commit: CommitInfo
    before: str | None
    after: str | None
    suggested: LineRange | None = None  # for a quote that is moved after this commit
    skill: str = ""


@dataclass
class History:
    since: str | None
    until: str
    events: list[Event] = field(default_factory=list)
    commits_in_range: int = 0
    commits_touching: int = 0
    skill_paths: list[str] = field(default_factory=list)  # where the skill lived, oldest first (in-repo)


@dataclass(frozen=True)
class SkillSource:
    """Where a skill comes from: a fixed directory on disk, or a path inside the repository."""

    name: str  # the registry entry's name
    disk: Skill | None = None
    in_repo: str | None = None


# (kind, skill, key) -> (status, suggested range)
Snapshot = dict[tuple[str, str, str], tuple[str, LineRange | None]]


def history(
    base: GitTree,
    skills: list[SkillSource],
    spec: Spec | None,
    since: str | None,
    until: str,
    judge: Judge,
    on_commit: Callable[[int, int], None] | None = None,
) -> History:
    """The timeline of every quote and claim of ``skills`` over ``since..until``."""
    repo = base.repo
    until_sha = base.commit.hexsha
    since_sha = _resolve(repo, since) if since else None
    if since_sha is not None and not _is_ancestor(repo, since_sha, until_sha):
        raise UsageError(
            f"--since {since} is not an ancestor of --until {until}: no history runs from one to the other "
            "(are they the wrong way round?)"
        )
    result = History(since, until)
    locations = {s.name: _locations(repo, until_sha, s.in_repo) for s in skills if s.in_repo}
    if since_sha is None and locations and not any(s.disk for s in skills):
        # Skills that live in the repository have no history before they first appear.
        firsts = [locs[0][0] for locs in locations.values()]
        first = firsts[0] if len(firsts) == 1 else repo.git.merge_base("--octopus", *firsts).strip()
        parents = repo.commit(first).parents
        span = f"{parents[0].hexsha}..{until_sha}" if parents else until_sha
    else:
        span = f"{since_sha}..{until_sha}" if since_sha else until_sha
    paths: set[str] = set()
    for source in skills:
        entry = spec.skill(source.name) if spec else None
        paths |= {c.path for claim in (entry.claims if entry else ()) for c in claim.conditions}
        if source.disk is not None:
            paths |= {q.path for q in source.disk.quotes}
        for _, folder in locations.get(source.name, []):
            if folder is not None and folder not in result.skill_paths:
                result.skill_paths.append(folder)
    paths |= set(result.skill_paths) | _quoted_paths(repo, until_sha, result.skill_paths)

    result.commits_in_range = int(repo.git.rev_list("--first-parent", "--count", span))
    touching = repo.git.rev_list("--first-parent", "--reverse", span, "--", *sorted(paths)).split() if paths else []
    result.commits_touching = len(touching)
    walk = ([since_sha] if since_sha else []) + touching

    previous: Snapshot = {}
    folder_at: dict[str, str | None] = {}
    follow = {name: dict(locs) for name, locs in locations.items()}
    skill_cache: dict[tuple[str, str | None, str | None], Skill] = {}
    for i, sha in enumerate(walk):
        if on_commit:
            on_commit(i, len(walk))
        tree = base.at(sha)
        pairs: list[tuple[Skill, SkillSpec | None]] = []
        for source in skills:
            entry = spec.skill(source.name) if spec else None
            if source.disk is not None:
                pairs.append((source.disk, entry))
                continue
            if sha in follow[source.name]:
                folder_at[source.name] = follow[source.name][sha]
            elif source.name not in folder_at:
                folder_at[source.name] = _folder_in(tree, locations[source.name])
            folder = folder_at[source.name]
            skill = _skill_at(tree, folder, source.name, skill_cache) if folder else None
            if skill is not None:
                pairs.append((skill, entry))
        current = _snapshot(audit(pairs, tree, spec, judge, promises=False), [s.name for s in skills])
        info = _commit_info(tree.commit)
        for kind, skill_name, item in sorted(set(previous) | set(current)):
            before, after = previous.get((kind, skill_name, item)), current.get((kind, skill_name, item))
            was, now = (before[0] if before else None), (after[0] if after else None)
            if was != now:
                suggested = after[1] if after else None
                result.events.append(Event(kind, item, info, was, now, suggested, skill_name))
        previous = current
    return result


def _snapshot(report: AuditReport, names: list[str]) -> Snapshot:
    out: Snapshot = {}
    by_name = {skill.name: skill for skill in report.skills}
    for name in names:
        skill = by_name.get(name)
        for match in skill.anchors if skill else ():
            out[("anchor", name, match.quote.key)] = (match.status.value, match.suggested)
        for claim in skill.claims if skill else ():
            out[("claim", name, claim.id)] = (claim.verdict.value, None)
    return out


def _resolve(repo: git.Repo, ref: str) -> str:
    return resolve_commit(repo, ref, str(repo.git_dir))


def _is_ancestor(repo: git.Repo, older: str, newer: str) -> bool:
    try:
        repo.git.merge_base("--is-ancestor", older, newer)
    except git.GitCommandError:
        return False
    return True


def _commit_info(commit: git.Commit) -> CommitInfo:
    return CommitInfo(commit.hexsha, commit.committed_datetime.isoformat(), commit.summary)  # type: ignore[arg-type]


def _locations(repo: git.Repo, until: str, folder: str | None) -> list[tuple[str, str | None]]:
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
        added = repo.git.log(
            "-1", "--first-parent", "--diff-filter=A", "--format=%H", tip, "--", f"{folder}/SKILL.md"
        ).strip()
        if not added:
            break
        chain.append((added, folder))
        parents = [p.hexsha for p in repo.commit(added).parents]
        if not parents:
            break
        renames = repo.git.diff(
            "--name-status", "-M50%", "--diff-filter=R", parents[0], added, "--", ":(glob)**/SKILL.md"
        )
        previous = [ln.split("\t")[1] for ln in renames.splitlines() if ln.endswith(f"\t{folder}/SKILL.md")]
        if not previous:
            break
        folder, tip = previous[0].rsplit("/", 1)[0], parents[0]
    if not chain:
        raise SpecError(f"{folder}: no SKILL.md there in the history of {until[:12]}")
    chain.reverse()
    return chain


def _folder_in(tree: GitTree, locations: list[tuple[str, str | None]]) -> str | None:
    """Where the skill is in ``tree``: the newest of its known folders that holds a SKILL.md there."""
    for _, folder in reversed(locations):
        if folder is not None and tree.blob_id(f"{folder}/SKILL.md") is not None:
            return folder
    return None


def _skill_at(
    tree: GitTree, folder: str, name: str, cache: dict[tuple[str, str | None, str | None], Skill]
) -> Skill | None:
    """The skill in ``folder`` at this tree, under its registry name; parsed once per content."""
    skill_md = tree.blob_id(f"{folder}/SKILL.md")
    if skill_md is None:
        return None
    key = (folder, skill_md, tree.blob_id(f"{folder}/card.yaml"))
    if key not in cache:
        cache[key] = replace(load_skill_from_tree(tree, folder), name=name)
    return cache[key]


def _quoted_paths(repo: git.Repo, until: str, folders: list[str]) -> set[str]:
    """Every path any version of the SKILL.md in ``folders`` up to ``until`` quotes (one git log)."""
    if not folders:
        return set()
    skill_mds = [f"{folder}/SKILL.md" for folder in folders]
    out = repo.git.log("--first-parent", "--format=%x00%H", "--name-only", until, "--", *skill_mds)
    paths: set[str] = set()
    for chunk in out.split("\x00")[1:]:
        sha, *changed = [line for line in chunk.splitlines() if line.strip()]
        for path in changed:
            try:
                blob = repo.commit(sha).tree / path  # through git's object reader, no new process
                paths |= {q.path for q in parse_skill_md(blob.data_stream.read().decode("utf-8", "replace"))}
            except (KeyError, ValueError, git.GitError, SpecError):
                continue  # deleted there, or a version that does not parse: it quotes nothing we can use
    return paths
