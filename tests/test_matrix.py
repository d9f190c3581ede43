"""``anchor-audit matrix`` (issue 27, part): every release tag audited; per claim the releases it holds for."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from anchor_audit.cli import main

from .conftest import git
from .hostile.conftest import make_code_repo, make_skill

CARD = "validation_status:\n  gate:\n    - code_verified  # plan.py:3-6\n  notes:\n    - doc_only\n"


@pytest.fixture
def released(tmp_path: Path):
    """v0.1.0 and v0.2.0 (the gate as quoted), v0.3.0 (the gate changed), v0.3.1rc1 (restored, a pre-release),
    and a tag that is no version."""
    repo = make_code_repo(tmp_path / "code")
    git(repo.path, "tag", "-d", "v1")  # the helper's own tag: these releases are numbered 0.x
    git(repo.path, "tag", "v0.1.0")
    repo.write("README.md", "docs\n")
    repo.commit("docs", date="2026-02-01T00:00:00")
    git(repo.path, "tag", "-a", "v0.2.0", "-m", "an annotated release")
    repo.edit("pkg/plan.py", "if cfg.tp > 1:", "if cfg.tp > 2:")
    repo.commit("raise the gate", date="2026-03-01T00:00:00")
    git(repo.path, "tag", "v0.3.0")
    git(repo.path, "tag", "nightly")
    repo.edit("pkg/plan.py", "if cfg.tp > 2:", "if cfg.tp > 1:")
    repo.commit("restore the gate", date="2026-04-01T00:00:00")
    git(repo.path, "tag", "v0.3.1rc1")
    return repo, make_skill(tmp_path / "plan-skill", card=CARD)


def _run(repo, skill, capsys, *extra: str) -> str:  # noqa: ANN001
    assert main(["matrix", str(skill), "--repo", str(repo.path), *extra]) == 0
    return capsys.readouterr().out


def test_each_claim_says_the_releases_it_holds_for_and_its_first_break(released, capsys) -> None:
    repo, skill = released
    data = json.loads(_run(repo, skill, capsys, "--format", "json"))
    assert [r["tag"] for r in data["releases"]] == ["v0.1.0", "v0.2.0", "v0.3.0"]  # versions only, no rc, no nightly
    rows = {(r["kind"], r["key"]): r for r in data["rows"]}
    gate = rows[("claim", "gate")]
    assert gate["cells"] == {"v0.1.0": "code_verified", "v0.2.0": "code_verified", "v0.3.0": "broken"}
    assert (gate["holds_for"], gate["first_break"]) == ([">=0.1.0,<0.3.0"], "v0.3.0")
    assert rows[("claim", "notes")]["holds_for"] == [">=0.1.0"]  # doc_only holds: nothing to break
    assert rows[("quote", "pkg/plan.py:3-6")]["cells"]["v0.3.0"] == "changed"


def test_pre_releases_and_bounds(released, capsys) -> None:
    repo, skill = released
    data = json.loads(_run(repo, skill, capsys, "--format", "json", "--pre", "--since", "0.2.0"))
    assert [r["tag"] for r in data["releases"]] == ["v0.2.0", "v0.3.0", "v0.3.1rc1"]
    gate = next(r for r in data["rows"] if r["key"] == "gate")
    assert gate["holds_for"] == [">=0.2.0,<0.3.0", ">=0.3.1rc1"]  # held again once the gate was restored


def test_the_terminal_grid_reads_without_colour_and_folds_at_80_columns(released, capsys, monkeypatch) -> None:
    repo, skill = released
    monkeypatch.setenv("COLUMNS", "80")
    out = _run(repo, skill, capsys)
    lines = out.splitlines()
    assert lines[0].startswith("matrix plan-skill at ") and lines[0].endswith(": 3 releases, v0.1.0 .. v0.3.0")
    gate = next(line for line in lines if line.startswith("gate "))
    assert [c.strip() for c in gate.split("│")[1:]] == ["V", "V", "B"]
    assert "  gate: holds for >=0.1.0,<0.3.0; broken from v0.3.0" in lines
    assert all(len(line) <= 80 for line in lines if "│" in line or "┃" in line)


def test_csv_has_a_column_per_release_and_never_a_formula(released, capsys, tmp_path) -> None:
    repo, skill = released
    rows = list(csv.reader(io.StringIO(_run(repo, skill, capsys, "--format", "csv"))))
    assert rows[0] == ["skill", "kind", "key", "v0.1.0", "v0.2.0", "v0.3.0", "holds_for", "first_break"]
    assert ["plan-skill", "claim", "gate", "code_verified", "code_verified", "broken", ">=0.1.0,<0.3.0", "v0.3.0"] in rows
    evil = make_skill(tmp_path / "evil", card="validation_status:\n  =HYPERLINK(1):\n    - doc_only\n")
    rows = list(csv.reader(io.StringIO(_run(repo, evil, capsys, "--format", "csv"))))
    assert any(row[2] == "'=HYPERLINK(1)" for row in rows)  # a spreadsheet reads it as text


def test_markdown_is_a_table_of_claims_by_release(released, capsys) -> None:
    repo, skill = released
    out = _run(repo, skill, capsys, "--format", "markdown")
    assert "| claim | `v0.1.0` | `v0.2.0` | `v0.3.0` | holds for |\n" in out
    assert "| `plan-skill` `gate` | V | V | B | `>=0.1.0,<0.3.0` |\n" in out


def test_a_repository_without_release_tags_says_so_and_a_bad_bound_is_exit_2(tmp_path, capsys) -> None:
    repo = make_code_repo(tmp_path / "code")
    git(repo.path, "tag", "-d", "v1")
    skill = make_skill(tmp_path / "s", card=CARD)
    assert "no release tags" in _run(repo, skill, capsys)
    assert main(["matrix", str(skill), "--repo", str(repo.path), "--since", "latest"]) == 2
    assert "'latest' is not a version or a version tag" in capsys.readouterr().err
