"""Known constraints decided by what else a gate reads: environment variables, and a gate that landed after the
card's validation day."""

from __future__ import annotations

import json
from pathlib import Path

from anchor_audit.checks.gates import compared_values
from anchor_audit.cli import main

from .hostile.conftest import commit_later, make_code_repo, make_skill

CAPTURE = '''\
import os


def capture(cfg):
    assert (
        "grow_pages:True" not in os.getenv("ALLOC_TUNING", "")
        or os.environ.get("GRAPH_PINNING", "") == "0"
    ), "pinning must be off while pages grow"
    if os.environ["SPILL_MODE"] == "eager" and cfg.spill_layers > 2:
        raise ValueError("eager spilling takes two layers at most")
'''
CARD = '''\
validated_on: "2026-01-15"
validation_status:
  gate:
    - doc_only
evidence:
  - pkg/capture.py
known_constraints:
  - With grow_pages, GRAPH_PINNING=0 required.
  - SPILL_MODE eager allows spill_layers at most 2.
  - With grow_pages, GRAPH_PINNING=1 required.
'''


def _constraints(tmp_path: Path, capsys, code: str, later: str | None = None) -> dict[str, dict]:
    repo = make_code_repo(tmp_path / "code", {"pkg/capture.py": code})
    if later is not None:
        commit_later(repo, {"pkg/capture.py": later})
    skill = make_skill(tmp_path / "skill", "Capture notes.\n", card=CARD)
    main(["check", "--repo", str(repo.path), "--ref", "HEAD", "--format", "json", str(skill)])
    (report,) = json.loads(capsys.readouterr().out)["skills"]
    return {p["path"]: p for p in report["promises"] if p["kind"] == "constraint"}


def test_an_environment_variable_a_gate_reads_is_a_setting_and_a_key_of_its_value_is_said(tmp_path, capsys) -> None:
    """``os.getenv("ALLOC_TUNING")`` and ``os.environ[...]`` read settings named by the variable; the string a gate
    looks for in one (``"grow_pages:True"``) gives the key a sentence names (``grow_pages``)."""
    said = _constraints(tmp_path, capsys, CAPTURE)
    pinning = said["With grow_pages, GRAPH_PINNING=0 required."]
    assert pinning["status"] == "holds", pinning
    assert pinning["detail"].startswith("decided by `'grow_pages:True' not in os.getenv('ALLOC_TUNING', '') or "
                                        "os.environ.get('GRAPH_PINNING', '') == '0'` (pkg/capture.py:5)")  # fmt: skip
    spill = said["SPILL_MODE eager allows spill_layers at most 2."]
    assert spill["status"] == "holds", spill
    assert "(pkg/capture.py:9)" in spill["detail"]
    assert said["With grow_pages, GRAPH_PINNING=1 required."]["status"] == "unverifiable"  # the gate states 0


def test_what_an_environment_read_is_compared_with() -> None:
    test = "'grow_pages:True' not in os.getenv('ALLOC_TUNING', '') and os.environ['MODE'] == 'eager'"
    assert compared_values(test) == {("ALLOC_TUNING", "grow_pages:True"), ("ALLOC_TUNING", "grow_pages"),
                                     ("MODE", "eager")}  # fmt: skip


def test_a_gate_that_landed_after_the_validation_day_decides_at_the_ref_and_says_when(tmp_path, capsys) -> None:
    """The card was validated before its code landed: no gate names the sentence on its day; at the ref one does,
    added by the later commit, which is named with its day."""
    before = "def capture(cfg):\n    return cfg\n"
    said = _constraints(tmp_path, capsys, before, later=CAPTURE)
    spill = said["SPILL_MODE eager allows spill_layers at most 2."]
    assert spill["status"] == "holds", spill
    assert "(pkg/capture.py:9)" in spill["detail"]
    assert "no gate named it on the validation day" in spill["detail"]
    assert "on 2026-02-01, after that day: the card was validated before its code landed" in spill["detail"]


def test_a_gate_there_on_the_validation_day_says_nothing_of_landing(tmp_path, capsys) -> None:
    said = _constraints(tmp_path, capsys, CAPTURE, later=CAPTURE + "\n\ndef more():\n    pass\n")
    spill = said["SPILL_MODE eager allows spill_layers at most 2."]
    assert spill["status"] == "holds" and "as on the validation day" in spill["detail"], spill
    assert "landed" not in spill["detail"]


def test_at_the_validation_day_a_gate_the_default_branch_adds_later_is_said_not_yet_there(tmp_path, capsys) -> None:
    """Audited at the card's own day (``--ref validated``), the gate that decides the sentence is not there yet:
    unverifiable, naming the gate at the default branch's head and the commit that wrote it."""
    repo = make_code_repo(tmp_path / "code", {"pkg/capture.py": "def capture(cfg):\n    return cfg\n"})
    commit_later(repo, {"pkg/capture.py": CAPTURE})
    skill = make_skill(tmp_path / "skill", "Capture notes.\n", card=CARD)
    main(["check", "--repo", str(repo.path), "--ref", "validated", "--format", "json", str(skill)])
    (report,) = json.loads(capsys.readouterr().out)["skills"]
    said = {p["path"]: p for p in report["promises"] if p["kind"] == "constraint"}
    spill = said["SPILL_MODE eager allows spill_layers at most 2."]
    assert spill["status"] == "unverifiable", spill
    assert spill["detail"].startswith("advice: no gate of the evidence names SPILL_MODE, spill_layers on the "
                                      "validation day")  # fmt: skip
    assert "not yet there: the default branch's `os.environ['SPILL_MODE'] == 'eager' and cfg.spill_layers > 2` " \
           "(pkg/capture.py:9) decides it, added in " in spill["detail"]  # fmt: skip
    assert spill["detail"].endswith("on 2026-02-01, after this commit")
    # a sentence no gate decides at the head either stays advice alone
    assert said["With grow_pages, GRAPH_PINNING=1 required."]["detail"].startswith("advice")


def test_a_gate_whose_file_moved_after_the_validation_day_did_not_land_then(tmp_path, capsys) -> None:
    """The card names the file where it lies now; on its day the same gate sat in the file's old place. The move's
    commit wrote the line at the new path, but the code was there: no landing is said, nor a verdict."""
    repo = make_code_repo(tmp_path / "code", {"pkg/old_capture.py": CAPTURE})
    commit_later(repo, {"pkg/old_capture.py": None, "pkg/capture.py": CAPTURE})
    skill = make_skill(tmp_path / "skill", "Capture notes.\n", card=CARD)
    main(["check", "--repo", str(repo.path), "--ref", "HEAD", "--format", "json", str(skill)])
    (report,) = json.loads(capsys.readouterr().out)["skills"]
    spill = next(p for p in report["promises"] if p["path"] == "SPILL_MODE eager allows spill_layers at most 2.")
    assert spill["status"] == "unverifiable", spill
    assert "landed" not in spill["detail"] and spill["detail"].endswith("decides it: re-verify"), spill
