"""Logical lines of Python with formatting-free keys (tokenize): re-wrapped or re-quoted code compares equal."""

from __future__ import annotations

import ast
import io
import tokenize
from dataclasses import dataclass


@dataclass(frozen=True)
class LogicalLine:
    """One logical line of Python (a statement or a compound statement's header)."""

    start: int  # first physical line, 1-based
    end: int  # last physical line
    key: tuple  # tokens with formatting, comments and quote style dropped
    loose_key: tuple  # key without parentheses and commas: equal keys here go to libcst
    text: str  # the code tokens joined by spaces (comments dropped)


def logical_lines(text: str, line_offset: int = 0) -> list[LogicalLine] | None:
    """Split code into logical lines with formatting-free keys; None if it does not tokenize."""
    out: list[LogicalLine] = []
    tokens: list[tokenize.TokenInfo] = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.NEWLINE or (tok.type == tokenize.ENDMARKER and tokens):
                start, end = tokens[0].start[0], tokens[-1].end[0]
                key = tuple(_token_key(t) for t in tokens)
                loose = tuple(k for k in key if k not in ("(", ")", ","))
                # Tokens joined by spaces: valid Python without comments or line breaks.
                joined = " ".join(t.string for t in tokens)
                out.append(LogicalLine(start + line_offset, end + line_offset, key, loose, joined))
                tokens = []
            elif tok.type not in _NOT_CODE:
                tokens.append(tok)
    except (tokenize.TokenError, SyntaxError):  # IndentationError is a SyntaxError
        return None
    return out


_NOT_CODE = {
    tokenize.COMMENT,
    tokenize.NL,
    tokenize.NEWLINE,
    tokenize.INDENT,
    tokenize.DEDENT,
    tokenize.ENCODING,
    tokenize.ENDMARKER,
}


def _token_key(tok: tokenize.TokenInfo) -> object:
    if tok.type == tokenize.STRING:
        try:
            return ("S", ast.literal_eval(tok.string))  # 'a' and "a" are the same string
        except (ValueError, SyntaxError):  # f-strings and the like: compare as written
            return tok.string
    return tok.string
