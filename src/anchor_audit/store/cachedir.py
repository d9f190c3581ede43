"""Where anchor-audit keeps what it fetched: git mirrors, release wheels, match results.

``--cache-dir``, else ``$ANCHOR_AUDIT_CACHE``, else ``$XDG_CACHE_HOME/anchor-audit``,
else ``~/.cache/anchor-audit``.  Writers take an exclusive lock on the entry
they fill, so concurrent runs wait for each other instead of racing.

A cache directory anchor-audit made carries a ``CACHEDIR.TAG`` (the Cache
Directory Tagging convention, with a line naming anchor-audit).  ``cache
clean`` removes only a tagged directory, and in it only the entries
anchor-audit makes: pointing ``--cache-dir`` at a project folder can never
delete the project.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import os
import re
import shutil
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from ..errors import SourceError, UsageError

TAG_NAME = "CACHEDIR.TAG"
TAG_TEXT = (
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This file is a cache directory tag created by anchor-audit.\n"
    "# 'anchor-audit cache clean' removes this directory's anchor-audit entries.\n"
)
# The entries anchor-audit makes in its cache directory; nothing else is ever removed.
OWNED = (
    "git", "wheels", "runs", "results.sqlite3", "results.sqlite3-wal", "results.sqlite3-shm", "results.sqlite3.lock",
)  # fmt: skip


def cache_root(override: str | None = None) -> Path:
    if override:
        return Path(override)
    env = os.environ.get("ANCHOR_AUDIT_CACHE")
    if env:
        return Path(env)
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg else Path.home() / ".cache"
    return base / "anchor-audit"


@dataclass(frozen=True)
class CacheDir:
    """The cache directory a run uses.

    ``temporary``: made for this run only (``--no-cache``, or the configured
    one cannot be used) and removed by :meth:`close`; ``problem`` says why
    the configured one was not used.
    """

    path: Path
    temporary: bool = False
    problem: str | None = None

    def close(self) -> None:
        if self.temporary:
            shutil.rmtree(self.path, ignore_errors=True)


def open_cache(override: str | None = None, ephemeral: bool = False) -> CacheDir:
    """The cache directory for this run, ready to write into.

    A directory that cannot be made or written (a regular file in its
    place, read-only, a full disk) is replaced by a temporary one for this
    run: the cache only saves work, it never fails a run.
    """
    if ephemeral:
        return CacheDir(Path(tempfile.mkdtemp(prefix="anchor-audit-cache-")), temporary=True)
    root = cache_root(override)
    try:
        _prepare(root)
    except OSError as exc:
        why = exc.strerror or type(exc).__name__
        problem = f"cache directory {root} cannot be used ({why}); this run uses a temporary one"
        return CacheDir(Path(tempfile.mkdtemp(prefix="anchor-audit-cache-")), temporary=True, problem=problem)
    return CacheDir(root)


def _prepare(root: Path) -> None:
    """Make ``root`` (tagged) if it is new or empty; check it can be written."""
    if not root.is_dir():
        root.mkdir(parents=True)  # FileExistsError when a file is in the way
    tag = root / TAG_NAME
    if not tag.exists() and all(entry.name in OWNED for entry in root.iterdir()):
        # New, empty, or made by an anchor-audit that did not tag yet: ours to tag.
        tag.write_text(TAG_TEXT, encoding="utf-8")
    fd, probe = tempfile.mkstemp(dir=root, prefix=".probe-")
    try:
        os.write(fd, b"x")
    finally:
        os.close(fd)
        os.unlink(probe)


def is_tagged(root: Path) -> bool:
    try:
        return (root / TAG_NAME).read_text(encoding="utf-8", errors="replace").startswith(TAG_TEXT.split("\n", 1)[0])
    except OSError:
        return False


def clean_cache(root: Path) -> list[str]:
    """Remove anchor-audit's entries from the tagged cache ``root``; returns what was removed.

    Raises :class:`UsageError` (nothing removed) for a directory anchor-audit did not make.
    """
    if root.is_symlink() or not root.is_dir():
        raise UsageError(f"{root}: not a directory; nothing removed")
    if not is_tagged(root):
        raise UsageError(
            f"{root}: not an anchor-audit cache (it has no {TAG_NAME} made by anchor-audit); nothing removed"
        )
    removed = []
    for name in OWNED:
        entry = root / name
        if entry.is_symlink() or entry.is_file():
            entry.unlink()
        elif entry.is_dir():
            shutil.rmtree(entry)
        else:
            continue
        removed.append(name)
    (root / TAG_NAME).unlink()
    with contextlib.suppress(OSError):
        root.rmdir()  # only when nothing else is left in it
    return removed


def slug(url: str) -> str:
    """A directory name for a URL: readable tail plus a hash of the whole."""
    tail = re.sub(r"[^A-Za-z0-9._-]+", "-", url.rstrip("/").rsplit("/", 1)[-1])[:40] or "repo"
    return f"{tail.removesuffix('.git')}-{hashlib.sha256(url.encode()).hexdigest()[:12]}"


def refuse_link(path: Path) -> None:
    """Raise :class:`SourceError` when ``path`` is a symbolic link: nothing in the cache is followed."""
    if path.is_symlink():
        raise SourceError(f"{path}: a symbolic link in the cache; not followed")


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``path`` + ``.lock`` (created if needed, never through a link).

    The cache may come from someone else's run: a lock file (or the folder
    holding it) that is a link would make this process create or open a
    file wherever it points.  ``O_NOFOLLOW`` refuses the last link, the
    ``lstat`` of the folder the one above.
    """
    refuse_link(path.parent)
    path.parent.mkdir(parents=True, exist_ok=True)
    lock = f"{path}.lock"
    try:
        fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise SourceError(f"{lock}: a symbolic link in the cache; not followed") from None
        raise
    with os.fdopen(fd, "r+b") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            raise SourceError(f"{lock}: not a regular file in the cache; not used")
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


@dataclass(frozen=True)
class CacheEntry:
    """One thing in the cache: a repository's lean mirror, a release wheel, or the results store."""

    kind: str  # "mirror", "wheel" or "results"
    path: Path
    size: int  # bytes, links not followed
    written: float  # the newest modification time in it (a fetch, a download, a run that stored results)


def cache_entries(root: Path) -> list[CacheEntry]:
    """What anchor-audit keeps in the cache ``root``, biggest first; nothing outside its own entries is looked at."""
    found = []
    git_dir, wheels = root / "git", root / "wheels"
    for folder, kind, suffix in ((git_dir, "mirror", ".git"), (wheels, "wheel", ".whl")):
        if folder.is_dir() and not folder.is_symlink():
            mine = [p for p in sorted(folder.iterdir()) if p.name.endswith(suffix) and not p.is_symlink()]
            found += [_entry(kind, p) for p in mine]
    results, runs = root / "results.sqlite3", root / "runs"  # runs: the reports remembered whole (runs/replay)
    if results.is_file() and not results.is_symlink():
        found.append(_entry("results", results))
    if runs.is_dir() and not runs.is_symlink():
        found.append(_entry("results", runs))
    return sorted(found, key=lambda e: -e.size)


def _entry(kind: str, path: Path) -> CacheEntry:
    size, newest = 0, 0.0
    for parent, _, files in os.walk(path) if path.is_dir() else [(str(path.parent), [], [path.name])]:
        for name in files:
            with contextlib.suppress(OSError):
                info = os.lstat(os.path.join(parent, name))
                size, newest = size + info.st_size, max(newest, info.st_mtime)
    return CacheEntry(kind, path, size, newest)


def prune_cache(root: Path, older_than_days: float, now: float) -> list[CacheEntry]:
    """Remove the mirrors and wheels nothing was written to for ``older_than_days``; the results store stays (its
    entries are keyed by content: an old one is as right as a new one).  Only a tagged cache is touched."""
    if root.is_symlink() or not root.is_dir() or not is_tagged(root):
        raise UsageError(f"{root}: not an anchor-audit cache (no {TAG_NAME} made by anchor-audit); nothing removed")
    removed = []
    for entry in cache_entries(root):
        if entry.kind != "results" and now - entry.written > older_than_days * 86_400:
            if entry.path.is_dir():
                shutil.rmtree(entry.path)
            else:
                entry.path.unlink()
            removed.append(entry)
    return removed
