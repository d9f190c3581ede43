"""Config attribute chains of a skill's Python examples (``cfg.model.tensor_model_parallel_size = 2``), checked
through the classes the repository defines.

A variable's type is known where the example builds it: ``cfg = Config(...)`` with ``Config`` imported from
the repository, or ``cfg = make_config()`` whose return annotation names a class. Each attribute is then
looked up among that class's fields (annotated class attributes, ``self.x`` assignments, properties and
methods, its bases' too, followed across modules) and the field's annotation (``Optional[X]``, ``X | None``,
``"X"``) types the next step. A chain on a variable whose type the examples do not give is one note per
variable, not one per line; a step whose class inherits from outside the repository is unverifiable.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Callable

from ..errors import BoundExceeded, NotCarried, UnreadableFile
from ..model import PromiseKind, PromiseResult, PromiseStatus, Skill
from ..parse import PythonSyntaxProblem, parse_ast, python_index
from ..source import SourceTree
from .symbols import Imported, imported_names, module_path

MAX_HOPS = 8  # re-exports and bases followed for one name


@dataclass(frozen=True)
class ClassAt:
    """A class of the repository: the file it is defined in, and its name there."""

    path: str
    name: str


@dataclass(frozen=True)
class Field:
    line: int
    annotation: ast.expr | None
    path: str  # the file of the class defining it


def check_chains(skill: Skill, tree: SourceTree) -> list[PromiseResult]:
    """A result for every attribute chain an example assigns to on a variable of known type, and one note per
    variable whose type no example gives."""
    skill_md = f"{skill.path.rstrip('/')}/SKILL.md"
    out: list[PromiseResult] = []
    unknown: dict[str, tuple[int, int]] = {}  # variable -> (first line, chains)
    for code, first_line, _ in skill.examples:
        try:
            module = parse_ast(code)
        except (SyntaxError, BoundExceeded):
            continue
        imported = imported_names(module, tree)
        types: dict[str, ClassAt] = {}
        for node in ast.walk(module):
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
                typed = _called(node.value.func, imported, tree)
                for target in (t for t in node.targets if isinstance(t, ast.Name)):
                    if typed is not None:
                        types[target.id] = typed
        for node in ast.walk(module):
            if not isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                continue
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for chain in filter(None, (_chain(t) for t in targets)):
                root, *attrs = chain
                line = first_line + node.lineno - 1
                if root in types:
                    status, detail = _follow(types[root], attrs, tree)
                    out.append(PromiseResult(PromiseKind.SYMBOL, ".".join(chain), status, skill_md, line, detail))
                elif root not in imported:
                    seen = unknown.get(root, (line, 0))
                    unknown[root] = (seen[0], seen[1] + 1)
    for root, (line, count) in unknown.items():
        why = f"the type of {root} is not known from the examples: {count} attribute chain{'s' if count != 1 else ''}"
        out.append(PromiseResult(PromiseKind.SYMBOL, f"{root}.*", PromiseStatus.UNVERIFIABLE, skill_md, line, why))
    return sorted(out, key=lambda r: r.line)


def _chain(node: ast.expr) -> list[str] | None:
    """``cfg.model.x`` -> ["cfg", "model", "x"]; None for anything but a name's attribute chain."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    return [node.id, *reversed(parts)] if parts and isinstance(node, ast.Name) else None


def _called(func: ast.expr, imported: Imported, tree: SourceTree) -> ClassAt | None:
    """The class a call builds: an imported class, or what an imported function's return annotation names."""
    if not isinstance(func, ast.Name) or func.id not in imported:
        return None
    name, path, _ = imported[func.id]
    return resolve_class(name, path, tree, returns=True) if path else None


def _follow(start: ClassAt, attrs: list[str], tree: SourceTree) -> tuple[PromiseStatus, str]:
    at = start
    for i, attr in enumerate(attrs):
        fields, complete = _fields(at, tree, set())
        if attr not in fields:
            if not complete:
                why = f"{at.name} inherits from outside the repository; {attr} may be there"
                return PromiseStatus.UNVERIFIABLE, why
            return PromiseStatus.MISSING, f"{at.name} ({at.path}) has no field {attr}"
        field = fields[attr]
        if i == len(attrs) - 1:
            return PromiseStatus.EXISTS, f"{field.path}:{field.line}"
        typed = annotated_name(field.annotation)
        following = resolve_class(typed, field.path, tree) if typed else None
        if following is None:
            rest = ".".join(attrs[i + 1 :])
            why = f"the type of {at.name}.{attr} is not a class of the repository: {rest} not checked"
            return PromiseStatus.UNVERIFIABLE, why
        at = following
    return PromiseStatus.EXISTS, at.path


def annotated_name(node: ast.expr | None) -> str | None:
    """The class an annotation names: ``X``, ``mod.X``, ``Optional[X]``, ``X | None``, ``"X"``."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:
            return annotated_name(ast.parse(node.value, mode="eval").body)
        except SyntaxError:
            return None
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Subscript) and annotated_name(node.value) == "Optional":
        return annotated_name(node.slice)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        sides = [s for s in (node.left, node.right) if not (isinstance(s, ast.Constant) and s.value is None)]
        return annotated_name(sides[0]) if len(sides) == 1 else None
    return None


def _parsed(tree: SourceTree, path: str) -> ast.Module | None:
    try:
        source = tree.read(path)
        return python_index(source).ast_module if source is not None else None
    except (NotCarried, UnreadableFile, PythonSyntaxProblem):
        return None


Locate = Callable[[str], "str | None"]  # a dotted module -> its file in the tree


def resolve_class(
    name: str, path: str, tree: SourceTree, returns: bool = False, locate: Locate | None = None
) -> ClassAt | None:
    """Where the class ``name`` seen from module ``path`` is defined: there, or through its imports (re-exports
    followed); ``returns``: a function there stands for the class its return annotation names; ``locate`` finds
    an absolute import's file (the usual package roots by default)."""
    for _ in range(MAX_HOPS):
        module = _parsed(tree, path)
        if module is None:
            return None
        defined = next((n for n in module.body if getattr(n, "name", None) == name), None)
        if isinstance(defined, ast.ClassDef):
            return ClassAt(path, name)
        if isinstance(defined, (ast.FunctionDef, ast.AsyncFunctionDef)) and returns:
            typed = annotated_name(defined.returns)
            return resolve_class(typed, path, tree, locate=locate) if typed else None
        source = _imported_from(module, name, path, tree, locate)
        if source is None or source[1] is None:
            return None
        name, path = source[0], source[1]
    return None


def _imported_from(
    module: ast.Module, name: str, path: str, tree: SourceTree, locate: Locate | None = None
) -> tuple[str, str | None] | None:
    """(its name there, that module's file) for the import that binds ``name`` in the module at ``path``."""
    for node in ast.walk(module):
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if (alias.asname or alias.name) == name:
                    return alias.name, _import_path(node, path, tree, locate)
    return None


def _import_path(node: ast.ImportFrom, path: str, tree: SourceTree, locate: Locate | None = None) -> str | None:
    """The file an import names: an absolute module under the package's roots, a relative one beside ``path``."""
    if not node.level:
        return locate(node.module or "") if locate is not None else module_path(tree, node.module or "")
    folder = path.split("/")[:-1]
    folder = folder[: len(folder) - (node.level - 1)] if node.level > 1 else folder
    rel = "/".join([*folder, *(node.module.split(".") if node.module else [])])
    for candidate in (f"{rel}.py", f"{rel}/__init__.py"):
        try:
            if tree.blob_id(candidate) is not None:
                return candidate
        except (NotCarried, UnreadableFile):
            return None
    return None


def class_fields(tree: SourceTree, path: str, name: str, locate: Locate | None = None) -> dict[str, Field]:
    """The attributes of the class ``name`` that ``path`` defines, its bases' too wherever they are defined
    (``locate``: where an absolute import's module lies, as in :func:`resolve_class`)."""
    return _fields(ClassAt(path, name), tree, set(), locate)[0]


def _fields(
    at: ClassAt, tree: SourceTree, seen: set[ClassAt], locate: Locate | None = None
) -> tuple[dict[str, Field], bool]:
    """The attributes of class ``at`` (its bases' too) and whether that is all of them."""
    module = _parsed(tree, at.path)
    node = next((n for n in module.body if isinstance(n, ast.ClassDef) and n.name == at.name), None) if module else None
    if node is None or at in seen or len(seen) > MAX_HOPS:
        return {}, False
    seen.add(at)
    fields: dict[str, Field] = {}
    complete = True
    for base in node.bases:
        name = annotated_name(base)
        if name in (None, "object", "Generic", "Protocol", "ABC"):
            complete &= name is not None
            continue
        assert name is not None
        parent = resolve_class(name, at.path, tree, locate=locate)
        inherited, whole = _fields(parent, tree, seen, locate) if parent is not None else ({}, False)
        fields |= inherited
        complete &= whole
    _add_own_fields(node, at.path, fields)
    return fields, complete


def _add_own_fields(node: ast.ClassDef, path: str, fields: dict[str, Field]) -> None:
    """Into ``fields`` (its bases'), the attributes a class's body defines: annotated and assigned names and methods
    (over a base's), and ``self.x`` its methods set (where no base or name of its own has it)."""
    for item in node.body:
        if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
            fields[item.target.id] = Field(item.lineno, item.annotation, path)
        elif isinstance(item, ast.Assign):
            fields |= {t.id: Field(item.lineno, None, path) for t in item.targets if isinstance(t, ast.Name)}
        elif isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
            fields[item.name] = Field(item.lineno, item.returns, path)
            for sub in ast.walk(item):  # self.x = ... in a method
                if isinstance(sub, (ast.Assign, ast.AnnAssign)):
                    for t in sub.targets if isinstance(sub, ast.Assign) else [sub.target]:
                        if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
                            fields.setdefault(t.attr, Field(sub.lineno, getattr(sub, "annotation", None), path))


def member_of(tree: SourceTree, path: str, name: str, member: str) -> tuple[PromiseStatus, str] | None:
    """Whether class ``name``, as module ``path`` binds it (re-exports followed), has ``member``: a field, method
    or class attribute of its own or of a base the repository defines, a class nested in it, a ``self.x`` its
    methods set; unverifiable where a base is another package's; None where ``name`` is no class of ``path``."""
    at = resolve_class(name, path, tree)
    if at is None:
        return None
    module = _parsed(tree, at.path)
    node = next((n for n in module.body if isinstance(n, ast.ClassDef) and n.name == at.name), None) if module else None
    if node is None:
        return None
    fields, complete = _fields(at, tree, set())
    fields |= {n.name: Field(n.lineno, None, at.path) for n in node.body if isinstance(n, ast.ClassDef)}
    where = f"class {at.name} ({at.path}:{node.lineno})"
    if member in fields:
        return PromiseStatus.EXISTS, f"{fields[member].path}:{fields[member].line}"
    if not complete or any(isinstance(n, ast.FunctionDef) and n.name == "__getattr__" for n in node.body):
        why = f"{where} inherits from classes outside the repository: {member} may be theirs"
        return PromiseStatus.UNVERIFIABLE, why
    return PromiseStatus.MISSING, f"{where} has no {member}"
