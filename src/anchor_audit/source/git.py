"""Read files at a commit from a git object database, with GitPython.

Never a work tree: files come from the commit's tree, so a dirty or absent
checkout cannot change an audit.  A local repository (bare or not) is read in
place.  A remote is mirrored under the cache directory as a bare partial
clone: only the ref asked for is fetched, shallow (depth 1) and without blobs
(``--filter=blob:none``); git fetches the few blobs an audit reads on demand.
"""

from __future__ import annotations

import functools
import json
from typing import Callable, Iterable, Iterator, Sequence, TypeVar

import git

from ..errors import NotCarried, UnreadableFile
from ..model import SourceInfo, SourceKind
from ..store.cachedir import cache_root
from ..text.redact import redact
from . import MAX_FILE_BYTES, FolderVersion, Progress, Removal, SourceTree, decode, mirrored, no_progress, too_large
from .file import SourceFile, SourceFiles
from .githistory import GitHistory, Memo
from .gitrun import check_ref, check_repo, fetch_missing, first_line, is_partial, resolve_commit
from .gitsearch import TreeSearch, git_grep, git_grep_trees
from .gittrees import GITLINK_KIND, SYMLINK_KIND, TREE_KIND, TreeObjects
from .mirror import mirror
from .overlay import open_local
from .submodules import Submodules

T = TypeVar("T")

__all__ = ["GitTree", "Submodules", "as_git", "check_ref", "check_repo", "open_git", "resolve_commit"]


class GitTree:
    """The tree of one commit.  Trees of other commits of the same repository share its blob cache."""

    def __init__(
        self,
        repo: git.Repo,
        commit: git.Commit,
        info: SourceInfo,
        blobs: SourceFiles | None = None,
        submodules: "Submodules[GitTree] | None" = None,
        url: str | None = None,
        trees: TreeObjects | None = None,
        memo: Memo | None = None,
        kin: GitHistory | None = None,
        search: TreeSearch | None = None,
    ) -> None:
        self.repo = repo
        self.history = GitHistory(repo, commit, memo, kin)  # rev-list, log and diff questions, remembered by sha
        self.url = url or info.repo  # as given, credentials included: only for resolving submodule URLs
        self.commit = commit
        self.info = info
        self._blobs: SourceFiles = SourceFiles() if blobs is None else blobs
        self._entries: dict[str, git.Blob | None] = {}
        self._prefetched: set[str] = set()  # paths already brought (a history's, before each commit's audit)
        self._trees = TreeObjects(repo) if trees is None else trees  # shared by every tree at() opens
        self._search = TreeSearch(self._trees, functools.partial(git_grep_trees, repo)) if search is None else search
        self.submodules: Submodules[GitTree] = submodules or Submodules(open_git)

    def at(self, sha: str, ref: str | None = None) -> "GitTree":
        """The tree of another commit of this repository."""
        commit = self.repo.commit(sha)
        info = SourceInfo(self.info.repo, ref or sha, commit.hexsha, SourceKind.GIT, date=_date(commit))
        shared = self.history.memo, self.history, self._search
        return GitTree(self.repo, commit, info, self._blobs, self.submodules, self.url, self._trees, *shared)

    def blob_id(self, path: str) -> str | None:
        """The sha of the blob at ``path`` (None: no such file); reads no content."""
        inner = self._submodule_of(path)
        if inner is not None:
            return inner[0].blob_id(inner[1])
        obj = self._entry(path)
        return None if obj is None else obj.hexsha

    def read(self, path: str) -> SourceFile | None:
        inner = self._submodule_of(path)
        if inner is not None:
            source = inner[0].read(inner[1])
            return None if source is None else SourceFile(path, source.text, source.blob)
        obj = self._entry(path)
        if obj is None:
            return None
        cached = self._blobs.get(obj.hexsha)
        if cached is not None and cached.path == path:
            return cached
        try:
            if obj.size > MAX_FILE_BYTES:  # known from the object header: a 50 MB blob is never read
                raise too_large(path)
            data = obj.data_stream.read()
        except (ValueError, OSError, git.GitError) as exc:
            why = "missing" if "missing" in str(exc) else first_line(exc)
            raise UnreadableFile(f"{path}: git could not read blob {obj.hexsha[:12]} ({why})") from None
        source = decode(path, data, obj.hexsha)
        self._blobs[obj.hexsha] = source
        return source

    def prefetch(self, paths: Iterable[str]) -> None:
        """Bring the blobs of ``paths`` a lean mirror lacks, in one fetch per repository (left alone, git fetches
        each on its first read).  A fetch that fails changes nothing: the reads fetch (or fail) file by file."""
        fetch_blobs((self, path) for path in paths)

    def search(self, text: str, suffix: str) -> list[str] | None:
        """Paths of files (ending in ``suffix``) at this commit that contain ``text``; None: not searched (a lean
        mirror: git would fetch every blob to grep it); :class:`BoundExceeded` past :data:`SEARCH_TIMEOUT`."""
        return (self.search_many([text], suffix) or {}).get(text)

    def search_many(self, texts: list[str], suffix: str, words: bool = False) -> dict[str, list[str]] | None:
        """:meth:`search` for many texts in one ``git grep`` (``-o``: which text each file holds); a later
        commit of the repository asked the same is searched only in the files that changed (``gitsearch``)."""
        if is_partial(self.repo):
            return None
        if not texts:
            return {}
        grep = functools.partial(git_grep, self.repo, self.commit.hexsha, suffix, words=words)
        root = self.commit.tree.binsha
        if self.history.memo is None:
            return self._search.search_many(root, texts, suffix, grep, words)
        # A tree's content is its sha: the answer is remembered by it, across commits and runs.
        key = "search|" + json.dumps([root.hex(), suffix, texts, *(["words"] if words else [])])
        said = self.history.memo(key, lambda: {"found": self._search.search_many(root, texts, suffix, grep, words)})
        return said["found"]

    def expect_search(self, texts: list[str], suffix: str, words: bool = False) -> None:
        if not is_partial(self.repo):  # a lean mirror is never searched (search_many)
            self._search.expect(self.commit.tree.binsha, texts, suffix, words)

    def files_under(self, folder: str) -> list[str]:
        """Every file path under ``folder`` at this commit, in ``git ls-tree -r``'s order (walked in-process)."""
        return self._trees.paths(self.commit.tree.binsha, folder)

    def search_submodules(self, texts: list[str], suffix: str) -> dict[str, list[str]]:
        """:meth:`search_many` in each submodule at this commit that can be opened, paths prefixed."""
        found: dict[str, list[str]] = {}
        for path, inner in self._opened_submodules():
            for text, paths in (inner.search_many(texts, suffix) or {}).items():
                found.setdefault(text, []).extend(f"{path}/{p}" for p in paths)
        return found

    def submodule_files(self) -> list[str]:
        """Every file path inside the submodules at this commit (those that can be opened), prefixed."""
        return [f"{path}/{p}" for path, inner in self._opened_submodules() for p in inner.files_under("")]

    def _opened_submodules(self) -> Iterator[tuple[str, GitTree]]:
        for path, sha in self._gitlinks():
            try:
                yield path, self.submodules.open(self, path, sha)
            except NotCarried:
                continue

    def _gitlinks(self) -> list[tuple[str, str]]:
        """(path, commit) of every submodule this commit records: its whole tree walked once, remembered by sha."""
        def walk() -> dict[str, list[list[str]]]:
            return {"links": [[path, sha.hex()] for path, sha in self._trees.gitlinks(self.commit.tree.binsha)]}

        said = walk() if self.history.memo is None else self.history.memo(f"gitlinks|{self.commit.hexsha}", walk)
        return [(path, sha) for path, sha in said["links"]]

    def removals(self, paths: list[str]) -> dict[str, Removal]:
        """Which of ``paths`` (exact, or tails) a commit up to this one removed, and where it moved them: renames
        followed (a few hops) to a path this commit has; a move to somewhere later deleted is no move."""
        wanted = sorted({p for p in paths if p and not any(ch in p for ch in "*?[")})
        try:
            removed = self.history.removals(wanted) if wanted else {}
        except git.GitCommandError:  # a blob this lean copy lacks, a shallow history's end
            return {}
        return {p: Removal(was, sha, self._follow(new, {p, was}), day) for p, (was, sha, new, day) in removed.items()}

    def _follow(self, path: str | None, seen: set[str]) -> str | None:
        for _ in range(4):
            if path is None or path in seen:
                return None
            if self._walk(path.rstrip("/")) is not None:
                return path
            seen.add(path)
            try:
                step = self.history.removals([path]).get(path)
            except git.GitCommandError:
                return None
            path = step[2] if step is not None and step[0] == path else None
        return None

    def validated_on(self, day: str) -> GitTree | None:
        """The tree of the default branch (HEAD) as it was at the end of ``day`` (UTC), or None if unknown here."""
        for tip in (self._head(), self.commit.hexsha):
            try:
                sha = self.history.commit_on_or_before(day, tip) if tip else None
            except git.GitCommandError:
                continue
            if sha:
                return self.at(sha, ref=f"validated_on {day}")
        return None

    def line_commits(self, path: str) -> list[str] | None:  # git blame; None for a shallow or lean history
        if not self._deep():
            return None
        parent, here = next(iter(self.commit.parents), None), self._walk(path)
        same = parent is not None and here is not None and self._trees.walk(parent.tree.binsha, path) == here
        return _asked(lambda: self.history.blame(path, parent.hexsha if same and parent else None))

    def at_commit(self, sha: str) -> GitTree | None:
        return _asked(lambda: self if sha == self.commit.hexsha else self.at(sha))

    def definition_removed(self, path: str, pattern: str, since: str) -> tuple[str, str] | None:
        return _asked(lambda: self.history.definition_removed(path, pattern, since)) if self._deep() else None

    def changes_since(self, path: str, since: str, limit: int) -> list[tuple[str, str]] | None:
        if not self._deep() or self._submodule_of(path) is not None:
            return None
        return _asked(lambda: self.history.changes_since(path, since, limit))

    def added_after(self, paths: list[str]) -> dict[str, tuple[str, str]]:
        head = self._head()
        if not self._deep() or head is None or head == self.commit.hexsha:
            return {}
        found = {p: _asked(functools.partial(self.history.added_after, p, head)) for p in paths
                 if self.gitlink_of(p) is None}  # fmt: skip
        return {p: at for p, at in found.items() if at is not None}

    def ahead(self) -> GitTree | None:
        head = self._head()
        if not self._deep() or head is None or head == self.commit.hexsha:
            return None
        return _asked(lambda: self.at(head) if self.history.is_ancestor(self.commit.hexsha, head) else None)

    def content_key(self) -> str | None:
        if self.info.kind is not SourceKind.GIT or not self._deep():  # a working tree's snapshot; a partial history
            return None
        return json.dumps([self.commit.hexsha, sorted(self.submodules.overrides.items())])

    def _deep(self) -> bool:
        """Not shallow (blame and ``-G`` would stop early) nor lean (they would fetch every old version)."""
        return not (self.history.shallow or is_partial(self.repo))

    def _head(self) -> str | None:
        """HEAD's commit sha, so the question asked of it is remembered like any other (None: no HEAD)."""
        try:
            return self.repo.head.commit.hexsha
        except (ValueError, TypeError, git.GitCommandError):  # an unborn or detached-to-nothing HEAD
            return None

    def version_matching(self, folder: str, files: dict[str, str], siblings: Sequence[str] = ()) -> FolderVersion:
        now = self._trees.files_in(self.commit.tree.binsha, folder)  # listed in-process, not by git ls-tree
        return FolderVersion(*self.history.version_matching(folder, files, now, siblings))

    def authors(self, folder: str, limit: int) -> list[str]:
        return self.history.authors(folder, limit)

    def holds_folder(self, path: str, files: dict[str, tuple[str, int]]) -> bool:
        """Whether the folder at ``path`` is exactly ``files`` (path under it -> (blob sha, mode)); reads nothing."""
        return self._trees.holds(self._walk(path), files)

    def is_folder(self, path: str) -> bool:
        found = self._walk(path)
        return found is not None and found[0] >> 12 == TREE_KIND

    def _submodule_of(self, path: str) -> "tuple[GitTree, str] | None":
        """(the submodule's tree at its recorded commit, the path inside it) when ``path`` lies in one."""
        link = self.gitlink_of(path)
        return None if link is None else (self.submodules.open(self, link[0], link[1]), path[len(link[0]) + 1 :])

    def gitlink_of(self, path: str) -> tuple[str, str] | None:
        """(prefix, commit) of the submodule ``path`` lies in, without opening it; None if it lies in none."""
        if "/" not in path or not self.has_submodules:  # a top-level file, a commit with no .gitmodules: in none
            return None
        parts = path.split("/")
        node = self.commit.tree.binsha
        for i, part in enumerate(parts[:-1]):
            found = self._trees.entries(node).get(part)
            if found is None or found[0] >> 12 not in (TREE_KIND, GITLINK_KIND):
                return None
            if found[0] >> 12 == GITLINK_KIND:
                return "/".join(parts[: i + 1]), found[1].hex()
            node = found[1]
        return None

    @functools.cached_property
    def has_submodules(self) -> bool:
        """Whether this commit has a ``.gitmodules`` (else no path can lie in a submodule; one tree lookup)."""
        return self._walk(".gitmodules") is not None

    def _walk(self, path: str) -> tuple[int, bytes] | None:
        """(mode, sha) of the entry at ``path`` in this commit's tree; None if there is none."""
        return self._trees.walk(self.commit.tree.binsha, path)

    def _entry(self, path: str) -> git.Blob | None:
        if path in self._entries:
            return self._entries[path]
        found = self._walk(path)
        if found is None:
            self._entries[path] = None
            return None
        mode, sha = found
        if mode >> 12 == GITLINK_KIND:
            raise UnreadableFile(f"{path} is a submodule, not a file")
        if mode >> 12 == TREE_KIND:
            return None  # a folder where a file was quoted
        if mode >> 12 == SYMLINK_KIND:
            raise UnreadableFile(f"{path} is a symbolic link; links are not followed")
        obj = git.Blob(self.repo, sha, mode, path)
        self._entries[path] = obj
        return obj


def fetch_blobs(wanted: Iterable[tuple[GitTree, str]]) -> None:
    """:meth:`GitTree.prefetch` over many trees (a history's commits): one fetch per repository for all of them,
    the commits the submodules are at first (one fetch each).  A path asked of a tree before is not asked again."""
    wanted = [(tree, path) for tree, path in wanted if path not in tree._prefetched]
    for tree, path in wanted:
        tree._prefetched.add(path)
    # What the lookups below walk, read a depth at a time for every commit at once: each commit's root tree,
    # then, where a path may lie in a submodule or a blob be lacking, the folders of every path.
    walks: dict[int, tuple[TreeObjects, set[bytes], set[str]]] = {}
    for tree, _ in wanted:
        walks.setdefault(id(tree._trees), (tree._trees, set(), set()))[1].add(tree.commit.tree.binsha)
    for objects, roots, _ in walks.values():
        objects.read_many(roots)
    for tree, path in wanted:
        if tree.has_submodules or is_partial(tree.repo):
            walks[id(tree._trees)][2].add(path)
    for objects, roots, paths in walks.values():
        objects.preload(roots, paths)
    gitlinks: dict[tuple[str, str], tuple[GitTree, set[str]]] = {}
    for tree, path in wanted:
        found = tree.gitlink_of(path) if tree.has_submodules else None
        if found is not None:
            gitlinks.setdefault((str(tree.repo.common_dir), found[0]), (tree, set()))[1].add(found[1])
    for (_, prefix), (tree, shas) in gitlinks.items():
        tree.submodules.fetch(tree, prefix, shas)
    by_repo: dict[str, tuple[GitTree, set[str]]] = {}
    for tree, path in wanted:
        if not tree.has_submodules and not is_partial(tree.repo):
            continue  # every blob is here already
        try:
            inner = tree._submodule_of(path)
            holder, rel = inner if inner is not None else (tree, path)
            blob = holder._entry(rel) if is_partial(holder.repo) else None
        except (NotCarried, UnreadableFile):
            continue  # a submodule out of reach, a link: the read says so
        if blob is not None:
            by_repo.setdefault(str(holder.repo.common_dir), (holder, set()))[1].add(blob.hexsha)
    for holder, shas in by_repo.values():
        fetch_missing(holder.repo, shas)


def as_git(tree: SourceTree) -> GitTree:
    """``tree`` as the git tree it is (a command that reads history opened only git trees)."""
    if not isinstance(tree, GitTree):
        raise TypeError(f"not a git tree: {tree.info.label}")
    return tree


def _asked(question: Callable[[], T]) -> T | None:
    """A history question's answer; None where git cannot answer it (an unknown sha, a blob this copy lacks)."""
    try:
        return question()
    except (ValueError, git.BadName, git.GitCommandError):
        return None


def _date(commit: git.Commit) -> str:
    return commit.committed_datetime.date().isoformat()


def open_git(
    repo: str,
    ref: str,
    cache_dir: str | None = None,
    progress: Progress = no_progress,
    full_history: bool = False,
    allow: tuple[str, ...] = (),
    submodules: dict[str, str] | None = None,
    memo: Memo | None = None,
    tags: bool = False,
    mirrors: dict[str, str] | None = None,
) -> GitTree:
    """The tree of ``ref`` in ``repo`` (a URL or a local path).

    ``full_history``: a remote mirror gets every commit up to ``ref`` (still
    without blobs), as ``history`` needs; otherwise only the one commit.
    ``tags``: and every tag, fetched again on each open (``matrix``).  ``mirrors``: local copies of
    repositories (``--mirror URL=GITDIR``), read for a submodule whose ``.gitmodules`` URL names one.
    """
    check_repo(repo, allow)
    check_ref(ref)
    if mirrored(repo):
        handle = mirror(repo, ref, cache_root(cache_dir), progress, full_history, allow, tags)
    else:
        handle = open_local(repo, cache_root(cache_dir))
    sha = resolve_commit(handle, ref, repo)
    commit = handle.commit(sha)
    info = SourceInfo(repo=redact(repo), ref=ref, commit=sha, kind=SourceKind.GIT, date=_date(commit))
    inner = Submodules(open_git, submodules, cache_dir, progress, allow, mirrors)
    return GitTree(handle, commit, info, submodules=inner, url=repo, memo=memo)
