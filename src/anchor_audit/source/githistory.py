"""Questions about a repository's history, asked of a commit's tree by ``history``, ``impact`` and ``--ref validated``.

Each is one git command over the object database (rev-list, log, diff):
no blob is read, so they cost the same in a blob-less partial clone.

Asked of commit shas, an answer never changes (a sha names its whole
history), so with a memo (the run's result cache, given when the tree is opened) each is
asked of git once and remembered across runs.  A shallow repository is never
remembered: its history ends early and may be deepened later.  Replace refs
are not followed (``GIT_NO_REPLACE_OBJECTS``), so they cannot change an answer.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from typing import Any, Callable, Sequence, TypeVar

import git

from ..store.memo import Memo
from ..store.recent import Recent
from .deletions import DeletionChain
from .folderlog import log_folders
from .gitenv import DIFF_FLAGS, git_env
from .gitrun import resolve_commit

T = TypeVar("T")
_SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
_BLAMED = re.compile(r"^(?:[0-9a-f]{40}|[0-9a-f]{64}) \d+ \d+")  # a porcelain blame's line header: sha, from, to
MAX_AUTHOR_COMMITS = 200  # commits to a folder read for its recent authors
MAX_MOVE_COMMITS = 32  # commits whose renames one ``removals`` question reads
MAX_SYNC_COMMITS = 500  # commits to a folder one ``version_matching`` question compares with a copy
# A folder logged with others: no pathspec magic or glob, which would match paths the records are not sorted by.
_PLAIN_FOLDER = re.compile(r"[^:*?\[\\][^*?\[\\]*/")
MAX_BLAMED = 4_096  # (commit, path) -> its blame, kept for the latest of a run (a shared list per version)




class GitHistory:
    """History questions about a repository, asked from one of its commits: a git tree's ``history``."""

    def __init__(
        self, repo: git.Repo, commit: git.Commit, memo: Memo | None = None, kin: "GitHistory | None" = None
    ) -> None:
        """``kin``: the history of another commit of ``repo`` (the tree at() was asked of), whose shared answers
        this one shares."""
        self.repo = repo
        self.commit = commit
        self.memo = memo  # a persistent memo by content key (the run's); None in a bare library use
        # what the first-parent line deleted, listed once for every tree at() opens from this one
        self.chain: DeletionChain = kin.chain if kin else DeletionChain(repo, commit.hexsha, self._remembered)
        self._blamed: Recent[list[str]] = kin._blamed if kin is not None else Recent(MAX_BLAMED, 64 * MAX_BLAMED)
        self._folder_logs: dict[str, list[str] | None] = {}  # folder -> its records at this commit (folderlog)

    def _remembered(self, question: str, shas: list[str], args: list[Any], ask: Callable[[], Any]) -> Any:
        """``ask()``, or its remembered answer when every ref in ``shas`` is a full commit sha."""
        if self.memo is None or not all(_SHA.fullmatch(sha) for sha in shas) or self.shallow:
            return ask()
        key = "git|" + json.dumps([question, shas, args])
        return self.memo(key, lambda: {"answer": ask()})["answer"]

    @property
    def shallow(self) -> bool:
        """Whether the history ends early (a shallow clone): what it says of the past may be wrong."""
        return os.path.exists(os.path.join(self.repo.common_dir, "shallow"))

    def blame(self, path: str, parent_holds_it: str | None = None) -> list[str]:
        """For each line of ``path`` at this commit, the commit that last changed it (``git blame``).

        ``parent_holds_it``: the first parent, where ``path`` is the same blob.  git then passes the whole blame
        to that parent, so the answer is the parent's where it was asked (a replay over a history asks each
        SKILL.md at every commit: git is asked once per version of it)."""
        found = self._blamed.get(f"{parent_holds_it}\0{path}") if parent_holds_it is not None else None

        def ask() -> list[str]:
            out = self.repo.git.blame("--porcelain", self.commit.hexsha, "--", path)
            return [line.split(" ", 1)[0] for line in out.split("\n") if _BLAMED.match(line)]

        if found is None:
            found = self._remembered("blame", [self.commit.hexsha], [path], ask)
        self._blamed.put(f"{self.commit.hexsha}\0{path}", found, len(found))
        return found

    def definition_removed(self, path: str, pattern: str, since: str) -> tuple[str, str] | None:
        """(sha, UTC day) of the newest commit in ``since``..this one whose diff of ``path`` adds or removes a
        line matching ``pattern`` (``-G``: an extended regex); None when none does."""

        def ask() -> list[str] | None:
            out = self.repo.git.log("-1", "--format=%H %ct", "-G", pattern, *DIFF_FLAGS,
                                    f"{since}..{self.commit.hexsha}", "--", path).split()  # fmt: skip
            return [out[0], time.strftime("%Y-%m-%d", time.gmtime(int(out[1])))] if len(out) == 2 else None

        found = self._remembered("definition-removed", [since, self.commit.hexsha], [path, pattern], ask)
        return (found[0], found[1]) if found else None

    def changes_since(self, path: str, since: str, limit: int) -> list[tuple[str, str]]:
        """(sha, UTC day) of the first ``limit`` first-parent commits in ``since``..this one that changed ``path``,
        oldest first."""

        def ask() -> list[list[str]]:
            out = self.repo.git.log("--first-parent", "--reverse", "--format=%H %ct", *DIFF_FLAGS,
                                    f"{since}..{self.commit.hexsha}", "--", path).split("\n")  # fmt: skip
            pairs = [line.split() for line in out if line.strip()][:limit]
            return [[sha, time.strftime("%Y-%m-%d", time.gmtime(int(t)))] for sha, t in pairs]

        found = self._remembered("changes-since", [since, self.commit.hexsha], [path, str(limit)], ask)
        return [(sha, day) for sha, day in found]

    def added_after(self, path: str, tip: str) -> tuple[str, str] | None:
        """(sha, UTC day) of the first first-parent commit in this one..``tip`` that added ``path``; None: none."""

        def ask() -> list[str]:
            out = self.repo.git.log("--first-parent", "--reverse", "--diff-filter=A", "--format=%H %ct",
                                    f"{self.commit.hexsha}..{tip}", "--", path).split("\n")  # fmt: skip
            first = next((line.split() for line in out if line.strip()), None)
            return [] if first is None else [first[0], time.strftime("%Y-%m-%d", time.gmtime(int(first[1])))]

        found = self._remembered("added-after", [self.commit.hexsha, tip], [path], ask)
        return (found[0], found[1]) if found else None

    @property
    def summary(self) -> tuple[str, str]:
        """(committer time in ISO 8601, subject line) of this tree's commit."""
        return self.commit.committed_datetime.isoformat(), str(self.commit.summary)

    def resolve(self, ref: str) -> str:
        """The full sha ``ref`` names in this repository (a one-line :class:`SourceError` if none)."""
        return resolve_commit(self.repo, ref, str(self.repo.git_dir))

    def is_ancestor(self, older: str, newer: str) -> bool:
        def ask() -> bool:
            try:
                self.repo.git.merge_base("--is-ancestor", older, newer)
            except git.GitCommandError:
                return False
            return True

        return bool(self._remembered("is_ancestor", [older, newer], [], ask))

    def first_parent(self, sha: str) -> str | None:
        parents = self.repo.commit(sha).parents
        return parents[0].hexsha if parents else None

    def merge_base(self, shas: list[str]) -> str:
        if len(shas) == 1:
            return shas[0]
        ask = lambda: self.repo.git.merge_base("--octopus", *shas).strip()  # noqa: E731
        return str(self._remembered("merge_base", sorted(shas), [], ask))

    def count_commits(self, span: str) -> int:
        """First-parent commits in ``span`` (``A..B`` or ``B``)."""
        ask = lambda: int(self.repo.git.rev_list("--first-parent", "--count", span))  # noqa: E731
        return int(self._remembered("count", span.split(".."), [], ask))

    def commits_touching(self, span: str, paths: set[str]) -> list[str]:
        """First-parent commits of ``span`` that change any of ``paths``, oldest first."""
        if not paths:
            return []
        ordered = sorted(paths)
        ask = lambda: self.repo.git.rev_list("--first-parent", "--reverse", span, "--", *ordered).split()  # noqa: E731
        return list(self._remembered("touching", span.split(".."), ordered, ask))

    def added_in(self, tip: str, path: str) -> str | None:
        """The newest first-parent commit up to ``tip`` that added ``path``."""

        def ask() -> str | None:
            out = self.repo.git.log(
                "-1", "--first-parent", "-M", "--diff-filter=A", "--format=%H", *DIFF_FLAGS, tip, "--", path
            )
            return out.strip() or None

        return self._remembered("added_in", [tip], [path], ask)  # type: ignore[no-any-return]

    def renamed_from(self, parent: str, sha: str, path: str) -> str | None:
        """The SKILL.md ``path`` had before commit ``sha`` renamed it (rename detection over SKILL.md files only)."""

        def ask() -> str | None:
            out = self.repo.git.diff_tree(
                "-r", "-z", "--name-status", "-M50%", "--diff-filter=R", parent, sha, "--", ":(glob)**/SKILL.md"
            )
            fields = out.split("\0")
            for i in range(0, len(fields) - 2, 3):  # R<score>, old path, new path
                if fields[i].startswith("R") and fields[i + 2] == path:
                    return fields[i + 1]
            return None

        return self._remembered("renamed_from", [parent, sha], [path], ask)  # type: ignore[no-any-return]

    def removals(self, paths: list[str]) -> dict[str, tuple[str, str, str | None, str | None]]:
        """For each of ``paths`` (files, or folders ending in ``/``; exact, or the tail of a longer path) that a
        commit up to this one removed: path -> (the path it was, the newest commit removing it, where that commit
        moved it by git's rename detection (50% similar) or None, that commit's UTC day). One index of the
        history's deletions for all (:mod:`.deletions`); a folder moved when the files that commit renamed went to
        one folder."""

        def ask() -> dict[str, list[str | None]]:
            removed = self._on_chain(lambda chain: chain.removed_up_to(self.commit.hexsha, set(paths))) or {}
            found: dict[str, list[str | None]] = {}
            shas = sorted({sha for _, sha in removed.values()})[:MAX_MOVE_COMMITS]
            renames = {sha: self._renames(sha) for sha in shas}
            days = self._days(sorted({sha for _, sha in removed.values()}))
            for p, (was, sha) in removed.items():
                found[p] = [was, sha, _moved(was, renames[sha]) if sha in renames else None, days.get(sha)]
            return found

        answer = self._remembered("removals-dated", [self.commit.hexsha], sorted(set(paths)), ask)
        return {p: (str(was), str(sha), new, day) for p, (was, sha, new, day) in answer.items()}

    def _days(self, shas: list[str]) -> dict[str, str]:
        """The UTC day (YYYY-MM-DD) each commit was committed, in one git call (remembered by the commits)."""
        if not shas:
            return {}

        def ask() -> dict[str, str]:
            out = self.repo.git.show("-s", "--format=%H %ct", *shas)
            pairs = (line.split(" ", 1) for line in out.splitlines() if " " in line)
            return {sha: time.strftime("%Y-%m-%d", time.gmtime(int(stamp))) for sha, stamp in pairs}

        return dict(self._remembered("days", list(shas), [], ask))

    def tags(self) -> list[tuple[str, str]]:
        """(name, the commit it names) of every tag of the repository, an annotated tag peeled to its commit."""
        out = self.repo.git.for_each_ref("refs/tags", "--format=%(refname:strip=2)%09%(*objectname)%09%(objectname)")
        rows = (line.split("\t") for line in out.splitlines())
        return [(name, peeled or obj) for name, peeled, obj in (r for r in rows if len(r) == 3)]

    def authors(self, folder: str, limit: int) -> list[str]:
        """The last ``limit`` distinct authors (``%aN``: as git records them, .mailmap applied) of the commits up
        to this one that touched ``folder``, newest first."""

        def ask() -> list[str]:
            out = self.repo.git.log(f"-n{MAX_AUTHOR_COMMITS}", "--format=%aN", self.commit.hexsha, "--", folder + "/")
            names = dict.fromkeys(name.strip() for name in out.splitlines() if name.strip())
            return list(names)[:limit]

        return self._remembered("authors", [self.commit.hexsha], [folder, limit], ask)  # type: ignore[no-any-return]

    def _on_chain(self, ask: Callable[[DeletionChain], T | None]) -> T | None:
        """``ask`` of the deletion chain this commit is on: the shared one, else (not on its first-parent line)
        a chain of its own."""
        found = ask(self.chain)
        if found is None:
            self.chain = DeletionChain(self.repo, self.commit.hexsha, self._remembered)
            found = ask(self.chain)
        return found

    def _renames(self, sha: str) -> list[tuple[str, str]]:
        """(old path, new path) of each rename commit ``sha`` made (against its first parent); remembered by
        ``sha``, which every commit after it asks about alike (an impact replayed over a history)."""

        def ask() -> list[list[str]]:
            out = self.repo.git.diff_tree("-r", "-z", "--name-status", "-M50%", "--diff-filter=R", f"{sha}^", sha)
            fields = out.split("\0")
            return [[fields[i + 1], fields[i + 2]] for i in range(0, len(fields) - 2, 3) if fields[i].startswith("R")]

        return [(old, new) for old, new in self._remembered("renames", [sha], [], ask)]

    def changed_paths(self, base: str) -> set[str]:
        """Paths whose blob differs between ``base`` and this commit (tree-level: no blob is read)."""
        out = self.repo.git.diff_tree("-r", "-z", "--no-renames", "--name-only", base, self.commit.hexsha)
        return {path for path in out.split("\0") if path}

    def hunks(self, base: str, path: str) -> list[tuple[int, int, int, int]]:
        """(old start, old count, new start, new count) of each change to ``path`` from ``base`` to this commit."""
        out = self.repo.git.diff_tree("-p", "-U0", "--no-renames", *DIFF_FLAGS, base, self.commit.hexsha, "--", path)
        found = []
        for match in re.finditer(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@", out, re.M):
            a, b, c, d = match.groups()
            found.append((int(a), int(b if b is not None else 1), int(c), int(d if d is not None else 1)))
        return found

    def commit_on_or_before(self, day: str, tip: str) -> str | None:
        """The last first-parent commit of ``tip`` committed on or before the end of ``day`` (YYYY-MM-DD, UTC)."""

        def ask() -> str | None:
            out = self.repo.git.rev_list("-1", "--first-parent", f"--before={day} 23:59:59 +0000", tip)
            return out.strip() or None

        return self._remembered("on_or_before", [tip], [day], ask)  # type: ignore[no-any-return]

    def versions_of(self, until: str, paths: list[str]) -> list[tuple[str, list[str]]]:
        """(commit, the given paths it changed) for each first-parent commit up to ``until`` touching them."""

        def ask() -> list[tuple[str, list[str]]]:
            out = self.repo.git.log(
                "-z", "--first-parent", "-M", "--format=%x01%H", "--name-only", *DIFF_FLAGS, until, "--", *paths
            )
            versions = []
            for chunk in out.split("\x01")[1:]:  # \x01SHA \0 \n name \0 name \0 ...
                sha, _, names = chunk.partition("\0")
                versions.append((sha, [n for n in names.removeprefix("\n").split("\0") if n]))
            return versions

        return [(sha, list(names)) for sha, names in self._remembered("versions_of", [until], paths, ask)]

    def version_matching(
        self, folder: str, wanted: dict[str, str], now: dict[str, str], siblings: Sequence[str] = ()
    ) -> tuple[str | None, str | None, int, int]:
        """(commit, its date, commits to ``folder`` after it, commits compared): the newest first-parent commit
        whose ``folder`` holds exactly ``wanted`` (path under it -> blob sha), ``now`` being what it holds at
        this commit; (None, None, 0, n) when none of the last :data:`MAX_SYNC_COMMITS` does.  Each commit's
        changes to the folder, undone one by one (no blob is read), from one ``git log`` of the folder and its
        ``siblings`` (folders the caller asks about too, from the same commit: :mod:`.folderlog`)."""
        prefix = folder.strip("/") + "/"
        tip = self.commit.hexsha

        def ask() -> list[Any]:
            state = dict(now)
            chunks = self._folder_records(prefix, siblings)  # SHA DATE \0 \n:META \0 PATH \0 :META \0 PATH ...
            for k, chunk in enumerate(chunks):
                head, *fields = chunk.split("\0")
                if state == wanted:
                    sha, _, date = head.partition(" ")
                    return [sha, date, k, k + 1]
                for meta, path in zip(fields[::2], fields[1::2], strict=False):
                    old = meta.strip().split(" ")[2] if meta.strip().count(" ") >= 4 else ""
                    if not path.startswith(prefix) or not old:
                        continue
                    if set(old) == {"0"}:  # the commit added the file: before it, there was none
                        state.pop(path[len(prefix) :], None)
                    else:
                        state[path[len(prefix) :]] = old
            return [None, None, 0, len(chunks)]

        try:
            args = [prefix, sorted(wanted.items())]  # the blobs asked about are part of the question
            sha, date, behind, searched = self._remembered("version_matching", [tip], args, ask)
        except git.GitCommandError:  # a shallow history's end, a lean copy that cannot list a tree
            return None, None, 0, 0
        return sha, date, behind, searched

    def _folder_records(self, prefix: str, siblings: Sequence[str]) -> list[str]:
        """The log records of the last :data:`MAX_SYNC_COMMITS` first-parent commits that changed ``prefix``:
        from the one log of it and its ``siblings`` (made on the first question of them), or of it alone."""
        if prefix not in self._folder_logs and siblings and _PLAIN_FOLDER.fullmatch(prefix):
            folders = sorted({prefix, *(f for s in siblings if _PLAIN_FOLDER.fullmatch(f := s.strip("/") + "/"))})
            try:
                self._folder_logs.update(log_folders(self.repo, self.commit.hexsha, folders, MAX_SYNC_COMMITS))
            except git.GitCommandError:  # each is then logged alone: one folder's fault stays its own
                self._folder_logs.update(dict.fromkeys(folders))
        logged = self._folder_logs.get(prefix)
        if logged is not None:
            self._folder_logs[prefix] = None  # each copy's folder is asked once: a catalog holds no log it used
        if logged is None:  # not among the folders logged together, cut short there, or asked again: alone
            logged = log_folders(self.repo, self.commit.hexsha, [prefix], MAX_SYNC_COMMITS)[prefix] or []
        return logged


def _moved(path: str, renamed: list[tuple[str, str]]) -> str | None:
    """Where a commit's renames took ``path``: a file's new path, or the one folder a folder's files went to."""
    if not path.endswith("/"):
        return next((new for old, new in renamed if old == path), None)
    folders = {new[: len(new) - len(old) + len(path)] for old, new in renamed if old.startswith(path)}
    folders = {f for f in folders if f.endswith("/")}  # the same tail under another folder
    return folders.pop() if len(folders) == 1 else None


MAX_DATED_COMMITS = 20_000  # commits of a catalog's own history read for the last change to each folder


def folder_dates(work_tree: str, under: str) -> dict[str, str]:
    """The date (YYYY-MM-DD) of the last commit to each folder directly under ``under`` in the git work tree at
    ``work_tree`` (a catalog checkout), from one ``git log``; empty when it is not a git work tree.  Git runs in
    the neutral environment (no pager, signature, hook or diff command from the repository's config)."""
    if not os.path.exists(os.path.join(work_tree, ".git")):
        return {}
    prefix = under.strip("/") + "/"
    try:
        done = subprocess.run(
            ["git", "-C", work_tree, "log", "-z", f"-n{MAX_DATED_COMMITS}", "--format=%x01%cs", "--name-only",
             "--no-renames", *DIFF_FLAGS, "HEAD", "--", prefix],
            capture_output=True, env={**os.environ, **git_env()}, stdin=subprocess.DEVNULL, timeout=60,
        )  # fmt: skip
    except (OSError, subprocess.TimeoutExpired):
        return {}
    dates: dict[str, str] = {}
    for chunk in done.stdout.decode("utf-8", "replace").split("\x01")[1:] if done.returncode == 0 else ():
        date, *names = chunk.split("\0")
        for name in names:
            folder = name.strip("\n").removeprefix(prefix).split("/", 1)[0]
            if folder and name.strip("\n").startswith(prefix):
                dates.setdefault(folder, date.strip())  # newest first: the first date seen is the last change
    return dates
