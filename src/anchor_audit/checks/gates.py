"""The gates of a Python file: each ``if``, ``elif``, ``while`` and ``assert`` test, alone and read with the tests
that lead to it (``if tp_overlap:`` then ``elif not sequence_parallel:``), and the definitions beside them.

One parse of a file gives both, remembered by its blob: the known constraints are decided by these gates, the
claims by the validations among them (:mod:`.claimgates`) and the definitions (:mod:`.claimnames`).
"""

from __future__ import annotations

import ast
import collections
import functools
from dataclasses import dataclass
from typing import Any, Callable, Iterator

from ..errors import NotCarried, UnreadableFile
from ..match.quotefacts import loose_key, parsed_file
from ..source import SourceTree
from .gateleaves import PREDICATES, environment_read, keyed, leaves, member
from .protocol import Context


@dataclass(frozen=True)
class Gate:
    path: str
    line: int
    text: str  # the test, as the code says it
    names: frozenset[str]
    constants: frozenset[str]
    guards: bool = False  # an assert, or an if whose body raises or asserts: a validation
    inner: str = ""  # where it is read with the tests of the ifs that enclose it (``text`` joins them), its own
    exempt: tuple[tuple[str, tuple[str, ...]], ...] = ()  # values it lets through of what it tests (see _exempted)
    predicates: bool = False  # whether it calls a function named for what it tests (``is_full_graph(cfg)``)
    asserts: bool = False  # whether its own test is an assert's: what must hold, not what is refused
    raises: bool = False  # whether its body raises: its tests, all holding, are what it refuses

    @property
    def nested(self) -> bool:
        return bool(self.inner)

    @property
    def loose(self) -> str:
        """The test with each attribute chain's root made one (worked out only for a gate that is compared)."""
        return loose(self.text, True)

    @property
    def shape(self) -> str:
        """The same, constants left out."""
        return loose(self.text, False)

    @property
    def said(self) -> str:
        return f"`{self.text}` ({self.path}:{self.line})"


@functools.lru_cache(maxsize=8192)
def loose(test: str, constants: bool) -> str:
    """A gate's test as :func:`loose_key` writes it, by its text: a file's gates are compared for every sentence
    and claim of every skill that reads the file, parsed once."""
    return loose_key(ast.parse(test, mode="eval").body, constants=constants)


@functools.lru_cache(maxsize=8192)
def compared_values(test: str) -> frozenset[tuple[str, str]]:
    """(setting, value) for each comparison of a setting with a word in a gate's test (``impl == "local"``,
    ``"a2a+p2p" in kind``, ``kind in ("x", "y")``): what a sentence may name a setting by."""
    found: set[tuple[str, str]] = set()
    for node in ast.walk(ast.parse(test, mode="eval")):
        for name, _, other, _ in _compared(node):
            values = other.elts if isinstance(other, _LISTED) else [other]
            words = [v.value if isinstance(v, ast.Constant) else member(v) for v in values]
            said = {word for w in words if isinstance(w, str) for word in keyed(w)}  # "k:v" gives "k" too
            found |= {(name, word) for word in said if len(word) >= 3 and word not in _OFF}
    return frozenset(found)


@functools.lru_cache(maxsize=8192)
def accepted_values(test: str) -> frozenset[tuple[str, str]]:
    """(setting, value) for each value an assert's ``test`` accepts by name: ``fmt == "a"``, ``fmt in ["a", "b"]``,
    alone or among the parts of an ``and`` or an ``or`` (never under a ``not``, nor ``!=``, which refuse)."""
    found: set[tuple[str, str]] = set()
    nodes = [ast.parse(test, mode="eval").body]
    while nodes:
        node = nodes.pop()
        if isinstance(node, ast.BoolOp):
            nodes += node.values
        for name, op, other, left in _compared(node):
            if left and isinstance(op, (ast.Eq, ast.In)):
                values = other.elts if isinstance(other, _LISTED) else [other]
                found |= {(name, v.value) for v in values if isinstance(v, ast.Constant) and isinstance(v.value, str)}
    return frozenset(found)


def _enumerations(test: ast.expr) -> Iterator[tuple[str, frozenset[str]]]:
    """(setting, its values) for each test of a setting against a list of two or more words (``impl not in
    ["full", "selective"]``): every value the code knows the setting by."""
    for node in ast.walk(test):
        for name, op, other, left in _compared(node):
            if left and isinstance(op, (ast.In, ast.NotIn)) and isinstance(other, _LISTED):
                words = [e.value for e in other.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
                if len(words) == len(other.elts) >= 2:
                    yield name, frozenset(words)


def gates_in(tree: SourceTree, files: list[str], ctx: Context) -> list[Gate]:
    """Every ``if``/``elif``/``while``/``assert`` test of ``files`` in ``tree`` (remembered by blob)."""
    out: list[Gate] = []
    for path in files:
        try:
            blob = tree.blob_id(path)
        except (NotCarried, UnreadableFile):
            continue
        if blob is None:
            continue
        built = _BUILT_GATES.get((path, blob))
        if built is None:
            rows = ctx.memo(f"gates/13|{blob}", _reader(tree, path))["gates"]
            built = [Gate(path, line, text, frozenset(names), frozenset(consts), guards, inner,
                          tuple((name, tuple(values)) for name, values in exempt),
                          any(n.startswith(PREDICATES) for n in names), asserts, raises)
                     for line, text, names, consts, guards, inner, exempt, asserts, raises in rows]  # fmt: skip
            if len(_BUILT_GATES) >= MAX_BUILT_GATES:
                _BUILT_GATES.pop(next(iter(_BUILT_GATES)))
            _BUILT_GATES[(path, blob)] = built
        out += built
    return out


MAX_BUILT_GATES = 256  # files whose gates are kept built, the latest first out


def _completed(rows: list[list[Any]], listed: dict[str, set[frozenset[str]]]) -> list[list[Any]]:
    """Each gate of a file that lets through all but one of the values a gate of the file lists for what it tests
    (``impl != "selective"``, where one tests ``impl not in ["full", "selective"]``; ``listed`` has them) read as
    what it is: a test of that one value (``impl == "full"``), stating it and letting nothing through.  A setting
    the file lists otherwise by two gates is read as written."""
    for row in rows:
        one = {}
        for name, let in row[6]:
            lists = listed.get(name, set())
            left = next(iter(lists)) - set(let) if len(lists) == 1 and set(let) < next(iter(lists)) else set()
            if len(left) == 1:
                one[name] = next(iter(left))
        if one:
            row[3] = sorted(set(row[3]) | set(one.values()))
            row[6] = [e for e in row[6] if e[0] not in one]
    return rows


_BUILT_GATES: dict[tuple[str, str], list[Gate]] = {}


def definitions_in(tree: SourceTree, path: str, ctx: Context) -> list[str]:
    """The functions, classes, methods and class fields ``path`` defines in ``tree``, as ``C.name`` in a class
    (remembered by blob with the file's gates: one parse for both)."""
    try:
        blob = tree.blob_id(path)
    except (NotCarried, UnreadableFile, ValueError):
        return []
    if blob is None:
        return []
    defs: list[str] = ctx.memo(f"gates/13|{blob}", _reader(tree, path))["defs"]
    return defs


def _reader(tree: SourceTree, path: str) -> Callable[[], dict[str, Any]]:
    def read() -> dict[str, Any]:
        try:
            source = tree.read(path)
        except (NotCarried, UnreadableFile):
            source = None
        module = None if source is None else parsed_file(source.text)
        if module is None:
            return {"gates": [], "defs": []}
        return {"gates": _read_gates(module), "defs": list(dict.fromkeys(_qualnames(module.body, "")))}

    return read


def _qualnames(body: list[ast.stmt], outer: str) -> list[str]:
    """``f``, ``C``, ``C.method`` and ``C.field`` for the definitions of a module's or a class's body."""
    found: list[str] = []
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.append(outer + node.name)
        if isinstance(node, ast.ClassDef):
            found += _qualnames(node.body, f"{outer}{node.name}.")
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and outer:
            found.append(outer + node.target.id)
    return found


def _read_gates(module: ast.Module | None) -> list[list[object]]:
    """Each gate's row (line, test, names, constants, guards, "", exempted values), in breadth-first order; then,
    for each gate under an ``if`` of its function (at most :data:`MAX_NESTING` deep), the row of the tests that
    lead to it joined by ``and`` (``if tp_overlap:`` then ``elif not sequence_parallel:`` is the gate
    ``tp_overlap and not sequence_parallel``), with its own test last (see :func:`_nested`); then, for such a
    validation, the rows of each alternative of an ``or`` among those tests in its place (see :func:`_narrowed`)."""
    rows: list[list[object]] = []
    if module is None:
        return rows
    read: dict[int, tuple[str, set[str], set[str]]] = {}  # a test's text and leaves, by the node: each read once
    listed: dict[str, set[frozenset[str]]] = {}
    for node in _statements_breadth_first(module):
        if isinstance(node, (ast.If, ast.While, ast.Assert)):
            rows.append(_row(node, [node.test], False, read))
            for name, values in _enumerations(node.test):
                listed.setdefault(name, set()).add(values)
    nested = list(_nested(module.body, [], {}))
    rows += [_row(gate, [*outer, gate.test], True, read) for outer, gate in nested]
    rows += [_row(gate, tests, True, read) for outer, gate in nested if _guards(gate)
             for tests in _narrowed([*outer, gate.test], isinstance(gate, ast.If))]  # fmt: skip
    return _completed(rows, listed)


MAX_ALTERNATIVES = 4  # the alternatives of an ``or`` a validation is also read with, one at a time


def _narrowed(tests: list[ast.expr], own: bool) -> Iterator[list[ast.expr]]:
    """The tests of a validation read with one alternative of an ``or`` among them in its place: an ``if`` that
    refuses ``a or b`` refuses ``a`` (``if cfg.graph or cfg.vision_graph: raise`` refuses ``cfg.graph``).  The
    test of an assert (``own`` false) is what must hold, not what is refused: ``assert a or b`` requires
    neither, so only the tests of the ``if``s that lead to it are read so."""
    for at, test in enumerate(tests if own else tests[:-1]):
        if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or) and len(test.values) <= MAX_ALTERNATIVES:
            for alternative in test.values:
                yield [*tests[:at], alternative, *tests[at + 1 :]]


MAX_NESTING = 3  # enclosing ifs whose tests a nested gate is read with


def _row(
    gate: Test, tests: list[ast.expr], nested: bool, read: dict[int, tuple[str, set[str], set[str]]]
) -> list[object]:
    """A gate's row: its line, its tests joined by ``and``, what they condition on and compare with, whether it
    validates, its own test (read with others), the values it lets through, whether it is an assert's, whether
    its body raises."""
    names: set[str] = set()
    consts: set[str] = set()
    texts = []
    for test in tests:
        if id(test) not in read:
            read[id(test)] = (ast.unparse(test), *leaves(test))
        text, more_names, more_consts = read[id(test)]
        names |= more_names
        consts |= more_consts
        texts.append(f"({text})" if isinstance(test, ast.BoolOp) and len(tests) > 1 else text)
    refused = tests[:-1] if isinstance(gate, ast.Assert) else tests  # an assert refuses what its test compares away
    exempt = [[name, values] for name, values in _exempted(refused)]
    return [gate.lineno, " and ".join(texts), sorted(names), sorted(consts), _guards(gate), texts[-1] if nested else "",
            exempt, isinstance(gate, ast.Assert), any(isinstance(s, ast.Raise) for s in getattr(gate, "body", ()))]


_OFF = (None, False, 0, "", "none")  # the values a setting that is off has: ``impl != "none"`` tests that it is on


def _exempted(tests: list[ast.expr]) -> list[tuple[str, list[str]]]:
    """The values a gate lets through of a setting it tests by what it is not: ``impl != "whole"`` refuses every
    kind of ``impl`` but ``whole`` (each such setting by its last name, with the values it exempts; a value a
    setting has when it is off, ``impl != "none"``, only says that it is on)."""
    let: dict[str, set[str]] = {}
    for part in _conjuncts(tests):
        compared = _compared_away(part)
        if compared is not None:
            name, values = compared
            let.setdefault(name, set()).update(str(v) for v in values if v not in _OFF)
    return [(name, sorted(values)) for name, values in sorted(let.items()) if values]


def _conjuncts(tests: list[ast.expr]) -> Iterator[ast.expr]:
    """The parts of ``tests`` joined by ``and``, at any depth of ``and``."""
    for test in tests:
        if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
            yield from _conjuncts(test.values)
        else:
            yield test


def _compared_away(test: ast.expr) -> tuple[str, list[object]] | None:
    """(the setting, the constants) of ``setting != C``, ``setting is not C`` or ``setting not in (C, ...)``."""
    for name, op, other, left in _compared(test):
        if not left:
            continue
        if isinstance(op, (ast.NotEq, ast.IsNot)) and isinstance(other, ast.Constant):
            return name, [other.value]
        if isinstance(op, ast.NotIn) and isinstance(other, _LISTED):
            if all(isinstance(e, ast.Constant) for e in other.elts):
                return name, [e.value for e in other.elts if isinstance(e, ast.Constant)]
    return None


_LISTED = (ast.Tuple, ast.List, ast.Set)


def _compared(node: ast.AST) -> Iterator[tuple[str, ast.cmpop, ast.expr, bool]]:
    """(setting, operator, what it is compared with, whether the setting is on the left) of a comparison of one
    operator, read from each side: ``impl != "x"``, and ``"x" in kinds`` with ``kinds`` on the right."""
    if not (isinstance(node, ast.Compare) and len(node.ops) == 1):
        return
    for side, other, left in ((node.left, node.comparators[0], True), (node.comparators[0], node.left, False)):
        name = side.attr if isinstance(side, ast.Attribute) else side.id if isinstance(side, ast.Name) else \
            environment_read(side)  # fmt: skip
        if name is not None:
            yield name, node.ops[0], other, left


def _decides(node: ast.If | ast.While | ast.Assert) -> bool:
    """Whether a gate does something itself (asserts, raises, sets, returns) rather than only lead to others,
    which are read with it."""
    return isinstance(node, ast.Assert) or bool(_effects(node.body))


def _effects(body: list[ast.stmt]) -> frozenset[str]:
    """What a branch does, as far as telling two apart goes: what it sets, and whether it raises or returns."""
    out: set[str] = set()
    for node in body:
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            out.update(ast.unparse(t) for t in targets)
        elif isinstance(node, (ast.Raise, ast.Assert)):
            out.add("raise")
        elif isinstance(node, ast.Return):
            out.add("return")
    return frozenset(out)


def _guards(node: ast.stmt) -> bool:
    """An assert, or an ``if``/``while`` whose body raises or asserts: a validation."""
    body = getattr(node, "body", ())
    return isinstance(node, ast.Assert) or any(isinstance(s, (ast.Raise, ast.Assert)) for s in body)


Test = ast.If | ast.While | ast.Assert


def _nested(
    body: list[ast.stmt], outer: list[ast.expr], negations: dict[int, ast.expr]
) -> Iterator[tuple[list[ast.expr], Test]]:
    """(the tests that lead to it in its function, outermost first; a gate) for each gate that does something
    (:func:`_decides`) under at least one ``if`` of its function: an enclosing ``if``'s test, or its negation
    for a gate of its ``else`` or ``elif``, unless that ``elif`` does what the branch before it does (``if tp <
    2: overlap = False`` then ``elif not sp: overlap = False``: either turns the overlap off, so the second is
    read without the first).  ``negations`` keeps each negated test made, one per test, for as long as the
    caller reads them (a node is known by its id)."""
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield from _nested(node.body, [], negations)
            continue
        if isinstance(node, (ast.If, ast.While, ast.Assert)) and outer and _decides(node):
            yield outer, node
        if isinstance(node, ast.If):
            yield from _nested(node.body, [*outer, node.test][-MAX_NESTING:], negations)
            elif_ = node.orelse[0] if len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If) else None
            same = elif_ is not None and _effects(node.body) and _effects(node.body) == _effects(elif_.body)
            negated = negations.setdefault(id(node.test), ast.UnaryOp(ast.Not(), node.test))
            yield from _nested(node.orelse, outer if same else [*outer, negated][-MAX_NESTING:], negations)
        else:
            for name in ("body", "orelse", "finalbody", "handlers", "cases"):
                yield from _nested(getattr(node, name, None) or [], outer, negations)


_HOLDS_STATEMENTS = frozenset({"body", "orelse", "finalbody", "handlers", "cases"})


def _statements_breadth_first(module: ast.Module) -> Iterator[ast.AST]:
    """The statements of ``module`` (and the handlers and cases between them) in the order ``ast.walk`` gives
    them, without walking the expressions, which are most of a file's nodes and hold no statement."""
    queue: collections.deque[ast.AST] = collections.deque([module])
    while queue:
        node = queue.popleft()
        yield node
        for name in node._fields:  # in the fields' order, as ast.walk: a try's handlers before its else
            if name in _HOLDS_STATEMENTS:
                queue.extend(getattr(node, name, None) or ())
