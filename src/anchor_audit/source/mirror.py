"""The cache's mirrors of remote repositories: bare, partial (no blobs), shallow unless history is asked for."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import tempfile
import threading
from pathlib import Path
from typing import Callable

import git

from ..errors import SourceError
from ..store.cachedir import locked, slug
from ..text.redact import redact
from . import Progress
from .gitenv import UPLOAD_PACK, git_env
from .gitrun import first_line, repo_at, resolve, resolve_many

FETCH_TIMEOUT = 900  # seconds a fetch may take before it is killed


def mirror(
    url: str, ref: str, root: Path, progress: Progress, full_history: bool = False, allow: tuple[str, ...] = (),
    tags: bool = False,
) -> git.Repo:  # fmt: skip
    """The cached bare partial clone of ``url``, fetching ``ref`` into it if it is not there; with ``tags``
    (and ``full_history``), every tag fetched too, each time: a new release is a new tag."""
    path = root / "git" / f"{slug(redact(url))}.git"
    with locked(path):
        fresh = not os.path.lexists(path)
        handle = _open_mirror(path, url, allow)
        shallow = Path(handle.git_dir, "shallow").exists()
        if resolve(handle, ref) is not None and not (full_history and shallow) and not tags:
            return handle
        progress(f"fetching {ref} from {redact(url)}", None)
        named, reach = fetched_as(ref)
        depth = ["--unshallow"] if full_history and shallow else [] if full_history else [f"--depth={reach}"]
        refspecs = [f"+{named}:refs/anchor-audit/{named}", *(["+refs/tags/*:refs/tags/*"] if tags else [])]
        args = ["--filter=blob:none", *depth, "--no-tags", "--progress", "origin", *refspecs]
        try:
            _fetch(handle, args, lambda said: progress(f"fetching {ref} from {redact(url)}: {said}", None))
        except git.GitCommandError as exc:
            if fresh:
                shutil.rmtree(path, ignore_errors=True)  # leave no half-made mirror behind
            raise SourceError(f"{redact(url)}: cannot fetch {ref}: {redact(first_line(exc))}") from None
        finally:
            progress("", 1.0)
        return handle


_ANCESTRY = re.compile(r"(?P<named>[^~^]+)(?P<steps>(?:[~^]\d{0,4})+)")


def fetched_as(ref: str) -> tuple[str, int]:
    """What to fetch for ``ref`` and how many commits deep: a revision such as ``main~2`` or ``v1.0^`` is its
    named ref, deep enough to hold the ancestor (a refspec cannot name an ancestor)."""
    found = _ANCESTRY.fullmatch(ref)
    if found is None:
        return ref, 1
    steps = re.findall(r"([~^])(\d*)", found.group("steps"))
    return found.group("named"), 1 + sum(int(n or 1) if op == "~" else 1 for op, n in steps)


def mirror_commits(url: str, shas: list[str], root: Path, progress: Progress, allow: tuple[str, ...] = ()) -> None:
    """Fetch into the mirror of ``url`` every commit of ``shas`` it lacks, in one fetch (shallow, no blobs).

    What :func:`mirror` does for one ref, for many at once: a history that
    meets a submodule at fifty commits asks its remote once, not fifty times.
    """
    path = root / "git" / f"{slug(redact(url))}.git"
    with locked(path):
        handle = _open_mirror(path, url, allow)
        known = resolve_many(handle, shas)
        missing = [sha for sha in shas if known[sha] is None]
        if not missing:
            return
        what = f"{len(missing)} commits from {redact(url)}"
        progress(f"fetching {what}", None)
        refs = [f"+{sha}:refs/anchor-audit/{sha}" for sha in missing]
        try:
            _fetch(handle, ["--filter=blob:none", "--depth=1", "--no-tags", "--progress", "origin", *refs],
                   lambda said: progress(f"fetching {what}: {said}", None))  # fmt: skip
        except git.GitCommandError as exc:
            raise SourceError(f"cannot fetch {what}: {redact(first_line(exc))}") from None
        finally:
            progress("", 1.0)


_PROGRESS = re.compile(
    r"(Receiving objects|Resolving deltas|Counting objects|Compressing objects):"
    r"\s+(\d+)%[^,]*(?:,\s*([\d.]+ [KMG]?i?B))?"
)


def _open_mirror(path: Path, url: str, allow: tuple[str, ...]) -> git.Repo:
    """The mirror at ``path`` (made if new), its configuration ours again: a cache is data, never configuration.

    A mirror restored from someone else's cache may carry hooks, an
    ``uploadpack`` command, alternates or links out of the cache; the config
    file is rewritten whole, alternates are removed, hooks never run
    (:data:`~.gitenv.NEUTRAL_CONFIG`), and a link anywhere inside makes the
    mirror an error rather than a path to write through.
    """
    if not os.path.lexists(path):
        new_mirror(path, url)
    else:
        refuse_links(path)
        clear_stale_locks(path)
        write_config(path, url)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path / "objects" / "info" / "alternates")
    handle = repo_at(path)
    handle.git.update_environment(**git_env(allow, url, ("origin",)))
    return handle


def refuse_links(path: Path) -> None:
    """Raise :class:`SourceError` when ``path`` or anything inside it is a symbolic link (none is followed)."""
    if path.is_symlink() or not path.is_dir():
        raise SourceError(f"{path}: not a directory in the cache (a link or a file); not used")
    for folder, dirs, files in os.walk(path):
        for name in dirs + files:
            if os.path.islink(os.path.join(folder, name)):
                raise SourceError(f"{os.path.join(folder, name)}: a symbolic link in the cache; not followed")


def write_config(path: Path, url: str) -> None:
    """The mirror's whole configuration, as anchor-audit writes it (never the credentials of ``url``)."""
    text = (
        "[core]\n\trepositoryformatversion = 1\n\tbare = true\n"
        "[extensions]\n\tpartialClone = origin\n"
        f'[remote "origin"]\n\turl = {_config_value(redact(url))}\n\tpromisor = true\n'
        "\tpartialclonefilter = blob:none\n"
    )
    tmp = path / f".config.{os.getpid()}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.replace(tmp, path / "config")  # replaces a link itself, never what it points at


def _config_value(value: str) -> str:
    """``value`` as a git config value that reads back as itself."""
    escaped = value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
    return f'"{escaped}"'


def _fetch(handle: git.Repo, args: list[str], said: Callable[[str], None]) -> None:
    """``git fetch ARGS`` in ``handle``, telling ``said`` what git reports as it goes (objects, bytes received).

    Killed after :data:`FETCH_TIMEOUT` seconds; a failure is a :class:`git.GitCommandError` with git's stderr.
    The upload-pack command is git's own, whatever any configuration says.
    """
    process = handle.git.fetch(f"--upload-pack={UPLOAD_PACK}", *args, as_process=True)
    killed = threading.Event()

    def kill() -> None:  # a stalled remote sends nothing: no read would end
        killed.set()
        process.proc.kill()

    timer = threading.Timer(FETCH_TIMEOUT, kill)
    timer.start()
    seen: list[str] = []
    rest = b""
    try:
        while chunk := process.proc.stderr.read1(4096):
            *lines, rest = (rest + chunk).replace(b"\r", b"\n").split(b"\n")
            for raw in lines:
                text = raw.decode("utf-8", "replace").strip()
                match = _PROGRESS.search(text)
                if match:
                    step, percent, size = match.groups()
                    said(f"{step.lower()} {percent}%" + (f", {size}" if size else ""))
                elif text:
                    seen.append(text)
        status = process.proc.wait()
    finally:
        timer.cancel()
    if killed.is_set():
        raise git.GitCommandError(["git", "fetch"], status, f"no answer in {FETCH_TIMEOUT} s".encode())
    if status != 0:
        tail = seen + ([rest.decode("utf-8", "replace")] if rest.strip() else [])
        raise git.GitCommandError(["git", "fetch"], status, "\n".join(tail[-5:]).encode())


def new_mirror(path: Path, url: str) -> None:
    """Make an empty, configured mirror at ``path``, whole or not at all.

    It is built beside its place and renamed into it, so a run killed half
    way leaves a stray temporary folder, never a mirror without its remote.
    A fetch killed later leaves the mirror without the ref, and the next run
    simply fetches again.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.parent.is_symlink():
        raise SourceError(f"{path.parent}: a symbolic link in the cache; not followed")
    tmp = Path(tempfile.mkdtemp(dir=path.parent, prefix=f".{path.name}."))
    git.Repo.init(tmp, bare=True).close()
    write_config(tmp, url)
    os.rename(tmp, path)


def clear_stale_locks(path: Path) -> None:
    """Remove git's lock files left by a run that was killed mid-fetch.

    Only anchor-audit writes to its mirrors, and it holds the mirror's own
    lock here, so any git ``*.lock`` inside is stale; left alone, it would
    block every later fetch ("Unable to create 'shallow.lock': File exists").
    """
    for lock in [*path.glob("*.lock"), *path.glob("refs/**/*.lock"), *path.glob("objects/info/*.lock")]:
        lock.unlink(missing_ok=True)
