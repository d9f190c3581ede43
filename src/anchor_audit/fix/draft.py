"""Drafting a registry that runs: ``anchor-audit init SKILL_DIR > anchors.yaml && anchor-audit check``.

For each card claim the draft lists the quotes that back it: those its card.yaml comments point at, else (a
``code_verified`` claim) those whose caption (the heading and lead-in above the fence) names it as ``check``
links them (:mod:`anchor_audit.checks.captions`), marked ``# proposed: confirm``.  For each quote of Python code
it drafts a line-free condition from the code at the card's ``validated_on`` commit (or the ref): the ``if`` the
quote holds, with the simple statements of its branches, in the def or class it sits in; or the statements it
``has`` (those the quote writes whole, not a call it shows with ``...``).  Everything from the skill is written
through the YAML serializer.
"""

from __future__ import annotations

import ast
import os
from dataclasses import dataclass
from typing import Any

from ..checks.captions import captioned
from ..checks.cardanchors import card_tail
from ..match.quote import match_quote
from ..model import Exact, LineRange, Moved, Quote, Skill, Tail
from ..parse import parse_ast
from ..source import SourceTree
from ..text.yamltext import quoted_scalar, yaml_key

MAX_STATEMENTS = 4  # statements a drafted condition lists per branch


@dataclass(frozen=True)
class DraftClaim:
    id: str
    tags: tuple[str, ...]
    quotes: tuple[tuple[str, bool], ...]  # (quote key, proposed: to confirm)
    conditions: tuple[dict[str, Any], ...]


def draft_skill(skill: Skill, skill_md: str, tree: SourceTree, code: SourceTree) -> list[DraftClaim]:
    """The claims of ``skill`` with the quotes and conditions the draft proposes (``code``: the tree to draft from)."""
    claims = skill.card.claims if skill.card else ()
    out = []
    for claim in claims:
        linked = [q for q in skill.quotes if any(_covers(q, card_tail(a, None), a.ranges) for a in claim.anchors)]
        by_caption = not linked and not claim.anchors and "code_verified" in claim.tags  # as check links it
        proposed = list(captioned(claim.id, skill.quotes)) if by_caption else []
        quotes = tuple((q.key, False) for q in linked) + tuple((q.key, True) for q in proposed)
        conditions = tuple(c for q in linked + proposed if (c := _condition(q, code)) is not None)
        out.append(DraftClaim(claim.id, claim.tags, quotes, conditions))
    return out


def render_registry(
    repo: str | None,
    ref: str | None,
    skills: list[tuple[Skill, str, list[DraftClaim]]],
    catalog: str | None = None,
    notes: tuple[str, ...] = (),
) -> str:
    """The drafted anchors.yaml: ``skills`` are (skill, its path as the registry names it, its claims); its source
    is ``repo`` at ``ref``, or the ``catalog`` folder whose components name each skill's repository."""
    source = [f"  catalog: {quoted_scalar(catalog)}"] if catalog else [
        f"  repo: {quoted_scalar(repo or '')}",
        f"  ref: {quoted_scalar(ref or '')}",
    ]  # fmt: skip
    lines = [
        "# Drafted by anchor-audit init: confirm every '# proposed' line, then anchor-audit check.",
        *(f"# {_comment(note)}" for note in notes),
        "version: 1",
        "source:",
        *source,
        "skills:",
    ]
    for skill, path, claims in skills:
        lines += [
            f"  {yaml_key(skill.name)}:",
            f"    path: {quoted_scalar(path)}",
            "    claims:" if claims else "    claims: {}",
        ]
        for claim in claims:
            lines.append(f"      {yaml_key(claim.id)}:  # card.yaml: {_comment(', '.join(claim.tags))}")
            if not claim.quotes and not claim.conditions:
                lines[-1] = (
                    f"      {yaml_key(claim.id)}: {{}}  # card.yaml: {_comment(', '.join(claim.tags))}; no quote found"
                )
                continue
            if claim.quotes:
                lines.append("        quotes:")
                lines += [
                    f"          - {quoted_scalar(key)}" + ("  # proposed: confirm" if proposed else "")
                    for key, proposed in claim.quotes
                ]
            if claim.conditions:
                lines.append("        conditions:  # drafted from the code: confirm")
                for condition in claim.conditions:
                    first = True
                    for key, value in condition.items():
                        lead = "          - " if first else "            "
                        first = False
                        if isinstance(value, list):
                            lines.append(f"{lead}{key}: [{', '.join(quoted_scalar(v) for v in value)}]")
                        else:
                            lines.append(f"{lead}{key}: {quoted_scalar(value)}")
    return "\n".join(lines) + "\n"


def relative(path: str) -> str:
    """A skill path as a registry in the working folder names it."""
    return os.path.relpath(path)


def _covers(quote: Quote, tail: Tail, ranges: tuple[LineRange, ...]) -> bool:
    if not tail.matches(quote.path):
        return False
    return any(quote.declared.start <= r.end and r.start <= quote.declared.end for r in ranges)


def _comment(text: str) -> str:
    return "".join(c if c.isprintable() else "?" for c in text)


# ---------------------------------------------------------------- conditions


def _condition(quote: Quote, code: SourceTree) -> dict[str, Any] | None:
    """A line-free condition for the Python code ``quote`` holds, drafted from ``code``; None if none fits."""
    if not quote.path.endswith(".py"):
        return None
    try:
        source = code.read(quote.path)
        if source is None:
            return None
        match = match_quote(quote, source)
        module = parse_ast(source.text)
    except Exception:  # noqa: BLE001 - a draft is a proposal: no condition rather than no draft
        return None
    if not isinstance(match, (Exact, Moved)):
        return None
    span = match.found
    scope, node = _first_if(module, span)
    if node is not None:
        out: dict[str, Any] = {"path": quote.path}
        if scope:
            out["in"] = scope
        out["if"] = ast.unparse(node.test)
        then = _simple(node.body)
        if then:
            out["then"] = then
        orelse = _simple(_else(node))
        if orelse:
            out["else"] = orelse
        return out
    shown = _squeezed("\n".join(quote.body))
    statements = [s for s in _statements_in(module, span)
                  if isinstance(s, (ast.Assign, ast.AnnAssign, ast.Expr)) and not _incidental(s)
                  and _squeezed(ast.get_source_segment(source.text, s) or "") in shown]  # fmt: skip
    if not statements:
        return None
    scope = _scope_of(module, statements[0].lineno)
    out = {"path": quote.path}
    if scope:
        out["in"] = scope
    out["has"] = [ast.unparse(s) for s in statements[:MAX_STATEMENTS]]
    return out


def _simple(body: list[ast.stmt]) -> list[str]:
    """The effects of a branch: what it sets on an object (``cfg.overlap = True``, ``env["X"] = v``), raises or
    asserts; a local name it sets (``allowed = {...}``) is incidental and left out."""
    return [_written(s) for s in body if _effect(s)][:MAX_STATEMENTS]


def _written(statement: ast.stmt) -> str:
    """A statement as a condition wants it: a raise by its exception alone, an assert without its message (what
    it says may be reworded; what it refuses is the behaviour)."""
    if isinstance(statement, ast.Raise) and statement.exc is not None:
        raised = statement.exc.func if isinstance(statement.exc, ast.Call) else statement.exc
        if isinstance(raised, (ast.Name, ast.Attribute)):
            return f"raise {ast.unparse(raised)}"
    if isinstance(statement, ast.Assert):
        return f"assert {ast.unparse(statement.test)}"
    return ast.unparse(statement)


def _effect(statement: ast.stmt) -> bool:
    if isinstance(statement, ast.Raise):
        return statement.exc is not None
    if isinstance(statement, ast.Assert):
        return True
    if isinstance(statement, ast.Assign):
        targets = statement.targets
    elif isinstance(statement, (ast.AnnAssign, ast.AugAssign)):
        targets = [statement.target]
    else:
        return False
    return all(isinstance(t, (ast.Attribute, ast.Subscript)) for t in targets)


def _first_if(module: ast.Module, span: LineRange) -> tuple[str, ast.If | None]:
    """The first ``if`` that starts inside ``span`` and sets something in a branch (a gate with no effect clause
    would hold wherever any ``if`` of that test stands), and the qualname of the def or class around it."""
    gates = sorted((n for n in ast.walk(module) if isinstance(n, ast.If) and span.start <= n.lineno <= span.end
                    and (_simple(n.body) or _simple(_else(n)))), key=lambda n: n.lineno)  # fmt: skip
    return (_scope_of(module, gates[0].lineno), gates[0]) if gates else ("", None)


def _else(node: ast.If) -> list[ast.stmt]:
    """An ``if``'s else branch, but not an ``elif`` (a gate of its own)."""
    return [] if len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If) else node.orelse


def _squeezed(text: str) -> str:
    """Code without its whitespace: a statement the quote writes whole is in the quote's, however it is wrapped;
    one the quote elides part of (``create_groups(tp=..., ...)``) is not, and is not drafted (an argument added
    later would break a claim the quote still holds)."""
    return "".join(text.split())


def _incidental(statement: ast.stmt) -> bool:
    """A constant table set outside any gate (``ALLOWED = {"a", "b"}``): it grows with the code and says nothing
    a claim rests on, so a drafted ``has:`` leaves it out."""
    value = getattr(statement, "value", None)
    return isinstance(statement, (ast.Assign, ast.AnnAssign)) and isinstance(
        value, (ast.Set, ast.List, ast.Dict, ast.Tuple, ast.Constant))  # fmt: skip


def _statements_in(module: ast.Module, span: LineRange) -> list[ast.stmt]:
    return sorted(
        (n for n in ast.walk(module) if isinstance(n, ast.stmt) and span.start <= n.lineno <= span.end),
        key=lambda n: n.lineno,
    )


def _scope_of(module: ast.Module, line: int) -> str:
    """``Class.method`` of the innermost defs around ``line`` ("" at module level)."""
    names: list[str] = []
    body: list[ast.stmt] = module.body
    while True:
        inner = next(
            (
                n
                for n in body
                if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                and n.lineno <= line <= (n.end_lineno or n.lineno)
            ),
            None,
        )
        if inner is None:
            return ".".join(names)
        names.append(inner.name)
        body = inner.body
