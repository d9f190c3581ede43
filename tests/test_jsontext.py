"""The reports' JSON text is the standard library's, byte for byte, however it is written (``report/jsontext.py``),
but for the characters that show nothing and change how text reads (bidirectional overrides, zero-width
characters, line separators), which every report writes as ``\\uXXXX`` escapes: the same value, seen."""

from __future__ import annotations

import enum
import json
import re

from hypothesis import given
from hypothesis import strategies as st

from anchor_audit.report.jsontext import Streamed, dumps_indented, write_indented

SCALARS = st.none() | st.booleans() | st.integers() | st.floats() | st.text()
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.tuples(inner, inner) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=30,
)


INVISIBLE = "\u00ad\u061c\u180e\u200b\u200c\u200d\u200e\u200f\u2028\u2029\u202a\u202b\u202c\u202d\u202e\u2060\u2066\u2069\ufeff"


def standard(obj: object) -> str:
    text = json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False)
    return re.sub("[\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]",
                  lambda m: f"\\u{ord(m.group(0)):04x}", text)  # fmt: skip


def test_invisible_characters_are_escaped_and_read_back_the_same() -> None:
    value = {"path": "a\u202egnp.exe" + INVISIBLE, "\u202ekey": ["\u2028"]}
    written = dumps_indented(value)
    assert not any(c in written for c in INVISIBLE) and "\\u202e" in written
    assert json.loads(written) == value


@given(VALUES)
def test_any_json_value_is_written_as_the_standard_library_writes_it(value: object) -> None:
    assert dumps_indented(value) == standard(value)


class Colour(str, enum.Enum):
    RED = "red"


class Code(enum.IntEnum):
    ONE = 1


def test_enums_and_what_only_the_standard_library_decides() -> None:
    value = {"status": Colour.RED, "exit": Code.ONE, "nested": [{"é": "\u2028\x00"}]}
    assert dumps_indented(value) == standard(value)
    assert dumps_indented({1: "a", 2: "b"}) == standard({1: "a", 2: "b"})  # int keys: json's own way
    try:
        dumps_indented({"x": object()})
    except TypeError as exc:
        assert "not JSON serializable" in str(exc)  # json's error, not ours
    else:
        raise AssertionError("an object JSON has no form for was written")


@given(st.dictionaries(st.text(), VALUES, max_size=3), st.lists(VALUES, max_size=5), st.text(max_size=3))
def test_a_streamed_list_is_written_item_by_item_with_the_same_bytes(around: dict, items: list, key: str) -> None:
    made: list[int] = []
    written: list[str] = []

    def each():  # an item is made only once the one before is written
        for i, item in enumerate(items):
            assert len(written) >= i  # one write after each item
            made.append(i)
            yield item

    streamed = {**around, key: Streamed(each())}
    write_indented(streamed, written.append)
    assert "".join(written) == standard({**around, key: items})
    assert made == list(range(len(items)))


def test_an_item_only_the_standard_library_can_write_is_written_by_it_at_its_depth() -> None:
    items = [{"a": 1}, {2: "int key"}, [Code.ONE]]
    written: list[str] = []
    write_indented({"x": [Streamed(iter(items))]}, written.append)
    assert "".join(written) == standard({"x": [items]})
