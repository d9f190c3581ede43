"""Promises a skill makes besides its quotes: evidence paths, @path references, "N passed".

Each is checked against the same tree as the quotes: a path exists at the
ref or it does not (or the tree cannot say: unverifiable); a pytest file
promised to give ``N passed`` defines a countable number of test items.
"""

from __future__ import annotations

import ast
import re
from dataclasses import replace
from typing import Any

from ..errors import NotCarried, UnreadableFile
from ..model import PromiseKind, PromiseResult, PromiseStatus, Skill
from ..source import SourceTree
from .attrchains import check_chains
from .pathcandidates import with_skill_renamed
from .symbols import Memo, check_symbols, no_memo


def check_promises(
    skill: Skill, tree: SourceTree, evidence_only: bool = False, memo: Memo = no_memo
) -> tuple[PromiseResult, ...]:
    """Every promise of ``skill`` besides its quotes; ``memo`` shares results by blob (see Judge.remember)."""
    skill_md = f"{skill.path.rstrip('/')}/SKILL.md"
    out: list[PromiseResult] = []
    if skill.card is not None:
        card = f"{skill.path.rstrip('/')}/card.yaml"
        lines = skill.card.evidence_lines or (1,) * len(skill.card.evidence)
        out += [
            _exists(PromiseKind.EVIDENCE, p, tree, card, line)
            for p, line in zip(skill.card.evidence, lines, strict=False)
        ]
    if not evidence_only:
        out += [_exists(PromiseKind.REFERENCE, path, tree, skill_md, line) for path, line in skill.references]
    out = _with_moves(out, skill, tree)
    if evidence_only:
        return tuple(out)
    for promise in skill.test_promises:
        out.append(_tests(promise.path, promise.promised, tree, skill_md, promise.line, memo))
    out += check_symbols(skill, tree, memo)
    out += check_chains(skill, tree)
    return tuple(out)


def _with_moves(results: list[PromiseResult], skill: Skill, tree: SourceTree) -> list[PromiseResult]:
    """Each missing path with where the history moved it (asked once for all), or the path it names with the
    skill's own name renamed inside it, as its detail and its heal."""
    gone = tree.removals([r.path for r in results if r.status is PromiseStatus.MISSING])
    out = []
    for r in results:
        removal = gone.get(r.path) if r.status is PromiseStatus.MISSING else None
        if removal is not None and removal.now is not None:
            heal = removal.now if removal.was == r.path else None  # another path with this tail: said, not healed
            r = replace(r, detail=f"moved to {removal.now} in commit {removal.commit[:10]}", heal=heal)
        elif r.status is PromiseStatus.MISSING and (renamed := with_skill_renamed(r.path, skill, tree)):
            r = replace(r, detail=renamed.why, heal=renamed.candidate, renamed=(renamed.written, renamed.code_has))
        elif removal is not None:
            r = replace(r, detail=f"deleted in commit {removal.commit[:10]}")
        out.append(r)
    return out


def _exists(kind: PromiseKind, path: str, tree: SourceTree, file: str, line: int) -> PromiseResult:
    if kind is PromiseKind.EVIDENCE and re.search(r"\s|#|\(|^[A-Z][\w-]* v?\d", path):
        # "PR #3107 (…)", "Megatron-Core v0.16 benchmarks": evidence in words, not a path of the repository
        return PromiseResult(kind, path, PromiseStatus.UNVERIFIABLE, file, line, "free text, not a repository path")
    try:
        found = tree.blob_id(path) is not None or tree.is_folder(path)
    except NotCarried as exc:
        return PromiseResult(kind, path, PromiseStatus.UNVERIFIABLE, file, line, str(exc))
    except UnreadableFile as exc:
        return PromiseResult(kind, path, PromiseStatus.EXISTS, file, line, str(exc))  # there, if not readable
    return PromiseResult(kind, path, PromiseStatus.EXISTS if found else PromiseStatus.MISSING, file, line)





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
        return PromiseResult(PromiseKind.TESTS, path, PromiseStatus.MISSING, file, line, promised=promised)
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
    module = ast.parse(text)
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
