"""Known constraints (``CONSTRAINT``): each sentence of card.yaml's ``known_constraints``, decided by a gate.

A sentence names what it constrains: identifiers (``tensor_model_parallel_size``, ``comm_overlap.tp_comm_overlap``,
anything in backticks), words the code spells otherwise (:data:`SYNONYMS`: "TP" is ``tensor_model_parallel_size``,
"Transformer Engine" is ``HAVE_TE``), and literals (``> 1``, ``True``).  The gate that decides it is the first ``if``,
``elif``, ``while`` or ``assert`` of the files the sentence cites (``transformer_config.py:1303``), the card's
evidence files and the skill's quoted files (not tests) whose test
names every one of those identifiers and states every literal (a whole number as itself or its neighbour: ``> 1``
is decided by ``< 2``).  It is looked for on the card's validation day
(where there is one; else at the ref), then at the ref:

* the same gate is there (in any of those files): ``holds``, naming it and where;
* the gate has other constants (``< 2`` is now ``< 4``): ``broken``;
* the gate is gone and no gate names what the sentence names: ``broken`` (only against a validation day);
* the gate is gone but another names the same things: ``unverifiable`` (rewritten? re-verify);
* only a gate that also tests something the sentence leaves out names it: ``unverifiable``, naming what it
  leaves out (the code refuses less than the sentence says);
* no gate names it: ``unverifiable`` ("advice, no gate in the evidence").
"""

from __future__ import annotations

import ast
import collections
import functools
import re
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Sequence

from ..errors import NotCarried, UnreadableFile
from ..match.quotefacts import loose_key, parsed_file
from ..model import Citation, PromiseKind, PromiseResult, PromiseStatus, Reference, ReferenceKind, Skill, SkillSpec
from ..parse.index import INDEXES
from ..source import SourceTree
from ..source.listing import is_test
from .lineanchors import CITED_LINES, card_lines, check_lines, cited_file
from .paths import cited_path
from .protocol import Checker, Context
from .sentencewords import SYNONYMS, wanted

MAX_FILES = 24  # evidence and quoted files a constraint is looked for in


@dataclass(frozen=True)
class Gate:
    path: str
    line: int
    text: str  # the test, as the code says it
    names: frozenset[str]
    constants: frozenset[str]
    guards: bool = False  # an assert, or an if whose body raises or asserts: a validation

    @property
    def loose(self) -> str:
        """The test with each attribute chain's root made one (worked out only for a gate that is compared)."""
        return _loose(self.text, True)

    @property
    def shape(self) -> str:
        """The same, constants left out."""
        return _loose(self.text, False)

    @property
    def said(self) -> str:
        return f"`{self.text}` ({self.path}:{self.line})"


@functools.lru_cache(maxsize=8192)
def _loose(test: str, constants: bool) -> str:
    """A gate's test as :func:`loose_key` writes it, by its text: a file's gates are compared for every sentence
    and claim of every skill that reads the file, parsed once."""
    return loose_key(ast.parse(test, mode="eval").body, constants=constants)


def _written(skill: Skill, entry: SkillSpec | None) -> Sequence[Citation]:
    card = skill.card
    return [Citation(ReferenceKind.CONSTRAINT, text, text, line) for text, line in card.constraints] if card else []


def _reads(c: Citation, skill: Skill, entry: SkillSpec | None) -> Iterator[Reference]:
    yield Reference(ReferenceKind.CONSTRAINT, "card.yaml", c.line, c.text, frozenset(evidence_files(skill)))
    for cited in card_lines(c.text, c.line):  # the files its line citations name
        yield from cited_path(cited, skill, entry)


def evidence_files(skill: Skill) -> list[str]:
    """Where a constraint's gate is looked for: the card's evidence files, then the skill's quoted files (Python)."""
    evidence = skill.card.evidence if skill.card else ()
    found = [p for p in (*evidence, *(q.path for q in skill.quotes)) if p.endswith(".py") and not is_test(p)]
    return list(dict.fromkeys(found))[:MAX_FILES]


# Words that say how, not what: a sentence is decided by a gate only where, beside these, its identifiers, the words
# the code spells otherwise and the gate's own constants, at most one word is left (``TP overlap requires ...``).
_HOW = frozenset(
    "a an the to of and or not no is are be been must should requires require required requiring needs need only "
    "when if with without for by than greater less more at least most equal equals does do set enabled disabled "
    "true false none it its available used".split()
)
MAX_LEFT_WORDS = 1


def _about(sentence: str, names: frozenset[str], gate: Gate) -> bool:
    """Whether ``sentence`` says no more than ``gate`` decides: nothing it names beyond what the gate tests."""
    bare = re.sub(r"`[^`]*`", " ", CITED_LINES.sub(" ", sentence))  # its line citations say where, not what
    words = re.findall(r"[A-Za-z][A-Za-z0-9_-]*", bare)
    spelt = {w.lower() for word in SYNONYMS for w in word.split()}
    said = {c.lower() for c in gate.constants}
    left = [w for w in words if w.lower() not in _HOW and w not in names and w.lower() not in spelt
            and w.lower() not in said and w.split(".")[-1] not in names]  # fmt: skip
    return len(left) <= MAX_LEFT_WORDS


def _check(c: Citation, ctx: Context) -> list[PromiseResult]:
    """The sentence's result, then one for each line it cites (``transformer_config.py:1928``)."""
    status, detail = _decide(c.text, ctx)
    lines = [r for cited in card_lines(c.text, c.line) for r in check_lines(cited, ctx)]
    return [PromiseResult(PromiseKind.CONSTRAINT, c.text, status, ctx.card_yaml, c.line, detail), *lines]


def _decide(sentence: str, ctx: Context) -> tuple[PromiseStatus, str]:
    names, constants = wanted(sentence)
    if not names:
        return PromiseStatus.UNVERIFIABLE, "advice: it names nothing the code can be searched for"
    cited = [cited_file(c, ctx) for c in card_lines(sentence, 0)]
    files = list(dict.fromkeys([*(f for f in cited if f and f.endswith(".py")), *evidence_files(ctx.skill)]))
    then = ctx.validated()
    day = f"the validation day ({(then.info.commit or '')[:10]})" if then is not None else "the ref"
    gates = gates_in(then if then is not None else ctx.tree, files, ctx)
    decided = _best(gates, names, constants)
    if decided is None:
        narrower = _narrower(gates, names, constants)
        if narrower is not None:  # the code refuses only when something the sentence leaves out also holds
            also = ", ".join(sorted(narrower.names - names)[:3])
            return PromiseStatus.UNVERIFIABLE, (f"{narrower.said} tests {_names(names)} only together with {also}, "
                                                "which the sentence leaves out: narrower than it says")  # fmt: skip
        return PromiseStatus.UNVERIFIABLE, f"advice: no gate of the evidence names {_names(names)} on {day}"
    if not _about(sentence, names, decided):
        return PromiseStatus.UNVERIFIABLE, (f"{decided.said} tests {_names(names)}, but the sentence says more than "
                                            "it decides: re-verify")  # fmt: skip
    now = gates_in(ctx.tree, files, ctx) if then is not None else None
    if now is None:
        return PromiseStatus.HOLDS, f"decided by {decided.said}"
    same = next((g for g in now if g.loose == decided.loose), None)
    if same is not None:
        return PromiseStatus.HOLDS, f"decided by {same.said}, as on {day}"
    reshaped = next((g for g in now if g.shape == decided.shape), None)
    if reshaped is not None:
        return PromiseStatus.DIFFERS, f"decided on {day} by {decided.said}; at the ref the gate is {reshaped.said}"
    other = _best(now, names, constants)
    if other is not None:
        return PromiseStatus.UNVERIFIABLE, (f"decided on {day} by {decided.said}, gone at the ref, where "
                                            f"{other.said} names the same: re-verify")  # fmt: skip
    return PromiseStatus.MISSING, f"decided on {day} by {decided.said}; no gate names {_names(names)} at the ref"


def _names(names: frozenset[str]) -> str:
    return ", ".join(sorted(names)[:4])


def _best(gates: list[Gate], names: frozenset[str], constants: frozenset[str]) -> Gate | None:
    """The first gate that conditions on exactly ``names`` and states every one of ``constants``.  A gate naming
    only some is no decision (a gate of one of them alone may decide something else), nor one that also
    conditions on what the sentence leaves out (narrower than the sentence says)."""
    return next((g for g in gates if names == g.names and all(_stated(c, g.constants) for c in constants)), None)


def _narrower(gates: list[Gate], names: frozenset[str], constants: frozenset[str]) -> Gate | None:
    """The first gate that conditions on every one of ``names`` and on something more, stating every constant."""
    return next((g for g in gates if names < g.names and all(_stated(c, g.constants) for c in constants)), None)


def _stated(constant: str, stated: frozenset[str]) -> bool:
    """Whether a gate states ``constant`` (``~N``: N or a neighbour, a bound written from the other side)."""
    if not constant.startswith("~"):
        return constant in stated
    step, bare = (1 if constant[1] == "+" else -1), constant[2:]
    if re.fullmatch(r"-?\d+", bare):
        return bare in stated or str(int(bare) + step) in stated
    return bare in stated


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
            rows = ctx.memo(f"gates/4|{blob}", _reader(tree, path))["gates"]
            built = [Gate(path, line, text, frozenset(names), frozenset(consts), guards)
                     for line, text, names, consts, guards in rows]  # fmt: skip
            if len(_BUILT_GATES) >= MAX_BUILT_GATES:
                _BUILT_GATES.pop(next(iter(_BUILT_GATES)))
            _BUILT_GATES[(path, blob)] = built
        out += built
    return out


MAX_BUILT_GATES = 256  # files whose gates are kept built, the latest first out
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
    defs: list[str] = ctx.memo(f"gates/4|{blob}", _reader(tree, path))["defs"]
    return defs


def _reader(tree: SourceTree, path: str) -> Callable[[], dict[str, Any]]:
    def read() -> dict[str, Any]:
        try:
            source = tree.read(path)
        except (NotCarried, UnreadableFile):
            source = None
        module = None if source is None else INDEXES.kept_tree(source) or parsed_file(source.text)
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
    rows: list[list[object]] = []
    for node in _statements_breadth_first(module) if module is not None else ():
        if not isinstance(node, (ast.If, ast.While, ast.Assert)):
            continue
        test = node.test
        names, consts = _leaves(test)
        guards = isinstance(node, ast.Assert) or any(isinstance(s, (ast.Raise, ast.Assert)) for s in node.body)
        rows.append([node.lineno, ast.unparse(test), sorted(names), sorted(consts), guards])
    return rows


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


def _leaves(test: ast.expr) -> tuple[set[str], set[str]]:
    """What a gate's test conditions on: each attribute chain by its last name (``cfg.model.tp`` is ``tp``), and
    each name that heads no chain; and the constants it compares with (one walk of the test)."""
    attributes: list[ast.Attribute] = []
    names: list[ast.Name] = []
    consts: set[str] = set()
    for node in ast.walk(test):
        if isinstance(node, ast.Attribute):
            attributes.append(node)
        elif isinstance(node, ast.Name):
            names.append(node)
        elif isinstance(node, ast.Constant):
            consts.add(str(node.value))
    roots = {id(node.value) for node in attributes}
    leaves = {n.attr for n in attributes if id(n) not in roots}
    return leaves | {n.id for n in names if id(n) not in roots}, consts


CONSTRAINT: Checker[Citation, list[PromiseResult]] = Checker(
    ReferenceKind.CONSTRAINT, _written, _reads, _check, PromiseKind.CONSTRAINT, written_in="card.yaml",
    subject=lambda c: c.text,
)  # fmt: skip
