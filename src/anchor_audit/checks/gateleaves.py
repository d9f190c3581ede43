"""What a gate's test conditions on: the settings it reads (an attribute chain by its last name, a setting read by
``getattr``, an environment variable), the predicates it calls, and the constants it compares them with; which
settings it requires to be on, and whether it states a sentence's literal."""

from __future__ import annotations

import ast
import functools
import re

_KEYED = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)[:=]\S+")


def keyed(value: str) -> tuple[str, ...]:
    """A word a gate compares with, and the key it sets where it is ``key:value`` or ``key=value`` (what a gate looks
    for in an environment variable that holds options: ``"grow_pages:True" in os.getenv("ALLOC")``)."""
    match = _KEYED.fullmatch(value)
    return (value, match.group(1)) if match else (value,)


def environment_read(node: ast.AST) -> str | None:
    """The variable an environment read names, a setting of its own: ``os.getenv("X", ...)``,
    ``os.environ.get("X", ...)``, ``os.environ["X"]``."""
    if isinstance(node, ast.Subscript):
        found = node.slice.value if isinstance(node.slice, ast.Constant) else None
        return found if _environ(node.value) and isinstance(found, str) else None
    if not (isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)):  # fmt: skip
        return None
    func = node.func
    named = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    if named == "getenv" or (named == "get" and isinstance(func, ast.Attribute) and _environ(func.value)):
        return node.args[0].value
    return None


def _environ(node: ast.AST) -> bool:
    return (isinstance(node, ast.Attribute) and node.attr == "environ") or (
        isinstance(node, ast.Name) and node.id == "environ"
    )


def member(node: ast.expr) -> str | None:
    """``router`` for ``Part.router``, a class spelt in CapWords at its head: an enumeration's value (``Part.router
    in cfg.parts`` compares the setting with it), not a setting."""
    head = node.value.id if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) else ""
    return node.attr if head[:1].isupper() and not head.isupper() and isinstance(node, ast.Attribute) else None


# Functions a gate calls that are no setting of their own: what it conditions on is what they are given
# (``len(cfg.modules) > 0`` tests ``modules``; ``np.prod(cfg.sizes) == cfg.cp`` tests ``sizes`` and ``cp``).
_NOT_SETTINGS = frozenset(
    "len isinstance issubclass getattr hasattr any all int float str bool min max sum abs sorted set list tuple "
    "dict prod".split()
)


PREDICATES = ("is_", "has_", "uses_", "use_")  # a function so named tests what it is named after


def leaves(test: ast.expr) -> tuple[set[str], set[str]]:
    """What a gate's test conditions on: each attribute chain by its last name (``cfg.model.tp`` is ``tp``), and
    each name that heads no chain, a setting read by ``getattr(cfg, "tp", 1)`` as ``tp`` (neither its object nor
    its default counted), an environment variable read by ``os.getenv("X")`` as ``X``, a predicate
    ``is_full_graph(cfg.model)`` by its name alone; and the constants it compares with, an enumeration's member
    (``Part.router``) among them, the key of a ``key:value`` too (one walk of the test)."""
    attributes: list[ast.Attribute] = []
    names: list[ast.Name] = []
    constants: list[ast.Constant] = []
    skipped: set[int] = set()
    read: set[str] = set()
    values: set[str] = set()
    for node in ast.walk(test):
        if isinstance(node, ast.Attribute):
            attributes.append(node)
        elif isinstance(node, ast.Name):
            names.append(node)
        elif isinstance(node, ast.Constant):
            constants.append(node)
        elif isinstance(node, (ast.Call, ast.Subscript)):
            skipped |= _not_conditions(node, read)
        elif isinstance(node, ast.Compare):  # an enumeration's member it is compared with is a value
            members = [n for n in (node.left, *node.comparators) if member(n) is not None]
            values |= {str(member(n)) for n in members}
            skipped |= {id(part) for n in members for part in ast.walk(n)}
    if skipped:
        attributes = [n for n in attributes if id(n) not in skipped]
        names = [n for n in names if id(n) not in skipped]
        constants = [n for n in constants if id(n) not in skipped]
    consts = set().union(*(keyed(str(node.value)) for node in constants)) | values
    roots = {id(node.value) for node in attributes}
    leaves = {n.attr for n in attributes if id(n) not in roots}
    return leaves | {n.id for n in names if id(n) not in roots} | read, consts


def _not_conditions(call: ast.Call | ast.Subscript, read: set[str]) -> set[int]:
    """The nodes of ``call`` that are not what a gate conditions on (see :data:`_NOT_SETTINGS`); a setting that
    ``getattr``/``hasattr`` reads by name, or an environment variable read (all of whose nodes are no condition:
    not the call, nor its default), is added to ``read``."""
    variable = environment_read(call)
    if variable is not None:
        read.add(variable)
        return {id(part) for part in ast.walk(call)}
    if isinstance(call, ast.Subscript):
        return set()
    func = call.func
    called = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    if called.startswith(PREDICATES):  # the test is the predicate: what it is given is where it looks
        return {id(node) for arg in call.args if not isinstance(arg, ast.Constant) for node in ast.walk(arg)}
    if called not in _NOT_SETTINGS:
        return set()
    skipped = {id(node) for node in ast.walk(func)}
    if called in ("getattr", "hasattr") and len(call.args) >= 2 and isinstance(call.args[1], ast.Constant) \
            and isinstance(call.args[1].value, str):  # fmt: skip
        read.add(call.args[1].value)
        skipped |= {id(node) for arg in (call.args[0], *call.args[1:]) for node in ast.walk(arg)}
    return skipped


@functools.lru_cache(maxsize=8192)
def switched_on(test: str) -> frozenset[str]:
    """The settings a gate's test requires to be on, each by its last name: a conjunct that is the setting
    (``cfg.overlap``), or says it is true or set (``is True``, ``is not None``, ``!= "none"``)."""
    node = ast.parse(test, mode="eval").body
    parts = node.values if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.And) else [node]
    found = set()
    for part in parts:
        if isinstance(part, ast.Compare) and len(part.ops) == 1 and isinstance(part.comparators[0], ast.Constant):
            value, op = part.comparators[0].value, part.ops[0]
            on = (isinstance(op, (ast.Is, ast.Eq)) and value is True) or (
                isinstance(op, (ast.IsNot, ast.NotEq)) and value in (None, False, "none"))
            part = part.left if on else part
        if isinstance(part, (ast.Name, ast.Attribute)):
            found.add(part.attr if isinstance(part, ast.Attribute) else part.id)
    return frozenset(found)


def stated(constant: str, constants: frozenset[str]) -> bool:
    """Whether a gate comparing with ``constants`` states ``constant`` (``~N``: N or a neighbour, a bound written
    from the other side; ``True`` or ``False`` also by a gate that tests truth, comparing with no other constant:
    ``not cfg.sequence_parallel``)."""
    if constant in ("True", "False"):  # a setting that is off, written as a string, tests truth too
        return constant in constants or not (constants - {"True", "False", "None", "none"})
    if not constant.startswith("~"):
        return constant in constants
    step, bare = (1 if constant[1] == "+" else -1), constant[2:]
    if re.fullmatch(r"-?\d+", bare):
        return bare in constants or str(int(bare) + step) in constants
    return bare in constants
