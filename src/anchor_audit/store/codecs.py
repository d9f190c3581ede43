"""Match results on disk, keyed by content: blob sha + the quote or condition; and their codec.

The same quote against the same blob always gives the same result, whatever
the commit, ref or skill, so a history run or a second audit reuses it
without reading or parsing the file.  Keys carry the tool's version and
matcher version, so a new matcher never reads an old result.  The rows live
in a :class:`~anchor_audit.store.sqlite.ResultStore` (SQLite, signed).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import fields
from typing import Any

from .. import __version__
from ..model import (
    QUOTE_TYPES,
    Condition,
    ConditionResult,
    ConditionStatus,
    LineRange,
    Quote,
    QuoteMatch,
    UncheckedReason,
)

MATCHER_VERSION = f"4/{__version__}"  # bump when a matcher's results change for the same input


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
