"""Symbols a skill's Python examples use: imported names, and keywords of the classes they call.

``from megatron.bridge.training.comm_overlap import CommOverlapConfig`` promises
that the module defines (or re-exports) the name at the ref;
``CommOverlapConfig(tp_comm_overlap=True)`` promises the class has that field.
What cannot be resolved in the repository (third-party modules, attribute
chains on objects of unknown type) is reported as unverifiable, not broken.
"""

from __future__ import annotations

import ast

from .errors import NotCarried, UnreadableFile
from .match.pysource import PythonSyntaxProblem, SourceFile
from .model import PromiseResult, Skill
from .source import SourceTree

_ROOTS = ("src/", "")


def check_symbols(skill: Skill, tree: SourceTree) -> list[PromiseResult]:
    skill_md = f"{skill.path.rstrip('/')}/SKILL.md"
    out: list[PromiseResult] = []
    for code, first_line in skill.examples:
        try:
            module = ast.parse(code)
        except SyntaxError:
            continue  # an illustration, not a program
        imported: dict[str, tuple[str, SourceFile | None]] = {}
        for node in ast.walk(module):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                source, where = _module(tree, node.module)
                for alias in node.names:
                    line = first_line + node.lineno - 1
                    subject = f"{node.module}:{alias.name}"
                    imported[alias.asname or alias.name] = (alias.name, source)
                    out.append(_name(subject, alias.name, source, where, skill_md, line))
        for node in ast.walk(module):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    chain = _chain(target)
                    if chain and chain.split(".")[0] not in imported:
                        why = f"the type of {chain.split('.')[0]} is not known from the example"
                        out.append(
                            PromiseResult("symbol", chain, "unverifiable", skill_md, first_line + node.lineno - 1, why)
                        )
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in imported:
                name, source = imported[node.func.id]
                for keyword in node.keywords:
                    if keyword.arg is None:
                        continue
                    line = first_line + keyword.value.lineno - 1
                    out.append(_keyword(name, keyword.arg, source, skill_md, line))
    return out


def _chain(node: ast.expr) -> str | None:
    """``cfg.ddp.overlap_grad_reduce`` for an attribute chain on a name; None otherwise."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not parts or not isinstance(node, ast.Name):
        return None
    return ".".join([node.id, *reversed(parts)])


def _module(tree: SourceTree, dotted: str) -> tuple[SourceFile | None, str]:
    """The module's file at the ref, or None and why it could not be found."""
    path = dotted.replace(".", "/")
    for root in _ROOTS:
        for candidate in (f"{root}{path}.py", f"{root}{path}/__init__.py"):
            try:
                source = tree.read(candidate)
            except (NotCarried, UnreadableFile):
                continue
            if source is not None:
                return source, candidate
    return None, f"{dotted} is not a module of this repository"


def _name(subject: str, name: str, source: SourceFile | None, where: str, file: str, line: int) -> PromiseResult:
    if source is None:
        return PromiseResult("symbol", subject, "unverifiable", file, line, where)
    try:
        bindings = source.python().module_bindings()
        found = next((at for names, at in bindings if name in names), None)
    except PythonSyntaxProblem as exc:
        return PromiseResult("symbol", subject, "unverifiable", file, line, f"{where} does not parse: {exc}")
    if found is None:
        return PromiseResult("symbol", subject, "missing", file, line, f"{where} does not define {name}")
    return PromiseResult("symbol", subject, "exists", file, line, f"{where}:{found}")


def _keyword(cls: str, keyword: str, source: SourceFile | None, file: str, line: int) -> PromiseResult:
    subject = f"{cls}({keyword}=)"
    if source is None:
        return PromiseResult("symbol", subject, "unverifiable", file, line, f"{cls} is not in this repository")
    try:
        tree = ast.parse(source.text)
    except SyntaxError:
        return PromiseResult("symbol", subject, "unverifiable", file, line, f"{source.path} does not parse")
    fields, complete = _fields(tree, cls, set())
    if fields is None:
        return PromiseResult("symbol", subject, "unverifiable", file, line, f"{cls} is not defined in {source.path}")
    if keyword in fields:
        return PromiseResult("symbol", subject, "exists", file, line, f"{source.path}:{fields[keyword]}")
    if not complete:
        why = f"{cls} inherits from classes outside {source.path}; {keyword} may come from them"
        return PromiseResult("symbol", subject, "unverifiable", file, line, why)
    return PromiseResult("symbol", subject, "missing", file, line, f"{cls} in {source.path} has no field {keyword}")


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
