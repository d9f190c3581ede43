"""A published release wheel read as if it were the repository.

Where the git remote is out of reach but the package index is not, the
wheel of ``DIST==VERSION`` is fetched with pip (so pip's own index
configuration applies) and read with zipfile.  Its paths are mapped onto the
repository's (``megatron/`` -> ``src/megatron/``); a repository path under no
mapping (``docs/``, ``tests/``) is unverifiable, never broken.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Iterable

from ..errors import SourceError
from ..model import ReleaseSpec, SourceInfo, SourceKind
from ..store.cachedir import cache_root, locked, refuse_link
from ..text.redact import redact
from . import Progress, no_progress
from .mapped import MappedTree

PIP_TIMEOUT = 600
# What reaches pip comes from a registry that may arrive in a pull request: a project name as the
# package index defines it (never a path, URL or option) and a PEP 440 version, nothing else.
_PROJECT = re.compile(r"^(?:[A-Za-z0-9]|[A-Za-z0-9][A-Za-z0-9._-]{0,198}[A-Za-z0-9])$")
_VERSION = re.compile(r"^(?:\d+!)?\d{1,9}(?:\.\d{1,9}){0,9}(?:[-_.]?(?:a|b|rc|alpha|beta|c|pre|preview)\d{0,9})?"
                      r"(?:[-_.]?(?:post|rev|r)\d{0,9})?(?:[-_.]?dev\d{0,9})?(?:\+[A-Za-z0-9]+(?:[-_.][A-Za-z0-9]+)*)?$")


def version_of(ref: str) -> str:
    """The release version a ref names: ``v0.6.0`` -> ``0.6.0``."""
    return ref[1:] if re.match(r"^v\d", ref) else ref


class WheelTree(MappedTree):
    def __init__(self, wheel: Path, release: ReleaseSpec, version: str, info: SourceInfo) -> None:
        super().__init__(release, f"release wheel {release.dist} {version}", info)
        self._zip = zipfile.ZipFile(wheel)
        self._names = set(self._zip.namelist())

    def _members(self) -> Iterable[str]:
        return self._names

    def _size(self, member: str) -> int | None:
        return self._zip.getinfo(member).file_size if member in self._names else None

    def _load(self, member: str) -> bytes:
        return self._zip.read(member)


def open_release(
    repo: str,
    ref: str,
    release: ReleaseSpec,
    version: str | None = None,
    cache_dir: str | None = None,
    progress: Progress = no_progress,
) -> WheelTree:
    """Fetch (or reuse) the wheel of ``release.dist`` at ``version`` (default: from ``ref``)."""
    asked = version
    version = version_of(version or ref)  # "v0.6.1" is the tag form of 0.6.1
    if not _VERSION.match(version):
        raise SourceError(f"--release {version!r}: not a release version (such as 0.6.0)")
    if not _PROJECT.match(release.dist):
        raise SourceError(f"source.release.dist {release.dist!r}: not a package index project name")
    wheels = cache_root(cache_dir) / "wheels"
    stem = re.sub(r"[-_.]+", "_", release.dist).lower()
    with locked(wheels / stem):
        found = sorted(wheels.glob(f"{stem}-{version}-*.whl"))
        if not found:
            progress(f"downloading {release.dist}=={version} with pip", None)
            found = [_download(release.dist, version, wheels, stem)]
            progress("", 1.0)
    refuse_link(found[0])
    yanked = " (a yanked release)" if Path(f"{found[0]}.yanked").exists() else ""
    # The report names the version actually read: an explicit VERSION is the ref it stands for.
    shown_ref = f"v{version}" if asked and asked.lstrip("v") == version else ref
    info = SourceInfo(redact(repo), shown_ref, None, SourceKind.RELEASE, release=f"{release.dist} {version}{yanked}")
    try:
        return WheelTree(found[0], release, version, info)
    except zipfile.BadZipFile:
        raise SourceError(f"{found[0]}: not a wheel (delete it and run again)") from None


def _download(dist: str, version: str, wheels: Path, stem: str) -> Path:
    wheels.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=wheels, prefix=".download-") as tmp:
        cmd = [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--no-deps",
            "--only-binary",
            ":all:",
            "--ignore-requires-python",
            "--disable-pip-version-check",
            "--quiet",
            "--dest",
            tmp,
            "--",  # what follows is a requirement, never an option
            f"{dist}=={version}",
        ]
        try:
            # Run in an empty folder: a requirement can never name a local project to build.
            done = subprocess.run(
                cmd, capture_output=True, text=True, timeout=PIP_TIMEOUT, stdin=subprocess.DEVNULL, cwd=tmp
            )
        except subprocess.TimeoutExpired:
            raise SourceError(f"pip download {dist}=={version}: no answer in {PIP_TIMEOUT} s") from None
        except OSError as exc:
            raise SourceError(f"cannot run pip ({exc.strerror}); is pip installed for {sys.executable}?") from None
        got = sorted(Path(tmp).glob(f"{stem}-{version}-*.whl"))
        if done.returncode != 0 or not got:
            lines = [ln for ln in done.stderr.splitlines() if ln.strip() and "WARNING" not in ln]
            reason = lines[-1].strip() if lines else "no wheel was downloaded"
            raise SourceError(f"pip could not download {dist}=={version}: {reason}")
        target = wheels / got[0].name
        if "yanked" in done.stderr.lower():  # pip takes a yanked release when pinned exactly, with a warning
            Path(f"{target}.yanked").write_text(done.stderr[-2000:], encoding="utf-8")
        got[0].replace(target)  # same file system: atomic, so a killed run leaves no half wheel
        return target
