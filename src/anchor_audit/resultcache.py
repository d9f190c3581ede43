"""Match results on disk, keyed by content: blob sha + the quote or condition.

The same quote against the same blob always gives the same result, whatever
the commit, ref or skill, so a history run or a second audit reuses it
without reading or parsing the file.  SQLite (WAL) makes concurrent runs
safe; a result is only ever written whole.  Keys carry the tool's version
and matcher version, so a new matcher never reads an old result.

A cache directory can be restored from someone else's CI run, so a row is
not believed on its word: each carries an HMAC-SHA256 of its key and value
under a secret that is kept *outside* the cache directory
(``$ANCHOR_AUDIT_CACHE_KEY``, else ``cache.key`` in anchor-audit's config
folder, made on first use, mode 0600).  A row whose tag does not verify,
or that does not decode, is a miss: the result is computed again and the
row rewritten.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import sqlite3
import tempfile
from dataclasses import fields
from pathlib import Path
from typing import Any

from . import __version__
from .errors import SourceError
from .model import (
    QUOTE_TYPES,
    Condition,
    ConditionResult,
    ConditionStatus,
    LineRange,
    Quote,
    QuoteMatch,
    UncheckedReason,
)
from .source.cache import locked, refuse_link

MATCHER_VERSION = f"4/{__version__}"  # bump when a matcher's results change for the same input
_COMMIT_EVERY = 200
_INHERITED: list[object] = []  # a forked worker's copies of its parent's stores: kept, never touched


def quote_key(blob: str, quote: Quote) -> str:
    text = json.dumps([MATCHER_VERSION, "quote", blob, quote.path, quote.declared.as_list(), list(quote.body)])
    return hashlib.sha256(text.encode()).hexdigest()


def condition_key(blob: str, condition: Condition) -> str:
    fields = [
        condition.path, condition.scope, condition.if_test, condition.elif_tests, condition.inside,
        condition.then, condition.orelse, condition.each, condition.has, condition.defines,
    ]  # fmt: skip
    text = json.dumps([MATCHER_VERSION, "condition", blob, fields])
    return hashlib.sha256(text.encode()).hexdigest()


def promise_key(key: str) -> str:
    return hashlib.sha256(json.dumps([MATCHER_VERSION, "promise", key]).encode()).hexdigest()


def _read_or_make_key() -> bytes:
    """The key rows are signed with: never stored in the cache directory itself."""
    env = os.environ.get("ANCHOR_AUDIT_CACHE_KEY")
    if env:
        return hashlib.sha256(env.encode("utf-8", "surrogateescape")).digest()
    xdg = os.environ.get("XDG_CONFIG_HOME")
    path = (Path(xdg) if xdg else Path.home() / ".config") / "anchor-audit" / "cache.key"
    try:
        return bytes.fromhex(path.read_text(encoding="ascii").strip())
    except (OSError, ValueError):
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    key = os.urandom(32)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".cache.key.")  # mode 0600
    try:
        with os.fdopen(fd, "w") as handle:
            handle.write(key.hex() + "\n")
        os.link(tmp, path)  # whole or not at all; fails if a racing run made its key first
    except FileExistsError:
        return bytes.fromhex(path.read_text(encoding="ascii").strip())
    finally:
        os.unlink(tmp)
    return key


class ResultStore:
    """A persistent map from key to a match result's fields.

    The cache only saves work: if SQLite fails (a full disk, a lock held too
    long), the store turns itself off for the run and says why in
    ``problem``; results are then computed as if it were empty.
    """

    def __init__(self, path: Path, key: bytes | None = None) -> None:
        self.path = path
        self.problem: str | None = None
        self._pending: list[tuple[str, str]] = []
        self.hits = 0
        self.misses = 0
        self._db: sqlite3.Connection | None = None
        self._key = b""
        try:
            self._key = key if key is not None else _read_or_make_key()
            path.parent.mkdir(parents=True, exist_ok=True)
            for name in (path.name, f"{path.name}-wal", f"{path.name}-shm"):
                refuse_link(path.parent / name)  # SQLite would open (and create) a file where the link points
            # Setting up (WAL mode, the table) takes locks SQLite does not wait for: one run at a time.
            with locked(path):
                db = sqlite3.connect(path, timeout=60, isolation_level=None)
                if db.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
                    db.execute("PRAGMA journal_mode=WAL")
                db.execute("PRAGMA synchronous=NORMAL")
                db.execute("CREATE TABLE IF NOT EXISTS results (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
            self._db = db
        except (sqlite3.Error, OSError, ValueError, SourceError) as exc:
            self._off(exc)

    def get(self, key: str) -> dict[str, Any] | None:
        row = None
        if self._db is not None:
            try:
                row = self._db.execute("SELECT value FROM results WHERE key = ?", (key,)).fetchone()
            except sqlite3.Error as exc:
                self._off(exc)
        value = self._verified(key, row[0]) if row is not None else None
        if value is None:
            self.misses += 1
            return None
        self.hits += 1
        return value

    def _verified(self, key: str, stored: object) -> dict[str, Any] | None:
        """The row's value if its tag verifies and it decodes to a mapping; else None (a miss)."""
        if not isinstance(stored, str) or len(stored) < 65 or stored[64] != " ":
            return None
        tag, body = stored[:64], stored[65:]
        if not hmac.compare_digest(tag, self._tag(key, body)):
            return None
        try:
            value = json.loads(body)
        except ValueError:
            return None
        return value if isinstance(value, dict) else None

    def _tag(self, key: str, body: str) -> str:
        return hmac.new(self._key, f"{key}\0{body}".encode(), hashlib.sha256).hexdigest()

    def put(self, key: str, value: dict[str, Any]) -> None:
        body = json.dumps(value, sort_keys=True)
        self._pending.append((key, f"{self._tag(key, body)} {body}"))
        if len(self._pending) >= _COMMIT_EVERY:
            self.flush()

    def flush(self) -> None:
        if not self._pending or self._db is None:
            return
        try:
            with self._db:  # one transaction: all of these results or none
                self._db.execute("BEGIN IMMEDIATE")
                self._db.executemany("INSERT OR REPLACE INTO results (key, value) VALUES (?, ?)", self._pending)
        except sqlite3.Error as exc:
            self._off(exc)
        self._pending = []

    def reopened(self) -> "ResultStore":
        """The same store through a connection of this process's own: for a worker forked from the run, where
        the inherited connection must be neither used nor closed (closing it would drop the parent's locks)."""
        _INHERITED.append(self)
        return ResultStore(self.path, self._key)

    def close(self) -> None:
        self.flush()
        if self._db is not None:
            self._db.close()
            self._db = None

    def _off(self, exc: BaseException) -> None:
        self.problem = f"the result cache is off for this run ({exc})"
        if self._db is not None:
            self._db.close()
        self._db = None


# The quote codec: a result's type by name and its own fields, nothing else (a row never holds a
# field its status does not have, so a row cannot decode to a result no matcher could make).
_QUOTE_TYPES: dict[str, type[QuoteMatch]] = {cls.__name__: cls for cls in QUOTE_TYPES}
_RANGE_FIELDS = frozenset({"found", "region", "suggested", "candidate"})


def dump_quote(match: QuoteMatch) -> dict[str, Any]:
    out: dict[str, Any] = {"type": type(match).__name__}
    for f in fields(match):
        value = getattr(match, f.name)
        if f.name == "quote":
            continue
        if isinstance(value, LineRange):
            value = value.as_list()
        elif f.name == "runs":
            value = [r.as_list() for r in value]
        elif isinstance(value, tuple):
            value = list(value)
        out[f.name] = value.value if isinstance(value, UncheckedReason) else value
    return out


def load_quote(quote: Quote, data: dict[str, Any]) -> QuoteMatch:
    cls = _QUOTE_TYPES[data["type"]]
    kwargs: dict[str, Any] = {}
    for f in fields(cls):
        if f.name == "quote" or f.name not in data:
            continue
        value = data[f.name]
        if f.name in _RANGE_FIELDS:
            value = None if value is None else LineRange(value[0], value[1])
        elif f.name == "runs":
            value = tuple(LineRange(a, b) for a, b in value)
        elif f.name == "diff":
            value = tuple(value)
        elif f.name == "reason":
            value = UncheckedReason(value)
        kwargs[f.name] = value
    return cls(quote=quote, **kwargs)


def dump_condition(result: ConditionResult) -> dict[str, Any]:
    return {"status": result.status.value, "line": result.line, "detail": result.detail}


def load_condition(condition: Condition, data: dict[str, Any]) -> ConditionResult:
    return ConditionResult(condition, ConditionStatus(data["status"]), data["line"], data["detail"])
