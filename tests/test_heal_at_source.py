"""Issue 26: a card's validated_on day the code contradicts, ..."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from anchor_audit.cli import main

from .hostile.conftest import make_code_repo, make_skill


@pytest.fixture
def removed_in_february(tmp_path: Path):
    """pkg/gone.py, added on 2026-01-01, removed on 2026-02-10; pkg/plan.py stays."""
    repo = make_code_repo(tmp_path / "code", {"pkg/gone.py": "x = 1\n"})
    (repo.path / "pkg" / "gone.py").unlink()
    sha = repo.commit("drop gone.py", date="2026-02-10T12:00:00")
    return repo, sha


def _card(day: str) -> str:
    return f'validated_on: "{day}"\nvalidation_status:\n  files:\n    - file_exists\nevidence:\n  - pkg/plan.py\n  - pkg/gone.py\n'


def test_a_card_validated_after_its_evidence_was_removed_is_one_finding_naming_the_commit(removed_in_february,
                                                                                         tmp_path, capsys) -> None:  # fmt: skip
    repo, sha = removed_in_february
    skill = make_skill(tmp_path / "late", card=_card("2026-03-01"))
    assert main(["check", str(skill), "--repo", str(repo.path), "--ref", "HEAD", "--format", "json"]) == 1
    data = json.loads(capsys.readouterr().out)["skills"][0]
    said = f"validated_on 2026-03-01, but pkg/gone.py was removed in {sha[:9]} on 2026-02-10"
    (finding,) = [f for f in data["findings"] if f["code"] == "AA206"]
    assert finding["message"] == said and finding["file"].endswith("card.yaml")
    assert data["contradicted"] == [{"path": "pkg/gone.py", "commit": sha, "date": "2026-02-10",
                                     "validated_on": "2026-03-01"}]  # fmt: skip
    assert main(["check", str(skill), "--repo", str(repo.path), "--ref", "HEAD"]) == 1
    assert f"card.yaml: {said}\n" in capsys.readouterr().out


@pytest.mark.parametrize("day", ["2026-02-09", "not a date"])
def test_a_card_validated_before_the_removal_is_not_contradicted(day, removed_in_february, tmp_path, capsys) -> None:
    repo, _ = removed_in_february
    skill = make_skill(tmp_path / "early", card=_card(day))
    main(["check", str(skill), "--repo", str(repo.path), "--ref", "HEAD", "--format", "json"])
    data = json.loads(capsys.readouterr().out)["skills"][0]
    assert "contradicted" not in data and not [f for f in data["findings"] if f["code"] == "AA206"]
    assert [f["code"] for f in data["findings"] if f["code"] == "AA401"] == ["AA401"]  # still missing, said once


def test_several_paths_one_commit_removed_are_said_together(tmp_path, capsys) -> None:
    repo = make_code_repo(tmp_path / "code", {"pkg/a.py": "a = 1\n", "pkg/b.py": "b = 1\n"})
    for name in ("a", "b"):
        (repo.path / "pkg" / f"{name}.py").unlink()
    sha = repo.commit("drop a and b", date="2026-02-10T12:00:00")
    card = 'validated_on: "2026-02-10"\nvalidation_status:\n  files: [file_exists]\nevidence:\n  - pkg/a.py\n  - pkg/b.py\n'
    skill = make_skill(tmp_path / "s", card=card)
    assert main(["check", str(skill), "--repo", str(repo.path), "--ref", "HEAD", "--format", "markdown"]) == 1
    out = capsys.readouterr().out
    assert (f"> **card.yaml**: validated\\_on 2026-02-10, but 2 paths it relies on were removed in `{sha[:9]}` on "
            "2026-02-10: pkg/a.py, pkg/b.py") in out  # on the same day counts: validated against code already gone
