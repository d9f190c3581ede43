"""Reading and writing the user's files the safe way.

Reading: an input file is opened once, checked to be a regular file and
within its size bound *before* any byte is read (a 1 GB SKILL.md or
``/dev/zero`` as a baseline costs nothing).

Writing: whole or not at all, never over someone else's edit, never
turning a device or a link into a regular file, and a set of files
(registry + SKILL.md + card.yaml) changes together or not at all.
"""

from __future__ import annotations

import io
import os
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Callable, Iterator, TextIO, Union

from ..errors import AuditError


class WriteConflict(AuditError):
    """A file changed on disk between reading it and writing it back."""


class InputFileError(AuditError):
    """An input file cannot be read: missing, not a regular file, too large, unreadable."""


def read_input(path: Path, limit: int, what: str) -> bytes:
    """The bytes of the regular file ``path``; refuses anything else, or more than ``limit`` bytes.

    ``what`` names the kind of file in the message ("a skill file", "a baseline").
    """
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise InputFileError(f"{path}: no such file") from None
    except OSError as exc:
        raise InputFileError(f"{path}: cannot read: {exc.strerror}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            kind = "a folder" if stat.S_ISDIR(info.st_mode) else "a device or special file"
            raise InputFileError(f"{path}: is {kind}, not {what}")
        if info.st_size > limit:
            raise InputFileError(f"{path}: larger than {_size(limit)}; not {what}")
        # os.read, not a buffered file's read(limit + 1), which makes a buffer of the limit's size for every
        # file (30 us against 6 for a small SKILL.md); the file may grow after fstat: never read past the bound.
        parts: list[bytes] = []
        left, want = limit + 1, info.st_size + 1
        while left > 0:
            chunk = os.read(fd, min(left, want))
            if not chunk:
                break
            parts.append(chunk)
            left, want = left - len(chunk), 1 << 20
    except OSError as exc:
        raise InputFileError(f"{path}: cannot read: {exc.strerror}") from None
    finally:
        os.close(fd)
    data = parts[0] if len(parts) == 1 else b"".join(parts)
    if len(data) > limit:
        raise InputFileError(f"{path}: larger than {_size(limit)}; not {what}")
    return data


def entries_under(folder: Path, skip: tuple[str, ...] = ()) -> Iterator[tuple[str, os.DirEntry[str]]]:
    """Every entry under ``folder`` as (path relative to it, with ``/``, the entry), a folder before what it
    holds; a link (to a file or a folder) is an entry, never entered; ``skip``: names at the top neither listed
    nor entered.  One ``scandir`` per folder: the kind of each entry comes with its name, so listing a skill's
    folder costs no ``stat`` per file."""
    todo = [("", str(folder))]
    while todo:
        prefix, where = todo.pop()
        with os.scandir(where) as listing:
            found = sorted((e for e in listing if prefix or e.name not in skip), key=lambda entry: entry.name)
        for entry in found:
            yield prefix + entry.name, entry
            if entry.is_dir(follow_symlinks=False):
                todo.append((f"{prefix}{entry.name}/", entry.path))


def files_under(folder: Path) -> list[str]:
    """The regular files under ``folder`` (links left out, linked folders not entered), relative, ``/``-joined,
    in the order of their path's parts (as ``sorted(folder.rglob(...))`` gives them)."""
    found = [rel for rel, entry in entries_under(folder) if entry.is_file(follow_symlinks=False)]
    return sorted(found, key=lambda rel: rel.split("/"))


def _size(limit: int) -> str:
    return f"{limit // (1024 * 1024)} MiB" if limit >= 1024 * 1024 else f"{limit} bytes"


@dataclass(frozen=True)
class FileEdit:
    """New bytes for a file, and the bytes they were computed from."""

    path: Path
    before: bytes
    after: bytes


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _new_file_mode() -> int:
    return 0o666 & ~_umask()


# What a file will hold: its bytes, or a renderer that writes its text to a stream (UTF-8; a lone surrogate
# written as a backslash escape), called as the file is written, so a large report is never held whole.
Content = Union[bytes, Callable[[TextIO], object]]


def _stage(path: Path, data: Content) -> Path:
    """Write ``data`` to a new temporary file beside ``path``, with the mode ``path`` has (or a new file gets)."""
    mode = stat.S_IMODE(path.stat().st_mode) if path.exists() else _new_file_mode()
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            if isinstance(data, bytes):
                handle.write(data)
            else:
                _render_into(handle, data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return Path(tmp)


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path``: a reader sees the old file or the new one, never half of either.

    A regular file (or a new path) is replaced by a rename and keeps its
    permission bits; a new file gets the umask's.  A link is followed to
    the file it names.  A device, pipe or socket (``/dev/null``,
    ``/dev/stdout``) is written in place: renaming over it would replace a
    device node with a regular file.  A folder is refused.
    """
    target = Path(os.path.realpath(path)) if path.is_symlink() else path
    try:
        info = target.stat()
    except FileNotFoundError:
        info = None
    if info is not None and stat.S_ISDIR(info.st_mode):
        raise IsADirectoryError(21, "Is a directory", str(path))
    if info is not None and not stat.S_ISREG(info.st_mode):
        with open(target, "wb") as handle:  # a device or a pipe: no rename, no truncation games
            handle.write(data)
        return
    tmp = _stage(target, data)
    try:
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _current(path: Path) -> bytes | None:
    """The bytes at ``path`` now (None: there is no file, or no regular file, there)."""
    try:
        if not path.is_file():
            return None
        return path.read_bytes()
    except OSError:
        return None


def apply_edits(edits: list[FileEdit]) -> list[Path]:
    """Write every edit, all or none; returns the paths written.

    1. Every file is checked to still hold the bytes it was read with
       (deleted, replaced by a folder, or edited since: nothing is written).
    2. Every new content is staged in a temporary file beside its target;
       a read-only folder or a full disk fails here, before any target changed.
    3. The staged files are renamed over their targets.  Should a rename
       fail, the targets already replaced get their old bytes back.
    No temporary file is left behind in any case.
    """
    for edit in edits:
        current = _current(edit.path)
        if current != edit.before:
            raise WriteConflict(f"{edit.path}: changed on disk since anchor-audit read it; nothing written, run again")
    try:
        _replace_all([(edit.path, edit.before, edit.after) for edit in edits])
    except WriteFailed as exc:
        raise AuditError(f"{exc.path}: cannot write: {exc.strerror}; nothing written") from None
    return [edit.path for edit in edits]


class WriteFailed(Exception):
    """One file of a transaction could not be written; none was (or every one is back as it was)."""

    def __init__(self, index: int, path: Path, strerror: str) -> None:
        super().__init__(f"{path}: {strerror}")
        self.index, self.path, self.strerror = index, path, strerror


def _render_into(handle: BinaryIO, render: Callable[[TextIO], object]) -> None:
    """Run ``render`` on a text stream over ``handle``, its text becoming bytes as a report's always did:
    UTF-8, ``\\n`` as written, a lone surrogate as its backslash escape."""
    text = io.TextIOWrapper(handle, encoding="utf-8", errors="backslashreplace", newline="")
    try:
        render(text)
        text.flush()
    finally:
        text.detach()  # the file stays the handle's to close


def rendered(data: Content) -> bytes:
    """``data``'s bytes (a renderer run into memory)."""
    if isinstance(data, bytes):
        return data
    buffer = io.BytesIO()
    _render_into(buffer, data)
    return buffer.getvalue()


def write_all(files: list[tuple[Path, Content]], follow_links: bool = True) -> None:
    """Write each of a run's output files, all or none (:class:`WriteFailed` names the first that failed).

    ``follow_links``: a link at a path the user named is written through (``--output report.json`` pointing at
    the file they mean); False, for names anchor-audit chose in a folder, a link there is replaced, never followed.

    Regular files (and new paths) are staged and renamed in as :func:`apply_edits` does, a file that was
    not there is removed again on a rollback; a renderer writes straight into its staged file.  A device or
    pipe (``/dev/stdout``) is rendered first and written last, in place.  A folder is refused before anything
    is written.
    """
    regular: list[tuple[Path, Content]] = []
    index_of: list[int] = []  # regular's position -> files'
    in_place: list[tuple[int, Path, Content]] = []
    for i, (path, data) in enumerate(files):
        if not follow_links and path.is_symlink():
            regular.append((path, data))  # the link itself is replaced by the file
            index_of.append(i)
            continue
        target = Path(os.path.realpath(path)) if path.is_symlink() else path
        try:
            info = target.stat()
        except FileNotFoundError:
            info = None
        except OSError as exc:
            raise WriteFailed(i, path, exc.strerror or type(exc).__name__) from None
        if info is not None and stat.S_ISDIR(info.st_mode):
            raise WriteFailed(i, path, "Is a directory")
        if info is not None and not stat.S_ISREG(info.st_mode):
            in_place.append((i, target, data))
        else:
            regular.append((target, data))
            index_of.append(i)
    in_place = [(i, target, rendered(data)) for i, target, data in in_place]  # before anything is written
    # What each file held, to put back should a later rename fail; the last renamed has none after it.
    staged = [(target, _current(target) if k + 1 < len(regular) else None, data)
              for k, (target, data) in enumerate(regular)]  # fmt: skip
    try:
        _replace_all(staged)
    except WriteFailed as exc:
        index = index_of[exc.index]
        raise WriteFailed(index, files[index][0], exc.strerror) from None
    for i, target, data in in_place:
        try:
            with open(target, "wb") as handle:  # no rename over a device node, no truncation games
                handle.write(rendered(data))
        except OSError as exc:
            raise WriteFailed(i, files[i][0], exc.strerror or type(exc).__name__) from None


def _replace_all(files: list[tuple[Path, bytes | None, Content]]) -> None:
    """(path, its bytes now or None, new bytes): stage every one, then rename each in; on a failure, undo."""
    staged: list[tuple[Path, bytes | None, Path]] = []
    try:
        for i, (path, before, after) in enumerate(files):
            try:
                staged.append((path, before, _stage(path, after)))
            except OSError as exc:
                raise WriteFailed(i, path, exc.strerror or type(exc).__name__) from None
        done: list[tuple[Path, bytes | None]] = []
        for i, (path, before, tmp) in enumerate(staged):
            try:
                os.replace(tmp, path)
            except OSError as exc:
                _roll_back(done)
                raise WriteFailed(i, path, exc.strerror or type(exc).__name__) from None
            done.append((path, before))
    finally:
        for _, _, tmp in staged:
            tmp.unlink(missing_ok=True)


def _roll_back(done: list[tuple[Path, bytes | None]]) -> None:
    for path, before in reversed(done):
        try:
            if before is None:
                path.unlink(missing_ok=True)  # it was not there before this run
            else:
                write_atomic(path, before)
        except OSError:
            pass  # best effort: the error raised next names the file that failed
