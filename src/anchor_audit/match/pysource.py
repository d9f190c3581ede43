"""One file's text at the ref, and (for Python) what libcst and tokenize make of it.

A :class:`SourceFile` is content, not a path on disk.  Its Python index is
built once per blob: the in-memory cache is keyed by the blob's sha, so two
quotes, two skills or two refs that share a blob share the parse.
"""

from __future__ import annotations

import ast
import io
import tokenize
from collections import OrderedDict
from dataclasses import dataclass, field
from functools import cached_property
from typing import Mapping

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

from ..model import LineRange

PYTHON_SUFFIXES = (".py", ".pyi")


@dataclass(frozen=True)
class LogicalLine:
    """One logical line of Python (a statement or a compound statement's header)."""

    start: int  # first physical line, 1-based
    end: int  # last physical line
    key: tuple  # tokens with formatting, comments and quote style dropped
    loose_key: tuple  # key without parentheses and commas: equal keys here go to libcst
    text: str  # the code tokens joined by spaces (comments dropped)


class PythonSyntaxProblem(Exception):
    """The file is not valid Python; ``line`` is where the parser stopped."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(f"line {line}: {message}")
        self.line = line


@dataclass
class SourceFile:
    """The text of one file at the audited ref."""

    path: str
    text: str
    blob: str | None = None  # git blob sha: the cache key for everything derived from the text

    @cached_property
    def lines(self) -> list[str]:
        return self.text.splitlines()

    @cached_property
    def stripped(self) -> list[str]:
        return [line.strip() for line in self.lines]

    @property
    def is_python(self) -> bool:
        return self.path.endswith(PYTHON_SUFFIXES)

    @property
    def whole(self) -> LineRange:
        return LineRange(1, max(1, len(self.lines)))

    def python(self) -> "PythonIndex":
        """The parsed file; raises :class:`PythonSyntaxProblem`."""
        return python_index(self)


@dataclass
class PythonIndex:
    """A parsed Python file: the libcst tree, node positions, statement ranges, logical lines."""

    module: cst.Module
    positions: Mapping[cst.CSTNode, CodeRange]
    statements: list[LineRange]  # every statement (with decorators), outermost first at equal start
    logical: list[LogicalLine] = field(default_factory=list)

    def line_of(self, node: cst.CSTNode) -> int:
        return self.positions[node].start.line

    def enclosing(self, span: LineRange) -> LineRange | None:
        """The smallest statement whose lines contain ``span``."""
        best: LineRange | None = None
        for rng in self.statements:
            if span in rng and (best is None or rng.end - rng.start < best.end - best.start):
                best = rng
        return best

    def widest_starting_at(self, line: int) -> LineRange | None:
        best: LineRange | None = None
        for rng in self.statements:
            if rng.start == line and (best is None or rng.end > best.end):
                best = rng
        return best


# The in-memory cache: blob sha -> index (or the syntax problem it raised).
_CACHE: "OrderedDict[str, PythonIndex | PythonSyntaxProblem]" = OrderedDict()
_CACHE_SIZE = 256
parse_count = 0  # how many parses this process did; the benchmarks read it


def python_index(source: SourceFile) -> PythonIndex:
    key = source.blob or f"text:{hash(source.text)}"
    hit = _CACHE.get(key)
    if hit is None:
        try:
            hit = _build_index(source.text)
        except PythonSyntaxProblem as problem:
            hit = problem
        _CACHE[key] = hit
        if len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    else:
        _CACHE.move_to_end(key)
    if isinstance(hit, PythonSyntaxProblem):
        raise hit
    return hit


def _build_index(text: str) -> PythonIndex:
    global parse_count
    parse_count += 1
    try:
        module = cst.parse_module(text)
    except cst.ParserSyntaxError as exc:
        raise PythonSyntaxProblem(exc.raw_line, exc.message) from None
    except RecursionError:
        raise PythonSyntaxProblem(1, "nested too deeply to parse") from None
    positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    statements: list[LineRange] = []
    for node, pos in positions.items():
        if isinstance(node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            start = pos.start.line
            for deco in getattr(node, "decorators", ()):
                start = min(start, positions[deco].start.line)
            statements.append(LineRange(start, pos.end.line))
    statements.sort(key=lambda r: (r.start, -r.end))
    return PythonIndex(module, positions, statements, logical_lines(text) or [])


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
