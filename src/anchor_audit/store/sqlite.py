"""A persistent map from key to a JSON object: SQLite (WAL), each row signed.

SQLite (WAL) makes concurrent runs safe; a row is only ever written whole.
A cache directory can be restored from someone else's CI run, so a row is
not believed on its word: each carries an HMAC-SHA256 of its key and value
under a secret that is kept *outside* the cache directory
(``$ANCHOR_AUDIT_CACHE_KEY``, else ``cache.key`` in anchor-audit's config
folder, made on first use, mode 0600).  A row whose tag does not verify,
or that does not decode, is a miss: the value is computed again and the
row rewritten.  The match results (:mod:`anchor_audit.store.codecs`) and the
remembered runs (:mod:`anchor_audit.runs.remembered`) live here; this module imports
neither the model nor git, so a remembered run is read without them.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import sqlite3
import tempfile
from pathlib import Path
from typing import Any

from ..errors import SourceError
from .cachedir import locked, refuse_link

_COMMIT_EVERY = 200
MAX_OWN_KEYS = 100_000  # keys a run that began with an empty store remembers putting (past them: SQLite is asked)
_INHERITED: list[object] = []  # a forked worker's copies of its parent's stores: kept, never touched


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
        self._db: sqlite3.Connection | None = None
        self._key = b""
        # A store empty when opened (a new cache, a CI job's first run) holds only what this run put: a key not
        # among those is a miss without asking SQLite (a concurrent run's rows are then not seen: computed again).
        self._own: set[int] | None = None  # hashes of the keys put: a collision costs one query, never a wrong answer
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
                if db.execute("SELECT 1 FROM results LIMIT 1").fetchone() is None:
                    self._own = set()
            self._db = db
        except (sqlite3.Error, OSError, ValueError, SourceError) as exc:
            self._off(exc)

    def get(self, key: str) -> dict[str, Any] | None:
        row = None
        put_here = self._own is None or hash(key) in self._own  # else a miss: not put into a store that was empty
        if self._db is not None and put_here:
            try:
                row = self._db.execute("SELECT value FROM results WHERE key = ?", (key,)).fetchone()
            except sqlite3.Error as exc:
                self._off(exc)
        value = self._verified(key, row[0]) if row is not None else None
        if value is not None:
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
        if self._own is not None:
            self._own.add(hash(key))
            if len(self._own) > MAX_OWN_KEYS:
                self._own = None
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

    def shared(self) -> None:
        """Other processes (the run's workers) write here from now on: every key is asked of SQLite."""
        self._own = None

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
