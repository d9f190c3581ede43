"""Release versions and the specifiers a card writes for them (``>=0.3.0,<0.6.0``): one reading for all.

A version is what a release tag names: ``v0.6.0``, ``0.3.0``, ``v1.0.0rc1``, ``2.1``.  Its key sorts as
releases do (``1.0.0.dev1 < 1.0.0a1 < 1.0.0b2 < 1.0.0rc1 < 1.0.0``).  A specifier is PEP 440's comparison
subset: clauses ``>=``, ``>``, ``<=``, ``<``, ``==``, ``!=`` joined by commas, every clause true.
"""

from __future__ import annotations

import re

_VERSION = re.compile(r"^v?(\d+(?:\.\d+){0,3})(?:[-.]?(a|b|rc|alpha|beta|pre|c|dev)[-.]?(\d*))?$", re.I)
_STAGE = {"dev": 0, "a": 1, "alpha": 1, "b": 2, "beta": 2, "c": 3, "pre": 3, "rc": 3}
_FINAL = 4
_CLAUSE = re.compile(r"^\s*(>=|<=|==|!=|>|<)\s*(\S+)\s*$")
VersionKey = tuple[int, ...]


def version_key(text: str) -> VersionKey | None:
    """``text`` as a sortable key (four numbers, then the stage and its number); None when it is no version."""
    match = _VERSION.match(text.strip())
    if match is None:
        return None
    numbers = [int(n) for n in match.group(1).split(".")]
    stage = _STAGE[match.group(2).lower()] if match.group(2) else _FINAL
    return (*numbers, *(0,) * (4 - len(numbers)), stage, int(match.group(3) or 0))


def is_pre_release(key: VersionKey) -> bool:
    return key[4] != _FINAL


def number(tag: str) -> str:
    """The version as a specifier writes it (``0.6.0`` for the tag ``v0.6.0``)."""
    return tag[1:] if tag[:1] in "vV" and tag[1:2].isdigit() else tag


def specifier_problem(text: str) -> str | None:
    """Why ``text`` is not a specifier this module reads (None: it is one)."""
    if not text.strip():
        return "an empty specifier"
    for clause in text.split(","):
        match = _CLAUSE.match(clause)
        if match is None:
            return f"{clause.strip()!r} is not a comparison like >=0.3.0"
        if version_key(match.group(2)) is None:
            return f"{match.group(2)!r} is not a version"
    return None


def contains(specifier: str, key: VersionKey) -> bool:
    """Whether the release ``key`` satisfies every clause of ``specifier`` (checked by specifier_problem)."""
    for clause in specifier.split(","):
        match = _CLAUSE.match(clause)
        bound = version_key(match.group(2)) if match else None
        if match is None or bound is None:
            return False
        op = match.group(1)
        ok = {">=": key >= bound, "<=": key <= bound, ">": key > bound, "<": key < bound,
              "==": key == bound, "!=": key != bound}[op]  # fmt: skip
        if not ok:
            return False
    return True
