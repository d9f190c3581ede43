"""One file's text at the ref, and (for Python) what the parsers make of it.

A :class:`SourceFile` is content, not a path on disk.  Its Python index is
built once per blob (the in-memory cache is keyed by the blob's sha), and
built in layers, each only when a matcher needs it:

* statement line ranges, from the stdlib parser (``ast``): every quote needs
  them, and they cost milliseconds;
* logical lines with formatting-free keys (``tokenize``): only for a quote
  that does not match as text;
* libcst trees: only for gating conditions, and only of the scope a
  condition names (the def or class is cut out with its exact text and
  parsed alone), so a large file is never run through libcst whole.

If the stdlib parser cannot read the file (newer syntax than this Python),
libcst parses it whole instead.
"""

from __future__ import annotations

import ast
import io
import tokenize
from collections import OrderedDict
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Callable, Iterator, Mapping, Sequence

from ..errors import BoundExceeded
from ..model import LineRange
from ..textlines import split_lines, split_lines_keepends

if TYPE_CHECKING:  # libcst is imported where a view is built, not on every run
    import libcst as cst
    from libcst.metadata import CodeRange

PYTHON_SUFFIXES = (".py", ".pyi")
MAX_BRACKET_DEPTH = 200  # libcst's native parser overflows its stack on far deeper nesting (it crashes)


def check_nesting(text: str) -> None:
    """Raise :class:`BoundExceeded` if brackets nest deeper than libcst can safely parse.

    Called before any text reaches libcst: a crash there would take the
    whole run down, so a file past the bound gets an ``incomplete`` result.
    """
    depth = deepest = 0
    for char in text:  # strings and comments count too: a bound, not a parse
        if char in "([{":
            depth += 1
            if depth > deepest:
                deepest = depth
        elif char in ")]}":
            depth = max(0, depth - 1)
    if deepest > MAX_BRACKET_DEPTH:
        raise BoundExceeded(f"brackets nest {deepest} deep (more than {MAX_BRACKET_DEPTH}); not parsed")


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
        return split_lines(self.text)

    @cached_property
    def stripped(self) -> list[str]:
        return [line.strip() for line in self.lines]

    @cached_property
    def line_index(self) -> dict[str, list[int]]:
        """0-based indices of each stripped line, ascending (built once per file, shared by its quotes)."""
        out: dict[str, list[int]] = {}
        for i, line in enumerate(self.stripped):
            out.setdefault(line, []).append(i)
        return out

    @cached_property
    def skippable(self) -> list[bool]:
        """Blank and comment-only lines, which may sit between the lines of a quoted run."""
        return [not s or s.startswith("#") for s in self.stripped]

    @property
    def is_python(self) -> bool:
        return self.path.endswith(PYTHON_SUFFIXES)

    @property
    def whole(self) -> LineRange:
        return LineRange(1, max(1, len(self.lines)))

    def python(self) -> "PythonIndex":
        """The parsed file; raises :class:`PythonSyntaxProblem`."""
        return python_index(self)


@dataclass(frozen=True)
class ScopeView:
    """The statements of one def, class or module as libcst nodes, with their lines in the file."""

    body: Sequence["cst.BaseStatement"]
    line_of: Callable[["cst.CSTNode"], int]
    keep: object = None  # the parsed module, kept alive while line numbers are looked up by node identity


class PythonIndex:
    """A parsed Python file (see the module docstring for what is built when)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._lines = split_lines_keepends(text)
        self._scopes: dict[str | None, list[ScopeView]] = {}
        self._ast_error: SyntaxError | None = None
        try:
            self._ast: ast.Module | None = ast.parse(text)
        except SyntaxError as exc:
            self._ast = None  # newer syntax than this Python reads, or invalid: libcst decides below
            self._ast_error = exc
        except (RecursionError, MemoryError):
            raise BoundExceeded("the code is nested too deeply to parse") from None
        except ValueError:  # e.g. a NUL byte
            self._ast = None
        if self._ast is None:
            self._whole_cst()  # raises PythonSyntaxProblem if libcst cannot read it either

    @cached_property
    def statements(self) -> list[LineRange]:
        """Every statement's lines (a def or class with its decorators), outermost first at equal start."""
        if self._ast is None:
            module, positions = self._whole_cst()
            from .cstview import cst_statements

            return cst_statements(positions)
        out = []
        for node in ast.walk(self._ast):
            if isinstance(node, ast.stmt):
                start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", ())])
                out.append(LineRange(start, node.end_lineno or node.lineno))
        out.sort(key=lambda r: (r.start, -r.end))
        return out

    @cached_property
    def logical(self) -> list[LogicalLine]:
        return logical_lines(self.text) or []

    @cached_property
    def logical_by_loose_key(self) -> dict[tuple, list[int]]:
        """Indices into :attr:`logical` by loose key, ascending: where a quoted statement may match."""
        out: dict[tuple, list[int]] = {}
        for i, unit in enumerate(self.logical):
            out.setdefault(unit.loose_key, []).append(i)
        return out

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

    # ------------------------------------------------------------- libcst views

    def scopes(self, qualname: str | None) -> list[ScopeView]:
        """libcst views of every def/class named ``qualname`` (None: the module), built once each."""
        cached = self._scopes.get(qualname)
        if cached is None:
            cached = self._scopes[qualname] = self._build_scopes(qualname)
        return cached

    def _build_scopes(self, qualname: str | None) -> list[ScopeView]:
        if self._ast is None:
            module, positions = self._whole_cst()
            if qualname is None:
                return [ScopeView(module.body, lambda n: positions[n].start.line)]
            from .condition import find_scopes

            return [ScopeView(body, lambda n: positions[n].start.line) for body in find_scopes(module, qualname)]
        if qualname is None:
            import libcst as cst

            check_nesting(self.text)
            module = cst.parse_module(self.text)
            from .cstview import view

            return [view(module.body, self._ast.body, 0, module)]
        return [self._cut(node) for node in _ast_scopes(self._ast, qualname)]

    def module_bindings(self) -> Iterator[tuple[set[str], int]]:
        """(names bound, line) for each module-level binding, also under if/try/with."""
        if self._ast is None:
            return
        yield from _ast_bindings(self._ast.body)

    @property
    def parsed_by_ast(self) -> bool:
        return self._ast is not None

    def _cut(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> ScopeView:
        """Parse just this def or class with libcst, its text untouched."""
        import libcst as cst

        start = min([node.lineno] + [d.lineno for d in node.decorator_list])
        end = node.end_lineno or node.lineno
        # An indented def stays as it is, as the body of one stand-in class, so every line keeps its text.
        depth = 1 if node.col_offset else 0
        wrapper = "class _anchor_audit_scope:\n" if depth else ""
        text = wrapper + "".join(self._lines[start - 1 : end])
        check_nesting(text)
        try:
            module = cst.parse_module(text)
        except cst.ParserSyntaxError as exc:
            raise PythonSyntaxProblem(start + exc.raw_line - 1 - depth, exc.message) from None
        inner: cst.CSTNode = module.body[0]
        if depth:
            inner = inner.body.body[0]  # type: ignore[attr-defined]
        suite = inner.body  # type: ignore[attr-defined]
        body = suite.body if isinstance(suite, cst.IndentedBlock) else [cst.SimpleStatementLine(body=suite.body)]
        from .cstview import view

        return view(body, node.body, start - 1 - depth, module)

    def _whole_cst(self) -> tuple["cst.Module", Mapping["cst.CSTNode", "CodeRange"]]:
        cached = getattr(self, "_cst", None)
        if cached is not None:
            return cached
        import libcst as cst
        from libcst.metadata import MetadataWrapper, PositionProvider

        check_nesting(self.text)
        try:
            module = cst.parse_module(self.text)
        except cst.ParserSyntaxError as exc:
            if self._ast_error is not None:  # both parsers refuse it: the stdlib's words are the clearer
                raise PythonSyntaxProblem(self._ast_error.lineno or 1, self._ast_error.msg) from None
            raise PythonSyntaxProblem(exc.raw_line, exc.message) from None
        except RecursionError:
            raise BoundExceeded("the code is nested too deeply to parse") from None
        positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
        self._cst = (module, positions)
        return self._cst


_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _ast_scopes(module: ast.Module, qualname: str) -> list[ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef]:
    frontier: list[list[ast.stmt]] = [module.body]
    found: list[ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef] = []
    for part in qualname.split("."):
        found = [node for body in frontier for node in _ast_defs(body) if node.name == part]
        frontier = [node.body for node in found]
    return found


def _ast_defs(body: list[ast.stmt]) -> Iterator[ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef]:
    for stmt in body:
        if isinstance(stmt, _DEFS):
            yield stmt
        else:
            for block in _ast_blocks(stmt):
                yield from _ast_defs(block)


def _ast_blocks(stmt: ast.stmt) -> Iterator[list[ast.stmt]]:
    for name in ("body", "orelse", "finalbody"):
        block = getattr(stmt, name, None)
        if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
            yield block
    for handler in getattr(stmt, "handlers", ()):
        yield handler.body
    for case in getattr(stmt, "cases", ()):
        yield case.body


def _ast_bindings(body: list[ast.stmt]) -> Iterator[tuple[set[str], int]]:
    for stmt in body:
        names: set[str] = set()
        if isinstance(stmt, _DEFS):
            names = {stmt.name}
        elif isinstance(stmt, ast.Assign):
            names = {n.id for t in stmt.targets for n in ast.walk(t) if isinstance(n, ast.Name)}
        elif isinstance(stmt, (ast.AnnAssign, ast.AugAssign)) and isinstance(stmt.target, ast.Name):
            names = {stmt.target.id}
        elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
            names = {(a.asname or a.name).split(".")[0] for a in stmt.names if a.name != "*"}
        else:
            for block in _ast_blocks(stmt):
                yield from _ast_bindings(block)
            continue
        yield names, stmt.lineno


# The in-memory cache: blob sha -> index (or the syntax problem it raised).
_CACHE: "OrderedDict[str, PythonIndex | PythonSyntaxProblem]" = OrderedDict()
_CACHE_SIZE = 256
parse_count = 0  # how many files this process parsed; the benchmarks read it


def python_index(source: SourceFile) -> PythonIndex:
    key = source.blob or f"text:{hash(source.text)}"
    hit = _CACHE.get(key)
    if hit is None:
        global parse_count
        parse_count += 1
        try:
            hit = PythonIndex(source.text)
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
