"""model/wire.py: a model value as JSON and back is the value it was; a row of anything else is refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from anchor_audit.audit.judge import Judge
from anchor_audit.model import wire
from anchor_audit.model.status import AnchorStatus
from anchor_audit.runs.catalog import audit_catalog
from anchor_audit.source.git import open_git

from .catalog_fixture import build_catalog


def _again(value: object) -> object:
    return wire.load(json.loads(json.dumps(wire.dump(value))))


def test_every_report_of_a_catalog_with_every_kind_of_drift_comes_back_equal(tmp_path: Path) -> None:
    catalog, mirrors = build_catalog(tmp_path)
    given = dict(pair.split("=", 1) for pair in mirrors[1::2])  # --mirror REPO=DIR ...
    run = audit_catalog(catalog, None, Judge(), lambda repo, ref: open_git(repo, ref), given)
    checked = [skill for skill in run.report.skills if skill.checked]
    assert len(checked) >= 8  # moved, changed, behind, ahead, citations, commands...
    kinds = {type(a).__name__ for s in checked for a in s.anchors} | {p.kind for s in checked for p in s.promises}
    assert {"Moved", "Changed"} <= kinds and len(kinds) > 5
    for skill in run.report.skills:
        assert _again(skill) == skill
    assert _again(run.report) == run.report


def test_odd_containers_keep_their_kind() -> None:
    value = ([1, (2, 3)], {("a", 1): frozenset({"x", "y"})}, Path("a/b"), AnchorStatus.MOVED, "moved", True, 1.25)
    back = _again(value)
    assert back == value and type(back[0]) is list and type(back[0][1]) is tuple  # type: ignore[index]
    assert type(back[3]) is AnchorStatus and type(back[4]) is str  # type: ignore[index]


@pytest.mark.parametrize(
    "row",
    [
        {"@": "Popen", "f": {}},  # not a class of the model: never imported
        {"@": "AnchorStatus", "f": {}},  # an enum where a dataclass is said
        {"@enum": "SkillReport", "v": "x"},  # a dataclass where an enum is said
        {"@enum": "AnchorStatus", "v": "no such status"},
        {"what": 1},
    ],
)
def test_a_row_no_dump_could_have_written_is_refused(row: dict) -> None:
    with pytest.raises((ValueError, TypeError)):
        wire.load(row)
