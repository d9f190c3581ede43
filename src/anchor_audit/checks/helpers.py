"""The checks a file makes through the helpers it calls: each function it calls by name, defined in the file or
imported from a module of the tree, read with its parameters bound to the call's arguments
(:mod:`anchor_audit.match.inlined`).  Where a quote's gate left its file for a helper, it is found here."""

from __future__ import annotations

import ast

from ..errors import UnreadableFile
from ..match.inlined import calls_by_name, defined_functions, inlined_keys
from ..match.quotefacts import parsed_file
from ..source import SourceTree
from .symbols import module_path

MAX_HELPERS = 16  # distinct helpers of one file read
MAX_CALLS = 64  # calls of them bound


def helper_facts(tree: SourceTree, path: str, needles: set[str]) -> frozenset[str]:
    """The fact keys of every helper ``path`` calls that names one of ``needles`` (the names the facts looked for
    turn on: a helper that names none of them cannot hold them), bound to each call (none where it is not Python
    here)."""
    module = _parsed(tree, path)
    if module is None:
        return frozenset()
    imported = {
        alias.asname or alias.name: (node.module, alias.name)
        for node in ast.walk(module)
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0
        for alias in node.names
    }
    own = defined_functions(module)
    found: dict[str, ast.FunctionDef | None] = {}
    keys: set[str] = set()
    calls = 0
    for name, call in calls_by_name(module):
        if name not in found:
            if len(found) >= MAX_HELPERS:
                continue
            helper = own.get(name) or _imported(tree, imported.get(name))
            found[name] = helper if helper is not None and _names_any(helper, needles) else None
        helper = found[name]
        if helper is None or calls >= MAX_CALLS:
            continue
        calls += 1
        try:
            keys |= inlined_keys(helper, call)
        except (RecursionError, ValueError, MemoryError):  # a helper too deep to bind: not read
            continue
    return frozenset(keys)


def _names_any(helper: ast.FunctionDef, needles: set[str]) -> bool:
    """Whether ``helper`` names one of ``needles``: as an attribute, a name, or a string (``getattr(c, "x")``)."""
    for node in ast.walk(helper):
        named = node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else None
        if named is None and isinstance(node, ast.Constant) and isinstance(node.value, str):
            named = node.value
        if named is not None and named in needles:
            return True
    return False


def _imported(tree: SourceTree, origin: tuple[str, str] | None) -> ast.FunctionDef | None:
    if origin is None:
        return None
    where = module_path(tree, origin[0])
    module = _parsed(tree, where) if where else None
    return defined_functions(module).get(origin[1]) if module is not None else None


def _parsed(tree: SourceTree, path: str) -> ast.Module | None:
    if not path.endswith(".py"):
        return None
    try:
        source = tree.read(path)
    except UnreadableFile:
        return None
    return parsed_file(source.text) if source is not None else None
