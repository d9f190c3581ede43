"""A partial clone anchor-audit did not make, read through a repository of its own.

A partial clone fetches a missing object from its promisor remote on the
first read, with the remote's own configuration: its ``uploadpack``
command, its ``vcs`` helper.  git keeps the *first* ``uploadpack`` it
reads, so no command-level setting can override it, and git 2.39 has no
switch to turn lazy fetching off.  So a local partial clone is never read
in place.  Its objects are read through an *overlay*: a bare repository in
the cache whose ``objects/info/alternates`` names the clone's objects,
whose refs are a copy of the clone's, and whose configuration anchor-audit
writes.  The overlay is itself a partial clone of the clone's promisor URL
when that URL passes the same policy as a submodule's (a network transport
git may use); a blob neither has is then fetched by git, safely, into the
overlay, never into the user's repository.  Otherwise a missing blob is
missing: the read says the file cannot be read.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import git

from ..errors import SourceError
from ..store.cachedir import locked, slug
from . import is_remote
from .gitenv import ALLOWED_PROTOCOLS
from .gitrun import harden, local_config, repo_at
from .mirror import write_config


def promisor_url(config: dict[str, str]) -> str | None:
    """The URL a partial clone fetches missing objects from, or None if it is not a partial clone."""
    names = [k.split(".")[1] for k, v in config.items() if k.startswith("remote.") and k.endswith(".promisor")
             and v.lower() in ("true", "yes", "on", "1", "")]  # fmt: skip
    partial = config.get("extensions.partialclone")
    if partial is None and not names:
        return None
    name = partial or names[0]
    return config.get(f"remote.{name}.url", "")


def network_url(url: str) -> bool:
    """Whether ``url`` names a network repository git may fetch from (not a local path, file:// or a helper)."""
    if not is_remote(url) or "::" in url.split("/", 1)[0]:
        return False
    scheme = url.split("://", 1)[0].lower() if "://" in url else "ssh"
    return scheme in ALLOWED_PROTOCOLS and scheme != "file"


def open_overlay(clone: Path, url: str | None, cache: Path, kind: str = "local") -> Path:
    """The overlay of the repository whose common directory is ``clone`` (made or refreshed); its path.

    ``kind`` names what it is for (``local``: a partial clone read through it; ``worktree``: a working tree's
    snapshots are written in it), so the two never share a folder.
    """
    path = cache / "git" / f"{kind}-{slug(str(clone))}.git"
    with locked(path):
        if path.is_symlink() or (path.exists() and not path.is_dir()):
            path.unlink()  # not ours to follow or keep: made anew
        for sub in ("objects/info", "objects/pack", "refs"):
            (path / sub).mkdir(parents=True, exist_ok=True)
        _write_config(path, url if url is not None and network_url(url) else None)
        (path / "objects" / "info" / "alternates").write_text(f"{clone / 'objects'}\n", encoding="utf-8")
        _copy_refs(clone, path)
    return path


def _write_config(path: Path, url: str | None) -> None:
    if url is not None:
        write_config(path, url)
        return
    tmp = path / f".config.{os.getpid()}.tmp"
    tmp.write_text("[core]\n\trepositoryformatversion = 0\n\tbare = true\n", encoding="utf-8")
    os.replace(tmp, path / "config")


def _copy_refs(clone: Path, overlay: Path) -> None:
    """The clone's HEAD, packed-refs and loose refs as the overlay's (regular files only: no link is followed)."""
    shutil.rmtree(overlay / "refs", ignore_errors=True)
    (overlay / "refs").mkdir()
    for name in ("HEAD", "packed-refs"):
        source = clone / name
        if source.is_file() and not source.is_symlink():
            shutil.copyfile(source, overlay / name)
        else:
            (overlay / name).unlink(missing_ok=True)
    if not (overlay / "HEAD").exists():
        (overlay / "HEAD").write_text("ref: refs/heads/main\n", encoding="utf-8")
    for folder, dirs, files in os.walk(clone / "refs"):
        dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(folder, d))]
        target = overlay / os.path.relpath(folder, clone)
        target.mkdir(parents=True, exist_ok=True)
        for name in files:
            source = Path(folder, name)
            if not source.is_symlink() and source.is_file() and not name.endswith(".lock"):
                shutil.copyfile(source, target / name)


def open_local(path: str, cache: Path) -> git.Repo:
    """A local repository, read in place; a partial clone, through its overlay (the module's docstring)."""
    if not Path(path).exists():
        raise SourceError(f"{path}: no such repository (not a path, and not a URL)")
    try:
        handle = repo_at(path)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        raise SourceError(f"{path}: not a git repository") from None
    config = local_config(str(handle.common_dir))
    url = promisor_url(config)
    if url is None:
        harden(handle, config)
        return handle
    common = Path(handle.common_dir).resolve()
    handle.close()
    handle = repo_at(open_overlay(common, url, cache))
    harden(handle, {"remote.origin.url": url}, url=url)
    return handle
