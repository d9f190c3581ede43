"""anchors.yaml -> :class:`~anchor_audit.model.Spec`.

Validation runs in two passes: the shipped JSON Schema (shape and types,
with key paths), then what a schema cannot say (a condition has exactly one
shape; its expressions and statements parse; paths stay in the repository).
Every problem is a :class:`SpecError` of one line, ``anchors.yaml:LINE:
key.path: what is wrong``.  An unknown key is an error too (a misspelt key
would silently drop what it holds).
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

from ..errors import SpecError
from ..model import ClaimSpec, Condition, ReleaseSpec, SkillSpec, SourceSpec, Spec
from ..text.fsutil import read_input
from .repopath import normalize, repo_path_problem
from .schema import validate
from .yamldoc import KeyPath, YamlDoc, format_path, load_yaml

MAX_SPEC_BYTES = 5 * 1024 * 1024


def load_spec(path: Path) -> Spec:
    """Read and validate anchors.yaml at ``path``."""
    if not path.exists() and not path.is_symlink():
        raise SpecError(f"{path}: no such file (give the registry with --spec)")
    raw = read_input(path, MAX_SPEC_BYTES, "a registry")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SpecError(f"{path}: not UTF-8 (byte {exc.start})") from None
    return parse_spec(text, path)


def parse_spec(text: str, path: Path) -> Spec:
    """Validate registry ``text``; ``path`` names it in messages and anchors relative skill paths."""
    doc = load_yaml(text, str(path))
    if doc.data is None:
        raise SpecError(f"{path}:1: the registry is empty")
    warnings: list[str] = []
    for violation in validate(doc.data):
        message = f"{doc.where(violation.path)}: {violation.message}"
        if violation.warning:
            warnings.append(message)
        else:
            raise SpecError(message)
    data = doc.data
    source = data["source"]
    _check_source(doc, source)
    release = None
    if "release" in source:
        paths = source["release"].get("paths", {})
        release = ReleaseSpec(source["release"]["dist"], tuple(sorted(paths.items())))
    prefixes = tuple(sorted((data.get("card_prefixes") or {}).items()))
    skills = []
    for name, entry in data["skills"].items():
        where: KeyPath = ("skills", name)
        entry = entry or {}
        skill_path = Path(entry["path"]) if "path" in entry else None
        if skill_path is not None and not skill_path.is_absolute():
            skill_path = path.parent / skill_path
        claims = []
        for claim_id, claim in (entry.get("claims") or {}).items():
            claims.append(_claim(doc, where + ("claims", claim_id), claim_id, claim or {}))
        skills.append(SkillSpec(name, skill_path, tuple(claims), prefixes))
    catalog = path.parent / source["catalog"] if "catalog" in source else None
    spec_source = SourceSpec(source.get("repo", ""), source.get("ref", ""), release, catalog)
    return Spec(path, spec_source, tuple(skills), tuple(warnings))


def _check_source(doc: YamlDoc, source: dict[str, Any]) -> None:
    """``repo`` and ``ref``, or ``catalog`` alone: what a schema of required keys cannot say in one line."""
    if "catalog" in source:
        both = [key for key in ("repo", "ref", "release") if key in source]
        if both:
            raise SpecError(f"{doc.where(('source', both[0]))}: a catalog source names no {both[0]} (each "
                            "component of the catalog names its own repository and ref)")  # fmt: skip
        return
    for key in ("repo", "ref"):
        if key not in source:
            raise SpecError(f"{doc.where(('source',))}: missing required key '{key}' (or give catalog: DIR)")


def _claim(doc: YamlDoc, where: KeyPath, claim_id: str, data: dict[str, Any]) -> ClaimSpec:
    quotes = []
    for i, key in enumerate(data.get("quotes", [])):
        qpath, _, rng = key.rpartition(":")
        _check_path(doc, where + ("quotes", i), qpath)
        start, end = (int(x) for x in rng.split("-"))
        if not 1 <= start <= end:
            raise SpecError(
                f"{doc.where(where + ('quotes', i))}: range {rng}: START must be at least 1 and at most END"
            )
        quotes.append(f"{normalize(qpath)}:{start}-{end}")
    conditions = [_condition(doc, where + ("conditions", i), c) for i, c in enumerate(data.get("conditions", []))]
    return ClaimSpec(claim_id, tuple(quotes), tuple(conditions))


_GATE_ONLY = ("elif", "inside", "then", "else", "each")


def _condition(doc: YamlDoc, where: KeyPath, data: dict[str, Any]) -> Condition:
    shapes = [k for k in ("if", "has", "defines") if k in data]
    if len(shapes) != 1:
        found = " and ".join(shapes) if shapes else "none of them"
        raise SpecError(f"{doc.where(where)}: a condition needs exactly one of if, has, defines (found {found})")
    if "if" not in data:
        for key in _GATE_ONLY:
            if key in data:
                raise SpecError(f"{doc.where(where + (key,))}: '{key}' only goes with 'if'")
    if "defines" in data and "in" in data:
        raise SpecError(f"{doc.where(where + ('in',))}: 'defines' is about module level; drop 'in'")
    _check_path(doc, where + ("path",), data["path"])
    for key in ("if",):
        if key in data:
            _expression(doc, where + (key,), data[key])
    for key in ("elif", "inside"):
        for i, text in enumerate(data.get(key, [])):
            _expression(doc, where + (key, i), text)
    for key in ("then", "else", "each", "has"):
        for i, text in enumerate(data.get(key, [])):
            problem = statement_problem(text)
            if problem:
                raise SpecError(f"{doc.where(where + (key, i))}: {problem}")
    if "has" in data and not data["has"]:
        raise SpecError(f"{doc.where(where + ('has',))}: list at least one statement")
    return Condition(
        path=normalize(data["path"]),
        where=format_path(where),
        scope=data.get("in"),
        if_test=data.get("if"),
        elif_tests=tuple(data["elif"]) if "elif" in data else None,
        inside=tuple(data.get("inside", ())),
        then=tuple(data.get("then", ())),
        orelse=tuple(data.get("else", ())),
        each=tuple(data.get("each", ())),
        has=tuple(data.get("has", ())),
        defines=data.get("defines"),
    )


def _expression(doc: YamlDoc, where: KeyPath, text: str) -> None:
    problem = expression_problem(text)
    if problem:
        raise SpecError(f"{doc.where(where)}: {problem}")


# Syntax is checked at load time with the stdlib parser, which is cheap to import;
# libcst parses these again, for comparison, only when a condition is checked.


def expression_problem(text: str) -> str | None:
    """Why ``text`` is not one Python expression, or None."""
    try:
        ast.parse(text.strip(), mode="eval")
    except SyntaxError as exc:
        return f"not a Python expression: {text!r} ({exc.msg})"
    return None


def statement_problem(text: str) -> str | None:
    """Why ``text`` is not one simple statement (``target = value``, value may be ``...``), or None."""
    try:
        body = ast.parse(text.strip()).body
    except SyntaxError as exc:
        return f"not a Python statement: {text!r} ({exc.msg})"
    if len(body) != 1 or isinstance(body[0], _COMPOUND):
        return f"expected one simple statement such as 'target = value', got {text!r}"
    return None


_COMPOUND = (ast.If, ast.For, ast.While, ast.With, ast.Try, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _check_path(doc: YamlDoc, where: KeyPath, path: str) -> None:
    problem = repo_path_problem(path)
    if problem:
        raise SpecError(f"{doc.where(where)}: {problem}")
