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

from ..errors import NotCarried, SourceError
from ..match.pysource import SourceFile
from ..model import ReleaseSpec, SourceInfo
from . import MAX_FILE_BYTES, Progress, decode, git_blob_sha, no_progress, too_large
from .cache import cache_root, locked

PIP_TIMEOUT = 600


def version_of(ref: str) -> str:
    """The release version a ref names: ``v0.6.0`` -> ``0.6.0``."""
    return ref[1:] if re.match(r"^v\d", ref) else ref


class WheelTree:
    def __init__(self, wheel: Path, release: ReleaseSpec, version: str, info: SourceInfo) -> None:
        self._zip = zipfile.ZipFile(wheel)
        self._names = set(self._zip.namelist())
        self._release = release
        self.info = info
        self._files: dict[str, SourceFile | None] = {}
        self._label = f"release wheel {release.dist} {version}"

    def blob_id(self, path: str) -> str | None:
        source = self.read(path)
        return None if source is None else source.blob

    def read(self, path: str) -> SourceFile | None:
        if path in self._files:
            return self._files[path]
        member = self._member(path)
        if member not in self._names:
            self._files[path] = None
            return None
        entry = self._zip.getinfo(member)
        if entry.file_size > MAX_FILE_BYTES:
            raise too_large(path)
        data = self._zip.read(member)
        source = decode(path, data, git_blob_sha(data))
        self._files[path] = source
        return source

    def search(self, text: str, suffix: str) -> list[str] | None:
        """Repository paths of the wheel's files ending in ``suffix`` that contain ``text``."""
        found = []
        for wheel_prefix, repo_prefix in self._release.paths or (("", ""),):
            for name in sorted(self._names):
                if name.startswith(wheel_prefix) and name.endswith(suffix):
                    if text.encode() in self._zip.read(name):
                        found.append(repo_prefix + name[len(wheel_prefix) :])
        return found

    def _member(self, path: str) -> str:
        mapping = self._release.paths or (("", ""),)
        for wheel_prefix, repo_prefix in mapping:
            if path.startswith(repo_prefix):
                return wheel_prefix + path[len(repo_prefix) :]
        raise NotCarried(f"the {self._label} does not carry {path}")


def open_release(
    repo: str,
    ref: str,
    release: ReleaseSpec,
    version: str | None = None,
    cache_dir: str | None = None,
    progress: Progress = no_progress,
) -> WheelTree:
    """Fetch (or reuse) the wheel of ``release.dist`` at ``version`` (default: from ``ref``)."""
    version = version or version_of(ref)
    if not re.match(r"^[0-9A-Za-z][0-9A-Za-z.+!_-]*$", version):
        raise SourceError(f"--release {version!r}: not a version")
    wheels = cache_root(cache_dir) / "wheels"
    stem = re.sub(r"[-_.]+", "_", release.dist).lower()
    with locked(wheels / stem):
        found = sorted(wheels.glob(f"{stem}-{version}-*.whl"))
        if not found:
            progress(f"downloading {release.dist}=={version} with pip", None)
            found = [_download(release.dist, version, wheels, stem)]
            progress("", 1.0)
    info = SourceInfo(repo=repo, ref=ref, commit=None, kind="release", release=f"{release.dist} {version}")
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
            f"{dist}=={version}",
        ]
        try:
            done = subprocess.run(cmd, capture_output=True, text=True, timeout=PIP_TIMEOUT, stdin=subprocess.DEVNULL)
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
        got[0].replace(target)  # same file system: atomic, so a killed run leaves no half wheel
        return target
