"""The distribution installed in this Python environment, read as if it were the repository.

``--installed [DIST]`` answers "does the skill hold for the Megatron-Bridge I
actually run?": files come from the installed distribution (importlib.metadata),
mapped onto repository paths like a release wheel's (``source.release.paths``).
"""

from __future__ import annotations

import os
import sys
from importlib import metadata
from pathlib import Path

from ..errors import NotCarried, SourceError
from ..match.pysource import SourceFile
from ..model import ReleaseSpec, SourceInfo
from . import MAX_FILE_BYTES, decode, git_blob_sha, too_large


class InstalledTree:
    def __init__(self, dist: metadata.Distribution, name: str, release: ReleaseSpec, info: SourceInfo) -> None:
        self._dist = dist
        self._root = Path(str(dist.locate_file(""))).resolve()
        self._release = release
        self._label = f"installed {name} {dist.version}"
        self.info = info
        self._files: dict[str, SourceFile | None] = {}

    def blob_id(self, path: str) -> str | None:
        source = self.read(path)
        return None if source is None else source.blob

    def read(self, path: str) -> SourceFile | None:
        if path in self._files:
            return self._files[path]
        target = (self._root / self._member(path)).resolve()
        if not str(target).startswith(str(self._root) + os.sep) or not target.is_file():
            self._files[path] = None  # not installed (or a link out of the distribution: not followed)
            return None
        if target.stat().st_size > MAX_FILE_BYTES:
            raise too_large(path)
        data = target.read_bytes()
        source = decode(path, data, git_blob_sha(data))
        self._files[path] = source
        return source

    def search(self, text: str, suffix: str) -> list[str] | None:
        found = []
        for record in self._dist.files or ():
            name = str(record)
            for wheel_prefix, repo_prefix in self._release.paths or (("", ""),):
                if name.startswith(wheel_prefix) and name.endswith(suffix):
                    repo_path = repo_prefix + name[len(wheel_prefix) :]
                    source = self.read(repo_path)
                    if source is not None and text in source.text:
                        found.append(repo_path)
        return sorted(found)

    def _member(self, path: str) -> str:
        for wheel_prefix, repo_prefix in self._release.paths or (("", ""),):
            if path.startswith(repo_prefix):
                return wheel_prefix + path[len(repo_prefix) :]
        raise NotCarried(f"the {self._label} does not carry {path}")


def open_installed(repo: str, ref: str, release: ReleaseSpec, dist: str | None = None) -> InstalledTree:
    name = dist or release.dist
    try:
        found = metadata.distribution(name)
    except metadata.PackageNotFoundError:
        raise SourceError(f"{name} is not installed in this Python environment ({sys.executable})") from None
    info = SourceInfo(repo, ref, None, kind="installed", release=f"{name} {found.version}")
    return InstalledTree(found, name, release, info)
