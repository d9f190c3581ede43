"""Line citations of the prose (`config.py:3-4`), checked by the lines they cited on the card's validation day."""

from __future__ import annotations

import json
from pathlib import Path

from anchor_audit.cli import main

from .hostile.conftest import make_code_repo, make_skill

CONFIG = "class Config:\n    def validate(self):\n        if self.tp < 2:\n            raise ValueError('tp')\n"
CARD = 'validated_on: "2026-01-15"\nvalidation_status:\n  notes:\n    - doc_only\n'
BODY = "The gate is at `config.py:3-4`; the class at `pkg/config.py:1`; nothing at `config.py:40-41`.\n"


def _lines(tmp_path: Path, capsys, later: str | None, write: bool = False) -> tuple[list, Path]:
    repo = make_code_repo(tmp_path / "code", {"pkg/config.py": CONFIG})
    if later is not None:
        repo.write("pkg/config.py", later)
        repo.commit("later", date="2026-02-01T00:00:00")
    skill = make_skill(tmp_path / "skill", BODY, card=CARD)
    main(["check", "--repo", str(repo.path), "--ref", "HEAD", "--format", "json", str(skill)])
    promises = json.loads(capsys.readouterr().out)["skills"][0]["promises"]
    if write:
        main(["fix", "--repo", str(repo.path), "--ref", "HEAD", "--write", str(skill)])
        capsys.readouterr()
    return [(p["path"], p["status"], p.get("detail", ""), p.get("heal")) for p in promises if p["kind"] == "lines"], skill


def test_lines_as_cited_on_the_validation_day_are_there(tmp_path: Path, capsys) -> None:
    said, _ = _lines(tmp_path, capsys, None)
    assert [s[:2] for s in said] == [("config.py:3-4", "exists"), ("pkg/config.py:1", "exists"),
                                     ("config.py:40-41", "unverifiable")]  # fmt: skip
    assert said[2][2].startswith("pkg/config.py had 4 lines on the validation day (")
    assert said[2][2].endswith("): the citation was stale on its own day")


def test_lines_that_moved_are_named_and_fix_rewrites_the_range(tmp_path: Path, capsys) -> None:
    said, skill = _lines(tmp_path, capsys, "import os\n\n" + CONFIG, write=True)
    assert said[0][:2] == ("config.py:3-4", "differs") and said[0][3] == "config.py:5-6"
    assert "moved to 5-6" in said[0][2]
    assert said[1][:2] == ("pkg/config.py:1", "differs") and said[1][3] == "pkg/config.py:3"
    text = (skill / "SKILL.md").read_text()
    assert "`config.py:5-6`" in text and "`pkg/config.py:3`" in text and "`config.py:40-41`" in text


def test_lines_whose_code_changed_or_went_are_said_so(tmp_path: Path, capsys) -> None:
    said, _ = _lines(tmp_path, capsys, CONFIG.replace("self.tp < 2", "self.tp < 4"))
    assert said[0][:2] == ("config.py:3-4", "differs") and "changed" in said[0][2] and said[0][3] is None
    said, _ = _lines(tmp_path / "again", capsys, "class Config:\n    pass\n")
    assert said[0][:2] == ("config.py:3-4", "differs") and "changed: the quoted code is not in the file" in said[0][2]


GATED = ("class Config:\n    def validate(self):\n        if self.tensor_parallel < 2:\n"
         "            raise ValueError('tp')\n        self.softmax_scale = 1\n")  # fmt: skip
CONSTRAINTS = ('validated_on: "2026-01-15"\nvalidation_status:\n  notes:\n    - doc_only\nknown_constraints:\n'
               "  - tensor_parallel must be 2 or more (config.py:3-4).\n"
               "  - tensor_parallel is checked at startup (MCore config.py:5).\n"
               "  - Softmax scaling is fixed (config.py:5).\n")  # fmt: skip


def test_a_card_sentences_line_citations_are_checked_and_must_name_what_the_sentence_names(
    tmp_path: Path, capsys
) -> None:
    repo = make_code_repo(tmp_path / "code", {"pkg/config.py": GATED, "tests/config.py": "x = 1\n"})
    skill = make_skill(tmp_path / "skill", "Notes.\n", card=CONSTRAINTS)
    main(["check", "--repo", str(repo.path), "--ref", "HEAD", "--format", "json", str(skill)])
    promises = json.loads(capsys.readouterr().out)["skills"][0]["promises"]
    lines = [(p["line"], p["path"], p["status"], p.get("detail", "")) for p in promises if p["kind"] == "lines"]
    assert all(p["file"].endswith("skill/card.yaml") for p in promises if p["kind"] == "lines")
    assert [line[:3] for line in lines] == [
        (6, "config.py:3-4", "exists"),  # names tensor_parallel; the test file of that name is passed over
        (7, "config.py:5", "unverifiable"),  # line 5 sets softmax_scale: nothing of tensor_parallel
        (8, "config.py:5", "exists"),  # "Softmax scaling": its telling words are there
    ]
    assert lines[1][3].startswith("pkg/config.py:5 named none of tensor_parallel on the validation day (")
    assert lines[1][3].endswith("): the citation was stale on its own day")
