"""A card.yaml comment's range whose code only moved: said in the terminal, and healed by fix with the card's day."""

from __future__ import annotations

from pathlib import Path

from anchor_audit.cli import main

from .hostile.conftest import CODE, make_code_repo, make_skill

CARD = 'validated_on: "2026-01-15"\nvalidation_status:\n  tp_overlap:\n    - code_verified  # plan.py:3-6\n'


def _moved(tmp_path: Path) -> tuple[str, Path]:
    repo = make_code_repo(tmp_path / "code")
    repo.write("pkg/plan.py", "import os\nimport sys\n" + CODE)  # the gate two lines lower
    repo.commit("two imports", date="2026-02-01T00:00:00")
    return str(repo.path), make_skill(tmp_path / "skill", "No quotes here.\n", card=CARD)


def test_a_comment_whose_code_moved_is_said_where_the_run_says_drift(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)  # no anchors.yaml here: the skill's own comments link its claim
    repo, skill = _moved(tmp_path)
    assert main(["check", "--repo", repo, str(skill)]) == 1
    out = capsys.readouterr().out
    assert "    moved: quote pkg/plan.py:3-6 at pkg/plan.py:5-8" in out.splitlines()  # why exit 1, in words


def test_fix_rewrites_a_comments_range_only_with_the_cards_day(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    repo, skill = _moved(tmp_path)
    assert main(["fix", "--repo", repo, "--write", str(skill)]) == 1  # left for a person: the day would be wrong
    assert (skill / "card.yaml").read_text() == CARD
    assert "`fix --update-card --write` rewrites the range with validated_on" in capsys.readouterr().out
    assert main(["fix", "--repo", repo, "--update-card", "--write", str(skill)]) == 0
    assert (skill / "card.yaml").read_text() == CARD.replace("2026-01-15", "2026-02-01").replace("3-6", "5-8")
    capsys.readouterr()
    assert main(["check", "--repo", repo, str(skill)]) == 0  # the comment holds on its new day
