"""The facts a quote carries: what the quoted code does, not how its text reads.

A fence that summarises (a paraphrased line, ``# ... scope parsing ...``, an elided message) or code that was
refactored (a gate moved into a helper) drifts as text while the behaviour stays.  The behaviour a claim rests on
is carried by a few statements: a function's definition, a gate's test (``if``/``elif``/``while``), an
``assert``, a ``raise``, and a value returned or assigned under a gate.  :func:`facts_of` reads them from a
quote's body, statement by statement (a line that is not Python is noted, never fatal); :func:`facts_in` lists
those a file holds.  Both compare by syntax
tree, so formatting, quoting and an assert's message never matter.

An assert's message, a raise's arguments and an assignment's place in the file are not part of the fact: a
fact is that the code still asserts the test, raises that exception, or sets that target to that value under
some gate.
"""

from __future__ import annotations

import ast
import re
import textwrap
from dataclasses import dataclass
from typing import Iterable, Iterator, Literal, Sequence

from ..errors import BoundExceeded
from ..parse import parse_ast

FactKind = Literal["def", "gate", "assert", "raise", "return", "set", "del"]


@dataclass(frozen=True)
class Fact:
    kind: FactKind
    key: str  # the statement's syntax tree, as compared
    text: str  # as the code says it (``assert not cfg.nan_check``)
    loose: str = ""  # the same with each attribute chain's root name made one (``self.model.x`` ~ ``cfg.model.x``)
    needle: str = ""  # its rarest-looking name, to search a tree for where it may have moved
    shape: str = ""  # the loose key with its constants left out: ``cfg.tp > 1`` and ``cfg.tp > 2`` share it

    @property
    def is_effect(self) -> bool:
        """What a gate does (an assert, a raise, a value set under it), as against a gate's test or a definition."""
        return self.kind not in ("gate", "def")


@dataclass(frozen=True)
class QuoteFacts:
    facts: tuple[Fact, ...]
    paraphrased: tuple[int, ...]  # lines of the body (1-based) that are not Python: said, never fatal

    @property
    def wanted(self) -> tuple[Fact, ...]:
        """What a claim resting on the quote rests on: its effects, or (none quoted) its gates' tests."""
        effects = tuple(f for f in self.facts if f.is_effect)
        return effects or self.facts


_ELISION = re.compile(r"^\s*(\.\.\.|…)\s*$")


def facts_of(body: Sequence[str], gated: bool = False) -> QuoteFacts:
    """The facts of a quote's body: parsed whole where it is Python, else line by line (an ``if`` without its
    body, an assert with an elided message, a paraphrase between them); ``gated``: every value it sets counts,
    as if under a gate the quote elides."""
    lines = ["pass" if _ELISION.match(line) else line for line in body]
    tree = _parse("\n".join(lines))
    if tree is not None:
        return QuoteFacts(tuple(dict.fromkeys(_facts(tree.body, gated))), ())
    facts: list[Fact] = []
    paraphrased: list[int] = []
    depths: list[int] = []  # the indentation of each gate line still open above this line
    number = 0
    while number < len(lines):
        line, number = lines[number], number + 1
        stripped = line.strip()
        if not stripped or stripped.startswith("#") or stripped == "pass":
            continue
        depth = len(line) - len(line.lstrip())
        while depths and depths[-1] >= depth:
            depths.pop()
        found, used = _statement(lines, number - 1, gated=gated or bool(depths))
        if found is None:
            paraphrased.append(number)
            continue
        facts += found
        number += used - 1
        if stripped.startswith(("if ", "elif ", "while ", "else:")):
            depths.append(depth)
    return QuoteFacts(tuple(dict.fromkeys(facts)), tuple(paraphrased))


def facts_in(text: str) -> frozenset[str] | None:
    """The keys (strict and loose) of every fact a file's code holds (None: it does not parse)."""
    tree = parsed_file(text)
    return None if tree is None else statement_keys(tree.body)


def file_facts(text: str) -> tuple[Fact, ...]:
    """Every fact of a whole file's code (none where it does not parse)."""
    tree = parsed_file(text)
    return tuple(_facts(tree.body, False)) if tree is not None else ()


def function_sets(text: str, name: str) -> tuple[Fact, ...]:
    """Every value function ``name`` of a file's code sets or deletes (the first so named, a method too), each
    counted as under a gate: what a quote of its signature says it does."""
    tree = parsed_file(text)
    if tree is None:
        return ()
    found = (n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == name)
    node = next(found, None)
    return tuple(f for f in _facts(node.body, True) if f.kind in ("set", "del")) if node is not None else ()


def blocks_in(text: str, start: int, end: int) -> list[tuple[ast.expr, tuple[Fact, ...]]]:
    """(test, facts) of each ``if``/``while`` of a file's code between lines ``start`` and ``end``: its test as a
    gate, and what its body does (read as under it)."""
    tree = parsed_file(text)
    return [(node.test, (_fact("gate", node.test), *_facts(node.body, gated=True)))
            for node in (ast.walk(tree) if tree is not None else ())
            if isinstance(node, (ast.If, ast.While)) and start <= node.lineno <= end]  # fmt: skip


def leaves(fact: Fact) -> tuple[frozenset[str], frozenset[str]]:
    """What a fact's statement tests, however its objects are spelt: the last name of each attribute chain, each
    name that heads none, and its constants (``not self.nan_check`` and ``not nan_check`` alike).  Literal, unlike
    a gate's settings (:mod:`anchor_audit.checks.gates`): ``hasattr(cfg, "x")`` tests ``hasattr`` and ``cfg`` here,
    so that it is never taken for the assert a quote writes as ``assert x``."""
    try:
        node = ast.parse(fact.text, mode="eval")
    except SyntaxError:
        return frozenset(), frozenset()
    roots = {id(n.value) for n in ast.walk(node) if isinstance(n, ast.Attribute)}
    names = {n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute) and id(n) not in roots}
    names |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and id(n) not in roots}
    return frozenset(names), frozenset(repr(n.value) for n in ast.walk(node) if isinstance(n, ast.Constant))


def fewer_keywords(quoted: Fact, code: Fact) -> bool:
    """Whether a value set the quote writes is a call the code makes to the same target with more arguments:
    the same function, the quote's positional arguments first, each keyword the quote passes passed alike."""
    try:
        said, done = ast.parse(quoted.text).body[0], ast.parse(code.text).body[0]
    except (SyntaxError, IndexError):
        return False
    if not (isinstance(said, ast.Assign) and isinstance(done, ast.Assign)):
        return False
    call, full = said.value, done.value
    if not (isinstance(call, ast.Call) and isinstance(full, ast.Call)) or ast.dump(said.targets[0]) != ast.dump(
        done.targets[0]
    ):
        return False
    positional = [ast.dump(a) for a in call.args] == [ast.dump(a) for a in full.args[: len(call.args)]]
    keywords = {ast.dump(k) for k in full.keywords}
    return ast.dump(call.func) == ast.dump(full.func) and positional and all(ast.dump(k) in keywords
                                                                             for k in call.keywords)  # fmt: skip


def statement_keys(nodes: Iterable[ast.AST]) -> frozenset[str]:
    """The keys (strict, loose and shape) of every fact ``nodes`` hold, every value they set and return counted
    (a quote's may sit under a gate the quote elides)."""
    return frozenset(k for f in _facts(nodes, True) for k in (f.key, f.loose, f.shape))


def parsed_file(text: str) -> ast.Module | None:
    """A whole file's syntax tree (None: it does not parse), among the recent ones :func:`parse_ast` keeps: a
    file whose facts and gates are read one after the other is parsed once.  Read only, never changed."""
    try:
        return parse_ast(text)
    except (SyntaxError, ValueError, MemoryError, RecursionError, BoundExceeded):
        return None


def holds_in(fact: Fact, keys: frozenset[str]) -> bool:
    """Whether a file with ``keys`` (:func:`facts_in`) holds ``fact``: the same statement, or the same on another
    object of the same attributes (a check moved into a helper that takes the config as ``cfg``)."""
    return fact.key in keys or fact.loose in keys


def reshaped_in(fact: Fact, keys: frozenset[str]) -> bool:
    """Whether a file with ``keys`` holds a statement of ``fact``'s shape with other constants (a threshold or a
    flag's value changed), where it does not hold ``fact`` itself."""
    return not holds_in(fact, keys) and fact.shape in keys


def widened(fact: Fact, code: Iterable[Fact]) -> Fact | None:
    """The one gate of ``code`` whose test is ``fact``'s or another (``if packing:`` now ``if packing or
    streaming:``): where it held, it still does; None where no one gate is."""
    if fact.kind != "gate":
        return None
    found = []
    for gate in (c for c in code if c.kind == "gate" and " or " in c.text):
        try:
            test = ast.parse(gate.text, mode="eval").body
        except SyntaxError:
            continue
        if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or):
            if any(f"gate~|{loose_key(part)}" == fact.loose for part in test.values):
                found.append(gate)
    return found[0] if len(found) == 1 else None


def _parse(text: str) -> ast.Module | None:
    try:
        return ast.parse(textwrap.dedent(text))
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None


MAX_STATEMENT_LINES = 12  # lines one statement of a paraphrased quote may run over (a wrapped assert message)


def _statement(lines: Sequence[str], at: int, gated: bool) -> tuple[list[Fact] | None, int]:
    """The facts of the statement that starts at line ``at`` and how many lines it runs over: completed where it
    opens a block (``if x:``) or continues a clause (``elif``); None where no run of lines from there is Python."""
    for count in range(1, min(MAX_STATEMENT_LINES, len(lines) - at) + 1):
        text = textwrap.dedent("\n".join(line.strip() if count == 1 else line for line in lines[at : at + count]))
        head = text.split("\n", 1)[0]
        for candidate in (text, f"{text}\n    pass", f"if True:\n    pass\n{text}\n    pass"):
            tree = _parse(candidate) if head.strip() else None
            if tree is not None:
                return [f for f in _facts(tree.body, gated) if f.text != "True"], count
    return None, 1


def _facts(nodes: Iterable[ast.AST], gated: bool) -> Iterator[Fact]:
    """The facts of ``nodes`` (statements, or a compound statement's parts), in order; ``gated``: under a gate."""
    for node in nodes:
        if isinstance(node, (ast.If, ast.While)):
            yield _fact("gate", node.test)
            yield from _facts(node.body, gated=True)
            yield from _facts(node.orelse, gated=True)
        elif isinstance(node, ast.Assert):
            yield _fact("assert", node.test)
        elif isinstance(node, ast.Raise) and node.exc is not None:
            exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            yield _fact("raise", exc)
        elif isinstance(node, ast.Return) and gated and node.value is not None:
            yield _fact("return", node.value)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and gated and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                yield _set(target, node.value)
        elif isinstance(node, ast.Delete) and gated:
            yield from (_deleted(target) for target in node.targets if not isinstance(target, ast.Name))
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield _definition(node)
            yield from _facts(ast.iter_child_nodes(node), gated)
        elif isinstance(node, (ast.ClassDef, ast.With, ast.AsyncWith, ast.For, ast.AsyncFor, ast.Try, ast.Module)):
            yield from _facts(ast.iter_child_nodes(node), gated)
        elif isinstance(node, ast.ExceptHandler):
            yield from _facts(ast.iter_child_nodes(node), gated=True)


def _fact(kind: FactKind, node: ast.expr) -> Fact:
    return Fact(kind, f"{kind}|{ast.dump(node)}", ast.unparse(node), f"{kind}~|{loose_key(node)}", _needle(node),
                f"{kind}#|{loose_key(node, constants=False)}")  # fmt: skip


def _set(target: ast.expr, value: ast.expr) -> Fact:
    text = f"{ast.unparse(target)} = {ast.unparse(value)}"
    loose = f"set~|{loose_key(target)}|{loose_key(value)}"
    return Fact("set", f"set|{ast.dump(target)}|{ast.dump(value)}", text, loose,
                _needle(target), f"set#|{loose_key(target)}|{loose_key(value, constants=False)}")  # fmt: skip


def _deleted(target: ast.expr) -> Fact:
    """``del X.items[key]``: what is deleted, an item of any key (the key is which one, not what is done)."""
    text = ast.unparse(_any_key(target))
    loose = f"del~|{loose_key(_any_key(target))}"
    return Fact("del", f"del|{text}", text, loose, _needle(target), loose)


def _any_key(node: ast.expr) -> ast.expr:
    if isinstance(node, ast.Subscript):
        return ast.Subscript(_any_key(node.value), ast.Constant(...), ast.Load())
    if isinstance(node, ast.Attribute):
        return ast.Attribute(_any_key(node.value), node.attr, ast.Load())
    return node


def _definition(node: ast.FunctionDef | ast.AsyncFunctionDef) -> Fact:
    """``def name(params)``: the name defined, with its parameters (the same name with others is its shape)."""
    params = ", ".join(a.arg for a in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs))
    key = f"def|{node.name}|{params}"
    return Fact("def", key, f"def {node.name}({params})", key, node.name, f"def#|{node.name}")


def loose_key(node: ast.AST, constants: bool = True) -> str:
    """The node's syntax with the root name of each attribute chain made one: ``self.model.x`` and ``cfg.model.x``
    read alike; a name alone (``x``) keeps its name; without ``constants``, every constant reads alike."""

    def key(value: object) -> str:
        if isinstance(value, ast.Attribute):
            attrs: list[str] = []
            root: ast.expr = value
            while isinstance(root, ast.Attribute):
                attrs.append(root.attr)
                root = root.value
            return ("_" if isinstance(root, ast.Name) else key(root)) + "." + ".".join(reversed(attrs))
        if isinstance(value, ast.Constant):
            return repr(value.value) if constants else "C"
        if isinstance(value, ast.AST):
            return f"{type(value).__name__}({','.join(key(getattr(value, f, None)) for f in value._fields)})"
        if isinstance(value, list):
            return f"[{','.join(key(v) for v in value)}]"
        return repr(value)

    return key(node)


def _needle(node: ast.AST) -> str:
    """The longest attribute or name in ``node``: what a search of a tree looks for first."""
    names = [sub.attr for sub in ast.walk(node) if isinstance(sub, ast.Attribute)]
    names = names or [sub.id for sub in ast.walk(node) if isinstance(sub, ast.Name)]
    return max(names, key=len, default="")
