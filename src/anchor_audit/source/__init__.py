"""Source trees at a ref: where the code's text comes from.

A tree answers one question, :meth:`SourceTree.read`: the text of PATH at the
audited ref (a :class:`~anchor_audit.source.file.SourceFile`), ``None`` if
the path is not there, :class:`~anchor_audit.errors.NotCarried` if this kind
of tree cannot know (a release wheel has no ``docs/``), or
:class:`~anchor_audit.errors.UnreadableFile`.  Nothing here parses code.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Iterable, Protocol, Sequence

from ..errors import BoundExceeded, UnreadableFile

if TYPE_CHECKING:  # a remembered run's replay imports this package for its cache folder: no model with it
    from ..model import SourceInfo
    from .file import SourceFile

MAX_FILE_BYTES = 10 * 1024 * 1024
_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
_SCP = re.compile(r"^[\w.-]+@[\w.-]+:")

# progress(message, fraction or None); the CLI passes a rich display or nothing.
Progress = Callable[[str, "float | None"], None]


def no_progress(message: str, fraction: float | None) -> None:
    """The progress sink for non-terminals and --quiet."""


@dataclass(frozen=True)
class Removal:
    """A path the history removed: the path it had, the newest commit removing it, and where that commit moved it
    (followed to a path at the ref; None: deleted, or moved somewhere later deleted)."""

    was: str
    commit: str
    now: str | None
    day: str | None = None  # the commit's UTC day, YYYY-MM-DD


@dataclass(frozen=True)
class FolderVersion:
    """The newest commit whose folder holds exactly the files asked about, and how many commits to the folder
    came after it; ``commit`` None when none of the ``searched`` commits does (or the tree has no history)."""

    commit: str | None
    date: str | None = None
    behind: int = 0
    searched: int = 0


class SourceTree(Protocol):
    """The code at one ref, whatever holds it (a git commit, a release wheel, an installed distribution)."""

    info: SourceInfo

    def read(self, path: str) -> SourceFile | None:
        """The file at ``path``, or None if the tree has no such file.

        Raises :class:`~anchor_audit.errors.NotCarried` where this kind of tree
        cannot know, :class:`~anchor_audit.errors.UnreadableFile` where the file
        cannot be audited.
        """
        ...

    def blob_id(self, path: str) -> str | None:
        """The git blob sha of the file at ``path`` (None: no such file), as cheaply as the tree can."""
        ...

    def search(self, text: str, suffix: str) -> list[str] | None:
        """Paths of files ending in ``suffix`` that contain ``text``; None: this tree cannot be searched cheaply."""
        ...

    def search_many(self, texts: list[str], suffix: str, words: bool = False) -> dict[str, list[str]] | None:
        """For each of ``texts``, the paths of files ending in ``suffix`` that contain it (``words``: each of them
        that is an identifier, written as a whole word): one search, not one per text (a skill's names); None:
        this tree cannot be searched cheaply."""
        ...

    def files_under(self, folder: str) -> list[str]:
        """Every file path under ``folder`` (names only)."""
        ...

    def is_folder(self, path: str) -> bool:
        """Whether ``path`` is a folder in this tree."""
        ...

    # Capabilities every tree answers, most by doing nothing: callers never probe a tree's class.

    def prefetch(self, paths: Iterable[str]) -> None:
        """Bring the files of ``paths`` in one go where reading them one by one would fetch each (a lean mirror)."""
        ...

    def expect_search(self, texts: list[str], suffix: str, words: bool = False) -> None:
        """Texts :meth:`search_many` will be asked of this tree, so that one search serves it and the other trees
        expected of its repository (the commits a skill's lines were written at); nothing where searches are
        not gathered."""
        ...

    def submodule_files(self) -> list[str]:
        """Every file path inside the tree's submodules, prefixed (none for a tree that has no submodules)."""
        ...

    def search_submodules(self, texts: list[str], suffix: str) -> dict[str, list[str]]:
        """:meth:`search_many` in each of the tree's submodules that can be opened and searched, paths prefixed
        (none for a tree that has no submodules)."""
        ...

    def added_after(self, paths: list[str]) -> dict[str, tuple[str, str]]:
        """(commit, UTC day) of the first commit of the default branch after this one that added each of ``paths``
        (this commit being behind it: a card's validation day); none where this kind of tree cannot know."""
        ...

    def ahead(self) -> "SourceTree | None":
        """The tree of the default branch's head where it is ahead of this commit (a card's validation day, behind
        it); None where it is not, or this kind of tree cannot know."""
        ...

    def removals(self, paths: list[str]) -> dict[str, Removal]:
        """Which of ``paths`` that are not here (exact, or the tail of a longer path) the history removed, and
        where to, for those it did; none where this kind of tree has no history."""
        ...

    def version_matching(self, folder: str, files: dict[str, str], siblings: Sequence[str] = ()) -> FolderVersion:
        """The newest commit up to this one whose ``folder`` holds exactly ``files`` (path under the folder ->
        git blob sha): what an out-of-date copy of the folder is a copy of; no commit where there is no history.
        ``siblings``: other folders the caller will ask about (a catalog's copies of one repository), which a
        tree may look up along with this one."""
        ...

    def authors(self, folder: str, limit: int) -> list[str]:
        """The names (as git records them) of the last ``limit`` people who committed to ``folder``, newest
        first; none where this kind of tree has no history."""
        ...

    def validated_on(self, day: str) -> "SourceTree | None":
        """The tree of the default branch at the end of ``day`` (UTC); None where this kind of tree cannot know."""
        ...

    def line_commits(self, path: str) -> list[str] | None:
        """For each line of ``path`` here, the commit that last changed it (what a skill's line was written
        against: ``git blame``); None where this kind of tree has no history, or one that ends too early to say."""
        ...

    def at_commit(self, sha: str) -> "SourceTree | None":
        """The tree of another commit of this repository (one :meth:`line_commits` named); None where there is none."""
        ...

    def definition_removed(self, path: str, pattern: str, since: str) -> tuple[str, str] | None:
        """(commit, its UTC day) of the newest commit after ``since`` whose diff of ``path`` adds or removes a line
        matching ``pattern`` (an extended regex: a name's ``class``/``def`` line, a constant's assignment): where
        the name stops being defined there; None where this tree cannot say."""
        ...

    def changes_since(self, path: str, since: str, limit: int) -> list[tuple[str, str]] | None:
        """(commit, its UTC day) of the first ``limit`` commits after ``since`` up to this one that changed ``path``,
        oldest first; None where this tree cannot say (no history, a path in a submodule)."""
        ...

    def holds_folder(self, path: str, files: dict[str, tuple[str, int]]) -> bool:
        """Whether the folder at ``path`` is exactly ``files`` (path under it -> (blob sha, mode)), known without
        reading it where this kind of tree can (else False: the caller compares file by file)."""
        ...

    def content_key(self) -> str | None:
        """A name for everything this tree's answers depend on (a whole repository's commit, and where its
        submodules are read from): equal names, equal answers to every question; None where answers may depend on
        more (a working tree, a packaged copy, a shallow or lean history)."""
        ...


def is_remote(repo: str) -> bool:
    """A URL (``scheme://``) or scp-like ``user@host:path``, as git reads it; else a local path."""
    return bool(_URL.match(repo) or _SCP.match(repo))


def url_key(url: str) -> str:
    """A repository as ``--mirror`` names it, whatever the spelling: ``https://github.com/Owner/Name.git`` and
    ``Owner/Name`` are ``owner/name``."""
    tail = url.rstrip("/").removesuffix(".git")
    return (tail.split("github.com/", 1)[-1] if "github.com/" in tail else tail).lower()


def mirrored(repo: str) -> bool:
    """Whether ``repo`` is read through a mirror in the cache (a URL, or a ``helper::`` address), not in place."""
    return is_remote(repo) or "::" in repo.split("/", 1)[0]


def git_blob_sha(data: bytes) -> str:
    """The sha git gives a blob with this content (so wheel and git files share cache keys)."""
    return hashlib.sha1(b"blob %d\x00" % len(data) + data).hexdigest()


def too_large(path: str) -> BoundExceeded:
    return BoundExceeded(f"{path} is larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB; not audited")


def decode(path: str, data: bytes, blob: str) -> SourceFile:
    """Bytes of a file at the ref -> its text; raises :class:`UnreadableFile`."""
    from .file import SourceFile

    if len(data) > MAX_FILE_BYTES:
        raise too_large(path)
    if b"\x00" in data[:8192]:
        raise UnreadableFile(f"{path} is a binary file")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise UnreadableFile(f"{path}:{line} is not UTF-8 (byte {exc.start})") from None
    return SourceFile(path, text, blob)
