"""Test counts (``TESTS``): "N passed" for a pytest file promises that it defines N test items at the ref."""

from __future__ import annotations

import ast
from typing import Any, Iterator, Sequence

from ..errors import NotCarried, UnreadableFile
from ..model import PromiseKind, PromiseResult, PromiseStatus, Reference, ReferenceKind, Skill, SkillSpec, TestPromise
from ..parse import parse_ast
from ..source import SourceTree
from ..store.memo import Memo
from .pathcandidates import removed_said
from .protocol import Checker, Context


def _written(skill: Skill, entry: SkillSpec | None) -> Sequence[TestPromise]:
    return skill.test_promises


def _reads(t: TestPromise, skill: Skill, entry: SkillSpec | None) -> Iterator[Reference]:
    yield Reference(ReferenceKind.TESTS, "SKILL.md", t.line, f"{t.promised} passed", frozenset({t.path}))


def _check(t: TestPromise, ctx: Context) -> list[PromiseResult]:
    return [_tests(t.path, t.promised, ctx.tree, ctx.skill_md, t.line, ctx.memo)]


def _tests(path: str, promised: int, tree: SourceTree, file: str, line: int, memo: Memo) -> PromiseResult:
    try:
        blob = tree.blob_id(path)
    except NotCarried as exc:
        return PromiseResult(
            PromiseKind.TESTS, path, PromiseStatus.UNVERIFIABLE, file, line, str(exc), promised=promised
        )
    except UnreadableFile as exc:
        return PromiseResult(PromiseKind.TESTS, path, PromiseStatus.ERROR, file, line, str(exc), promised=promised)
    if blob is None:
        removal = tree.removals([path]).get(path)
        said = removed_said(removal, path) if removal is not None else ""  # where it went, if the history says
        return PromiseResult(PromiseKind.TESTS, path, PromiseStatus.MISSING, file, line, said, promised=promised)
    counted = memo(f"tests|{blob}", lambda: _count(tree, path))
    if "error" in counted:
        return PromiseResult(
            PromiseKind.TESTS, path, PromiseStatus.ERROR, file, line, counted["error"], promised=promised
        )
    found = counted["found"]
    status = PromiseStatus.HOLDS if found == promised else PromiseStatus.DIFFERS
    return PromiseResult(PromiseKind.TESTS, path, status, file, line, "; ".join(counted["notes"]), promised, found)


def _count(tree: SourceTree, path: str) -> dict[str, Any]:
    try:
        source = tree.read(path)
        assert source is not None
        found, notes = count_tests(source.text)
    except UnreadableFile as exc:
        return {"error": str(exc)}
    except SyntaxError as exc:
        return {"error": f"does not parse: {exc.msg}"}
    return {"found": found, "notes": notes}


def count_tests(text: str) -> tuple[int, list[str]]:
    """Test items a pytest file defines: test functions and methods of Test classes, times the
    cases of each literal ``@pytest.mark.parametrize`` (class-level ones too).  Notes say what
    could not be counted exactly (a parametrize over a computed list counts once)."""
    module = parse_ast(text)
    notes: list[str] = []
    total = 0
    for node in module.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
            total += _cases(node.decorator_list, notes, node.name)
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            factor = _cases(node.decorator_list, notes, node.name)
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name.startswith("test"):
                    total += factor * _cases(item.decorator_list, notes, f"{node.name}.{item.name}")
    return total, notes


def _cases(decorators: list[ast.expr], notes: list[str], name: str) -> int:
    n = 1
    for deco in decorators:
        if not (isinstance(deco, ast.Call) and _dotted(deco.func).endswith("parametrize")):
            continue
        values = (
            deco.args[1] if len(deco.args) > 1 else next((k.value for k in deco.keywords if k.arg == "argvalues"), None)
        )
        if isinstance(values, (ast.List, ast.Tuple, ast.Set)):
            n *= len(values.elts)
        else:
            notes.append(f"{name}: parametrize over a computed list, counted once")
    return n


def _dotted(node: ast.expr) -> str:
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    return node.id if isinstance(node, ast.Name) else ""


TESTS: Checker[TestPromise, list[PromiseResult]] = Checker(
    ReferenceKind.TESTS, _written, _reads, _check, PromiseKind.TESTS
)
