"""What a module's star imports give: ``from ._ops import *`` makes every public name of ``_ops`` (or each one
its ``__all__`` lists) a name of the module, so ``pkg.load`` exists where ``pkg/__init__.py`` star-imports a
module that star-imports the one defining ``load``.

Followed within the repository, at most :data:`MAX_STAR_FILES` files deep and wide; a star import of another
package (``from numpy import *``) may give any name, so a name not found otherwise is unverifiable there, never
missing.
"""

from __future__ import annotations

import ast
import posixpath
from dataclasses import dataclass
from typing import Callable

from ..errors import BoundExceeded, NotCarried, UnreadableFile
from ..parse import parse_ast
from ..parse.walk import ast_bindings
from ..source import SourceTree
from ..source.listing import module_file

MAX_STAR_FILES = 40  # modules read while following one name's star imports


@dataclass(frozen=True)
class Given:
    """A name a star import gives: the module's star import it comes through, and where it is bound."""

    through: str  # ``from ._ops import *``, as the importing module writes it
    where: str  # ``pkg/_ops/io.py:4``


def star_given(tree: SourceTree, path: str, name: str, roots: Callable[[str], tuple[str, ...]]) -> Given | str | None:
    """How ``path``'s star imports give ``name``; else the first star import of another package that may give it
    (its text), or None where none does."""
    unknown: str | None = None
    seen = {path}
    queue: list[tuple[str, str | None]] = [(path, None)]
    while queue and len(seen) <= MAX_STAR_FILES:
        current, through = queue.pop(0)
        module = _parsed(tree, current)
        if module is None:
            continue
        for node in _star_imports(module):
            said = through or ast.unparse(node)
            target = imported_file(tree, current, node, roots)
            if target is None:
                unknown = unknown or ast.unparse(node)
                continue
            if target in seen:
                continue
            seen.add(target)
            found = _gives(tree, target, name)
            if found is False:
                continue
            if found is not None:
                return Given(said, f"{target}:{found}" if found else target)
            queue.append((target, said))
    return unknown


def _parsed(tree: SourceTree, path: str) -> ast.Module | None:
    try:
        source = tree.read(path)
        return parse_ast(source.text) if source is not None else None
    except (NotCarried, UnreadableFile, SyntaxError, ValueError, RecursionError, BoundExceeded):
        return None


def _star_imports(module: ast.Module) -> list[ast.ImportFrom]:
    return [n for n in ast.walk(module) if isinstance(n, ast.ImportFrom) and any(a.name == "*" for a in n.names)]


def imported_file(
    tree: SourceTree, path: str, node: ast.ImportFrom, roots: Callable[[str], tuple[str, ...]]
) -> str | None:
    """The file an import of the module at ``path`` reads (relative, or absolute under one of ``roots`` of its top
    package), where it is in the repository."""
    dotted = node.module or ""
    try:
        if node.level == 0:
            found = module_file(tree, dotted, roots(dotted.split(".")[0])) if dotted else None
            return found[0] if found is not None else None
        base = posixpath.dirname(path)
        for _ in range(node.level - 1):
            base = posixpath.dirname(base)
        stem = posixpath.join(base, *dotted.split(".")) if dotted else base
        for candidate in (f"{stem}.py", f"{stem}/__init__.py"):
            if tree.blob_id(candidate) is not None:
                return candidate
    except (NotCarried, UnreadableFile):
        return None
    return None


def _gives(tree: SourceTree, path: str, name: str) -> int | bool | None:
    """Whether a star import of ``path`` gives ``name``: the line that binds it (0: its ``__all__`` lists it,
    bound by a star import of its own), False where it does not (private, or left out of ``__all__``), None
    where only its own star imports may."""
    module = _parsed(tree, path)
    if module is None:
        return False
    listed = _listed(module)
    if (listed is None and name.startswith("_")) or (listed is not None and name not in listed):
        return False
    line = next((at for names, at in ast_bindings(module.body) if name in names), None)
    if line is not None:
        return line
    return 0 if listed is not None else None


def _listed(module: ast.Module) -> frozenset[str] | None:
    """The names a module's ``__all__`` lists, where it is a literal list or tuple of strings; else None."""
    for node in module.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            if isinstance(node.value, (ast.List, ast.Tuple)) and all(
                isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.value.elts
            ):
                return frozenset(str(e.value) for e in node.value.elts if isinstance(e, ast.Constant))
            return None
    return None
