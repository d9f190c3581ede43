"""Submodules: where each one's repository is (``.gitmodules`` at the superproject's commit), and opening it."""

from __future__ import annotations

import configparser
import posixpath
from typing import Generic, Protocol, TypeVar

import git

from ..errors import AuditError, NotCarried, SourceError
from ..store.cachedir import cache_root
from ..text.redact import redact
from . import Progress, is_remote, no_progress, url_key
from .gitenv import COMMAND_TRANSPORTS
from .gitrun import NAME_NOT_RESOLVED, check_repo
from .mirror import mirror_commits
from .overlay import network_url

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)


class Superproject(Protocol):
    """What a submodule's URL is resolved from: the superproject's commit and URL."""

    commit: git.Commit
    url: str


class Opener(Protocol[T_co]):
    """How a submodule's repository is opened at a commit (the git tree's own ``open_git``)."""

    def __call__(
        self, repo: str, ref: str, cache_dir: str | None, progress: Progress, *, allow: tuple[str, ...]
    ) -> T_co: ...


class Submodules(Generic[T]):
    """Opens the repositories of submodules, at the commit each gitlink records.

    The URL comes from ``.gitmodules`` at the superproject's commit (a relative
    URL is resolved against the superproject's), unless ``--submodule
    PATH=URL_OR_DIR`` names another; it is fetched and cached like the main
    repository.  A submodule that cannot be opened makes its paths
    unverifiable, never broken.
    """

    def __init__(
        self,
        opener: "Opener[T]",
        overrides: dict[str, str] | None = None,
        cache_dir: str | None = None,
        progress: Progress = no_progress,
        allow: tuple[str, ...] = (),
        mirrors: dict[str, str] | None = None,
    ) -> None:
        self.opener, self.overrides = opener, overrides or {}
        self.mirrors = {url_key(url): where for url, where in (mirrors or {}).items()}  # --mirror URL=GITDIR
        # A submodule URL comes from the tree being audited: never a transport that runs commands,
        # whatever --allow-protocol granted the main repository.
        self.allow = tuple(p for p in allow if p.lower() not in COMMAND_TRANSPORTS)
        self.cache_dir, self.progress = cache_dir, progress
        self._opened: dict[tuple[str, str], T | str] = {}
        self._unresolved: dict[str, str] = {}  # url -> why its host did not resolve: not asked again this run

    def url_of(self, parent: Superproject, prefix: str) -> str:
        """Where the submodule at ``prefix`` is read from: ``--submodule``'s, else a network URL ``.gitmodules`` gives.

        ``.gitmodules`` comes from the audited tree: a local path or ``file://``
        URL there (absolute, or relative to a local superproject) would read
        whatever repository of this machine it names, so it is refused, as git
        refuses it, unless the user names the submodule's place themselves.
        """
        if prefix in self.overrides:
            return self.overrides[prefix]
        url = gitmodules_url(parent.commit, parent.url, prefix)
        if url_key(url) in self.mirrors:  # a local copy of the repository .gitmodules names, given by the user
            return self.mirrors[url_key(url)]
        check_repo(url, self.allow)  # a transport that runs commands says so
        if not network_url(url):
            raise SourceError(f".gitmodules gives {redact(url)!r}: not a network URL; a local path is not followed")
        return url

    def fetch(self, parent: Superproject, prefix: str, shas: set[str]) -> None:
        """Fetch the commits ``shas`` of the submodule at ``prefix`` in one go, before :meth:`open` asks for each.

        Only a remote is fetched (a local repository has them, or not); a failure is left to :meth:`open`,
        which says it commit by commit.
        """
        todo = sorted(sha for sha in shas if (prefix, sha) not in self._opened)
        if len(todo) < 2:
            return  # one commit is one fetch either way
        try:
            url = self.url_of(parent, prefix)
            if is_remote(url):
                check_repo(url, self.allow)
                mirror_commits(url, todo, cache_root(self.cache_dir), self.progress, self.allow)
        except AuditError:
            return

    def open(self, parent: Superproject, prefix: str, sha: str) -> T:
        key = (prefix, sha)
        if key not in self._opened:
            url = None
            try:
                url = self.url_of(parent, prefix)
                if url in self._unresolved:  # a matrix or history meets the submodule at many commits
                    raise SourceError(self._unresolved[url])
                self._opened[key] = self.opener(url, sha, self.cache_dir, self.progress, allow=self.allow)
            except AuditError as exc:
                if url is not None and NAME_NOT_RESOLVED.search(str(exc)):
                    self._unresolved[url] = str(exc)
                self._opened[key] = f"submodule {prefix} at {sha[:12]}: {exc} (--submodule {prefix}=URL_OR_DIR)"
        opened = self._opened[key]
        if isinstance(opened, str):
            raise NotCarried(opened)
        return opened


def gitmodules_url(commit: git.Commit, superproject_url: str, prefix: str) -> str:
    """The URL ``.gitmodules`` at ``commit`` gives the submodule at ``prefix``, resolved against the superproject's."""
    try:
        text = (commit.tree / ".gitmodules").data_stream.read().decode("utf-8", "replace")
    except KeyError:
        raise SourceError("no .gitmodules") from None
    config = configparser.ConfigParser(strict=False, interpolation=None)
    config.read_string(text)
    for section in config.sections():
        if config.get(section, "path", fallback="").strip().strip("/") == prefix:
            url = config.get(section, "url", fallback="").strip()
            if url.startswith(("./", "../")):
                base = superproject_url.rstrip("/")
                return posixpath.normpath(posixpath.join(base, url)) if not is_remote(base) else _join_url(base, url)
            if url:
                return url
    raise SourceError(f".gitmodules names no submodule at {prefix}")


def _join_url(base: str, relative: str) -> str:
    scheme, _, rest = base.partition("://")
    return f"{scheme}://{posixpath.normpath(posixpath.join(rest, relative))}"
