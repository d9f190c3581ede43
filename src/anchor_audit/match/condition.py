"""Gating conditions: structural, line-free promises about Python code.

A condition says, for the function or method QUALNAME of PATH (or its
module), one of:

* **if gate**: there is an ``if`` whose test is ``if``, optionally with an
  exact ``elif`` chain, nested ``inside`` given enclosing tests, with given
  statements in its branch (``then``), its final ``else`` (``else``) or every
  branch (``each``);
* **has**: the scope contains given statements;
* **defines**: the module binds a name at module level.

Statements are ``target = value`` (``value`` may be ``...``: any value, as
in ``executor.env_vars["X"] = ...``) or any other simple statement.
Expressions compare by libcst structure (:mod:`.canon`).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterator, Sequence

import libcst as cst

from ..errors import BoundExceeded
from ..model import Condition, ConditionResult, ConditionStatus
from ..parse import PythonIndex, PythonSyntaxProblem, ScopeView, python_index, too_complex
from ..parse.walk import cst_bindings, cst_block, cst_blocks, cst_smalls
from ..source.file import SourceFile
from .canon import Canon, canonical, code, expression_key

NEAR_MISS = 0.75  # an if test this similar to the wanted one is "different", not "absent"
MAX_SCOPES_TRIED = 12  # defs, likeliest name first, searched for a condition whose scope is gone


class PatternError(ValueError):
    """An expression or statement in anchors.yaml does not parse."""


@dataclass(frozen=True)
class StatementPattern:
    """One statement a condition wants: an assignment (``target = value``, ``target = ...`` for any value), a
    ``raise NAME`` (a raise of that exception, whatever its message), an ``assert TEST`` written without a
    message (whatever the code's message), or any other statement as written."""

    text: str
    kind: str  # "assign", "raise", "assert" or "statement"
    targets: tuple[Canon, ...] = ()
    value: Canon | None = None  # None: any value (written as ...)
    whole: Canon | None = None  # kind "statement": the statement; "raise": the exception; "assert": the test

    def matches(self, node: cst.BaseSmallStatement) -> bool:
        if self.kind == "raise":
            raised = node.exc if isinstance(node, cst.Raise) else None
            called = raised.func if isinstance(raised, cst.Call) else raised
            return called is not None and canonical(called) == self.whole
        if self.kind == "assert":
            return isinstance(node, cst.Assert) and canonical(node.test) == self.whole
        if self.kind == "statement":
            return canonical(node) == self.whole
        targets, value = _assignment(node)
        if not targets or not any(t in targets for t in self.targets):
            return False
        return self.value is None or value == self.value

    def same_target(self, node: cst.BaseSmallStatement) -> bool:
        targets, _ = _assignment(node)
        return bool(targets) and any(t in targets for t in self.targets)


def _assignment(node: cst.BaseSmallStatement) -> tuple[tuple[Canon, ...], Canon | None]:
    if isinstance(node, cst.Assign):
        return tuple(canonical(t.target) for t in node.targets), canonical(node.value)
    if isinstance(node, cst.AnnAssign) and node.value is not None:
        return (canonical(node.target),), canonical(node.value)
    return (), None


@lru_cache(maxsize=1024)
def compile_expression(text: str) -> Canon:
    """The canonical form of an expression from anchors.yaml; raises :class:`PatternError`."""
    try:
        return expression_key(text)
    except cst.ParserSyntaxError as exc:
        raise PatternError(f"not a Python expression: {text!r} ({exc.message})") from None
    except BoundExceeded as exc:
        raise PatternError(f"not compiled: {text[:60]!r}...: {exc}") from None


@lru_cache(maxsize=1024)
def compile_statement(text: str) -> StatementPattern:
    """A statement pattern from anchors.yaml; raises :class:`PatternError`."""
    reason = too_complex(text)
    if reason is not None:
        raise PatternError(f"not compiled: {text[:60]!r}...: {reason}")
    try:
        stmt = cst.parse_statement(text.strip())
    except cst.ParserSyntaxError as exc:
        raise PatternError(f"not a Python statement: {text!r} ({exc.message})") from None
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
        raise PatternError(f"expected one simple statement such as 'target = value', got {text!r}")
    small = stmt.body[0]
    if isinstance(small, cst.Raise) and isinstance(small.exc, (cst.Name, cst.Attribute)) and small.cause is None:
        return StatementPattern(text, "raise", whole=canonical(small.exc))
    if isinstance(small, cst.Assert) and small.msg is None:
        return StatementPattern(text, "assert", whole=canonical(small.test))
    if isinstance(small, (cst.Assign, cst.AnnAssign)) and getattr(small, "value", None) is not None:
        targets, value = _assignment(small)
        wildcard = isinstance(small.value, cst.Ellipsis)
        return StatementPattern(text, "assign", targets, None if wildcard else value)
    return StatementPattern(text, "statement", whole=canonical(small))


def check_condition(condition: Condition, source: SourceFile | None) -> ConditionResult:
    """Judge ``condition`` against ``source`` (None: the file is not at the ref)."""
    if source is None:
        return ConditionResult(
            condition, ConditionStatus.MISSING, detail=f"{condition.path} is not in the tree at this ref"
        )
    try:
        index = python_index(source)
        if condition.defines is not None:
            return _check_defines(condition, index)
        scopes = index.scopes(condition.scope)
    except PythonSyntaxProblem as problem:
        return ConditionResult(
            condition, ConditionStatus.ERROR, problem.line, f"{condition.path} does not parse: {problem}"
        )
    if not scopes:
        return _scope_gone(condition, index)
    if condition.if_test is not None:
        return _check_gate(condition, scopes)
    return _check_has(condition, scopes)


def _scope_gone(condition: Condition, index: PythonIndex) -> ConditionResult:
    """The scope a condition names is not in the file: where the promise holds now (a renamed or moved
    method), else the nearest name; different when it holds elsewhere, absent when nowhere."""
    absent = f"no {condition.scope} in {condition.path}"
    names = [n for n in index.qualnames() if n != condition.scope]
    likeliest = sorted(names, key=lambda n: -difflib.SequenceMatcher(None, condition.scope or "", n).ratio())
    for name in likeliest[:MAX_SCOPES_TRIED]:
        views = index.scopes(name)
        moved = _check_gate(condition, views) if condition.if_test is not None else _check_has(condition, views)
        if moved.status is ConditionStatus.HOLDS:
            said = f"{absent}: it holds in {name} now (line {moved.line})"
            return ConditionResult(condition, ConditionStatus.DIFFERENT, moved.line, said)
    parent = (condition.scope or "").rpartition(".")[0]
    siblings = [n for n in names if n.rpartition(".")[0] == parent]  # a renamed method of the same class
    near = difflib.get_close_matches(condition.scope or "", siblings, n=1, cutoff=0.6)
    said = absent + (f" (nearest: {near[0]})" if near else "")
    return ConditionResult(condition, ConditionStatus.ABSENT, detail=said)


# ------------------------------------------------------------------ the three shapes


def _check_defines(condition: Condition, index: PythonIndex) -> ConditionResult:
    name = condition.defines
    if index.parsed_by_ast:
        for names, line in index.module_bindings():
            if name in names:
                return ConditionResult(condition, ConditionStatus.HOLDS, line, f"{name} is bound here")
    else:
        (view,) = index.scopes(None)
        for node in cst_bindings(view.body):
            if _binds(node, name):
                return ConditionResult(condition, ConditionStatus.HOLDS, view.line_of(node), f"{name} is bound here")
    return ConditionResult(
        condition, ConditionStatus.ABSENT, detail=f"{condition.path} binds no {name} at module level"
    )


def _binds(node: cst.CSTNode, name: str | None) -> bool:
    if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
        return node.name.value == name
    if isinstance(node, cst.Assign):
        return any(_names_in(t.target, name) for t in node.targets)
    if isinstance(node, (cst.AnnAssign, cst.AugAssign)):
        return _names_in(node.target, name)
    if isinstance(node, (cst.Import, cst.ImportFrom)) and not isinstance(node.names, cst.ImportStar):
        for alias in node.names:
            bound = alias.asname.name if alias.asname else alias.name
            text = code(bound).split(".")[0]
            if text == name:
                return True
    return False


def _names_in(target: cst.BaseExpression, name: str | None) -> bool:
    if isinstance(target, cst.Name):
        return target.value == name
    if isinstance(target, (cst.Tuple, cst.List)):
        return any(_names_in(el.value, name) for el in target.elements)
    return False


def _check_has(condition: Condition, scopes: list[ScopeView]) -> ConditionResult:
    patterns = [compile_statement(s) for s in condition.has]
    best: ConditionResult | None = None
    for view in scopes:
        smalls = list(cst_smalls(view.body))
        problems, line = _require(patterns, smalls, view, "the scope")
        if not problems:
            return ConditionResult(condition, ConditionStatus.HOLDS, line)
        status = ConditionStatus.DIFFERENT if any(p[1] for p in problems) else ConditionStatus.ABSENT
        result = ConditionResult(condition, status, problems[0][1] or line, "; ".join(p[0] for p in problems))
        best = best or result
    assert best is not None
    return best


def _require(
    patterns: list[StatementPattern], smalls: list[cst.BaseSmallStatement], view: ScopeView, where: str
) -> tuple[list[tuple[str, int | None]], int | None]:
    """Which patterns are not among ``smalls``: (message, line of a near miss) each; and the first hit's line."""
    problems: list[tuple[str, int | None]] = []
    first_line: int | None = None
    for pattern in patterns:
        hit = next((s for s in smalls if pattern.matches(s)), None)
        if hit is not None:
            line = view.line_of(hit)
            first_line = line if first_line is None else min(first_line, line)
            continue
        near = next((s for s in smalls if pattern.kind == "assign" and pattern.same_target(s)), None)
        if near is not None:
            problems.append((f"line {view.line_of(near)} has `{code(near)}`, not `{pattern.text}`", view.line_of(near)))
        else:
            problems.append((f"no `{pattern.text}` in {where}", None))
    return problems, first_line


@dataclass(frozen=True)
class _FoundIf:
    node: cst.If
    enclosing: tuple[Canon, ...]  # tests of the if branches that contain it, outermost first


def _ifs(body: Sequence[cst.BaseStatement], enclosing: tuple[Canon, ...] = ()) -> Iterator[_FoundIf]:
    for stmt in body:
        if isinstance(stmt, cst.If):
            yield from _if_chain(stmt, enclosing)
        elif isinstance(stmt, cst.BaseCompoundStatement) and not isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            for block in cst_blocks(stmt):  # a nested def is a scope of its own
                yield from _ifs(block, enclosing)


def _if_chain(node: cst.If, enclosing: tuple[Canon, ...]) -> Iterator[_FoundIf]:
    yield _FoundIf(node, enclosing)
    yield from _ifs(cst_block(node.body), enclosing + (canonical(node.test),))
    if isinstance(node.orelse, cst.If):
        yield from _if_chain(node.orelse, enclosing)
    elif isinstance(node.orelse, cst.Else):
        yield from _ifs(cst_block(node.orelse.body), enclosing)


def _check_gate(condition: Condition, scopes: list[ScopeView]) -> ConditionResult:
    assert condition.if_test is not None
    want = compile_expression(condition.if_test)
    found = [(f, view) for view in scopes for f in _ifs(view.body)]
    candidates = [(f, view) for f, view in found if canonical(f.node.test) == want]
    best: tuple[list[str], int] | None = None
    for cand, view in candidates:
        problems = _gate_problems(condition, cand, view)
        if not problems:
            return ConditionResult(condition, ConditionStatus.HOLDS, view.line_of(cand.node))
        if best is None or len(problems) < len(best[0]):
            best = (problems, view.line_of(cand.node))
    if best is not None:
        return ConditionResult(condition, ConditionStatus.DIFFERENT, best[1], "; ".join(best[0]))
    # No if with that test: is there one that is nearly it (a changed operator or constant, a test that gained or
    # lost an `and` or `or` part)?
    wanted_text = " ".join(condition.if_test.split())
    parts = _operands(cst.parse_expression(condition.if_test))
    scored = [(_likeness(wanted_text, want, parts, f.node.test), f, v) for f, v in found]
    scored = [s for s in scored if s[0] >= NEAR_MISS]
    if scored:
        _, near, view = max(scored, key=lambda s: s[0])
        line = view.line_of(near.node)
        return ConditionResult(
            condition,
            ConditionStatus.DIFFERENT,
            line,
            f"line {line} tests `{code(near.node.test)}`, not `{condition.if_test}`",
        )
    scope = condition.scope or "the module"
    return ConditionResult(condition, ConditionStatus.ABSENT, detail=f"no `if {condition.if_test}` in {scope}")


def _likeness(wanted_text: str, want: Canon, parts: set[Canon], test: cst.BaseExpression) -> float:
    """How nearly ``test`` is the wanted one: 1 when one is an and/or part of the other, else text similarity."""
    if want in _operands(test) or canonical(test) in parts:
        return 1.0
    return difflib.SequenceMatcher(None, wanted_text, code(test)).ratio()


def _operands(expr: cst.BaseExpression) -> set[Canon]:
    """The canonical parts of a chain of ``and`` / ``or`` (the expression itself when it is none)."""
    if isinstance(expr, cst.BooleanOperation):
        return _operands(expr.left) | _operands(expr.right)
    return {canonical(expr)}


def _gate_problems(condition: Condition, found: _FoundIf, view: ScopeView) -> list[str]:
    node = found.node
    line = view.line_of(node)
    problems: list[str] = []
    chain: list[cst.If] = []
    tail: cst.If | cst.Else | None = node.orelse
    while isinstance(tail, cst.If):
        chain.append(tail)
        tail = tail.orelse
    if condition.elif_tests is not None:
        want = [compile_expression(t) for t in condition.elif_tests]
        if [canonical(c.test) for c in chain] != want:
            have = ", ".join(f"`{code(c.test)}`" for c in chain) or "none"
            problems.append(f"line {line}: its elif tests are {have}")
    want_inside = [compile_expression(t) for t in condition.inside]
    if not _is_subsequence(want_inside, list(found.enclosing)):
        problems.append(f"line {line} is not inside `if {' / '.join(condition.inside)}`")
    branches = [cst_block(node.body)] + [cst_block(c.body) for c in chain]
    if isinstance(tail, cst.Else):
        branches_with_else = branches + [cst_block(tail.body)]
    else:
        branches_with_else = branches
    checks: list[tuple[tuple[str, ...], Sequence[cst.BaseStatement] | None, str]] = [
        (condition.then, branches[0], f"the branch of line {line}"),
        (condition.orelse, cst_block(tail.body) if isinstance(tail, cst.Else) else None, f"the else of line {line}"),
    ]
    checks += [(condition.each, b, f"a branch of the chain at line {line}") for b in branches_with_else]
    for wanted, block, where in checks:
        if not wanted:
            continue
        if block is None:
            problems.append(f"line {line}: the chain has no else")
            continue
        missing, _ = _require([compile_statement(s) for s in wanted], list(cst_smalls(block)), view, where)
        problems += [m for m, _ in missing]
    return problems


def _is_subsequence(want: list[Canon], have: list[Canon]) -> bool:
    it = iter(have)
    return all(any(w == h for h in it) for w in want)
