"""Which way a sentence and a gate point: what a known constraint requires a setting to be (``x must be None``,
``y must not be None``, ``z must be False``) and what a validation refuses, so that a gate refusing what a
sentence requires is never read as deciding that it holds.  A setting written with a value (``w=True``) is not
read as required: as often it is the case refused ("cannot be used with w=True") or the condition ("w=True also
requires ...").

A value is ``None`` or a truth: a bare ``x`` is ``x`` true, ``not x`` is ``x`` not true.  Each is a
``(setting, value, equal)`` triple: ``("x", "None", True)`` is "x is None"; ``("z", "True", False)`` is "z is
not true".  An ``if`` whose body raises refuses what each part of its test (joined by ``and``, with the tests of
the ``if``s that lead to it) says; an assert refuses the opposite of each part of its own test.  A sentence is
contradicted by a gate that refuses what it requires.  A sentence that joins requirements (by semicolons, "a and
b must be None", or "x requires a and b") is decided requirement by requirement (:func:`clauses`, :func:`all_of`).
"""

from __future__ import annotations

import ast
import functools
import re

from ..model import PromiseStatus
from .gates import Gate

Stance = tuple[str, str, bool]  # (setting, "None" or "True", whether it is that value)

_VALUES = {"none": "None", "true": "True", "false": "True"}  # "false" is "True", not equal
_MUST = re.compile(r"\b(?:must|should|has to|have to|needs? to)\s+(not\s+)?be\s+(none|true|false)\b", re.IGNORECASE)
_SUBJECT = re.compile(r"`?[A-Za-z_][\w.]*`?|,")
MAX_SUBJECTS = 4  # settings one requirement names ("a, b and c must be None")
_JOINS = frozenset({",", "and", "or"})


def required(sentence: str) -> frozenset[Stance]:
    """What ``sentence`` requires of the settings it names (see the module's rule): the settings just before
    "must (not) be None/True/False", joined by commas, "and" or "or"."""
    out: set[Stance] = set()
    for match in _MUST.finditer(sentence):
        value = _VALUES[match.group(2).lower()]
        equal = (match.group(1) is None) != (match.group(2).lower() == "false")
        for name in _subjects(sentence[max(0, match.start() - 200) : match.start()]):
            out.add((name, value, equal))
    return frozenset(out)


MAX_CLAUSES = 4


_REQUIRES = re.compile(r"\b(?:requires?|needs?)\s+(?P<objects>[^;]+?)\s*\.?$", re.IGNORECASE)
_OBJECT = re.compile(r"`[^`]+`|[A-Za-z][\w.]*_[\w.]*")  # a setting: x_y, or `x`
_BETWEEN_OBJECTS = re.compile(r"\s*,\s*(?:and\s+)?|\s+and\s+")


def clauses(sentence: str) -> list[str]:
    """The requirements a sentence joins, each to be decided alone: its parts between semicolons, "a and b must be
    None" as "a must be None" and "b must be None", and "x requires a and b" (settings only, to its end) as "x
    requires a" and "x requires b"; the sentence itself where it joins none (or more than :data:`MAX_CLAUSES`)."""
    out: list[str] = []
    for part in (p.strip() for p in sentence.split(";")):
        objects = _required_settings(part)
        if len(objects) >= 2:
            out += objects
            continue
        must = _MUST.search(part)
        before = part[max(0, must.start() - 200) : must.start()] if must else ""
        subjects = _subject_tokens(before)
        if must is None or len(subjects) < 2:
            out += [part] if part else []
            continue
        head = part[: must.start() - len(before) + subjects[-1][1]]
        out += [f"{head}{token} {part[must.start():]}" for token, _ in reversed(subjects)]
    return out if 1 < len(out) <= MAX_CLAUSES else [sentence]


def _required_settings(part: str) -> list[str]:
    """"x requires a and b" as "x requires a", "x requires b": where what is required is settings alone."""
    match = _REQUIRES.search(part)
    if match is None:
        return []
    objects = _BETWEEN_OBJECTS.split(match.group("objects"))
    if len(objects) < 2 or not all(_OBJECT.fullmatch(o) for o in objects):
        return []
    return [f"{part[: match.start('objects')]}{o}" for o in objects]


def all_of(decided: list[tuple[str, PromiseStatus, str]]) -> tuple[PromiseStatus, str]:
    """A sentence that joins requirements: broken where one is (gone, then changed), holds where each does, else
    unverifiable (a clause that names something the code could say before one that names nothing); each said
    with its clause."""
    decided = sorted(decided, key=lambda d: d[2].startswith("advice: it names nothing"))
    for status in (PromiseStatus.MISSING, PromiseStatus.DIFFERS, PromiseStatus.UNVERIFIABLE, PromiseStatus.HOLDS):
        chosen = [f'"{clause}": {detail}' for clause, said, detail in decided if said is status]
        if chosen:
            return status, "; ".join(chosen if status is PromiseStatus.HOLDS else chosen[:1])
    return PromiseStatus.UNVERIFIABLE, "it joins no requirement"


def _subjects(before: str) -> list[str]:
    """The settings that end ``before``: identifiers with an underscore or in backticks, read back over commas,
    "and", "or"."""
    return [token.strip("`").rsplit(".", 1)[-1] for token, _ in _subject_tokens(before)]


def _subject_tokens(before: str) -> list[tuple[str, int]]:
    """(as written, where it starts) for each of :func:`_subjects`, the last first."""
    if not re.search(r"[\w`]\s*$", before):  # "x (in MB) must be None": not said of a setting
        return []
    found: list[tuple[str, int]] = []
    for match in reversed(list(_SUBJECT.finditer(before))):
        token = match.group()
        bare = token.strip("`")
        if bare.lower() in _JOINS:
            continue
        if ("_" not in bare and bare == token) or len(found) >= MAX_SUBJECTS:  # a setting: x_y, or `x`
            break
        found.append((token, match.start()))
    return found


def stance_said(stance: Stance | None) -> str:
    """A stance as a sentence says it: ``x None``, ``x not None``, ``x True``, ``x False``."""
    name, value, equal = stance or ("", "", True)
    return f"{name} {value if equal else ('not None' if value == 'None' else 'False')}"


def contradicts(gate: Gate, wanted: frozenset[Stance]) -> Stance | None:
    """What ``gate`` refuses of what a sentence requires (``wanted``), or None."""
    if not wanted:
        return None
    refused = refusals(gate.text, gate.inner, gate.asserts, gate.raises)
    return next((stance for stance in sorted(wanted) if stance in refused), None)


@functools.lru_cache(maxsize=8192)
def refusals(text: str, inner: str, asserts: bool, raises: bool) -> frozenset[Stance]:
    """What a validation refuses (none for a gate that neither asserts nor raises)."""
    if asserts:
        return frozenset((name, value, not equal) for name, value, equal in _stances(inner or text))
    return _stances(text) if raises else frozenset()


@functools.lru_cache(maxsize=8192)
def _stances(test: str) -> frozenset[Stance]:
    """What each part of ``test`` joined by ``and`` says of a setting."""
    try:
        body = ast.parse(test, mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return frozenset()
    parts = body.values if isinstance(body, ast.BoolOp) and isinstance(body.op, ast.And) else [body]
    return frozenset(s for part in parts for s in [_stance(part)] if s is not None)


def _stance(part: ast.expr) -> Stance | None:
    if isinstance(part, ast.UnaryOp) and isinstance(part.op, ast.Not):
        inverse = _stance(part.operand)
        return None if inverse is None else (inverse[0], inverse[1], not inverse[2])
    name = _setting(part)
    if name is not None:
        return name, "True", True
    if not (isinstance(part, ast.Compare) and len(part.ops) == 1):
        return None
    name, op, other = _setting(part.left), part.ops[0], part.comparators[0]
    if name is None or not isinstance(other, ast.Constant):
        return None
    if not (other.value is None or isinstance(other.value, bool)):  # a number is no truth, though 1 == True
        return None
    value, equal = ("None", True) if other.value is None else ("True", other.value is True)
    if isinstance(op, (ast.Is, ast.Eq)):
        return name, value, equal
    if isinstance(op, (ast.IsNot, ast.NotEq)):
        return name, value, not equal
    return None


def _setting(node: ast.expr) -> str | None:
    return node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else None
