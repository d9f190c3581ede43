"""A helper's facts as its caller has them: the checks a function makes, read with its parameters bound to the
arguments of a call.

A validation refactored into a helper keeps its behaviour while its text leaves the quoted file:
``if self.model.cuda_graph_impl == "none": ...`` becomes ``validate_graphs(self.model)``, whose body says
``impl = getattr(config, "cuda_graph_impl", "none")`` and ``if impl == "none": ...``.  Bound to the call, the
helper's body reads ``if self.model.cuda_graph_impl == "none"`` again: the same fact, found where it moved.
Only what is certain is bound: a parameter to its argument (by position or keyword), and a local name set once,
at the top of the body, to an attribute of a bound parameter (``x = p.attr`` or ``x = getattr(p, "attr", d)``).
"""

from __future__ import annotations

import ast
import copy
from typing import Iterator

from .quotefacts import statement_keys

MAX_HELPER_NODES = 4000  # a helper's syntax tree is bound and read only up to this size
MAX_ARGUMENT_NODES = 200  # an argument bound into a helper (copied wherever its parameter is read) at most


def calls_by_name(module: ast.Module) -> Iterator[tuple[str, ast.Call]]:
    """Every call of a plain name (``helper(args)``) in ``module``: what a helper is called as."""
    for node in ast.walk(module):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.args:
            yield node.func.id, node


def defined_functions(module: ast.Module) -> dict[str, ast.FunctionDef]:
    """The module's top-level functions by name."""
    return {node.name: node for node in module.body if isinstance(node, ast.FunctionDef)}


def inlined_keys(helper: ast.FunctionDef, call: ast.Call) -> frozenset[str]:
    """The fact keys of ``helper``'s body with its parameters bound to ``call``'s arguments (none where the call
    cannot be bound: a starred argument, too many arguments, a body past :data:`MAX_HELPER_NODES`)."""
    nodes = list(ast.walk(helper))
    bound = _bind(helper.args, call)
    if bound is None or len(nodes) > MAX_HELPER_NODES:
        return frozenset()
    stored = [n.id for n in nodes if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)]
    bound = {name: value for name, value in bound.items() if name not in stored}  # a parameter set again: unbound
    body: list[ast.stmt] = []
    for statement in helper.body:
        local = _local_attribute(statement, bound)
        if local is not None and stored.count(local[0]) == 1:
            bound[local[0]] = local[1]
            continue
        body.append(_Bound(bound).visit(copy.deepcopy(statement)))
    return statement_keys(body)


def _bind(args: ast.arguments, call: ast.Call) -> dict[str, ast.expr] | None:
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return None
    positional = [a.arg for a in (*args.posonlyargs, *args.args)]
    if len(call.args) > len(positional):
        return None
    bound = dict(zip(positional, call.args, strict=False))
    names = set(positional) | {a.arg for a in args.kwonlyargs}
    bound |= {k.arg: k.value for k in call.keywords if k.arg in names}
    if any(sum(1 for _ in ast.walk(value)) > MAX_ARGUMENT_NODES for value in bound.values()):
        return None
    return bound


def _local_attribute(statement: ast.stmt, bound: dict[str, ast.expr]) -> tuple[str, ast.expr] | None:
    """``x = p.attr`` or ``x = getattr(p, "attr", default)`` with ``p`` bound: (``x``, the bound ``p.attr``)."""
    if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1):
        return None
    target, value = statement.targets[0], statement.value
    if not isinstance(target, ast.Name):
        return None
    if isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name) and value.value.id in bound:
        return target.id, ast.Attribute(copy.deepcopy(bound[value.value.id]), value.attr, ast.Load())
    if (isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "getattr"
            and len(value.args) in (2, 3) and isinstance(value.args[0], ast.Name) and value.args[0].id in bound
            and isinstance(value.args[1], ast.Constant) and isinstance(value.args[1].value, str)):  # fmt: skip
        return target.id, ast.Attribute(copy.deepcopy(bound[value.args[0].id]), value.args[1].value, ast.Load())
    return None


class _Bound(ast.NodeTransformer):
    def __init__(self, bound: dict[str, ast.expr]) -> None:
        self.bound = bound

    def visit_Name(self, node: ast.Name) -> ast.expr:
        if node.id in self.bound and isinstance(node.ctx, ast.Load):
            return copy.deepcopy(self.bound[node.id])
        return node
