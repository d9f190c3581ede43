"""Read files at a commit from a git object database, with GitPython.

Never a work tree: files come from the commit's tree, so a dirty or absent
checkout cannot change an audit.  A local repository (bare or not) is read in
place.  A remote is mirrored under the cache directory as a bare partial
clone: only the ref asked for is fetched, shallow (depth 1) and without blobs
(``--filter=blob:none``); git fetches the few blobs an audit reads on demand.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import git

from ..errors import SourceError, UnreadableFile, UsageError
from ..match.pysource import SourceFile
from ..model import SourceInfo
from . import _URL, Progress, decode, is_remote, no_progress
from .cache import cache_root, locked, slug

# Transports that can run commands (ext::, fd::) are never allowed; git checks this list too.
ALLOWED_PROTOCOLS = "file:git:http:https:ssh"
_GIT_ENV = {"GIT_ALLOW_PROTOCOL": ALLOWED_PROTOCOLS, "GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "true"}
SYMLINK_MODE = 0o120000


def check_ref(ref: str) -> None:
    if not ref or ref.startswith("-") or any(c.isspace() or ord(c) < 32 for c in ref) or ".." in ref:
        raise UsageError(f"--ref {ref!r}: not a ref name or commit sha")


def check_repo(repo: str) -> None:
    if repo.startswith("-"):
        raise UsageError(f"--repo {repo!r}: begins with '-'")
    if "::" in repo.split("/", 1)[0] or repo.startswith("ext:"):
        raise UsageError(f"--repo {repo!r}: transports that run commands are refused")
    if _URL.match(repo):
        scheme = repo.split(":", 1)[0].lower()
        if scheme not in ALLOWED_PROTOCOLS.split(":") and scheme not in ("git+ssh", "ssh+git"):
            raise UsageError(f"--repo {repo!r}: the {scheme} transport is not allowed")


class GitTree:
    """The tree of one commit.  Trees of other commits of the same repository share its blob cache."""

    def __init__(
        self, repo: git.Repo, commit: git.Commit, info: SourceInfo, blobs: dict[str, SourceFile] | None = None
    ) -> None:
        self.repo = repo
        self.commit = commit
        self.info = info
        self._blobs: dict[str, SourceFile] = {} if blobs is None else blobs
        self._entries: dict[str, git.Blob | None] = {}

    def at(self, sha: str, ref: str | None = None) -> "GitTree":
        """The tree of another commit of this repository."""
        commit = self.repo.commit(sha)
        info = SourceInfo(self.info.repo, ref or sha, commit.hexsha, "git", date=_date(commit))
        return GitTree(self.repo, commit, info, self._blobs)

    def blob_id(self, path: str) -> str | None:
        """The sha of the blob at ``path`` (None: no such file); reads no content."""
        obj = self._entry(path)
        return None if obj is None else obj.hexsha

    def read(self, path: str) -> SourceFile | None:
        obj = self._entry(path)
        if obj is None:
            return None
        cached = self._blobs.get(obj.hexsha)
        if cached is not None and cached.path == path:
            return cached
        try:
            data = obj.data_stream.read()
        except (ValueError, OSError, git.GitError) as exc:
            raise UnreadableFile(f"{path}: git could not read blob {obj.hexsha[:12]} ({_first_line(exc)})") from None
        source = decode(path, data, obj.hexsha)
        self._blobs[obj.hexsha] = source
        return source

    def _entry(self, path: str) -> git.Blob | None:
        if path in self._entries:
            return self._entries[path]
        try:
            obj = self.commit.tree / path
        except KeyError:
            self._entries[path] = None
            return None
        if obj.type == "commit":
            raise UnreadableFile(f"{path} is in a submodule; not read")
        if obj.type != "blob":
            return None  # a folder where a file was quoted
        if obj.mode == SYMLINK_MODE:
            raise UnreadableFile(f"{path} is a symbolic link; links are not followed")
        self._entries[path] = obj
        return obj


def _date(commit: git.Commit) -> str:
    return commit.committed_datetime.date().isoformat()


def open_git(
    repo: str,
    ref: str,
    cache_dir: str | None = None,
    progress: Progress = no_progress,
    full_history: bool = False,
) -> GitTree:
    """The tree of ``ref`` in ``repo`` (a URL or a local path).

    ``full_history``: a remote mirror gets every commit up to ``ref`` (still
    without blobs), as ``history`` needs; otherwise only the one commit.
    """
    check_repo(repo)
    check_ref(ref)
    if is_remote(repo):
        handle = _mirror(repo, ref, cache_root(cache_dir), progress, full_history)
    else:
        handle = _open_local(repo)
    sha = _resolve(handle, ref)
    if sha is None:
        raise SourceError(f"{repo}: unknown ref {ref!r}")
    commit = handle.commit(sha)
    return GitTree(handle, commit, SourceInfo(repo=repo, ref=ref, commit=sha, kind="git", date=_date(commit)))


def _open_local(path: str) -> git.Repo:
    if not Path(path).exists():
        raise SourceError(f"{path}: no such repository (not a path, and not a URL)")
    try:
        handle = git.Repo(path)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        raise SourceError(f"{path}: not a git repository") from None
    handle.git.update_environment(**_GIT_ENV)
    return handle


def _resolve(handle: git.Repo, ref: str) -> str | None:
    for name in (f"refs/anchor-audit/{ref}", ref):
        try:
            return handle.git.rev_parse("--verify", "--quiet", f"{name}^{{commit}}").strip()
        except git.GitCommandError:
            continue
    return None


def _mirror(url: str, ref: str, root: Path, progress: Progress, full_history: bool = False) -> git.Repo:
    """The cached bare partial clone of ``url``, fetching ``ref`` into it if it is not there."""
    path = root / "git" / f"{slug(url)}.git"
    with locked(path):
        fresh = not path.exists()
        if fresh:
            handle = git.Repo.init(path, bare=True)
            with handle.config_writer() as cfg:
                cfg.set_value("core", "repositoryformatversion", "1")
                cfg.set_value("extensions", "partialClone", "origin")
                cfg.set_value('remote "origin"', "url", url)
                cfg.set_value('remote "origin"', "promisor", "true")
                cfg.set_value('remote "origin"', "partialclonefilter", "blob:none")
        else:
            handle = git.Repo(path)
        handle.git.update_environment(**_GIT_ENV)
        if _resolve(handle, ref) is not None:
            return handle
        progress(f"fetching {ref} from {url}", None)
        try:
            handle.git.fetch(
                "--filter=blob:none",
                "--depth=1",
                "--no-tags",
                "origin",
                f"+{ref}:refs/anchor-audit/{ref}",
            )
        except git.GitCommandError as exc:
            if fresh:
                shutil.rmtree(path, ignore_errors=True)  # leave no half-made mirror behind
            raise SourceError(f"{url}: cannot fetch {ref}: {_first_line(exc)}") from None
        finally:
            progress("", 1.0)
        return handle


def _first_line(exc: BaseException) -> str:
    text = getattr(exc, "stderr", None) or str(exc)
    lines = [ln.strip().removeprefix("stderr:").strip(" '") for ln in str(text).splitlines() if ln.strip()]
    useful = [ln for ln in lines if ln.startswith(("fatal:", "error:"))] or lines
    return useful[0] if useful else type(exc).__name__
