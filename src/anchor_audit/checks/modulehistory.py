"""What the history did with the file of a module a skill names that is not there: moved (and the module it is
now), or deleted (and the modules of its file's name in the same package)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

from ..source import SourceTree
from ..source.listing import is_test
from .pathcandidates import removed_said

MAX_NAMESAKES = 3  # modules of a deleted module's file name that are named


@dataclass(frozen=True)
class ModuleRemoval:
    """A module's file the history removed: its path, what became of it, the module it is now (moved), and the
    modules of its file's name in the same package (deleted)."""

    path: str
    said: str  # "moved to X in commit C", "deleted in commit C"
    module: str | None
    namesakes: tuple[str, ...] = ()


def module_removed(
    module: str, roots: Sequence[str], tree: SourceTree, named: Callable[[str], list[str]] | None = None
) -> ModuleRemoval | None:
    """The removal of ``module``'s file (``ROOT/pkg/mod.py``, else the package's ``__main__.py`` or
    ``__init__.py``) under the package ``roots``; ``named`` lists the paths of a file name, for the namesakes of a
    deleted one."""
    stem = module.replace(".", "/")
    asked = [f"{root}{stem}{tail}" for root in roots for tail in (".py", "/__main__.py", "/__init__.py")]
    gone = tree.removals(asked)
    for path in asked:
        removal = gone.get(path)
        if removal is None or removal.was != path:
            continue
        if removal.now is not None:
            return ModuleRemoval(path, removed_said(removal, path), module_of(removal.now, roots))
        found = (module_of(p, roots) for p in (named(path.rpartition("/")[2]) if named else ()))
        top = module.split(".")[0]
        namesakes = tuple(m for m in found if m and m.split(".")[0] == top and m != module)[:MAX_NAMESAKES]
        return ModuleRemoval(path, removed_said(removal, path), None, namesakes)
    return None


def module_of(path: str, roots: Sequence[str]) -> str | None:
    """The module ``path`` is under one of the package ``roots`` (None: not a module of them, or a test's)."""
    root = next((r for r in roots if path.startswith(r) and path.endswith(".py") and not is_test(path)), None)
    if root is None:
        return None
    return path[len(root) : -len(".py")].removesuffix("/__main__").removesuffix("/__init__").replace("/", ".")
