"""Run every example the condition matcher owns (anchor_audit/match/condition_examples.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from anchor_audit.match.condition import check_condition
from anchor_audit.match.condition_examples import DRIFTS, HOLDS, ConditionExample
from anchor_audit.model import ConditionStatus
from anchor_audit.source.file import SourceFile
from anchor_audit.spec.registry import parse_spec

PATH = "pkg/planner.py"


def condition_of(example: ConditionExample):
    """Go through the real anchors.yaml loader, so examples also test the spec format."""
    doc = {
        "source": {"repo": ".", "ref": "HEAD"},
        "skills": {"s": {"claims": {"c": {"conditions": [{"path": PATH, **example.condition}]}}}},
    }
    spec = parse_spec(yaml.safe_dump(doc), Path("anchors.yaml"))
    return spec.skills[0].claims[0].conditions[0]


def check(example: ConditionExample) -> None:
    result = check_condition(condition_of(example), SourceFile(PATH, example.code))
    assert result.status is example.status, result.detail
    if example.line is not None:
        assert result.line == example.line
    assert example.detail in result.detail


@pytest.mark.parametrize("example", HOLDS, ids=[e.name for e in HOLDS])
def test_holds(example: ConditionExample) -> None:
    assert example.status is ConditionStatus.HOLDS
    check(example)


@pytest.mark.parametrize("example", DRIFTS, ids=[e.name for e in DRIFTS])
def test_drifts(example: ConditionExample) -> None:
    assert example.status is not ConditionStatus.HOLDS
    check(example)


def test_missing_file_and_syntax_error() -> None:
    example = HOLDS[0]
    condition = condition_of(example)
    assert check_condition(condition, None).status is ConditionStatus.MISSING
    broken = check_condition(condition, SourceFile(PATH, "class Planner(:\n"))
    assert broken.status is ConditionStatus.ERROR and "does not parse" in broken.detail


def test_scope_cut_keeps_lines_with_two_space_and_tab_indentation() -> None:
    for indent in ("  ", "\t"):
        code = f"class A:\n{indent}def f(self, x):\n{indent}{indent}if x > 1:\n{indent}{indent}{indent}self.y = 2\n"
        condition = condition_of(ConditionExample("x", {"in": "A.f", "if": "x > 1", "then": ["self.y = 2"]}, ConditionStatus.HOLDS))
        result = check_condition(condition, SourceFile(PATH, code))
        assert (result.status, result.line) == (ConditionStatus.HOLDS, 3), repr(indent)


def test_newer_syntax_than_this_python_falls_back_to_libcst() -> None:
    # `type X = ...` (Python 3.12) is not readable by ast on older Pythons; libcst reads it either way.
    code = "type Alias = int\n\nclass A:\n    def f(self, x):\n        if x > 1:\n            self.y = 2\n"
    condition = condition_of(ConditionExample("x", {"in": "A.f", "if": "x > 1", "then": ["self.y = 2"]}, ConditionStatus.HOLDS))
    result = check_condition(condition, SourceFile(PATH, code))
    assert (result.status, result.line) == (ConditionStatus.HOLDS, 5)
