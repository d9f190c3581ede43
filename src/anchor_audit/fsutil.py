"""Writing files the safe way: whole or not at all, and never over someone else's edit."""

from __future__ import annotations

import os
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .errors import AuditError


class WriteConflict(AuditError):
    """A file changed on disk between reading it and writing it back."""


@dataclass(frozen=True)
class FileEdit:
    """New bytes for a file, and the bytes they were computed from."""

    path: Path
    before: bytes
    after: bytes


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` via a temporary file in the same folder and a rename.

    The file keeps its permission bits; a reader sees the old file or the new
    one, never half of either.
    """
    mode = stat.S_IMODE(path.stat().st_mode) if path.exists() else None
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def apply_edits(edits: list[FileEdit]) -> None:
    """Write every edit, after checking that no file changed since it was read.

    All files are checked before any is written, so a conflict writes nothing.
    """
    for edit in edits:
        current = edit.path.read_bytes() if edit.path.exists() else b""
        if current != edit.before:
            raise WriteConflict(f"{edit.path}: changed on disk since anchor-audit read it; nothing written, run again")
    for edit in edits:
        try:
            write_atomic(edit.path, edit.after)
        except OSError as exc:
            raise AuditError(f"{edit.path}: cannot write: {exc.strerror}") from None
