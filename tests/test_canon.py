"""Structural comparison: formatting does not matter, operators, constants and names do."""

from __future__ import annotations

import pytest

from anchor_audit.match.canon import expression_key, statement_key

SAME = [
    ("a<2", "a < 2"),
    ("(a < 2)", "a < 2"),
    ("((a.b))", "a.b"),
    ("'x'", '"x"'),
    ("f(a, b,)", "f(a,\n b)"),
    ("d['k']", 'd["k"]'),
    ("128 * 1024", "128*1024"),
    ("not (x)", "not x"),
    ("[1, 2,  # two\n 3]", "[1, 2, 3]"),
    ("0x10", "16"),  # the same constant, spelled differently
]

DIFFERENT = [
    ("a < 2", "a <= 2"),
    ("a < 2", "a < 3"),
    ("a.b", "a.c"),
    ("'x'", "b'x'"),
    ("(a + b) * c", "a + b * c"),
    ("not x", "x"),
    ("f(a=1)", "f(1)"),
    ("x is True", "x == True"),
    ("(a,)", "(a)"),
]


@pytest.mark.parametrize(("left", "right"), SAME)
def test_same(left: str, right: str) -> None:
    assert expression_key(left) == expression_key(right)


@pytest.mark.parametrize(("left", "right"), DIFFERENT)
def test_different(left: str, right: str) -> None:
    assert expression_key(left) != expression_key(right)


def test_statement_headers_parse_and_elif_is_not_if() -> None:
    assert statement_key("if a < 2:") == statement_key("if (a<2):")
    assert statement_key("elif a < 2:") != statement_key("if a < 2:")
    assert statement_key("x = f(") is None  # half a statement: no key, never a false match
