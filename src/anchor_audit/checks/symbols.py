"""Symbols a skill's Python examples use: imported names, and keywords of the classes they call.

``from megatron.bridge.training.comm_overlap import CommOverlapConfig`` promises
that the module defines (or re-exports) the name at the ref;
``CommOverlapConfig(tp_comm_overlap=True)`` promises the class has that field.
What cannot be resolved in the repository (third-party modules, attribute
chains on objects of unknown type) is reported as unverifiable, not broken.
"""

from __future__ import annotations

import ast
import re
import sys
from functools import partial
from typing import Any, Callable, Iterator

from ..errors import BoundExceeded, NotCarried, UnreadableFile
from ..model import PromiseKind, PromiseResult, PromiseStatus, Skill
from ..parse import PythonSyntaxProblem, parse_ast, python_index
from ..parse.walk import ast_blocks
from ..source import SourceTree
from ..source.listing import is_test, module_file
from ..store.memo import Memo, no_memo
from .barenames import resolve_bare
from .lazyexports import LAZY, lazily_exported, lazy_target, past_lazy
from .modulehistory import module_removed
from .pyproject import project_meta
from .starexports import Given, imported_file, star_given

_USUAL_ROOTS = ("src/", "", "python/", "lib/")


def _roots(tree: SourceTree, top: str) -> tuple[str, ...]:
    """Where the package ``top`` may lie: the usual roots, a folder of its own name under ``python/`` (a
    monorepo's ``python/cuopt/cuopt/``), and the roots pyproject.toml's build tables declare."""
    meta = project_meta(tree)
    declared = meta.package_roots if meta is not None else ()
    return tuple(dict.fromkeys([*_USUAL_ROOTS, f"python/{top}/", *declared]))




def check_symbols(skill: Skill, tree: SourceTree, memo: Memo = no_memo) -> list[PromiseResult]:
    skill_md = f"{skill.path.rstrip('/')}/SKILL.md"
    out: list[PromiseResult] = []
    for code, first_line, _ in skill.examples:
        try:
            module = parse_ast(code)
        except (SyntaxError, BoundExceeded):
            continue  # an illustration, not a program

        def say(subject: str, status: PromiseStatus, lineno: int, detail: str, first: int = first_line) -> None:
            out.append(PromiseResult(PromiseKind.SYMBOL, subject, status, skill_md, first + lineno - 1, detail))

        imported = _imports(module, tree, memo, say)
        for node in ast.walk(module):  # attribute chains: anchor_audit.checks.attrchains
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in imported:
                name, path, blob = imported[node.func.id]
                for keyword in node.keywords:
                    if keyword.arg is None:
                        continue
                    subject, at = f"{name}({keyword.arg}=)", keyword.value.lineno
                    if path is None or blob is None:
                        say(subject, PromiseStatus.UNVERIFIABLE, at, f"{name} is not in this repository")
                        continue
                    found = _keyword_followed(tree, memo, path, blob, name, keyword.arg)
                    say(subject, PromiseStatus(found["status"]), at, found["detail"])
    return out


Say = Callable[[str, PromiseStatus, int, str], None]


Imported = dict[str, tuple[str, str | None, str | None]]  # a name -> (its name in the module, module path, blob)


def imported_names(module: ast.Module, tree: SourceTree) -> Imported:
    """The names an example imports from the repository (``from pkg.mod import Name as Alias``), found quietly."""
    imported: Imported = {}
    for node in ast.walk(module):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            path, blob = _module(tree, node.module)
            imported |= {alias.asname or alias.name: (alias.name, path, blob) for alias in node.names}
    return imported


def module_path(tree: SourceTree, dotted: str) -> str | None:
    """The file of module ``dotted`` at the ref (``pkg/mod.py`` or ``pkg/mod/__init__.py`` under its root)."""
    return _module(tree, dotted)[0]


def _imports(module: ast.Module, tree: SourceTree, memo: Memo, say: Say) -> Imported:
    """The names an example imports from the repository, each import said (found, missing or unverifiable)."""
    imported: Imported = {}
    for node in ast.walk(module):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            path, blob = _module(tree, node.module)
            for alias in node.names:
                subject = f"{node.module}:{alias.name}"
                imported[alias.asname or alias.name] = (alias.name, path, blob)
                if _placeholder(alias.name) or _placeholder(node.module):
                    continue  # a template's name (my_op, your_model): not a claim about the code
                status, detail = import_status(tree, memo, node.module, alias.name)
                say(subject, status, node.lineno, detail)
    return imported


def import_status(tree: SourceTree, memo: Memo, dotted: str, name: str) -> tuple[PromiseStatus, str]:
    """What ``from DOTTED import NAME`` finds in ``tree``: the name (defined, exported lazily, given by a star
    import), missing (with where it is defined instead), or a module that is not this repository's."""
    path, blob = _module(tree, dotted)
    if path is None or blob is None:
        return _not_here(tree, dotted)
    found = memo(f"name|{blob}|{name}", partial(_name, tree, path, name))
    status, detail = PromiseStatus(found["status"]), found["detail"]
    if status is PromiseStatus.MISSING:  # a star import's, or where it is defined instead (the tree's, never
        status, detail = _not_defined(tree, path, name, detail)  # remembered)
    return status, detail


def keyword_status(tree: SourceTree, memo: Memo, dotted: str, name: str, keyword: str) -> tuple[PromiseStatus, str]:
    """Whether ``name`` of module ``dotted`` in ``tree`` takes ``keyword`` (a field or a parameter), followed
    through re-exports to where it is defined."""
    path, blob = _module(tree, dotted)
    if path is None or blob is None:
        return PromiseStatus.UNVERIFIABLE, f"{name} is not in this repository"
    found = _keyword_followed(tree, memo, path, blob, name, keyword)
    return PromiseStatus(found["status"]), found["detail"]


_PLACEHOLDER = re.compile(r"^(?:my|your|some|foo|bar|example)_|^(?:my|your)[A-Z]|^(?:foo|bar|baz)$")


def _placeholder(name: str) -> bool:
    return any(_PLACEHOLDER.match(part) for part in name.split("."))


def _not_here(tree: SourceTree, dotted: str) -> tuple[PromiseStatus, str]:
    """Why a module the example imports is not this repository's: the standard library, another package
    (external: a fact, not noise), or a module of this repository's own package that is gone (missing)."""
    top = dotted.split(".")[0]
    if top in sys.stdlib_module_names:
        return PromiseStatus.EXTERNAL, f"{top} is the standard library"
    own = next((root for root in _roots(tree, top) if _exists(tree, f"{root}{top}")), None)
    if own is None:
        return PromiseStatus.EXTERNAL, f"{top} is not a package of this repository"
    parts = dotted.split(".")
    if _shared(tree, top) and not any(_module(tree, ".".join(parts[:cut]))[0] for cut in range(2, len(parts))):
        return PromiseStatus.UNVERIFIABLE, f"{top} is a namespace package here: {dotted} may come from another one"
    gone = module_removed(dotted, [own], tree)  # what the history did with its file
    said = f": {gone.path} {gone.said}" + (f" (module {gone.module})" if gone.module else "") if gone else ""
    return PromiseStatus.MISSING, f"no module {dotted} in this repository's package {top} ({own}{top}/){said}"


def _shared(tree: SourceTree, top: str) -> bool:
    """Whether ``top`` is a namespace package this repository only adds a subpackage to (``megatron/bridge/``
    beside another distribution's ``megatron/core/``): no ``__init__.py`` and no module of its own."""
    if _module(tree, top)[0] is not None:
        return False
    for root in _roots(tree, top):
        folder = f"{root}{top}"
        try:
            if tree.is_folder(folder):
                return not any("/" not in p[len(folder) + 1 :] and p.endswith(".py") for p in tree.files_under(folder))
        except (NotCarried, UnreadableFile):
            return False
    return False


def _exists(tree: SourceTree, path: str) -> bool:
    try:
        return tree.is_folder(path) or tree.blob_id(f"{path}.py") is not None
    except (NotCarried, UnreadableFile):
        return False


def _module(tree: SourceTree, dotted: str) -> tuple[str | None, str | None]:
    """The module's path and blob at the ref (found from the tree alone, nothing read), or Nones."""
    try:
        found = module_file(tree, dotted, _roots(tree, dotted.split(".")[0]))
    except (NotCarried, UnreadableFile):
        return None, None
    return found if found is not None else (None, None)


def _name(tree: SourceTree, path: str, name: str) -> dict[str, Any]:
    source = tree.read(path)
    assert source is not None
    try:
        found = next((at for names, at in python_index(source).module_bindings() if name in names), None)
    except PythonSyntaxProblem as exc:
        return {"status": "unverifiable", "detail": f"{path} does not parse: {exc}"}
    if found is None and lazily_exported(source.text, name):
        return {"status": "exists", "detail": f"{path} exports {name} {LAZY}"}
    if found is None:
        return {"status": "missing", "detail": f"{path} does not define {name}"}
    return {"status": "exists", "detail": f"{path}:{found}"}


def _not_defined(tree: SourceTree, path: str, name: str, detail: str) -> tuple[PromiseStatus, str]:
    """A name ``path`` does not define: given by one of its star imports (exists), maybe given by a star import
    of another package (unverifiable), else missing, naming where it is defined instead."""
    given = star_given(tree, path, name, lambda top: _roots(tree, top))
    if isinstance(given, Given):
        return PromiseStatus.EXISTS, f"{path} gives {name} through `{given.through}` ({given.where})"
    if given is not None:
        return PromiseStatus.UNVERIFIABLE, f"{path} does not define {name} itself; `{given}` may give it"
    return PromiseStatus.MISSING, detail + _defined_elsewhere(tree, name, path)


MAX_NAMED_ELSEWHERE = 3  # modules a missing name's message names as where it is defined


def _defined_elsewhere(tree: SourceTree, name: str, path: str) -> str:
    """``; it is defined in pkg/other.py`` for a name the module does not define that another file of the tree
    does (a ``class`` or ``def`` of that name, or a top-level assignment of it: a constant; not in a test); ""
    where none does or the tree cannot be searched."""
    found: list[str] = []
    named = re.escape(name)
    defines = re.compile(rf"^\s*(?:class|def|async def) {named}\b|^{named}\s*(?::[^=\n]*)?=(?!=)", re.M)
    for needle in (f"class {name}", f"def {name}", f"{name} =", f"{name}:"):
        for other in sorted(tree.search(needle, ".py") or []):
            if other == path or is_test(other) or other in found:
                continue
            source = tree.read(other)
            if source is not None and defines.search(source.text):
                found.append(other)
    if not found:
        return ""
    more = f" and {len(found) - MAX_NAMED_ELSEWHERE} more" if len(found) > MAX_NAMED_ELSEWHERE else ""
    return f"; it is defined in {', '.join(found[:MAX_NAMED_ELSEWHERE])}{more}"


MAX_REEXPORTS = 4  # re-exports followed from the module an example imports a name from to where it is defined


def _keyword_followed(tree: SourceTree, memo: Memo, path: str, blob: str, name: str, keyword: str) -> dict[str, Any]:
    """:func:`_keyword`, following a name the module only imports from another (a package's ``__init__`` that
    re-exports ``scatter`` from ``.ops``) to where it is defined; each hop remembered by its own file's blob."""
    found: dict[str, Any] = {}
    for _ in range(MAX_REEXPORTS + 1):
        found = memo(f"keyword/3|{blob}|{name}|{keyword}", partial(_keyword, tree, path, name, keyword))
        follow = found.get("follow")
        if not follow:
            return found
        path, name = follow
        blob = tree.blob_id(path) or ""
        if not blob:
            break
    return {"status": "unverifiable", "detail": found.get("detail", f"{name} is not defined where it is imported")}


def _reexport(module: ast.Module, path: str, name: str, tree: SourceTree) -> list[str] | None:
    """[file, its name there] of a name ``module`` (at ``path``) only imports, where that file is in the tree: an
    import at the module's level, also under an ``if`` or ``try`` (``if TORCH_OK: from .ops import scatter``),
    else a star import that gives it."""
    for node in _module_level(module.body):
        if not isinstance(node, ast.ImportFrom):
            continue
        alias = next((a for a in node.names if (a.asname or a.name) == name), None)
        if alias is None:
            continue
        target = imported_file(tree, path, node, lambda top: _roots(tree, top))
        return [target, alias.name] if target else None
    given = star_given(tree, path, name, lambda top: _roots(tree, top))
    return [given.where.split(":")[0], name] if isinstance(given, Given) else None


def _module_level(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements a module runs as it is imported: its body's, and those of its ifs, trys and withs (not of
    its functions or classes)."""
    for stmt in body:
        yield stmt
        if not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for block in ast_blocks(stmt):
                yield from _module_level(block)


def _keyword(tree: SourceTree, path: str, cls: str, keyword: str) -> dict[str, Any]:
    source = tree.read(path)
    assert source is not None
    try:
        module = python_index(source).ast_module  # parsed once per blob, however many keywords are asked of it
    except PythonSyntaxProblem:
        module = None
    if module is None:
        return {"status": "unverifiable", "detail": f"{path} does not parse"}
    fields, complete = _fields(module, cls, set())
    if fields is None:
        follow = _reexport(module, path, cls, tree)
        return {"status": "unverifiable", "detail": f"{cls} is not defined in {path}", "follow": follow}
    if keyword in fields:
        return {"status": "exists", "detail": f"{path}:{fields[keyword]}"}
    if not complete:
        return {
            "status": "unverifiable",
            "detail": f"{cls} inherits from classes outside {path}; {keyword} may come from them",
        }
    function = any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == cls for n in module.body)
    return {"status": "missing", "detail": f"{cls} in {path} has no {'parameter' if function else 'field'} {keyword}"}


def _fields(module: ast.Module, name: str, seen: set[str]) -> tuple[dict[str, int] | None, bool]:
    """Field and parameter names of class or function ``name`` (with lines), and whether that is all of them."""
    node = next((n for n in module.body if isinstance(n, (ast.ClassDef, ast.FunctionDef)) and n.name == name), None)
    if node is None or name in seen:
        return None, False
    seen.add(name)
    if isinstance(node, ast.FunctionDef):
        return _params(node), node.args.kwarg is None
    fields: dict[str, int] = {}
    complete = True
    for item in node.body:
        if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
            fields[item.target.id] = item.lineno
        elif isinstance(item, ast.FunctionDef) and item.name == "__init__":
            fields.update(_params(item))
            complete &= item.args.kwarg is None
    for base in node.bases:
        if isinstance(base, ast.Name):
            inherited, whole = _fields(module, base.id, seen)
            if inherited is None:
                complete = False
            else:
                fields = {**inherited, **fields}
                complete &= whole
        else:
            complete = False
    return fields, complete


def _params(node: ast.FunctionDef) -> dict[str, int]:
    args = node.args
    return {a.arg: a.lineno for a in args.posonlyargs + args.args + args.kwonlyargs if a.arg != "self"}


def resolve_name(
    name: str, call: bool, tree: SourceTree, searched: dict[str, list[str]] | None = None, memo: Memo = no_memo,
    hops: int = 2,
) -> tuple[PromiseStatus, str] | None:
    """A name the prose cites: ``pkg.mod.Name`` (or ``pkg.mod.Class.method``) when ``pkg`` is this repository's
    package, or a bare ``func()``; None when it is not a citation of this repository (``cfg.model.x``, ``print()``).

    A bare call (or a class's name alone) is found by searching the tree for its ``def``/``class``; not found,
    but ``_func`` is: **private**, with the new name; found nowhere: not said (it may be anyone's).
    """
    parts = name.split(".")
    if len(parts) == 1:
        return resolve_bare(parts[0], tree, searched, call, memo)
    ours = any(_exists(tree, f"{root}{parts[0]}") for root in _roots(tree, parts[0]))
    if parts[0] in sys.stdlib_module_names or not ours:
        return None  # another package's name, or an object's attribute chain: not this repository's citation
    if parts[-1].startswith("__") and parts[-1].endswith("__"):
        return None  # __file__, __version__: what every module has
    namespace = _shared(tree, parts[0])
    for cut in range(len(parts), 0, -1):
        path, blob = _module(tree, ".".join(parts[:cut]))
        if path is None or blob is None:
            continue
        rest = parts[cut:]
        if not rest:
            return PromiseStatus.EXISTS, path
        found = _name(tree, path, rest[0])
        if found["status"] != "missing":
            served = lazy_target(tree, path, ".".join(parts[:cut]), rest[0]) if len(rest) > 1 and hops else None
            if served is not None and found["detail"].endswith(LAZY):  # its table names where: on from there
                return resolve_name(".".join([served, *rest[1:]]), call, tree, searched, memo, hops - 1)
            return past_lazy(found, path, rest)
        status, detail = _not_defined(tree, path, rest[0], found["detail"])  # a star import's?
        if status is PromiseStatus.MISSING and _name(tree, path, f"_{rest[0]}")["status"] == "exists":
            return PromiseStatus.PRIVATE, f"{path} has _{rest[0]}: the name became private"
        if status is PromiseStatus.MISSING and len(rest) > 1:  # what follows it says it was to be a module
            return status, f"no module {'.'.join(parts[: cut + 1])}: {detail}"
        return status, detail
    if namespace:
        why = f"{parts[0]} is a namespace package here: {name} may come from another distribution"
        return PromiseStatus.UNVERIFIABLE, why
    return PromiseStatus.MISSING, f"no module of {name} in this repository's package {parts[0]}"
