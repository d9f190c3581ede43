"""A working tree, read as a commit anchor-audit makes in its own cache (``--worktree [DIR]``).

The code as it is on disk: staged and unstaged edits, deleted files gone, new
files that git does not ignore.  Nothing is written to DIR or to its
repository.  The files are hashed into a bare repository in the cache (the
same *overlay* a partial clone is read through: its ``objects/info/alternates``
names the repository's objects, its refs are a copy of the repository's), a
tree is built there with an index of its own, and a commit whose parent is
HEAD is made there.  Every command then reads that commit like any other:
history, ``impact BASE --worktree``'s diff, the search for moved code.  The
commit's dates are HEAD's, so the same files give the same commit sha, and
every result remembered by sha or blob stays valid.

git is asked only what its index and ignore rules say (``ls-files``); the
files are read here, never through git, so no clean filter, hook or
fsmonitor command runs.  A symbolic link is recorded as a link (its target's
text), never followed; a file under a folder that is a link is not read.
A checked-out submodule is read from its own working tree, snapshotted the
same way; one that is not checked out is read at the commit the index records.
A file over the size anchor-audit audits is neither hashed nor stored: it keeps
the index's blob (an untracked one is left out).
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import stat
import subprocess
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import SourceError
from ..model import SourceInfo, SourceKind
from ..store.cachedir import cache_root, locked, slug
from ..text.redact import redact
from . import MAX_FILE_BYTES, Progress, no_progress
from .git import GitTree, open_git
from .gitenv import git_env
from .gitrun import local_config
from .overlay import open_overlay, promisor_url

if TYPE_CHECKING:
    from .githistory import Memo

WORKTREE_REF = SourceKind.WORKTREE.value  # what a report says it audited at: the files on disk, not a ref
GIT_TIMEOUT = 120  # seconds one git command of a snapshot may take (ls-files of a huge tree, write-tree)
MAX_SUBMODULE_DEPTH = 1  # submodules of a submodule are read at the commit their index records
_CHUNK = 1 << 20
_REGULAR, _EXECUTABLE, _LINK, _GITLINK = 0o100644, 0o100755, 0o120000, 0o160000
_STAT_CACHE = "worktree-stat.json"
_LAST = "worktree-last"  # the digest of the last snapshot's files and HEAD, and its commit
_IDENTITY = {"GIT_AUTHOR_NAME": "anchor-audit", "GIT_AUTHOR_EMAIL": "anchor-audit@localhost",
             "GIT_COMMITTER_NAME": "anchor-audit", "GIT_COMMITTER_EMAIL": "anchor-audit@localhost"}  # fmt: skip


@dataclass(frozen=True)
class Snapshot:
    """A working tree as a commit: the repository holding it, its sha, and where its submodules' snapshots are."""

    git_dir: Path  # the overlay in the cache
    commit: str
    head: str | None  # the commit the working tree is on (None: a repository with no commit yet)
    root: Path  # the working tree's top folder
    submodules: dict[str, str] = field(default_factory=dict)  # path -> the overlay holding its snapshot
    changed: tuple[str, ...] = ()  # paths whose content differs from HEAD's index entry, or that git does not track


def snapshot(directory: str | os.PathLike[str], cache: Path, depth: int = 0) -> Snapshot:
    """The working tree ``directory`` is in, as a commit in the cache (the module's docstring)."""
    root, common = _toplevel(Path(directory))
    # One overlay per working tree: linked worktrees share a repository, never a snapshot's HEAD or stat cache.
    kind = f"worktree-{slug(str(root))}"
    overlay = open_overlay(common, promisor_url(local_config(str(common))), cache, kind=kind)
    head = _git(["rev-parse", "--verify", "-q", "HEAD^{commit}"], cwd=root, ok=(0, 1)).strip() or None
    with locked(overlay / "snapshot"):
        known = _load_stat_cache(overlay)
        entries, changed = _entries(root, overlay, known)
        submodules: dict[str, str] = {}
        for path, (mode, _sha) in sorted(entries.items()):
            if mode == _GITLINK and depth < MAX_SUBMODULE_DEPTH and (root / path / ".git").exists():
                inner = snapshot(root / path, cache, depth + 1)
                entries[path] = (_GITLINK, inner.commit)
                submodules[path] = str(inner.git_dir)
        commit = _last_commit(overlay, head, entries)
        if commit is None:
            commit = _commit(overlay, root, _write_tree(overlay, entries), head)
            _atomic_write(overlay / _LAST, f"{_digest(head, entries)} {commit}\n".encode())
        _save_stat_cache(overlay, known)
    if head is not None:  # HEAD names the working tree's own commit (a linked worktree's differs from the main one)
        (overlay / "HEAD").write_text(f"{head}\n", encoding="utf-8")
    return Snapshot(overlay, commit, head, root, submodules, tuple(sorted(changed)))


def _digest(head: str | None, entries: dict[str, tuple[int, str]]) -> str:
    listed = "".join(f"{mode:o} {sha} {path}\0" for path, (mode, sha) in sorted(entries.items()))
    return hashlib.sha256(f"{head}\0{listed}".encode("utf-8", "surrogateescape")).hexdigest()


def _last_commit(overlay: Path, head: str | None, entries: dict[str, tuple[int, str]]) -> str | None:
    """The last snapshot's commit when the files and HEAD are as they were then (no git command made again)."""
    try:
        digest, commit = (overlay / _LAST).read_text(encoding="utf-8").split()
    except (OSError, ValueError):
        return None
    ok = digest == _digest(head, entries) and len(commit) == 40 and _object_path(overlay, commit).is_file()
    return commit if ok else None


def _toplevel(directory: Path) -> tuple[Path, Path]:
    """(the working tree's top folder, the repository's common git directory); a one-line error where there is none."""
    shown = redact(str(directory))
    if not directory.is_dir():
        raise SourceError(f"--worktree {shown}: no such folder")
    out = _git(["rev-parse", "--is-inside-work-tree", "--show-toplevel", "--git-common-dir"], cwd=directory,
               ok=(0, 128), what=f"--worktree {shown}")  # fmt: skip
    lines = out.split("\n")
    if len(lines) < 3 or lines[0] != "true":
        raise SourceError(f"--worktree {shown}: not inside a git working tree")
    root = Path(lines[1])
    common = Path(lines[2]) if os.path.isabs(lines[2]) else directory / lines[2]
    return root.resolve(), common.resolve()


def _entries(root: Path, overlay: Path, known: dict[str, list[object]]) -> tuple[dict[str, tuple[int, str]], set[str]]:
    """Path -> (mode, blob sha) of every file of the working tree, and the paths whose blob the index lacks."""
    indexed: dict[str, tuple[int, str]] = {}
    unmerged: set[str] = set()
    for record in _git(["ls-files", "-z", "-s"], cwd=root).split("\0"):
        info, tab, path = record.partition("\t")
        if not tab:
            continue
        mode, sha, stage = info.split(" ")
        if stage != "0":
            unmerged.add(path)  # a conflict being resolved: what is on disk is what counts
        indexed[path] = (int(mode, 8), sha)
    untracked = [p for p in _git(["ls-files", "-z", "--others", "--exclude-standard"], cwd=root).split("\0")
                 if p and not p.endswith("/")]  # fmt: skip  (a folder: a repository inside, not ours to read)
    entries: dict[str, tuple[int, str]] = {}
    changed: set[str] = set()
    real_root = str(root)
    folders: dict[str, bool] = {}  # folder -> whether it is the working tree's own (no link on the way)
    for path in [*indexed, *untracked]:
        was = indexed.get(path)
        if was is not None and was[0] == _GITLINK:
            entries[path] = was
            continue
        parent = os.path.dirname(path)
        if parent not in folders:
            folders[parent] = not parent or os.path.realpath(root / parent) == os.path.join(real_root, parent)
        if not folders[parent]:
            continue  # a folder on the way is a link: what it points at is not the working tree
        found = _file_entry(root, path, overlay, known, was[1] if was is not None else None)
        if found is None:
            continue  # deleted, or behind a link: not in the working tree's commit
        entries[path] = found
        if was is None or path in unmerged or was != found:
            changed.add(path)
    return entries, changed


def _file_entry(root: Path, path: str, overlay: Path, known: dict[str, list[object]], indexed: str | None
                ) -> tuple[int, str] | None:  # fmt: skip
    """(mode, blob sha) of ``path`` as it is on disk, its blob written to the overlay unless it is ``indexed`` (the
    index's blob, which the repository has); None: not a file here."""
    full = root / path
    try:
        st = os.lstat(full)
    except (FileNotFoundError, NotADirectoryError):
        return None
    if stat.S_ISLNK(st.st_mode):
        return _LINK, _write_blob(overlay, os.readlink(full).encode("utf-8", "surrogateescape"))
    if not stat.S_ISREG(st.st_mode):
        return None
    mode = _EXECUTABLE if st.st_mode & 0o100 else _REGULAR
    if st.st_size > MAX_FILE_BYTES:  # never audited (too large to read): not hashed or copied into the cache either
        return (mode, indexed) if indexed is not None else None
    key = [st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns]
    cached = known.get(path)
    if cached is not None and cached[:4] == key and isinstance(cached[4], str):
        return mode, cached[4]
    try:
        sha = _hash_file(full, st.st_size)
        if sha != indexed and not _object_path(overlay, sha).exists():
            sha = _write_file_blob(overlay, full, os.stat(full).st_size)
    except (FileNotFoundError, PermissionError):
        return None  # gone since it was listed, or not ours to read
    if st.st_mtime_ns < _now_ns() - 2_000_000_000:  # an edit within the clock's grain could keep the stat: not kept
        known[path] = [*key, sha]
    return mode, sha


def _write_blob(overlay: Path, data: bytes) -> str:
    header = b"blob %d\0" % len(data)
    sha = hashlib.sha1(header + data).hexdigest()
    target = _object_path(overlay, sha)
    if not target.exists():
        _atomic_write(target, zlib.compress(header + data))
    return sha


def _hash_file(full: Path, size: int) -> str:
    """The blob sha of the file ``full`` (read in chunks; nothing written): most files are as the index has them."""
    digest = hashlib.sha1(b"blob %d\0" % size)
    read = 0
    with open(full, "rb") as source:
        while read <= size and (chunk := source.read(_CHUNK)):
            read += len(chunk)
            digest.update(chunk)
    return digest.hexdigest() if read == size else ""  # written to while read: "" matches nothing, so it is stored


def _write_file_blob(overlay: Path, full: Path, size: int, tries: int = 3) -> str:
    """The blob of the file ``full`` hashed and compressed as it is read, in chunks (memory stays flat)."""
    digest = hashlib.sha1(b"blob %d\0" % size)
    packer = zlib.compressobj()
    tmp = overlay / "objects" / f".incoming-{os.getpid()}"
    try:
        with open(full, "rb") as source, open(tmp, "wb") as sink:
            sink.write(packer.compress(b"blob %d\0" % size))
            read = 0
            while read <= size and (chunk := source.read(_CHUNK)):
                read += len(chunk)
                digest.update(chunk)
                sink.write(packer.compress(chunk))
            sink.write(packer.flush())
        if read != size:  # written to while it was read: read again as it is now
            if tries <= 1:
                raise SourceError(f"{full}: changed every time it was read; try again when it is still")
            return _write_file_blob(overlay, full, os.stat(full).st_size, tries - 1)
        sha = digest.hexdigest()
        target = _object_path(overlay, sha)
        if not target.exists():
            target.parent.mkdir(exist_ok=True)
            os.replace(tmp, target)
        return sha
    finally:
        tmp.unlink(missing_ok=True)


def _object_path(overlay: Path, sha: str) -> Path:
    return overlay / "objects" / sha[:2] / sha[2:]


def _atomic_write(target: Path, data: bytes) -> None:
    target.parent.mkdir(exist_ok=True)
    tmp = target.with_name(f".{target.name}.{os.getpid()}")
    tmp.write_bytes(data)
    os.replace(tmp, target)


def _write_tree(overlay: Path, entries: dict[str, tuple[int, str]]) -> str:
    """The tree of ``entries``, built with an index of its own (the repository's is never touched)."""
    index = overlay / f"index.{os.getpid()}"
    index.unlink(missing_ok=True)
    lines = "".join(f"{mode:o} {sha}\t{path}\0" for path, (mode, sha) in sorted(entries.items()))
    env = {"GIT_INDEX_FILE": str(index)}
    try:
        _git(["update-index", "-z", "--add", "--index-info"], stdin=lines, env=env, git_dir=overlay)
        return _git(["write-tree", "--missing-ok"], env=env, git_dir=overlay).strip()
    finally:
        index.unlink(missing_ok=True)


def _commit(overlay: Path, root: Path, tree: str, head: str | None) -> str:
    """A commit of ``tree`` on ``head``, dated as HEAD is: the same files give the same sha."""
    date = "1970-01-01T00:00:00+0000"
    if head is not None:
        date = _git(["show", "-s", "--format=%cI", head], git_dir=overlay).strip() or date
    env = {**_IDENTITY, "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}
    parents = ["-p", head] if head else []
    message = f"the working tree of {root.name}, as anchor-audit read it\n"
    return _git(["commit-tree", tree, *parents], stdin=message, env=env, git_dir=overlay).strip()


def _load_stat_cache(overlay: Path) -> dict[str, list[object]]:
    """What the last snapshot learnt: path -> [size, mtime, inode, ctime, sha]; a file that is not ours is ignored."""
    path = overlay / _STAT_CACHE
    try:
        if path.is_symlink() or path.stat().st_size > 64 * 1024 * 1024:
            return {}
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {k: v for k, v in data.items() if isinstance(v, list) and len(v) == 5} if isinstance(data, dict) else {}


def _save_stat_cache(overlay: Path, known: dict[str, list[object]]) -> None:
    try:
        _atomic_write(overlay / _STAT_CACHE, json.dumps(known, separators=(",", ":")).encode("utf-8"))
    except OSError:
        pass  # the next snapshot hashes again: slower, never wrong


def _now_ns() -> int:
    return int(datetime.datetime.now(datetime.timezone.utc).timestamp() * 1e9)


def _git(args: list[str], cwd: Path | None = None, stdin: str | None = None, env: dict[str, str] | None = None,
         ok: tuple[int, ...] = (0,), what: str | None = None, git_dir: Path | None = None) -> str:  # fmt: skip
    """One git command (``args[0]`` is its name) in the neutral environment (no hook, pager, fsmonitor or prompt),
    in ``cwd`` or on the repository ``git_dir``; its stdout."""
    where = ["--git-dir", str(git_dir)] if git_dir is not None else []
    try:
        done = subprocess.run(
            ["git", *where, *args], cwd=cwd, input=(stdin or "").encode("utf-8", "surrogateescape"),
            capture_output=True, env={**os.environ, **git_env(), **(env or {})}, timeout=GIT_TIMEOUT,
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        raise SourceError(f"{what or 'the working tree'}: git {args[0]} ran past {GIT_TIMEOUT} s") from None
    except OSError as exc:
        raise SourceError(f"git could not run: {exc.strerror}") from None
    if done.returncode not in ok:
        message = done.stderr.decode("utf-8", "replace").strip().split("\n")[0]
        if "dubious ownership" in done.stderr.decode("utf-8", "replace"):
            message = "git refuses to read it: the repository belongs to another user (\"dubious ownership\")"
        raise SourceError(f"{what or 'the working tree'}: git {args[0]} failed: {message}")
    return done.stdout.decode("utf-8", "surrogateescape")


class WorktreeTree(GitTree):
    """A snapshot's tree, read like any commit's; what people did is asked of HEAD (the snapshot is nobody's)."""

    head: str | None = None

    def authors(self, folder: str, limit: int) -> list[str]:
        return [] if self.head is None else self.at(self.head).authors(folder, limit)


def open_worktree(
    directory: str,
    cache_dir: str | None = None,
    progress: "Progress" = no_progress,
    allow: tuple[str, ...] = (),
    memo: "Memo | None" = None,
) -> WorktreeTree:
    """The working tree ``directory`` is in, as a git tree (its snapshot's commit, labelled as the working tree)."""
    progress("reading the working tree", None)
    snap = snapshot(directory, cache_root(cache_dir))
    opened = open_git(str(snap.git_dir), snap.commit, cache_dir, progress, allow=allow, submodules=snap.submodules,
                      memo=memo)  # fmt: skip
    day = datetime.datetime.now(datetime.timezone.utc).date().isoformat()
    info = SourceInfo(redact(directory), WORKTREE_REF, snap.commit, SourceKind.WORKTREE, date=day)
    tree = WorktreeTree(opened.repo, opened.commit, info, submodules=opened.submodules, url=opened.url, memo=memo)
    tree.head = snap.head
    return tree
