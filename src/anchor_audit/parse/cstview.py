"""libcst views of Python code, numbered by the stdlib parser.

libcst's position pass costs more than its parse; the stdlib parser knows
every statement's line for a fraction of that.  Both list the statements of
the same text in the same order, so the n-th libcst statement gets the n-th
ast statement's line.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Mapping, Sequence

from ..model import LineRange
from .walk import ast_preorder, cst_preorder

if TYPE_CHECKING:
    import libcst as cst
    from libcst.metadata import CodeRange


@dataclass(frozen=True)
class ScopeView:
    """The statements of one def, class or module as libcst nodes, with their lines in the file."""

    body: Sequence["cst.BaseStatement"]
    line_of: Callable[["cst.CSTNode"], int]
    keep: object = None  # the parsed module, kept alive while line numbers are looked up by node identity


def view(body: Sequence["cst.BaseStatement"], ast_body: list[ast.stmt], offset: int, module: "cst.Module") -> ScopeView:
    """A view whose line numbers come from the stdlib tree of the same code.

    Both parsers list the statements of the same text in the same order, so
    the n-th libcst statement has the n-th ast statement's line; that spares
    libcst's position pass, which costs more than the parse.  Should the two
    ever disagree on the count, libcst computes the positions itself.
    """
    cst_nodes = list(cst_preorder(body))
    ast_nodes = list(ast_preorder(ast_body))
    if len(cst_nodes) == len(ast_nodes):
        lines = {id(c): a.lineno for c, a in zip(cst_nodes, ast_nodes, strict=True)}
        return ScopeView(body, lambda n: lines[id(n)], keep=module)
    from libcst.metadata import MetadataWrapper, PositionProvider

    positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    return ScopeView(body, lambda n: positions[n].start.line + offset, keep=module)


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
