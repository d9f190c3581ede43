"""The parsed view of one Python file, built in layers, each only when a check needs it.

A file's index is built once per blob (:data:`INDEXES` is keyed by the
blob's sha), and built in layers, each only when a matcher needs it:

* statement line ranges, from the stdlib parser (``ast``): every quote needs
  them, and they cost milliseconds;
* logical lines with formatting-free keys (``tokenize``): only for a quote
  that does not match as text;
* libcst trees: only for gating conditions, and only of the scope a
  condition names (the def or class is cut out with its exact text and
  parsed alone), so a large file is never run through libcst whole.

If the stdlib parser cannot read the file (newer syntax than this Python),
libcst parses it whole instead.  The stdlib trees themselves are kept for the
most recently used files only (:data:`TREES`): what an index built from its
tree stays with it, and the tree is parsed again if a reader asks for it.
"""

from __future__ import annotations

import ast
import bisect
from functools import cached_property
from typing import TYPE_CHECKING, Any, Callable, Iterator, Mapping, TypeVar

from ..errors import BoundExceeded
from ..model import LineRange
from ..source.file import SourceFile
from ..store.recent import Recent
from ..text.lines import split_lines_keepends
from .bounds import bounded_parse, check_nesting
from .cstview import ScopeView, cst_statements, view
from .tokens import LogicalLine, logical_lines, module_logical_lines
from .walk import ast_bindings, ast_qualnames, ast_scopes, cst_scopes

if TYPE_CHECKING:  # libcst is imported where a view is built, not on every run
    import libcst as cst
    from libcst.metadata import CodeRange

T = TypeVar("T")


class PythonSyntaxProblem(Exception):
    """The file is not valid Python; ``line`` is where the parser stopped."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(f"line {line}: {message}")
        self.line = line


_BODIES = ("body", "orelse", "finalbody", "handlers", "cases")  # where statements hold statements


def _statements(module: ast.Module) -> list[ast.stmt]:
    """Every statement of ``module``: the bodies walked, never the expressions (most of a file's nodes), since
    no expression holds a statement."""
    out: list[ast.stmt] = []
    stack: list[ast.AST] = [module]
    while stack:
        node = stack.pop()
        for name in _BODIES:
            for child in getattr(node, name, ()) or ():
                if isinstance(child, ast.stmt):
                    out.append(child)
                    stack.append(child)
                elif isinstance(child, (ast.ExceptHandler, ast.match_case)):
                    stack.append(child)
    return out


class PythonIndex:
    """A parsed Python file (see the module docstring for what is built when)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._lines = split_lines_keepends(text)
        self._scopes: dict[str | None, list[ScopeView]] = {}
        self._ast_error: SyntaxError | None = None
        self._cst: tuple[cst.Module, Mapping[cst.CSTNode, CodeRange]] | None = None  # whole-file libcst, if needed
        self._worked: dict[Callable[[ast.Module], Any], Any] = {}  # worked_out's answers, let go with the index
        self._by_ast = False
        try:
            self._by_ast = parse_ast(text) is not None  # kept by TREES, parsed again when asked
        except SyntaxError as exc:
            self._ast_error = exc  # newer syntax than this Python reads, or invalid: libcst decides below
        except (RecursionError, MemoryError):
            raise BoundExceeded("the code is nested too deeply to parse") from None
        except ValueError:  # e.g. a NUL byte
            pass
        if not self._by_ast:
            self._whole_cst()  # raises PythonSyntaxProblem if libcst cannot read it either

    def _tree(self) -> ast.Module | None:
        """The stdlib parser's tree (None: only libcst reads the file), parsed again if :data:`TREES` let it go."""
        if not self._by_ast:
            return None
        before = TREES.parses
        try:
            tree = parse_ast(self.text)  # it parsed before: the same text parses the same
        except (RecursionError, MemoryError):  # a deeper stack than the first parse had
            raise BoundExceeded("the code is nested too deeply to parse") from None
        TREES.reparses += TREES.parses - before
        return tree

    @cached_property
    def statements(self) -> list[LineRange]:
        """Every statement's lines (a def or class with its decorators), outermost first at equal start."""
        tree = self._tree()
        if tree is None:
            module, positions = self._whole_cst()
            return cst_statements(positions)
        out = []
        for node in _statements(tree):
            start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", ())])
            out.append(LineRange(start, node.end_lineno or node.lineno))
        out.sort(key=lambda r: (r.start, -r.end))
        return out

    @cached_property
    def logical(self) -> list[LogicalLine]:
        tree = self._tree()
        if tree is None:
            return logical_lines(self.text) or []
        return module_logical_lines(self.text, self._lines, tree.body) or []

    @cached_property
    def logical_by_loose_key(self) -> dict[tuple, list[int]]:
        """Indices into :attr:`logical` by loose key, ascending: where a quoted statement may match."""
        out: dict[tuple, list[int]] = {}
        for i, unit in enumerate(self.logical):
            out.setdefault(unit.loose_key, []).append(i)
        return out

    @cached_property
    def logical_by_first_token(self) -> dict[object, list[int]]:
        """Indices into :attr:`logical` by first token: where a quoted statement with an inline ``...`` may match."""
        out: dict[object, list[int]] = {}
        for i, unit in enumerate(self.logical):
            if unit.key:
                out.setdefault(unit.key[0], []).append(i)
        return out

    @cached_property
    def _statement_starts(self) -> list[int]:
        return [rng.start for rng in self.statements]

    def enclosing(self, span: LineRange) -> LineRange | None:
        """The smallest statement whose lines contain ``span`` (the first of them, in statement order)."""
        best: LineRange | None = None
        # Statements are in order of their first line: none after those starting by span's first line holds it.
        for k in range(bisect.bisect_right(self._statement_starts, span.start)):
            rng = self.statements[k]
            if span.end <= rng.end and (best is None or rng.end - rng.start < best.end - best.start):
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
        tree = self._tree()
        if tree is None:
            module, positions = self._whole_cst()
            if qualname is None:
                return [ScopeView(module.body, lambda n: positions[n].start.line)]
            return [ScopeView(body, lambda n: positions[n].start.line) for body in cst_scopes(module, qualname)]
        if qualname is None:
            import libcst as cst

            check_nesting(self.text)
            module = cst.parse_module(self.text)
            return [view(module.body, tree.body, 0, module)]
        return [self._cut(node) for node in ast_scopes(tree, qualname)]

    def qualnames(self) -> list[str]:
        """Every def and class of the file as ``Class.method``, each once ([] when only libcst reads it)."""
        tree = self._tree()
        return list(dict.fromkeys(ast_qualnames(tree.body))) if tree is not None else []

    @property
    def ast_module(self) -> ast.Module | None:
        """The stdlib parser's tree of the file (None: it needs newer syntax than this Python reads)."""
        return self._tree()

    def worked_out(self, walk: Callable[[ast.Module], T]) -> T:
        """``walk`` of the stdlib parser's tree, walked once per index and let go with it (a cache keyed by the
        tree itself would hold it past the parsed-file cache's bound); only where :attr:`parsed_by_ast`.  The
        answer is kept by the function itself: pass one defined once (a module's), not a new lambda per call."""
        if walk not in self._worked:
            tree = self._tree()
            assert tree is not None
            self._worked[walk] = walk(tree)
        return self._worked[walk]  # type: ignore[no-any-return]

    def module_bindings(self) -> Iterator[tuple[set[str], int]]:
        """(names bound, line) for each module-level binding, also under if/try/with."""
        tree = self._tree()
        if tree is None:
            return
        yield from ast_bindings(tree.body)

    @property
    def parsed_by_ast(self) -> bool:
        return self._by_ast

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
        return view(body, node.body, start - 1 - depth, module)

    def _whole_cst(self) -> tuple["cst.Module", Mapping["cst.CSTNode", "CodeRange"]]:
        if self._cst is not None:
            return self._cst
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


class KeptTrees:
    """The syntax trees kept, by the text they were parsed from, the most recently used last, within ``max_chars``
    of their sources (a tree is some thirty times its source): every reader of a file's tree (an index, a gate
    reader, a symbol's resolver) asks here, so a text is parsed once while its tree is kept; an index keeps what it
    built from its tree (statements, logical lines, what a reader worked out) and asks again if it needs the tree
    once it was let go.  One thread at a time, as :data:`INDEXES` (the language server checks on one worker; a
    ``--jobs`` worker is a process with its own)."""

    def __init__(self, max_chars: int) -> None:
        self.parses = 0  # texts parsed (the tests and benchmarks count them)
        self.reparses = 0  # of those, trees an index had and asked for again once let go
        self._recent: Recent[tuple[str, ast.Module]] = Recent(1 << 30, max_chars)

    def parsed(self, text: str) -> ast.Module:
        """The stdlib parser's tree of ``text``: the kept one, else parsed (within the token bound) and kept.
        Raises what :func:`~.bounds.bounded_parse` raises; a text that does not parse is not kept.  Read only."""
        key = f"{len(text)}:{hash(text)}"
        hit = self._recent.get(key)
        if hit is not None and hit[0] == text:
            return hit[1]
        tree = bounded_parse(text)
        self.parses += 1
        self._recent.put(key, (text, tree), len(text))
        return tree


def parse_ast(text: str) -> ast.Module:
    """``ast.parse`` of a text an input gave, past the token bound refused (:class:`BoundExceeded`), the tree kept
    among the most recent (:data:`TREES`): read only, never changed (copy a node before transforming it)."""
    return TREES.parsed(text)


# Characters of source whose trees are kept. Measured on the impact replay (1,415 commits) and a cold 5,000-skill
# catalog: 187 -> 166 MB and 126 -> 101 MB at their peaks, the same time; 5 of the 61 files a cold in-repo run of
# Megatron-Bridge's skills parses are parsed again.
MAX_TREE_CHARS = 256 * 1024
TREES = KeptTrees(MAX_TREE_CHARS)


class IndexCache:
    """The most recently used indexes, by blob sha (a syntax problem is remembered like an index), at most
    ``size`` of them and ``max_chars`` characters of their sources: an index holds several times its source's
    size (its syntax tree some thirty times, while :data:`TREES` keeps it), and a replay over a history meets
    hundreds of versions of a large file."""

    def __init__(self, size: int = 256, max_chars: int = 1024 * 1024) -> None:
        self.parses = 0  # how many files this process parsed; the benchmarks read it
        self._recent: Recent[PythonIndex | PythonSyntaxProblem] = Recent(size, max_chars)

    def get(self, source: SourceFile) -> PythonIndex:
        """The index of ``source``; raises :class:`PythonSyntaxProblem`."""
        key = source.blob or f"text:{hash(source.text)}"
        hit = self._recent.get(key)
        if hit is None:
            self.parses += 1
            try:
                hit = PythonIndex(source.text)
            except PythonSyntaxProblem as problem:
                hit = problem
            self._recent.put(key, hit, len(source.text))
        if isinstance(hit, PythonSyntaxProblem):
            raise hit
        return hit


INDEXES = IndexCache()


def python_index(source: SourceFile) -> PythonIndex:
    """The parsed ``source`` (built once per blob); raises :class:`PythonSyntaxProblem`."""
    return INDEXES.get(source)
