"""Class 1: every write of a run is all or nothing, and a YAML edit means what it was meant to or is refused."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from ..conftest import DEMO, git
from .conftest import QUOTE, make_code_repo, make_skill, registry, run_cli, snapshot

MOVED = "class Planner:\n    # a comment\n    def plan(self, cfg):\n"


def moved_repo(tmp_path: Path):
    repo = make_code_repo(tmp_path / "code")
    repo.edit("pkg/plan.py", "class Planner:\n    def plan(self, cfg):\n", MOVED)
    repo.commit("a comment", tag="v2")
    return repo


def test_fix_heals_an_entry_with_no_path_with_its_skill(make_repo, tmp_path: Path) -> None:
    """The README's setup: the registry names the skill by name only. Fences and keys move together."""
    repo = make_repo()
    repo.edit("src/demo/overlap.py", "from dataclasses import dataclass\n", "import os\nfrom dataclasses import dataclass\n")
    repo.commit("shift", tag="v2")
    copy = tmp_path / "elsewhere" / "demo-overlap"
    shutil.copytree(DEMO / "skills" / "demo-overlap", copy)
    spec = tmp_path / "anchors.yaml"
    spec.write_text((DEMO / "anchors.yaml").read_text().replace("    path: skills/demo-overlap\n", ""))
    args = ["--spec", str(spec), "--repo", str(repo.path), "--ref", "v2", "--format", "json", str(copy)]
    before = json.loads(run_cli("check", *args).out)["summary"]
    done = run_cli("fix", "--write", *args[:-3], str(copy))
    assert f"wrote {spec}" in done.out and f"wrote {copy / 'SKILL.md'}" in done.out, done.out
    assert "has no path" not in done.out
    after = json.loads(run_cli("check", *args).out)["summary"]
    assert after["claims"]["broken"] == before["claims"]["broken"] and after["card_mismatches"] == before["card_mismatches"]
    assert after["anchors"]["moved"] == 0 and after["anchors"]["exact"] == before["anchors"]["exact"] + before["anchors"]["moved"]


def test_every_output_of_a_run_is_written_or_none(tmp_path: Path) -> None:
    repo = make_code_repo(tmp_path / "code")
    skill = make_skill(tmp_path / "skill")
    out = tmp_path / "o.json"
    out.write_text("the last run's report\n")
    base = tmp_path / "baseline.yaml"
    line = run_cli("check", "--repo", str(repo.path), "--ref", "v1", "--format", "json", "--output", str(out),
                   "--write-baseline", str(base), "--report", f"sarif={tmp_path / 'no-such-dir' / 'x.sarif'}",
                   str(skill)).one_error_line()  # fmt: skip
    assert line == (f"anchor-audit: error: --report {tmp_path / 'no-such-dir' / 'x.sarif'}: cannot write: "
                    "No such file or directory; nothing written")  # fmt: skip
    assert out.read_text() == "the last run's report\n" and not base.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cache", "code", "config", "o.json", "skill"]


def card_case(tmp_path: Path, card: str) -> tuple[list[str], Path]:
    repo = moved_repo(tmp_path)
    skill = make_skill(tmp_path / "skill", QUOTE, card=card)
    spec = registry(tmp_path / "anchors.yaml", repo.path, skill, claims="      gate two:\n        quotes: [pkg/plan.py:3-6]\n")
    return ["fix", "--update-card", "--write", "--spec", str(spec), "--ref", "v2"], skill / "card.yaml"


@pytest.mark.parametrize("card", [
    '{validation_status: {"gate two": [doc_only]}}\n',  # flow style: nothing can be appended after it
    'validation_status:\n  "gate two": [doc_only]\n...\n',  # a document end: a key after it is a second document
    'validation_status:\n  "gate two": [doc_only]\nvalidated_on: >-\n  2020-01-01\n',  # a block scalar
])
def test_a_card_that_cannot_be_edited_safely_is_refused_and_left_alone(tmp_path: Path, card: str) -> None:
    args, path = card_case(tmp_path, card)
    before = snapshot(tmp_path / "skill") | {"anchors.yaml": (tmp_path / "anchors.yaml").read_bytes()}
    line = run_cli(*args).one_error_line()
    assert "nothing written" in line and str(path) in line, line
    assert snapshot(tmp_path / "skill") | {"anchors.yaml": (tmp_path / "anchors.yaml").read_bytes()} == before


def test_a_claim_id_written_over_two_lines_keeps_its_id(tmp_path: Path) -> None:
    args, path = card_case(tmp_path, 'validation_status:\n  ? "gate\n    two"\n  : [code_verified]\nvalidated_on: "2020-01-01"\n')
    (tmp_path / "skill" / "SKILL.md").write_text((tmp_path / "skill" / "SKILL.md").read_text().replace("cfg.tp > 1", "cfg.tp > 5"))
    run_cli(*args)
    data = yaml.safe_load(path.read_text())
    assert list(data["validation_status"]) == ["gate two"]  # the broken mark went after the key, not into it
    assert "# anchor-audit: broken at v2" in path.read_text()


def test_a_pin_or_quote_key_written_as_a_block_scalar_is_refused(tmp_path: Path) -> None:
    repo = moved_repo(tmp_path)
    skill = make_skill(tmp_path / "skill")
    spec = tmp_path / "anchors.yaml"
    spec.write_text(f"version: 1\nsource:\n  repo: {repo.path}\n  ref: >-\n    v1\nskills:\n  s:\n    path: {skill}\n")
    before = spec.read_bytes()
    line = run_cli("bump", "v2", "--force", "--spec", str(spec)).one_error_line()
    assert line == f"anchor-audit: error: {spec}:4: source.ref is a block scalar (>); anchor-audit does not rewrite one; write it on one line and run again; nothing written"
    assert spec.read_bytes() == before
    spec.write_text(f"version: 1\nsource:\n  repo: {repo.path}\n  ref: v2\nskills:\n  s:\n    path: {skill}\n"
                    "    claims:\n      gate:\n        quotes:\n          - >-\n            pkg/plan.py:3-6\n")  # fmt: skip
    before = snapshot(tmp_path / "skill") | {"spec": spec.read_bytes()}
    line = run_cli("fix", "--write", "--spec", str(spec)).one_error_line()
    assert "the quote key 'pkg/plan.py:3-6' is a block scalar (>)" in line and "nothing written" in line
    assert snapshot(tmp_path / "skill") | {"spec": spec.read_bytes()} == before


def test_impact_patch_applies_with_a_line_separator_in_the_prose(tmp_path: Path) -> None:
    repo = make_code_repo(tmp_path / "code")
    skill_dir = repo.path / "skills" / "s"
    repo.write("skills/s/SKILL.md", "---\nname: s\ndescription: x\n---\n\nProse with a \u2028 separator.\n\n" + QUOTE)
    repo.commit("a skill", tag="v1b")
    repo.edit("pkg/plan.py", "class Planner:\n    def plan(self, cfg):\n", MOVED)
    repo.commit("a comment", tag="v2")
    done = run_cli("impact", "v1b", "v2", "skills/s", "--in-repo", "--repo", str(repo.path), "--format", "json")
    patch = "".join(i.get("patch", "") for i in json.loads(done.out)["impacts"]) or json.loads(done.out).get("patch", "")
    assert patch, done.out
    (tmp_path / "p.diff").write_text(patch)
    subprocess.run(["git", "apply", "--check", str(tmp_path / "p.diff")], cwd=repo.path, check=True, capture_output=True)
    assert skill_dir.is_dir() and git(repo.path, "status", "--porcelain") == ""
