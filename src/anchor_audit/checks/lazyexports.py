"""Names a package serves through a module ``__getattr__`` (the lazy-export pattern): whether it serves a name,
and where its table says the name comes from (``{"Trainer": ".trainer"}``, ``{"Model": ("pkg.models", "Model")}``).
"""

from __future__ import annotations

import ast
from typing import Any

from ..errors import BoundExceeded, NotCarried, UnreadableFile
from ..model import PromiseStatus
from ..parse import parse_ast
from ..source import SourceTree

LAZY = "lazily (module __getattr__)"  # how a name so served is said


def lazily_exported(text: str, name: str) -> bool:
    """Whether a module ``__getattr__`` serves ``name``: the module defines one, and names ``name`` in a string
    of its ``__all__`` or of a table (the lazy-export pattern: ``{"Name": ".submodule"}``)."""
    try:
        module = parse_ast(text)
    except (SyntaxError, ValueError, RecursionError, BoundExceeded):
        return False
    if not any(isinstance(n, ast.FunctionDef) and n.name == "__getattr__" for n in module.body):
        return False
    return any(isinstance(n, ast.Constant) and n.value == name for n in ast.walk(module))


def past_lazy(found: dict[str, Any], path: str, rest: list[str]) -> tuple[PromiseStatus, str]:
    """A name ``path`` has, with ``rest`` after it: one a module ``__getattr__`` serves at import time leaves what
    follows it unknown here (unverifiable), never found."""
    if found["status"] == "exists" and len(rest) > 1 and found["detail"].endswith(LAZY):
        return PromiseStatus.UNVERIFIABLE, (f"{path} serves {rest[0]} lazily (module __getattr__): "
                                            f"{'.'.join(rest[1:])} past it is not followed")  # fmt: skip
    return PromiseStatus(found["status"]), found["detail"]


def lazy_target(tree: SourceTree, path: str, package: str, name: str) -> str | None:
    """Where a lazy-export table of ``path`` (package ``package``) says ``name`` is served from, as a dotted name:
    ``{"Name": ("pkg.mod", "Name")}`` or ``{"Name": ".mod"}``; None where no table entry says."""
    try:
        source = tree.read(path)
        module = parse_ast(source.text) if source is not None else None
    except (SyntaxError, ValueError, RecursionError, BoundExceeded, NotCarried, UnreadableFile):
        return None
    for node in ast.walk(module) if module is not None else ():
        if not isinstance(node, ast.Dict):
            continue
        for key, value in zip(node.keys, node.values, strict=True):
            if isinstance(key, ast.Constant) and key.value == name:
                parts = value.elts if isinstance(value, ast.Tuple) else [value]
                said = [p.value for p in parts if isinstance(p, ast.Constant) and isinstance(p.value, str)]
                if len(said) != len(parts) or len(said) not in (1, 2):
                    return None
                where = f"{package}{said[0]}" if said[0].startswith(".") else said[0]
                return f"{where}.{said[1] if len(said) == 2 else name}"
    return None
