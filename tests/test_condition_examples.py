"""Run every example the condition matcher owns (anchor_audit/match/condition_examples.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from anchor_audit.match.condition import check_condition
from anchor_audit.match.condition_examples import DRIFTS, HOLDS, ConditionExample
from anchor_audit.match.pysource import SourceFile
from anchor_audit.model import ConditionStatus
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
