"""Logical lines of Python with formatting-free keys (tokenize): re-wrapped or re-quoted code compares equal."""

from __future__ import annotations

import ast
import io
import tokenize
from dataclasses import dataclass
from typing import Sequence

from ..store.recent import Recent


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


def module_logical_lines(text: str, lines: Sequence[str], statements: Sequence[ast.stmt]) -> list[LogicalLine] | None:
    """:func:`logical_lines` of a module whose top-level ``statements`` the stdlib parser gave (``lines``: its
    lines, ``\\n`` kept), tokenized a run of statements at a time and each run's lines kept by its text: the next
    version of a file tokenizes only the runs that changed (a replay met one 2,200-line file 55 times in 300
    commits; 68% of what it tokenized was a run already tokenized).

    The same lines as one pass over the whole file: a run is top-level statements whose lines touch, so no
    token spans two runs, and what lies between runs (blank lines, comments) makes no logical line.  Where the
    parser and ``tokenize`` could count lines or columns differently (a bare carriage return, a form feed), or
    a run does not tokenize, the whole file is tokenized as before.
    """
    if "\r" in text or "\x0c" in text:
        return logical_lines(text)
    out: list[LogicalLine] = []
    for start, end in _runs(statements):
        run = "".join(lines[start - 1 : end])
        found = _RUNS.get(run)
        if found is None:
            found = logical_lines(run)
            if found is None:
                return logical_lines(text)
            _RUNS.put(run, found, len(run))
        shift = start - 1
        out += [LogicalLine(u.start + shift, u.end + shift, u.key, u.loose_key, u.text) for u in found]
    return out


# The logical lines of runs of statements, by their text (lines counted from the run's first): the runs of the
# last versions of the files a history or replay reads again.  Their keys are shared by the files' indexes.
_RUNS: Recent[list[LogicalLine]] = Recent(4096, 512 * 1024)


def _runs(statements: Sequence[ast.stmt]) -> list[tuple[int, int]]:
    """(first line, last line) of each run of statements whose lines touch, decorators included."""
    runs: list[tuple[int, int]] = []
    for node in statements:
        start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", ())])
        end = node.end_lineno or node.lineno
        if runs and start <= runs[-1][1]:
            runs[-1] = (runs[-1][0], max(runs[-1][1], end))
        else:
            runs.append((start, end))
    return runs


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
