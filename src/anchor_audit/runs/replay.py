"""A remembered run's report: kept as it is written, written again while its witnesses hold (:mod:`.remembered`).

The report goes to stdout as it is made and, through :class:`Tee`, to a file
in the cache's ``runs/`` folder, never all in memory; the signed row in the
result store holds the witnesses, the exit code and each kept file's sha256.
A replay checks every witness and every hash before it writes a byte: a kept
file that is gone or changed, or a row that does not verify, and the run is
computed again.
"""

from __future__ import annotations

import hashlib
import io
import os
import sys
import tempfile
from pathlib import Path
from typing import IO, TYPE_CHECKING, TextIO

from .remembered import RunRecord, holds

if TYPE_CHECKING:
    from ..store.sqlite import ResultStore

MAX_OUTPUT = 256 * 1024 * 1024  # bytes of report kept; a larger run is not remembered


class Tee(io.TextIOBase):
    """stdout, and a copy of what is written to it spooled to a file in the cache (never held in memory)."""

    def __init__(self, stream: TextIO, spool: Path | None) -> None:
        self.stream = stream
        self.spool = spool  # None: nothing is kept (no cache, or its folder for runs cannot be used)
        self.digest = hashlib.sha256()
        self.size = 0
        self._file: IO[bytes] | None = None

    def write(self, text: str) -> int:
        if self.spool is not None and self.size <= MAX_OUTPUT:
            data = text.encode("utf-8", "surrogatepass")  # the text as written; stdout's own encoding applies on replay
            try:
                if self._file is None:
                    self._file = tempfile.NamedTemporaryFile(dir=self.spool, prefix=".out-", delete=False)
                self._file.write(data)
            except OSError:
                self.spool = None
            self.digest.update(data)
            self.size += len(data)
        return self.stream.write(text)

    def kept(self) -> Path | None:
        """The spooled copy, closed; None when nothing was written or it was not kept whole."""
        if self._file is None:
            return None
        self._file.close()
        path = Path(self._file.name)
        if self.spool is None or self.size > MAX_OUTPUT:
            path.unlink(missing_ok=True)
            return None
        return path

    def flush(self) -> None:
        self.stream.flush()

    def isatty(self) -> bool:
        return self.stream.isatty()

    def fileno(self) -> int:
        return self.stream.fileno()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return self.stream.encoding


def spool_folder(cache_dir: str | None) -> Path | None:
    """``runs/`` in the cache, where remembered reports are kept (made; None if it cannot be used)."""
    from ..store.cachedir import cache_root

    folder = cache_root(cache_dir) / "runs"
    try:
        if folder.is_symlink():
            return None
        folder.mkdir(exist_ok=True)
    except OSError:
        return None
    return folder if folder.is_dir() else None


def remember(store: ResultStore | None, record: RunRecord, code: int, stdout: Tee, files: list[str]) -> str | None:
    """Store a finished run under its key (its report in ``runs/``, its hash in the signed row); why not, or None."""
    spooled = stdout.kept()
    try:
        if store is None or store.problem or stdout.spool is None:
            return "the result cache is off"
        if record.spoiled or stdout.size > MAX_OUTPUT:
            return record.spoiled or "its report is too large to keep"
        name = hashlib.sha256(record.key.encode()).hexdigest()[:40]
        kept = []
        for i, path in enumerate(files):
            sha = _copied(Path(path), stdout.spool / f"{name}.{i}.out")
            kept.append([os.path.abspath(path), f"{name}.{i}.out", sha])
        if spooled is not None:
            os.replace(spooled, stdout.spool / f"{name}.out")
            spooled = None
        report = [f"{name}.out" if stdout.size else None, stdout.digest.hexdigest()]
        store.put(record.key, {"witnesses": record.witnesses, "stdout": report, "files": kept, "code": code})
        return None
    except OSError as exc:
        return f"its report could not be kept ({exc.strerror or exc})"
    finally:
        if spooled is not None:
            spooled.unlink(missing_ok=True)


def _copied(source: Path, target: Path) -> str:
    """The sha256 of ``source``, copied to ``target`` a chunk at a time (a catalog's report is not held whole)."""
    digest = hashlib.sha256()
    with open(source, "rb") as read, open(target, "wb") as write:
        while chunk := read.read(1 << 20):
            digest.update(chunk)
            write.write(chunk)
    return digest.hexdigest()


def replay(key: str, cache_dir: str | None) -> int | None:
    """The exit code of a remembered run, its report written as it was; None where there is none that holds."""
    from ..store.cachedir import cache_root
    from ..store.sqlite import ResultStore

    path = cache_root(cache_dir) / "results.sqlite3"
    if not path.is_file():
        return None
    store = ResultStore(path)
    try:
        value = store.get(key)
    finally:
        store.close()
    if value is None or not holds(value.get("witnesses", {})):
        return None
    try:
        spool = path.parent / "runs"
        files = [(Path(where), _kept(spool, name, sha)) for where, name, sha in value["files"]]
        report, report_sha = value["stdout"]
        code = int(value["code"])
        if report is not None and _kept(spool, report, report_sha, keep=False) is None:
            return None
    except (KeyError, TypeError, ValueError, OSError):
        return None  # a row of another shape, a kept report gone or changed: computed again
    if any(data is None for _, data in files):
        return None
    if files:
        from ..text.fsutil import WriteFailed, write_all

        try:
            write_all([(where, data) for where, data in files if data is not None])
        except WriteFailed:
            return None  # the run itself says what cannot be written, and how
    if report is not None:
        with open(spool / report, "rb") as handle, io.TextIOWrapper(handle, "utf-8", "surrogatepass") as text:
            while chunk := text.read(1 << 20):
                sys.stdout.write(chunk)
    return code


def _kept(spool: Path, name: str, sha: str, keep: bool = True) -> bytes | None:
    """A kept file's bytes (or, ``keep`` false, b"" once its hash is checked a chunk at a time), if it hashes
    as the signed row says; None otherwise (a link is never followed)."""
    if "/" in name or name.startswith("."):
        return None
    digest, parts = hashlib.sha256(), []
    fd = os.open(spool / name, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    with os.fdopen(fd, "rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
            if keep:
                parts.append(chunk)
    return b"".join(parts) if digest.hexdigest() == sha else None
