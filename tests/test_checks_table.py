"""The one table from reference kind to checker: every kind has exactly one, and every run of the checks goes
through it."""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

from anchor_audit.checks import ALL, CHECKERS
from anchor_audit.checks.protocol import Checker
from anchor_audit.model import PromiseKind, ReferenceKind

from .conftest import ROOT

PACKAGE = ROOT / "src" / "anchor_audit"


def test_every_reference_kind_has_exactly_one_checker() -> None:
    counts = Counter(checker.kind for checker in ALL)
    assert {kind: n for kind, n in counts.items() if n != 1} == {}
    assert set(counts) == set(ReferenceKind)
    assert all(CHECKERS[kind].kind is kind for kind in ReferenceKind)


def test_every_checker_of_the_prose_says_what_kind_of_promise_its_results_are() -> None:
    prose = [c for c in ALL if c.kind not in (ReferenceKind.QUOTE, ReferenceKind.CONDITION, ReferenceKind.CARD_ANCHOR)]
    assert all(isinstance(c.reported_as, PromiseKind) for c in prose), [c.kind for c in prose if c.reported_as is None]


def _kind_dispatch(path: Path) -> list[str]:
    """Places in a module that branch on a citation's kind (``if c.kind is ReferenceKind.X``) to choose a check."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Compare):
            left = node.test.left
            if isinstance(left, ast.Attribute) and left.attr == "kind":
                right = node.test.comparators[0]
                if isinstance(right, ast.Attribute) and isinstance(right.value, ast.Name):
                    if right.value.id in ("ReferenceKind", "K"):
                        found.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    return found


def test_no_check_is_chosen_by_an_if_on_the_reference_kind_outside_its_checker() -> None:
    """A kind's check is found through the table, not by a chain of ifs on the kind (as the prose's were)."""
    runners = ["audit/skills.py", "checks/prose.py", "checks/promises.py", "checks/reads.py"]
    assert [place for name in runners for place in _kind_dispatch(PACKAGE / name)] == []


def test_a_checker_is_a_frozen_value() -> None:
    import dataclasses

    assert dataclasses.is_dataclass(Checker) and Checker.__dataclass_params__.frozen  # type: ignore[attr-defined]


def test_every_promise_that_does_not_hold_is_a_finding_whatever_its_kind() -> None:
    """No pair of a kind and a failing status is dropped in silence: each has its code (the matches are
    exhaustive, so a new status or kind is a type error until it has one)."""
    from anchor_audit.findings import _promise_code
    from anchor_audit.findings.rules import RULES
    from anchor_audit.model import PromiseStatus

    for kind in PromiseKind:
        for status in PromiseStatus:
            code = _promise_code(kind, status)
            assert (code is None) == status.ok, (kind, status)
            assert code is None or code in RULES
