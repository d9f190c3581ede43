"""The cache's mirrors of remote repositories: bare, partial (no blobs), shallow unless history is asked for."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import git

from ..errors import SourceError
from ..redact import redact
from . import Progress
from .cache import locked, slug
from .gitrun import first_line, git_env, resolve

FETCH_TIMEOUT = 900  # seconds a fetch may take before it is killed


def mirror(
    url: str, ref: str, root: Path, progress: Progress, full_history: bool = False, allow: tuple[str, ...] = ()
) -> git.Repo:
    """The cached bare partial clone of ``url``, fetching ``ref`` into it if it is not there."""
    path = root / "git" / f"{slug(redact(url))}.git"
    with locked(path):
        fresh = not path.exists()
        if fresh:
            new_mirror(path, url)
        else:
            clear_stale_locks(path)
        handle = git.Repo(path)
        handle.git.update_environment(**git_env(allow, url))
        shallow = Path(handle.git_dir, "shallow").exists()
        if resolve(handle, ref) is not None and not (full_history and shallow):
            return handle
        progress(f"fetching {ref} from {redact(url)}", None)
        depth = ["--unshallow"] if full_history and shallow else [] if full_history else ["--depth=1"]
        try:
            handle.git.fetch(
                "--filter=blob:none", *depth, "--no-tags", "origin", f"+{ref}:refs/anchor-audit/{ref}",
                kill_after_timeout=FETCH_TIMEOUT,
            )  # fmt: skip
        except git.GitCommandError as exc:
            if fresh:
                shutil.rmtree(path, ignore_errors=True)  # leave no half-made mirror behind
            raise SourceError(f"{redact(url)}: cannot fetch {ref}: {redact(first_line(exc))}") from None
        finally:
            progress("", 1.0)
        return handle


def new_mirror(path: Path, url: str) -> None:
    """Make an empty, configured mirror at ``path``, whole or not at all.

    It is built beside its place and renamed into it, so a run killed half
    way leaves a stray temporary folder, never a mirror without its remote.
    A fetch killed later leaves the mirror without the ref, and the next run
    simply fetches again.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=path.parent, prefix=f".{path.name}."))
    handle = git.Repo.init(tmp, bare=True)
    with handle.config_writer() as cfg:
        cfg.set_value("core", "repositoryformatversion", "1")
        cfg.set_value("extensions", "partialClone", "origin")
        cfg.set_value('remote "origin"', "url", redact(url))  # never the credentials
        cfg.set_value('remote "origin"', "promisor", "true")
        cfg.set_value('remote "origin"', "partialclonefilter", "blob:none")
    handle.close()
    os.rename(tmp, path)


def clear_stale_locks(path: Path) -> None:
    """Remove git's lock files left by a run that was killed mid-fetch.

    Only anchor-audit writes to its mirrors, and it holds the mirror's own
    lock here, so any git ``*.lock`` inside is stale; left alone, it would
    block every later fetch ("Unable to create 'shallow.lock': File exists").
    """
    for lock in [*path.glob("*.lock"), *path.glob("refs/**/*.lock"), *path.glob("objects/info/*.lock")]:
        lock.unlink(missing_ok=True)
