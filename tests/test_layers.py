"""The architecture as a test: every import anchor-audit makes of itself goes down the layers, and none goes round.

Layers, highest first (ARCHITECTURE.md draws them).  A module may import
from its own layer or any layer below, never above; and no chain of
imports, function-level ones included, comes back to where it started.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from .conftest import ROOT

PACKAGE = ROOT / "src" / "anchor_audit"
LAYERS = [
    {"cli", "__main__"},
    {"commands", "lsp"},
    {"report"},
    {"runs"},
    {"fix"},
    {"audit"},
    {"checks"},
    {"findings"},
    {"spec", "match"},
    {"parse"},
    {"source"},
    {"store"},
    {"model"},
    {"text"},
    {"errors"},
    {""},  # the package itself: __version__
]


def _modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The modules of the package that ``name`` imports, anywhere in it."""
    is_package = path.name == "__init__.py"
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.ImportFrom):
            if isinstance(node, ast.Import):
                found |= {a.name.removeprefix("anchor_audit").lstrip(".") for a in node.names if a.name.startswith("anchor_audit")}
            continue
        if node.level:
            base = name.split(".") if is_package else name.split(".")[:-1]
            base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
            target = ".".join([p for p in base if p] + ([node.module] if node.module else []))
        elif node.module and node.module.startswith("anchor_audit"):
            target = node.module.removeprefix("anchor_audit").lstrip(".")
        else:
            continue
        for alias in node.names:
            child = f"{target}.{alias.name}" if target else alias.name
            found.add(child if child in modules else target)
    return found - {name}


def _layer(name: str) -> int:
    top = name.split(".")[0]
    for i, layer in enumerate(LAYERS):
        if top in layer:
            return i
    raise AssertionError(f"{name}: in no layer; add it to LAYERS (and ARCHITECTURE.md)")


GRAPH = {name: _imports(name, path, _modules()) for name, path in _modules().items()}


@pytest.mark.parametrize("name", sorted(GRAPH))
def test_imports_go_down_the_layers(name: str) -> None:
    upward = sorted(t for t in GRAPH[name] if _layer(t) < _layer(name))
    assert upward == [], f"{name or 'anchor_audit'} imports from a layer above it: {upward}"


def test_no_import_cycles() -> None:
    # Tarjan's strongly connected components over the module graph.
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in GRAPH.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for node in sorted(GRAPH):
        if node not in index:
            visit(node)
    assert cycles == []


def test_no_module_is_over_400_lines() -> None:
    long = {name: n for name, path in _modules().items() if (n := len(path.read_text().splitlines())) > 400}
    assert long == {}


def test_no_function_is_over_60_lines_but_the_argparse_table() -> None:
    import ast

    long = {}
    for name, path in _modules().items():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.end_lineno is not None:
                if (n := node.end_lineno - node.lineno + 1) > 60:
                    long[f"{name}.{node.name}"] = n
    assert set(long) <= {"cli.table.build_parser"}, long


def test_no_capability_is_probed_outside_source() -> None:
    """Trees are known by what the SourceTree protocol says they can do: no isinstance(..., GitTree) and no
    hasattr or getattr probe of a tree's abilities above source/ (argparse namespaces and streams are not trees)."""
    import re

    probes = re.compile(r"isinstance\([^)]*GitTree|hasattr\((?:self\.)?tree|getattr\((?:self\.)?tree")
    found = [name for name, path in _modules().items() if not name.startswith("source") and probes.search(path.read_text())]
    assert found == []


# Forbidden: the judging layers know trees only by the SourceTree protocol, never the git tree behind one.
FORBIDDEN = {"audit": "source.git", "checks.cardanchors": "source.git", "match": "source.git", "checks.promises": "source.git"}


def _reaches(start: str) -> set[str]:
    seen: set[str] = set()
    todo = [m for m in GRAPH if m == start or m.startswith(start + ".")]
    while todo:
        node = todo.pop()
        if node not in seen:
            seen.add(node)
            todo += GRAPH.get(node, ())
    return seen


@pytest.mark.parametrize("module, forbidden", sorted(FORBIDDEN.items()))
def test_the_judging_layers_never_import_the_git_tree(module: str, forbidden: str) -> None:
    assert forbidden not in _reaches(module)


def test_importing_the_audit_loads_neither_gitpython_nor_libcst() -> None:
    import subprocess
    import sys

    code = "import sys, anchor_audit.audit.skills, anchor_audit.checks.cardanchors; print(sorted({'git', 'libcst'} & set(sys.modules)))"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout == "[]\n"


def test_at_most_ten_modules_sit_loose_at_the_top_of_the_package() -> None:
    loose = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(loose) <= 10, loose


def test_no_file_name_is_used_twice() -> None:
    seen: dict[str, list[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        if path.name != "__init__.py":
            seen.setdefault(path.name, []).append(str(path.relative_to(PACKAGE)))
    assert {name: places for name, places in seen.items() if len(places) > 1} == {}


_BRANCHES = (ast.If, ast.IfExp, ast.For, ast.AsyncFor, ast.While, ast.ExceptHandler, ast.Assert, ast.match_case)


def complexity(function: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """McCabe's number of a function's own body (as radon counts it; a nested function is counted on its own):
    one, plus one for each branch, loop, handler, assert, case, comprehension loop and condition, and each
    operand a boolean operator adds."""

    def count(node: ast.AST) -> int:
        n = 0
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                continue
            if isinstance(child, _BRANCHES):
                n += 1
            elif isinstance(child, ast.comprehension):
                n += 1 + len(child.ifs)
            elif isinstance(child, ast.BoolOp):
                n += len(child.values) - 1
            n += count(child)
        return n

    return 1 + count(function)


def test_no_function_is_more_complex_than_25_but_the_argparse_table() -> None:
    branchy = {}
    for name, path in _modules().items():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and (n := complexity(node)) > 25:
                branchy[f"{name}.{node.name}"] = n
    assert set(branchy) <= {"cli.table.build_parser"}, branchy
