"""Structural comparison of Python code with libcst.

Two pieces of code are "the same" when their libcst trees are equal once
formatting is dropped: whitespace, comments, redundant parentheses, trailing
commas and quote style do not matter; an operator, a constant or a name does.
"""

from __future__ import annotations

import ast
import dataclasses
from functools import lru_cache
from typing import Any

import libcst as cst

from ..parse import check_nesting, too_complex

# Node types that only carry formatting.
_FORMATTING = (
    cst.BaseParenthesizableWhitespace,
    cst.TrailingWhitespace,
    cst.EmptyLine,
    cst.Newline,
    cst.Comment,
    cst.LeftParen,
    cst.RightParen,
    cst.LeftSquareBracket,
    cst.RightSquareBracket,
    cst.LeftCurlyBrace,
    cst.RightCurlyBrace,
    cst.Comma,
    cst.Semicolon,
    cst.Colon,
    cst.AssignEqual,
    cst.AssignTarget,  # unwrapped below; listed so its `whitespace_*` fields never reach the key
)

Canon = Any  # nested tuples of str / literal values


def canonical(node: cst.CSTNode | None) -> Canon:
    """A hashable value equal for two nodes exactly when they differ only in formatting."""
    if node is None:
        return None
    if isinstance(node, cst.SimpleString) or isinstance(node, cst.ConcatenatedString):
        value = node.evaluated_value
        if value is not None:  # None: an f-string part; compare its structure
            return ("Str", value)
    if isinstance(node, (cst.Integer, cst.Float, cst.Imaginary)):
        try:
            return ("Num", ast.literal_eval(node.value))
        except (ValueError, SyntaxError):  # pragma: no cover - libcst only yields valid literals
            return ("Num", node.value)
    if isinstance(node, cst.Name):
        return ("Name", node.value)
    if isinstance(node, cst.AssignTarget):
        return canonical(node.target)
    parts: list[Any] = [type(node).__name__]
    for f in dataclasses.fields(node):
        if f.name in ("lpar", "rpar") or f.name.startswith("whitespace"):
            continue
        value = getattr(node, f.name)
        parts.append(_canon_value(value))
    return tuple(parts)


def _canon_value(value: Any) -> Canon:
    if isinstance(value, cst.MaybeSentinel):
        return None
    if isinstance(value, cst.CSTNode):
        if isinstance(value, _FORMATTING) and not isinstance(value, cst.AssignTarget):
            return None
        return canonical(value)
    if isinstance(value, (list, tuple)):
        return tuple(
            _canon_value(v) for v in value if not (isinstance(v, _FORMATTING) and not isinstance(v, cst.AssignTarget))
        )
    return value


@lru_cache(maxsize=4096)
def expression_key(text: str) -> Canon:
    """Canonical form of an expression given as text; raises ``cst.ParserSyntaxError`` or ``BoundExceeded``."""
    check_nesting(text)  # libcst's native parser would crash on it
    return canonical(cst.parse_expression(text.strip()))


@lru_cache(maxsize=4096)
def statement_key(text: str) -> Canon | None:
    """Canonical form of one logical line of code, or None if it does not parse.

    A compound statement's header (``if x:``, ``elif x:``, ``def f(a):``) is
    completed with ``...`` so it parses on its own.
    """
    text = text.strip()
    prefix = ""
    if text.startswith("elif ") or text.startswith("elif("):
        prefix, text = "elif", "if" + text[4:]
    if text.endswith(":"):
        text += " ..."
    if too_complex(text) is not None:
        return None  # a bound: such a line is compared by its tokens only, never handed to libcst
    try:
        node = cst.parse_statement(text)
    except cst.ParserSyntaxError:
        return None
    return (prefix, canonical(node))


def code(node: cst.CSTNode) -> str:
    """Source text of a node, on one line where it fits, for messages."""
    text = cst.Module(body=[]).code_for_node(node)
    return " ".join(text.split())
