"""Match results on disk, keyed by content: blob sha + the quote or condition.

The same quote against the same blob always gives the same result, whatever
the commit, ref or skill, so a history run or a second audit reuses it
without reading or parsing the file.  SQLite (WAL) makes concurrent runs
safe; a result is only ever written whole.  Keys carry the tool's matcher
version, so a new matcher never reads an old result.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path
from typing import Any

from .model import AnchorStatus, Condition, ConditionResult, ConditionStatus, LineRange, Quote, QuoteMatch
from .source.cache import locked

MATCHER_VERSION = "1"  # bump when a matcher's results change for the same input
_COMMIT_EVERY = 200


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


class ResultStore:
    """A persistent map from key to a match result's fields.

    The cache only saves work: if SQLite fails (a full disk, a lock held too
    long), the store turns itself off for the run and says why in
    ``problem``; results are then computed as if it were empty.
    """

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.problem: str | None = None
        self._pending: list[tuple[str, str]] = []
        self.hits = 0
        self.misses = 0
        self._db: sqlite3.Connection | None = None
        try:
            # Setting up (WAL mode, the table) takes locks SQLite does not wait for: one run at a time.
            with locked(path):
                db = sqlite3.connect(path, timeout=60, isolation_level=None)
                if db.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
                    db.execute("PRAGMA journal_mode=WAL")
                db.execute("PRAGMA synchronous=NORMAL")
                db.execute("CREATE TABLE IF NOT EXISTS results (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
            self._db = db
        except (sqlite3.Error, OSError) as exc:
            self._off(exc)

    def get(self, key: str) -> dict[str, Any] | None:
        row = None
        if self._db is not None:
            try:
                row = self._db.execute("SELECT value FROM results WHERE key = ?", (key,)).fetchone()
            except sqlite3.Error as exc:
                self._off(exc)
        if row is None:
            self.misses += 1
            return None
        self.hits += 1
        return json.loads(row[0])

    def put(self, key: str, value: dict[str, Any]) -> None:
        self._pending.append((key, json.dumps(value, sort_keys=True)))
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

    def close(self) -> None:
        self.flush()
        if self._db is not None:
            self._db.close()
            self._db = None

    def _off(self, exc: Exception) -> None:
        self.problem = f"the result cache is off for this run ({exc})"
        if self._db is not None:
            self._db.close()
        self._db = None


def _range(value: list[int] | None) -> LineRange | None:
    return None if value is None else LineRange(value[0], value[1])


def _list(value: LineRange | None) -> list[int] | None:
    return None if value is None else value.as_list()


def dump_quote(match: QuoteMatch) -> dict[str, Any]:
    return {
        "status": match.status.value,
        "found": _list(match.found),
        "region": _list(match.region),
        "suggested": _list(match.suggested),
        "candidate": _list(match.candidate),
        "diff": list(match.diff),
        "runs": [r.as_list() for r in match.runs],
        "detail": match.detail,
    }


def load_quote(quote: Quote, data: dict[str, Any]) -> QuoteMatch:
    return QuoteMatch(
        quote,
        AnchorStatus(data["status"]),
        found=_range(data["found"]),
        region=_range(data["region"]),
        suggested=_range(data["suggested"]),
        candidate=_range(data["candidate"]),
        diff=tuple(data["diff"]),
        runs=tuple(LineRange(a, b) for a, b in data["runs"]),
        detail=data["detail"],
    )


def dump_condition(result: ConditionResult) -> dict[str, Any]:
    return {"status": result.status.value, "line": result.line, "detail": result.detail}


def load_condition(condition: Condition, data: dict[str, Any]) -> ConditionResult:
    return ConditionResult(condition, ConditionStatus(data["status"]), data["line"], data["detail"])
