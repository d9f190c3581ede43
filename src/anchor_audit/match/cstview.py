"""libcst views of Python code, numbered by the stdlib parser.

libcst's position pass costs more than its parse; the stdlib parser knows
every statement's line for a fraction of that.  Both list the statements of
the same text in the same order, so the n-th libcst statement gets the n-th
ast statement's line.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Iterator, Mapping, Sequence

from ..model import LineRange
from .pysource import ScopeView

if TYPE_CHECKING:
    import libcst as cst
    from libcst.metadata import CodeRange


def view(body: Sequence["cst.BaseStatement"], ast_body: list[ast.stmt], offset: int, module: "cst.Module") -> ScopeView:
    """A view whose line numbers come from the stdlib tree of the same code.

    Both parsers list the statements of the same text in the same order, so
    the n-th libcst statement has the n-th ast statement's line; that spares
    libcst's position pass, which costs more than the parse.  Should the two
    ever disagree on the count, libcst computes the positions itself.
    """
    cst_nodes = list(_cst_preorder(body))
    ast_nodes = list(_ast_preorder(ast_body))
    if len(cst_nodes) == len(ast_nodes):
        lines = {id(c): a.lineno for c, a in zip(cst_nodes, ast_nodes, strict=True)}
        return ScopeView(body, lambda n: lines[id(n)], keep=module)
    from libcst.metadata import MetadataWrapper, PositionProvider

    positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    return ScopeView(body, lambda n: positions[n].start.line + offset, keep=module)


def _cst_preorder(body: Sequence["cst.BaseStatement"]) -> Iterator["cst.CSTNode"]:
    import libcst as cst

    for stmt in body:
        if isinstance(stmt, cst.SimpleStatementLine):
            yield from stmt.body
            continue
        yield stmt
        suite = getattr(stmt, "body", None)
        if isinstance(suite, cst.IndentedBlock):
            yield from _cst_preorder(suite.body)
        elif isinstance(suite, cst.SimpleStatementSuite):
            yield from suite.body
        for handler in getattr(stmt, "handlers", ()):
            yield from _cst_preorder(_suite(handler.body))
        for case in getattr(stmt, "cases", ()):
            yield from _cst_preorder(_suite(case.body))
        orelse = getattr(stmt, "orelse", None)
        if isinstance(orelse, cst.If):
            yield from _cst_preorder([orelse])
        elif orelse is not None:
            yield from _cst_preorder(_suite(orelse.body))
        final = getattr(stmt, "finalbody", None)
        if final is not None:
            yield from _cst_preorder(_suite(final.body))


def _suite(suite: "cst.BaseSuite") -> Sequence["cst.BaseStatement"]:
    import libcst as cst

    if isinstance(suite, cst.IndentedBlock):
        return suite.body
    assert isinstance(suite, cst.SimpleStatementSuite)
    return [cst.SimpleStatementLine(body=suite.body)]


def _ast_preorder(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    for stmt in body:
        yield stmt
        for name in ("body",):
            block = getattr(stmt, name, None)
            if isinstance(block, list):
                yield from _ast_preorder(block)
        for handler in getattr(stmt, "handlers", ()):
            yield from _ast_preorder(handler.body)
        for case in getattr(stmt, "cases", ()):
            yield from _ast_preorder(case.body)
        yield from _ast_preorder(getattr(stmt, "orelse", []) or [])
        yield from _ast_preorder(getattr(stmt, "finalbody", []) or [])


def cst_statements(positions: Mapping["cst.CSTNode", "CodeRange"]) -> list[LineRange]:
    import libcst as cst

    out = []
    for node, pos in positions.items():
        if isinstance(node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            start = pos.start.line
            for deco in getattr(node, "decorators", ()):
                start = min(start, positions[deco].start.line)
            out.append(LineRange(start, pos.end.line))
    out.sort(key=lambda r: (r.start, -r.end))
    return out
