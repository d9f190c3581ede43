"""JSON text as ``json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False)`` writes it, written faster.

With an indent, the standard library encodes in pure Python, a generator per container: most of a large
report's rendering time.  This writes the same bytes with one list of parts and the C string encoder; a value
it does not know (a key that is not a string, a type JSON has no form for) goes to ``json.dumps`` itself, so
the answer, or the error, is the standard library's.  A property test holds the two to the same output.
"""

from __future__ import annotations

import json
import re
from json.encoder import encode_basestring as _encode_basestring  # the C encoder (ensure_ascii=False's)
from typing import Any, Callable, Iterable

_INFINITY = float("inf")


class _Unknown(Exception):
    """A value only ``json.dumps`` should decide on."""


class Streamed:
    """A list whose items are made, encoded and written one at a time (a report's skills), never all at once."""

    def __init__(self, items: Iterable[Any]) -> None:
        self.items = items


class _Sink(list[str]):
    """Parts not yet written, and where they go: a :class:`Streamed` list empties it before and after each item."""

    def __init__(self, write: Callable[[str], object]) -> None:
        super().__init__()
        self.write = write

    def flush(self) -> None:
        self.write("".join(self))
        self.clear()


# Characters that change how the text around them reads and show nothing themselves: bidirectional overrides and
# isolates, zero-width characters, line and paragraph separators, the soft hyphen, the byte-order mark.  JSON may
# carry them raw (ensure_ascii=False); every report writes them as \uXXXX escapes, the same value, seen.
_INVISIBLE = re.compile("[\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]")


def _escaped(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group(0)):04x}"


def encode_basestring(text: str) -> str:
    """A JSON string literal of ``text``, its invisible characters escaped."""
    encoded = _encode_basestring(text)
    return _INVISIBLE.sub(_escaped, encoded) if _INVISIBLE.search(encoded) else encoded


def dumps_line(obj: Any) -> str:
    """``json.dumps(obj, sort_keys=True, ensure_ascii=False)``, invisible characters escaped: a JSON Lines line."""
    return _INVISIBLE.sub(_escaped, json.dumps(obj, sort_keys=True, ensure_ascii=False))


def write_indented(obj: Any, write: Callable[[str], object]) -> None:
    """:func:`dumps_indented`'s bytes, given to ``write`` in parts: each item of a :class:`Streamed` list is
    encoded and written before the next is made, so a report's memory is one skill's, not every skill's."""
    sink = _Sink(write)
    _encode(obj, "\n", sink)
    sink.flush()


def dumps_indented(obj: Any) -> str:
    """``json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False)``, byte for byte."""
    parts: list[str] = []
    try:
        _encode(obj, "\n", parts)
    except (_Unknown, RecursionError):
        return _INVISIBLE.sub(_escaped, json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False))
    return "".join(parts)


def _encode(o: Any, newline: str, out: list[str]) -> None:
    if isinstance(o, str):
        out.append(encode_basestring(o))
    elif o is None:
        out.append("null")
    elif o is True:
        out.append("true")
    elif o is False:
        out.append("false")
    elif isinstance(o, int):
        out.append(int.__repr__(o))
    elif isinstance(o, float):
        out.append(_float(o))
    elif isinstance(o, dict):
        _object(o, newline, out)
    elif isinstance(o, Streamed):
        _streamed(o, newline, out)
    elif isinstance(o, (list, tuple)):
        if not o:
            out.append("[]")
            return
        inner = newline + "  "
        out.append("[")
        for i, item in enumerate(o):
            out.append(inner if i == 0 else "," + inner)
            _encode(item, inner, out)
        out.append(newline + "]")
    else:
        raise _Unknown


def _streamed(o: Streamed, newline: str, out: list[str]) -> None:
    """Like a list; written item by item where ``out`` is a sink (else kept, as :func:`dumps_indented` keeps all)."""
    inner, count = newline + "  ", 0
    for count, item in enumerate(o.items, 1):
        out.append("[" + inner if count == 1 else "," + inner)
        try:
            part: list[str] = []
            _encode(item, inner, part)
        except (_Unknown, RecursionError):  # the standard library's answer for this item, at this depth
            plain = json.dumps(item, indent=2, sort_keys=True, ensure_ascii=False)
            part = [_INVISIBLE.sub(_escaped, plain).replace("\n", inner)]
        out.extend(part)
        if isinstance(out, _Sink):
            out.flush()
    out.append(newline + "]" if count else "[]")


def _object(o: dict[Any, Any], newline: str, out: list[str]) -> None:
    if not o:
        out.append("{}")
        return
    if not all(isinstance(key, str) for key in o):
        raise _Unknown  # json turns other keys into strings its own way, and may refuse to sort them
    inner = newline + "  "
    out.append("{")
    for i, key in enumerate(sorted(o)):
        out.append((inner if i == 0 else "," + inner) + encode_basestring(key) + ": ")
        _encode(o[key], inner, out)
    out.append(newline + "}")


def _float(o: float) -> str:
    if o != o:
        return "NaN"
    if o == _INFINITY:
        return "Infinity"
    if o == -_INFINITY:
        return "-Infinity"
    return float.__repr__(o)
