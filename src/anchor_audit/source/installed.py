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
from typing import Iterable

from ..errors import SourceError
from ..model import ReleaseSpec, SourceInfo, SourceKind
from ..text.redact import redact
from .mapped import MappedTree


class InstalledTree(MappedTree):
    def __init__(self, dist: metadata.Distribution, name: str, release: ReleaseSpec, info: SourceInfo) -> None:
        super().__init__(release, f"installed {name} {dist.version}", info)
        self._dist = dist
        self._root = Path(str(dist.locate_file(""))).resolve()

    def _members(self) -> Iterable[str]:
        return [str(record) for record in self._dist.files or ()]

    def _size(self, member: str) -> int | None:
        target = (self._root / member).resolve()
        if not str(target).startswith(str(self._root) + os.sep) or not target.is_file():
            return None  # not installed (or a link out of the distribution: not followed)
        return target.stat().st_size

    def _load(self, member: str) -> bytes:
        return (self._root / member).resolve().read_bytes()


def open_installed(repo: str, ref: str, release: ReleaseSpec, dist: str | None = None) -> InstalledTree:
    name = dist or release.dist
    try:
        found = metadata.distribution(name)
    except metadata.PackageNotFoundError:
        raise SourceError(f"{name} is not installed in this Python environment ({sys.executable})") from None
    info = SourceInfo(redact(repo), ref, None, kind=SourceKind.INSTALLED, release=f"{name} {found.version}")
    return InstalledTree(found, name, release, info)
