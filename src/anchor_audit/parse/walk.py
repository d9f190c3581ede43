"""Walking statement blocks: one walk for each of the two trees anchor-audit reads.

A compound statement's blocks, in source order, are its body, its
``except`` handlers, its ``match`` cases, its ``else`` (an ``elif`` is an
``if`` there) and its ``finally``.  :func:`ast_blocks` and
:func:`cst_blocks` are the only places that know this; everything else
(finding scopes, module bindings, simple statements, the pre-order that
lets a libcst view borrow the stdlib's line numbers) is built on them.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Iterator, Sequence, Union

if TYPE_CHECKING:  # libcst is imported only where a libcst tree is walked
    import libcst as cst

AstDef = Union[ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef]
_AST_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)

# ---------------------------------------------------------------- the stdlib tree


def ast_blocks(stmt: ast.stmt) -> Iterator[list[ast.stmt]]:
    """The nested statement lists of ``stmt`` in source order (a def's or class's body included)."""
    body = getattr(stmt, "body", None)
    if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
        yield body
    for handler in getattr(stmt, "handlers", ()):
        yield handler.body
    for case in getattr(stmt, "cases", ()):
        yield case.body
    for name in ("orelse", "finalbody"):
        block = getattr(stmt, name, None)
        if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
            yield block


def ast_preorder(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Every statement under ``body``, defs' bodies included, each before what it contains."""
    for stmt in body:
        yield stmt
        for block in ast_blocks(stmt):
            yield from ast_preorder(block)


def ast_defs(body: list[ast.stmt]) -> Iterator[AstDef]:
    """Defs and classes of a body, also those under if/try/with at this level (not inside other defs)."""
    for stmt in body:
        if isinstance(stmt, _AST_DEFS):
            yield stmt
        else:
            for block in ast_blocks(stmt):
                yield from ast_defs(block)


def ast_qualnames(body: list[ast.stmt], prefix: str = "") -> Iterator[str]:
    """``Class.method`` of every def and class under ``body``, outermost first."""
    for node in ast_defs(body):
        name = prefix + node.name
        yield name
        yield from ast_qualnames(node.body, name + ".")


def ast_scopes(module: ast.Module, qualname: str) -> list[AstDef]:
    """Every def or class named ``qualname`` (``Class.method``); several when defined conditionally."""
    frontier: list[list[ast.stmt]] = [module.body]
    found: list[AstDef] = []
    for part in qualname.split("."):
        found = [node for body in frontier for node in ast_defs(body) if node.name == part]
        frontier = [node.body for node in found]
    return found


def ast_bindings(body: list[ast.stmt]) -> Iterator[tuple[set[str], int]]:
    """(names bound, line) for each binding at this level, also under if/try/with."""
    for stmt in body:
        names: set[str] = set()
        if isinstance(stmt, _AST_DEFS):
            names = {stmt.name}
        elif isinstance(stmt, ast.Assign):
            names = {n.id for t in stmt.targets for n in ast.walk(t) if isinstance(n, ast.Name)}
        elif isinstance(stmt, (ast.AnnAssign, ast.AugAssign)) and isinstance(stmt.target, ast.Name):
            names = {stmt.target.id}
        elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
            names = {(a.asname or a.name).split(".")[0] for a in stmt.names if a.name != "*"}
        else:
            for block in ast_blocks(stmt):
                yield from ast_bindings(block)
            continue
        yield names, stmt.lineno


# ---------------------------------------------------------------- the libcst tree


def cst_block(suite: "cst.BaseSuite") -> Sequence["cst.BaseStatement"]:
    """A suite's statements; a one-line suite (``if x: y = 1``) as one simple statement line."""
    import libcst as cst

    if isinstance(suite, cst.IndentedBlock):
        return suite.body
    assert isinstance(suite, cst.SimpleStatementSuite)
    return [cst.SimpleStatementLine(body=suite.body)]


def cst_blocks(stmt: "cst.BaseCompoundStatement") -> Iterator[Sequence["cst.BaseStatement"]]:
    """The nested statement lists of ``stmt`` in source order (a def's or class's body included)."""
    import libcst as cst

    yield cst_block(stmt.body)
    for handler in getattr(stmt, "handlers", ()):
        yield cst_block(handler.body)
    for case in getattr(stmt, "cases", ()):
        yield cst_block(case.body)
    for name in ("orelse", "finalbody"):
        part = getattr(stmt, name, None)
        if isinstance(part, cst.If):
            yield [part]
        elif part is not None:
            yield cst_block(part.body)


def cst_preorder(body: Sequence["cst.BaseStatement"]) -> Iterator["cst.CSTNode"]:
    """The libcst twin of :func:`ast_preorder`: simple statements one by one, in the same order."""
    import libcst as cst

    for stmt in body:
        if isinstance(stmt, cst.SimpleStatementLine):
            yield from stmt.body
            continue
        yield stmt
        if isinstance(stmt, cst.BaseCompoundStatement):
            for block in cst_blocks(stmt):
                yield from cst_preorder(block)


def cst_defs(body: Sequence["cst.BaseStatement"]) -> Iterator["cst.FunctionDef | cst.ClassDef"]:
    """Defs and classes of a body, also those under if/try/with at this level (not inside other defs)."""
    import libcst as cst

    for stmt in body:
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            yield stmt
        elif isinstance(stmt, cst.BaseCompoundStatement):
            for block in cst_blocks(stmt):
                yield from cst_defs(block)


def cst_scopes(module: "cst.Module", qualname: str) -> list[Sequence["cst.BaseStatement"]]:
    """The statement lists of every def/class named ``qualname`` (several: conditional defs)."""
    found: list[Sequence[cst.BaseStatement]] = []
    frontier: list[Sequence[cst.BaseStatement]] = [module.body]
    for part in qualname.split("."):
        found = [cst_block(node.body) for body in frontier for node in cst_defs(body) if node.name.value == part]
        frontier = found
    return found


def cst_smalls(body: Sequence["cst.BaseStatement"]) -> Iterator["cst.BaseSmallStatement"]:
    """Every simple statement under ``body``, at any depth, not inside nested defs."""
    import libcst as cst

    for stmt in body:
        if isinstance(stmt, cst.SimpleStatementLine):
            yield from stmt.body
        elif isinstance(stmt, cst.BaseCompoundStatement) and not isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            for block in cst_blocks(stmt):
                yield from cst_smalls(block)


def cst_bindings(body: Sequence["cst.BaseStatement"]) -> Iterator["cst.CSTNode"]:
    """The nodes that may bind a name at this level: simple statements and defs, also under if/try/with."""
    import libcst as cst

    for stmt in body:
        if isinstance(stmt, cst.SimpleStatementLine):
            yield from stmt.body
        elif isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            yield stmt
        elif isinstance(stmt, cst.BaseCompoundStatement):
            for block in cst_blocks(stmt):
                yield from cst_bindings(block)
