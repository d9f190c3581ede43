"""A packaged copy of the code (a wheel, an installed distribution) read as if it were the repository.

Its folders map onto the repository's by ``source.release.paths``
(``megatron/`` -> ``src/megatron/``); a repository path under no mapping
is something this copy cannot show (unverifiable), never broken.
"""

from __future__ import annotations

import re
from typing import Iterable, Sequence

from ..errors import NotCarried
from ..model import ReleaseSpec, SourceInfo
from . import MAX_FILE_BYTES, FolderVersion, Removal, decode, git_blob_sha, too_large
from .file import SourceFile


class MappedTree:
    """Subclasses say how to list members and read one (``_members``, ``_size``, ``_load``)."""

    def __init__(self, release: ReleaseSpec, label: str, info: SourceInfo) -> None:
        self._release = release
        self._label = label
        self.info = info
        self._files: dict[str, SourceFile | None] = {}

    def blob_id(self, path: str) -> str | None:
        source = self.read(path)
        return None if source is None else source.blob

    def read(self, path: str) -> SourceFile | None:
        if path not in self._files:
            member = self._member(path)
            size = self._size(member)
            if size is None:
                self._files[path] = None
            elif size > MAX_FILE_BYTES:
                raise too_large(path)
            else:
                data = self._load(member)
                self._files[path] = decode(path, data, git_blob_sha(data))
        return self._files[path]

    def search_many(self, texts: list[str], suffix: str, words: bool = False) -> dict[str, list[str]]:
        return {text: self.search(text, suffix, words) for text in texts}

    def search(self, text: str, suffix: str, words: bool = False) -> list[str]:
        """Repository paths of the files ending in ``suffix`` that contain ``text`` (``words``: an identifier as a
        whole word)."""
        word = re.compile(rf"(?<!\w){re.escape(text)}(?!\w)") if words and re.fullmatch(r"\w+", text) else None
        found = []
        for wheel_prefix, repo_prefix in self._mapping:
            for name in sorted(self._members()):
                if name.startswith(wheel_prefix) and name.endswith(suffix):
                    repo_path = repo_prefix + name[len(wheel_prefix) :]
                    source = self.read(repo_path)
                    if source is not None and (word.search(source.text) if word else text in source.text):
                        found.append(repo_path)
        return found

    def files_under(self, folder: str) -> list[str]:
        """Repository paths of every file this copy carries under ``folder``."""
        prefix = folder.strip("/") + "/" if folder.strip("/") else ""
        return sorted(path for path in self._repo_paths() if path.startswith(prefix))

    def is_folder(self, path: str) -> bool:
        prefix = path.strip("/") + "/"
        return any(p.startswith(prefix) for p in self._repo_paths())

    def prefetch(self, paths: Iterable[str]) -> None:
        """Nothing to bring: a packaged copy is read whole from disk."""

    def expect_search(self, texts: list[str], suffix: str, words: bool = False) -> None:
        """Nothing to gather: a packaged copy is searched in memory."""

    def submodule_files(self) -> list[str]:
        return []  # a packaged copy has its files, not submodules

    def search_submodules(self, texts: list[str], suffix: str) -> dict[str, list[str]]:
        return {}

    def removals(self, paths: list[str]) -> dict[str, Removal]:
        return {}  # a release has no history to follow a rename in

    def added_after(self, paths: list[str]) -> dict[str, tuple[str, str]]:
        return {}

    def ahead(self) -> None:
        return None

    def validated_on(self, day: str) -> None:
        return None  # a release has no history to look up a day in

    def line_commits(self, path: str) -> None:
        return None  # nor the commit a line was written in

    def at_commit(self, sha: str) -> None:
        return None

    def definition_removed(self, path: str, pattern: str, since: str) -> None:
        return None

    def changes_since(self, path: str, since: str, limit: int) -> None:
        return None

    def content_key(self) -> str | None:
        return None  # a packaged copy read from disk: no commit names it

    def holds_folder(self, path: str, files: dict[str, tuple[str, int]]) -> bool:
        return False  # no tree objects to compare: file by file

    def version_matching(self, folder: str, files: dict[str, str], siblings: Sequence[str] = ()) -> FolderVersion:
        return FolderVersion(None)  # nor earlier versions of a folder

    def authors(self, folder: str, limit: int) -> list[str]:
        return []  # a wheel records no commits

    def _repo_paths(self) -> Iterable[str]:
        for wheel_prefix, repo_prefix in self._mapping:
            for name in self._members():
                if name.startswith(wheel_prefix):
                    yield repo_prefix + name[len(wheel_prefix) :]

    @property
    def _mapping(self) -> tuple[tuple[str, str], ...]:
        return self._release.paths or (("", ""),)

    def _member(self, path: str) -> str:
        for wheel_prefix, repo_prefix in self._mapping:
            if path.startswith(repo_prefix):
                return wheel_prefix + path[len(repo_prefix) :]
        raise NotCarried(f"the {self._label} does not carry {path}")

    def _members(self) -> Iterable[str]:
        raise NotImplementedError

    def _size(self, member: str) -> int | None:
        """The member's size in bytes, or None if the copy has no such file."""
        raise NotImplementedError

    def _load(self, member: str) -> bytes:
        raise NotImplementedError
