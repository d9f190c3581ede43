"""A claim nothing else links, decided by the SKILL.md example its caption names: what the example sets and calls.

``### Partial replay`` above ``cfg.model.replay_mode = "partial"``: where no quote's caption, validation, file,
definition or quoted code links a ``code_verified`` claim, the plain Python examples whose caption names it best
(the rule of :mod:`.captions`) are its evidence; where no fence's caption names it, the settings its sentences write
as code (`` `replay_mode = "partial"` `` under ``### Partial replay``, a name alone a setting there). Their facts,
read on the card's validation day:

* each setting an example assigns (the last name of ``cfg.model.replay_mode``: what ``cfg`` is, an example does not
  say) is a field that a class of the card's evidence files defines (at the ref, where it left them, one of the
  first :data:`MAX_READ` other Python files that name it, config modules first);
* each word it gives one (``"partial"``; three letters or more, not ``"none"``) is one a gate of those files
  compares that setting with (``if self.replay_mode not in ("whole", "partial")``);
* each function it imports from the repository and calls is there, with a parameter for each keyword it passes,
  and each word it passes is one a gate of the evidence files or the function's module compares the keyword with.

A fact not there on the validation day is no evidence; where none is there that day but some are at the ref, the
card was validated before its code landed (unverifiable, naming the commit). At the ref each fact of the day is
looked for again: there, it holds; a setting or a function named by no Python file any more, a keyword the
function no longer takes, a module gone from the repository's package: broken; a setting no class read defines
while files still name it, a word no gate compares the setting with any more: unverifiable (re-verify).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Callable, Iterator

from ..errors import BoundExceeded
from ..model import Evidence, EvidenceKind, Example, PromiseStatus
from ..parse import parse_ast
from ..source import SourceTree
from ..source.listing import is_test
from .captions import captioned
from .evidencefiles import evidence_files
from .gates import compared_values, definitions_in, gates_in
from .protocol import Context
from .symbols import import_status, keyword_status, module_path

MAX_READ = 6  # files that name a setting, beyond the evidence files, read for the class that defines it
_OFF = frozenset({"none", "null", "off", "false", "true"})



@dataclass(frozen=True)
class Found:
    """What became of a fact in one tree: its status, what says so, and the file it is in (where it is)."""

    status: PromiseStatus
    detail: str
    path: str = ""


@dataclass
class Tree:
    """A tree the facts are looked for in and, at the ref, the Python files that name each setting the examples
    set: one search for all of them, made the first time a setting is not found in the evidence files (on the
    validation day none is made: a setting's class is looked for in the evidence files only)."""

    tree: SourceTree
    ctx: Context
    settings: list[str]
    at_ref: bool
    named: dict[str, list[str]] | None = None
    searched: bool = False

    @staticmethod
    def of(tree: SourceTree, ctx: Context, facts: list[Fact], at_ref: bool) -> Tree:
        return Tree(tree, ctx, sorted({f.setting for f in facts if f.setting}), at_ref)

    def naming(self, name: str) -> list[str] | None:
        """The files that name ``name`` (None: this tree cannot be searched)."""
        if not self.at_ref:
            return []
        if not self.searched:
            self.named, self.searched = self.tree.search_many(self.settings, ".py"), True
        return None if self.named is None else self.named.get(name, [])


Look = Callable[[Tree], Found]


@dataclass(frozen=True)
class Fact:
    """One thing an example says of the code, and how to look for it in a tree."""

    ref: str  # ``replay_mode``, ``replay_mode = "partial"``, ``pkg.routing:pick_router``, ``pick_router(backend=)``
    look: Look
    setting: str = ""  # the setting it is about, where it is one the example sets


def example_evidence(claim_id: str, ctx: Context) -> list[Evidence]:
    """The claim's evidence from the examples its caption names (none where no caption names it, the examples say
    nothing of the code, or the card has no validation day)."""
    then = ctx.validated()
    fenced = captioned(claim_id, ctx.skill.examples) if then is not None else ()
    spoken = captioned(claim_id, ctx.skill.prose_settings) if then is not None and not fenced else ()
    facts = [fact for example in fenced for fact in facts_of(example)]
    facts += [fact for example in spoken for fact in facts_of(example, bare=True)]
    if then is None or not facts:
        return []
    day = f"the validation day ({(then.info.commit or '')[:10]})"
    on_day, now = Tree.of(then, ctx, facts, False), Tree.of(ctx.tree, ctx, facts, True)
    held = [(fact, found) for fact in facts for found in [fact.look(on_day)] if found.status is PromiseStatus.EXISTS]
    if held:
        return [_at_ref(fact, found.detail, now, day) for fact, found in held]
    return _landed(facts, now, then, day)


def facts_of(example: Example, bare: bool = False) -> list[Fact]:
    """What an example says of the code: the settings it assigns and the words it gives them, the functions it
    imports and calls with their keywords and words (an example that does not parse says nothing).  ``bare``: a
    setting written in prose, whose name alone is a setting too (in a fence, ``x = ...`` is a local variable)."""
    try:
        module = parse_ast(example.code)
    except (SyntaxError, ValueError, RecursionError, BoundExceeded):
        return []
    imported = {alias.asname or alias.name: (node.module, alias.name) for node in ast.walk(module)
                if isinstance(node, ast.ImportFrom) and node.module and node.level == 0
                for alias in node.names}  # fmt: skip
    facts: dict[str, Fact] = {}
    for node in ast.walk(module):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and _setting(node.targets[0], bare):
            name = _setting(node.targets[0], bare)
            assert name is not None
            facts.setdefault(name, Fact(name, _field(name), name))
            word = _word(node.value)
            if word is not None:
                ref = f'{name} = "{word}"'
                facts.setdefault(ref, Fact(ref, _compared(name, word, None), name))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in imported:
            dotted, name = imported[node.func.id]
            ref = f"{dotted}:{name}"
            facts.setdefault(ref, Fact(ref, _imported(dotted, name)))
            for arg, value in ((k.arg, k.value) for k in node.keywords if k.arg is not None):
                facts.setdefault(f"{name}({arg}=)", Fact(f"{name}({arg}=)", _imported(dotted, name, arg)))
                word = _word(value)
                if word is not None:
                    ref = f'{name}({arg}="{word}")'
                    facts.setdefault(ref, Fact(ref, _compared(arg, word, dotted)))
    return list(facts.values())


def _setting(target: ast.expr, bare: bool) -> str | None:
    """The setting an assignment sets: the last name of an attribute chain on a name (``cfg.model.x``), or where
    ``bare``, a name alone."""
    if bare and isinstance(target, ast.Name):
        return target.id
    node = target
    while isinstance(node, ast.Attribute):
        node = node.value
    return target.attr if isinstance(target, ast.Attribute) and isinstance(node, ast.Name) else None


def _word(value: ast.expr) -> str | None:
    """A word an example gives: a string of three letters or more that is not a way of saying off."""
    if isinstance(value, ast.Constant) and isinstance(value.value, str):
        word = value.value
        return word if len(word) >= 3 and word.lower() not in _OFF else None
    return None


def _imported(dotted: str, name: str, keyword: str | None = None) -> Look:
    """Whether module ``dotted`` gives ``name`` (and it takes ``keyword``)."""

    def look(at: Tree) -> Found:
        if keyword is None:
            status, detail = import_status(at.tree, at.ctx.memo, dotted, name)
        else:
            status, detail = keyword_status(at.tree, at.ctx.memo, dotted, name, keyword)
        return Found(status, detail, module_path(at.tree, dotted) or "")

    return look


def _field(name: str) -> Look:
    def look(at: Tree) -> Found:
        for path in _defining_files(at, name):
            defined = definitions_in(at.tree, path, at.ctx)
            owner = next((d for d in defined if "." in d and d.rsplit(".", 1)[1] == name), None)
            if owner is not None:
                return Found(PromiseStatus.EXISTS, f"{owner} ({path})", path)
        found = at.naming(name)
        if not at.at_ref:
            return Found(PromiseStatus.UNVERIFIABLE, "no class of the card's evidence files defines it")
        if found is None:
            return Found(PromiseStatus.UNVERIFIABLE, "this tree cannot be searched")
        if not found:
            return Found(PromiseStatus.MISSING, "named by no Python file")
        files = f"{len(found)} Python file{'s' if len(found) != 1 else ''}"
        return Found(PromiseStatus.UNVERIFIABLE, f"named by {files}, defined by no class of the files read")

    return look


def _defining_files(at: Tree, name: str) -> Iterator[str]:
    """Where a setting's class is looked for: the evidence files, then (searched only when it comes to them) the
    first files that name it, a config module first (``config.py``, ``*_config.py``), then the shortest path."""
    files = evidence_files(at.ctx.skill)
    yield from files
    found = [p for p in at.naming(name) or [] if p not in files and not is_test(p)]
    found.sort(key=lambda p: ("config" not in p.rsplit("/", 1)[-1], len(p), p))
    yield from found[:MAX_READ]


def _compared(name: str, word: str, module: str | None) -> Look:
    """Whether a gate compares setting (or parameter) ``name`` with ``word``: in the evidence files, the files that
    define the setting, or the function's ``module``."""

    def look(at: Tree) -> Found:
        files = evidence_files(at.ctx.skill) + [p for p in [module_path(at.tree, module) if module else None] if p]
        gate = next((g for g in gates_in(at.tree, files, at.ctx) if (name, word) in compared_values(g.text)), None)
        if gate is None and module is None:  # the files that define the setting, beyond the evidence
            more = [p for p in _defining_files(at, name) if p not in files]
            gate = next((g for g in gates_in(at.tree, more, at.ctx) if (name, word) in compared_values(g.text)), None)
        if gate is None:
            return Found(PromiseStatus.UNVERIFIABLE, f'no gate compares {name} with "{word}"')
        return Found(PromiseStatus.EXISTS, f"compared by {gate.said}", gate.path)

    return look


def _at_ref(fact: Fact, then: str, at: Tree, day: str) -> Evidence:
    """What became of a fact the example stated on its validation day."""
    now = fact.look(at)
    said = f"`{fact.ref}`, which the claim's example states, on {day}" + (
        f" and at the ref: {then}" if now.detail == then else f": {then}; at the ref: {now.detail}")
    if now.status is PromiseStatus.EXISTS:
        return Evidence(EvidenceKind.EXAMPLE, fact.ref, True, now.status, said)
    if now.status is PromiseStatus.MISSING:
        return Evidence(EvidenceKind.EXAMPLE, fact.ref, False, now.status, said)
    return Evidence(EvidenceKind.EXAMPLE, fact.ref, False, PromiseStatus.UNVERIFIABLE, f"{said}: re-verify")


def _landed(facts: list[Fact], at: Tree, then: SourceTree, day: str) -> list[Evidence]:
    """No fact of the examples there on the validation day: where some are at the ref, the card was validated
    before its code landed (the first commit after that day to change the file of the first), else nothing."""
    there = [(fact, found) for fact in facts for found in [fact.look(at)]
             if found.status is PromiseStatus.EXISTS]  # fmt: skip
    if not there:
        return []
    refs = ", ".join(f"`{fact.ref}`" for fact, _ in there)
    stale = f"{refs}, which the claim's example states, at the ref, not there on {day}"
    path = there[0][1].path
    landed = at.tree.changes_since(path, then.info.commit or "", 1) if then.info.commit and path else None
    if landed:
        stale += f"; the card was validated before its code landed: {landed[0][0][:10]} on {landed[0][1]}"
    why = f"{stale}: re-verify the claim"
    return [Evidence(EvidenceKind.EXAMPLE, there[0][0].ref, False, PromiseStatus.UNVERIFIABLE, why, stale=stale)]
