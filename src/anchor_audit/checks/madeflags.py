"""Flags a program makes from data, read without running it: the modules it imports, and the dataclass fields a
flag factory turns into flags.

A parser that builds options from data (``add_argument(*names, **kwargs)``) hides them from a reading of its
calls. One shape of it is common and readable: a *factory*, a class or function that walks
``dataclasses.fields(cls)`` and writes each field's name as a flag (``"--" + name.replace("_", "-")``), called
as ``Factory(ConfigClass, exclude=[...])``. For each such call among the modules a program's file imports (its
file, the repository's modules it imports, and theirs), the class is found in the repository (re-exports and
bases followed) and each field it declares gives flags:

- ``hidden_size: int = 0`` gives ``--hidden-size``;
- a ``bool`` field that defaults to True, where the factory passes ``prefix="no"`` (or other words), gives
  ``--no-NAME`` for each word, and no ``--NAME``;
- a field whose ``field(...)`` names flags itself (``"arg_names": ["--x"]``) gives those;
- a field with ``init=False``, or one the call's ``exclude`` list names, gives none.

The reading is *complete* when every option call whose names are not written out lies in a factory and every
factory call's class, bases and exclusions were read: only then may a flag found nowhere be called missing.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Any

from ..parse import PythonIndex, PythonSyntaxProblem, python_index
from ..parse.imports import header_imports, imported
from ..source import SourceTree
from ..source.listing import Listing, module_file
from .attrchains import ClassAt, Locate, annotated_name, resolve_class

OPTION_CALLS = {"add_argument", "option", "Option", "argument", "Argument"}
MAX_FOLLOWED = 200  # modules read for a parser that makes its flags from data: the file, its imports, theirs
MAX_IMPORTS = 50  # imports of one module followed
MAX_CLASSES = 64  # dataclasses read for the flags factories make
MAX_BASES = 8  # bases followed for one class's fields
MAX_TEXT = 2 * 1024 * 1024  # characters of a module read


@dataclass(frozen=True)
class MadeFlags:
    """The flags a program makes from data, as far as they were read."""

    flags: dict[str, str]  # flag -> where: "TransformerConfig.hidden_size (FILE:LINE)"
    classes: int  # dataclasses read
    unread: str  # FILE:LINE of the first data-made part not read; "" where the reading is complete


@dataclass(frozen=True)
class _FactoryCall:
    callee: str
    config: str | None  # the class argument, as named in the module (None: not a name)
    excluded: frozenset[str] | None  # None: the exclusions are not written out
    line: int


@dataclass(frozen=True)
class _Factory:
    """A class or function that writes a dataclass's fields as flags."""

    line: int  # of its first data-made option call
    prefixes: tuple[str, ...]  # the words it writes before a True-default bool field's name
    fixed: tuple[str, ...]  # the classes it names itself (``fields(ServeConfig)``), not given by a caller


@dataclass(frozen=True)
class _Shapes:
    """Where one module makes flags from data."""

    factories: dict[str, _Factory]
    loose: tuple[int, ...]  # lines of data-made option calls outside any factory


_NONE = _Shapes({}, ())
# An option call whose first argument is not a plain string: the text of every data-made one matches (and more).
_MAYBE_DATA_MADE = re.compile(r"\b(?:add_argument|option|Option|argument|Argument)\(\s*[^\s'\")]")


def _sites_of(index: PythonIndex) -> _Shapes:
    """The module's factories and other data-made option calls; none read where its text can have none."""
    return index.worked_out(_shapes) if _MAYBE_DATA_MADE.search(index.text) else _NONE


def parsed(tree: SourceTree, path: str) -> PythonIndex | None:
    """The module at ``path``, parsed once per blob (the run's index), however many commands name it; None where
    the stdlib parser cannot read it."""
    source = tree.read(path)
    if source is None or len(source.text) > MAX_TEXT:
        return None
    try:
        index = python_index(source)
    except PythonSyntaxProblem:
        return None
    return index if index.parsed_by_ast else None


def program_module(module: str, tree: SourceTree, listing: Listing) -> str | None:
    """The file ``python -m module`` runs, under the roots where its top package's ``__init__.py`` lies."""
    found = module_file(tree, module, listing.package_roots(module.split(".")[0]), runnable=True)
    return found[0] if found is not None else None


def import_file(path: str, name: str, tree: SourceTree, listing: Listing) -> str | None:
    """The repository's file of a module ``path`` imports: beside it, else under the package's roots."""
    folder = path.rpartition("/")[0]
    beside = f"{folder}/{name.replace('.', '/')}.py" if folder else f"{name.replace('.', '/')}.py"
    return beside if tree.blob_id(beside) is not None else program_module(name, tree, listing)


def made_flags(path: str, tree: SourceTree, listing: Listing) -> MadeFlags | None:
    """The flags the program at ``path`` makes from data, read from its file, the repository's modules it imports
    and those they import; None where it makes none.  Remembered by the commit (a program many skills run, such
    as a training script, is walked once: its walk reads dozens of modules)."""
    key = tree.content_key()
    if key is None or listing.memo is None:
        return _made_flags(path, tree, listing)

    def walk() -> dict[str, Any]:
        made = _made_flags(path, tree, listing)
        return {"made": None if made is None else [made.flags, made.classes, made.unread]}

    said = listing.memo(f"made-flags/2|{key}|{path}", walk)["made"]
    return None if said is None else MadeFlags(dict(said[0]), said[1], said[2])


def _made_flags(path: str, tree: SourceTree, listing: Listing) -> MadeFlags | None:
    texts, whole = _followed(path, tree, listing)
    shapes = {here: _sites_at(here, text, tree) for here, text in texts.items()}
    unread = _loose(shapes, path, whole)
    if not unread and not any(shape.factories for shape in shapes.values()):
        return None
    flags: dict[str, str] = {}
    called: set[tuple[str, str]] = set()  # factories called with a class read
    classes = 0

    script_folder = path.rpartition("/")[0]

    def locate(dotted: str) -> str | None:  # where the program's imports resolve: its packages, its own folder
        roots = [*listing.package_roots(dotted.split(".")[0]), f"{script_folder}/" if script_folder else ""]
        found = module_file(tree, dotted, roots)
        return found[0] if found is not None else None

    def add(config: str, here: str, excluded: frozenset[str], prefixes: tuple[str, ...]) -> bool:
        nonlocal classes
        at = resolve_class(config, here, tree, locate=locate)
        fields = _dataclass_fields(at, tree, locate) if at is not None and classes < MAX_CLASSES else None
        if at is None or fields is None:
            return False
        classes += 1
        for name, field in fields.items():
            if name not in excluded:
                where = f"{at.name}.{name} ({field.path}:{field.line})"
                flags.update({flag: where for flag in field.flags(prefixes) if flag not in flags})
        return True

    known = {name for shape in shapes.values() for name in shape.factories}  # a factory is defined where it is read
    for here, shape in shapes.items():
        index = parsed(tree, here) if any(name in texts[here] for name in known) else None
        calls = index.worked_out(_factory_calls) if index is not None else ()
        for call in (call for call in calls if call.callee in known):
            factory = _factory(call.callee, here, shape, tree, locate)
            if factory is None:
                continue  # not a factory
            if (
                call.config is None
                or call.excluded is None
                or not add(call.config, here, call.excluded, factory[1].prefixes)
            ):
                unread.append(f"{here}:{call.line}")
            else:
                called.add(factory[0])
    for here, shape in shapes.items():
        for name, own in shape.factories.items():
            for fixed in own.fixed:  # fields(ServeConfig) in the factory itself: its filters are not read
                add(fixed, here, frozenset(), own.prefixes)
            if (here, name) not in called or own.fixed:
                unread.append(f"{here}:{own.line}")
    return MadeFlags(flags, classes, unread[0] if unread else "")


def _loose(shapes: dict[str, _Shapes], path: str, whole: bool) -> list[str]:
    """Where the program makes flags outside a factory (``FILE:LINE``), and where it may that was not read: a
    factory may lie in a module past the bounds, so no flag found nowhere is missing."""
    unread = [f"{here}:{line}" for here, shape in shapes.items() for line in shape.loose]
    return unread if whole else [*unread, f"{path}: the modules it imports past the {MAX_FOLLOWED} read"]


def _sites_at(path: str, text: str, tree: SourceTree) -> _Shapes:
    """:func:`_sites_of` the module at ``path``, parsed only where its text can make flags from data."""
    if not _MAYBE_DATA_MADE.search(text):
        return _NONE
    index = parsed(tree, path)
    return _sites_of(index) if index is not None else _NONE


def _followed(path: str, tree: SourceTree, listing: Listing) -> tuple[dict[str, str], bool]:
    """The text of the program's file, of the repository's modules it imports and of theirs (three levels,
    :data:`MAX_FOLLOWED` modules and :data:`MAX_IMPORTS` imports of each at most; each read for its imports
    alone, :func:`~anchor_audit.parse.imports.header_imports`), and whether those bounds left none unread."""
    seen: dict[str, str] = {}
    visited: set[str] = set()
    frontier = [path]
    whole = True
    for _ in range(3):
        following: list[str] = []
        for here in frontier:
            if here in visited:
                continue
            if len(visited) >= MAX_FOLLOWED:
                whole = False
                break
            visited.add(here)
            source = tree.read(here)
            if source is None or len(source.text) > MAX_TEXT:
                continue  # not read, as parsed() reads none
            names = header_imports(source.text)
            if names is None:
                index = parsed(tree, here)
                if index is None:
                    continue
                names = index.worked_out(imported)
            seen[here] = source.text
            whole &= len(names) <= MAX_IMPORTS
            following += [p for p in (import_file(here, name, tree, listing) for name in names[:MAX_IMPORTS])
                          if p is not None]  # fmt: skip
        frontier = following
    return seen, whole


def _factory(
    callee: str, here: str, shape: _Shapes, tree: SourceTree, locate: Locate
) -> tuple[tuple[str, str], _Factory] | None:
    """The factory ``callee`` (seen from ``here``) names, and where it is defined; None: no factory."""
    if callee in shape.factories:
        return (here, callee), shape.factories[callee]
    at = resolve_class(callee, here, tree, locate=locate)
    index = parsed(tree, at.path) if at is not None else None
    if at is None or index is None or at.name not in _sites_of(index).factories:
        return None
    return (at.path, at.name), _sites_of(index).factories[at.name]


@dataclass(frozen=True)
class _Field:
    path: str
    line: int
    true_bool: bool  # a bool that defaults to True
    named: tuple[str, ...]  # the flags its ``field(...)`` names itself
    name: str

    def flags(self, prefixes: tuple[str, ...]) -> list[str]:
        if self.named:
            return list(self.named)
        name = self.name.replace("_", "-")
        if self.true_bool and prefixes:
            return [f"--{p.replace('_', '-')}-{name}" for p in prefixes]
        return [f"--{name}"]


def _dataclass_fields(at: ClassAt, tree: SourceTree, locate: Locate, depth: int = 0) -> dict[str, _Field] | None:
    """The fields of the class ``at``, its bases' first; None where a base is not read."""
    index = parsed(tree, at.path)
    node = next((n for n in index.ast_module.body if isinstance(n, ast.ClassDef) and n.name == at.name), None) \
        if index is not None and index.ast_module is not None else None  # fmt: skip
    if node is None or depth > MAX_BASES:
        return None
    fields: dict[str, _Field] = {}
    for base in node.bases:
        name = annotated_name(base)
        if name in ("object", "Generic", "Protocol", "ABC"):
            continue
        parent = resolve_class(name, at.path, tree, locate=locate) if name else None
        inherited = _dataclass_fields(parent, tree, locate, depth + 1) if parent is not None else None
        if inherited is None:
            return None
        fields |= inherited
    for item in node.body:
        if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name) and item.simple:
            if "ClassVar" in ast.unparse(item.annotation) or _keyword(item.value, "init") is False:
                continue
            true_bool = "bool" in ast.unparse(item.annotation) and _default(item.value) is True
            named = tuple(c.value for c in ast.walk(item.value) if isinstance(c, ast.Constant)
                          and isinstance(c.value, str) and c.value.startswith("--")) if item.value else ()  # fmt: skip
            fields[item.target.id] = _Field(at.path, item.lineno, true_bool, named, item.target.id)
    return fields


def _keyword(value: ast.expr | None, name: str) -> object:
    """A literal keyword of a ``field(...)`` call (``init=False``); None where absent or not a literal."""
    if isinstance(value, ast.Call):
        found = next((k.value for k in value.keywords if k.arg == name), None)
        return found.value if isinstance(found, ast.Constant) else None
    return None


def _default(value: ast.expr | None) -> object:
    if isinstance(value, ast.Constant):
        return value.value
    return _keyword(value, "default")


def _shapes(module: ast.Module) -> _Shapes:
    factories: dict[str, _Factory] = {}
    inside: set[int] = set()
    for node in module.body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            found = _factory_of(node)
            if found is not None:
                factories[node.name], sites = found
                inside |= {id(s) for s in sites}
    made = (n for n in ast.walk(module) if isinstance(n, ast.Call) and data_made(n))
    return _Shapes(factories, tuple(n.lineno for n in made if id(n) not in inside))


def _factory_of(node: ast.stmt) -> tuple[_Factory, list[ast.Call]] | None:
    """The factory a top-level class or function is, and its data-made option calls; None: not one."""
    walked = list(ast.walk(node))
    sites = [n for n in walked if isinstance(n, ast.Call) and data_made(n)]
    read = [n.args[0] for n in walked if isinstance(n, ast.Call) and _calls_fields(n) and n.args]
    if not sites or not read or not any(_hyphenates(n) for n in walked):
        return None
    fixed = sorted({a.id for a in read if isinstance(a, ast.Name) and a.id[:1].isupper()})
    return _Factory(sites[0].lineno, _prefixes(walked), tuple(fixed)), sites


def _factory_calls(module: ast.Module) -> tuple[_FactoryCall, ...]:
    """The calls of a name the module defines or imports with a class as first argument: each a factory's call
    where that name is a factory (said later, from the module that defines it)."""
    walked = list(ast.walk(module))
    names = {getattr(n, "name", "") for n in module.body} | {
        a.asname or a.name for n in module.body if isinstance(n, ast.ImportFrom) for a in n.names}  # fmt: skip
    lists = sorted((n.lineno, n.targets[0].id, _strings(n.value)) for n in walked if isinstance(n, ast.Assign)
                   and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name))  # fmt: skip
    calls = (n for n in walked if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in names)
    return tuple(_factory_call(n, lists) for n in calls if n.args)


def _factory_call(n: ast.Call, lists: list[tuple[int, str, frozenset[str] | None]]) -> _FactoryCall:
    """A call as a factory's: its class argument's name, and the names its ``exclude`` leaves out."""
    assert isinstance(n.func, ast.Name)
    config = annotated_name(n.args[0]) if isinstance(n.args[0], (ast.Name, ast.Attribute)) else None
    excluded: frozenset[str] | None = frozenset()
    given = next((k.value for k in n.keywords if k.arg == "exclude"), None)
    if isinstance(given, ast.Name):  # the list last written to that name before the call
        before = [found for line, name, found in lists if name == given.id and line < n.lineno]
        excluded = before[-1] if before else None
    elif given is not None and not (isinstance(given, ast.Constant) and given.value is None):
        excluded = _strings(given)
    return _FactoryCall(n.func.id, config, excluded, n.lineno)


def _prefixes(walked: list[ast.AST]) -> tuple[str, ...]:
    """The words a factory passes as ``prefix=`` (``"no"`` for ``--no-NAME``)."""
    words = {k.value.value for n in walked if isinstance(n, ast.Call) for k in n.keywords
             if k.arg == "prefix" and isinstance(k.value, ast.Constant) and isinstance(k.value.value, str)}  # fmt: skip
    return tuple(sorted(words))


def _strings(node: ast.expr) -> frozenset[str] | None:
    """The strings of a written-out list, tuple or set; None for anything else."""
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)) and all(
        isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts
    ):
        return frozenset(str(e.value) for e in node.elts if isinstance(e, ast.Constant))
    return None


def data_made(node: ast.AST) -> bool:
    """An option call whose names are not written out (``add_argument(*names)``, a name held in a variable)."""
    if not isinstance(node, ast.Call) or not node.args or isinstance(node.args[0], ast.Constant):
        return False
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    return name in OPTION_CALLS


def _calls_fields(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and (
        (isinstance(node.func, ast.Name) and node.func.id == "fields")
        or (isinstance(node.func, ast.Attribute) and node.func.attr == "fields")
    )


def _hyphenates(node: ast.AST) -> bool:
    """``x.replace("_", "-")``: a field's name written as a flag's."""
    return (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "replace"
        and [a.value for a in node.args if isinstance(a, ast.Constant)] == ["_", "-"]
    )  # fmt: skip
