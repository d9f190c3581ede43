"""``matrix --write-card`` and ``AA207``: the ranges written into card.yaml, then checked."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from anchor_audit.cli import main

from .conftest import ROOT
from .hostile.conftest import make_skill
from .releases import build_releases

CARD = (
    "# the planner skill's card\n"
    "validated_on: 2026-01-15   # read against v0.1.0\n"
    "validation_status:\n"
    "  gate:\n"
    "    - code_verified  # plan.py:3-6\n"
    "  planner:\n"
    "    - code_verified  # plan.py:1-2\n"
    "  notes:\n"
    "    - 'doc_only'\n"
    "evidence:\n"
    "  - pkg/plan.py\n"
)
NOTE = "  # anchor-audit matrix, releases v0.1.0 .. v0.3.0"


@pytest.fixture
def released(tmp_path: Path):
    repo, skill = build_releases(tmp_path)
    (skill / "card.yaml").write_text(CARD, encoding="utf-8")
    return repo, skill


def _matrix(repo, skill, capsys, *extra: str, code: int = 0) -> str:  # noqa: ANN001
    assert main(["matrix", str(skill), "--repo", str(repo.path), "--format", "json", "--write-card", *extra]) == code
    return capsys.readouterr().err


def test_the_range_goes_after_validated_on_the_rest_is_kept_and_a_doc_only_claim_gets_none(released, capsys) -> None:
    repo, skill = released
    err = _matrix(repo, skill, capsys)
    card = skill / "card.yaml"
    head, tail = CARD.split("validation_status:\n")
    assert card.read_text(encoding="utf-8") == (  # notes is doc_only: nothing checked it, no release to claim
        head + f"validated_versions:{NOTE}\n"
        '  gate: ">=0.1.0,<0.3.0"\n'
        '  planner: ">=0.1.0"\n'
        "validation_status:\n" + tail
    )
    assert f"{card}: validated_versions per claim: gate >=0.1.0,<0.3.0; planner >=0.1.0" in err
    before = card.read_bytes()
    assert "(as it was)" in _matrix(repo, skill, capsys)  # a second run writes the same bytes
    assert card.read_bytes() == before


def test_one_range_for_the_skill_when_all_agree_and_a_list_where_it_held_twice(released, capsys, tmp_path) -> None:
    repo, _ = released
    notes = make_skill(tmp_path / "notes-only", card="validation_status:\n  notes: [doc_only]\n")
    assert "no claim was checked at any release (doc_only or unlinked); nothing written" in _matrix(repo, notes, capsys)
    assert (notes / "card.yaml").read_text() == "validation_status:\n  notes: [doc_only]\n"
    twice = make_skill(tmp_path / "twice", card="validation_status:\n  gate: [code_verified]  # plan.py:3-6\n")
    _matrix(repo, twice, capsys, "--pre")
    said = (twice / "card.yaml").read_text().splitlines()[-1]
    assert said == 'validated_versions: [">=0.1.0,<0.3.0", ">=0.3.1rc1"]  # anchor-audit matrix, releases v0.1.0 .. v0.3.1rc1'


def test_an_old_range_is_replaced_and_crlf_and_the_bom_are_kept(released, capsys) -> None:
    repo, skill = released
    card = skill / "card.yaml"
    old = "validation_status:\n  gate:\n    - code_verified  # plan.py:3-6\nvalidated_versions: '>=0.0.1'  # old\nowner: me\n"
    card.write_bytes(b"\xef\xbb\xbf" + old.replace("\n", "\r\n").encode())
    _matrix(repo, skill, capsys)
    raw = card.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf") and b"\n" not in raw.replace(b"\r\n", b"")
    assert raw.decode("utf-8-sig").replace("\r\n", "\n") == (
        "validation_status:\n  gate:\n    - code_verified  # plan.py:3-6\n"
        f'validated_versions: ">=0.1.0,<0.3.0"{NOTE}\nowner: me\n'
    )


def test_a_card_it_cannot_edit_safely_is_refused_whole(released, capsys, tmp_path) -> None:
    repo, skill = released
    flow = make_skill(tmp_path / "flow", card="{validation_status: {gate: [code_verified]}}  # plan.py:3-6\n")
    before = (skill / "card.yaml").read_bytes()
    err = _matrix(repo, skill, capsys, str(flow), code=2)  # two skills: one card cannot be edited
    assert "cannot edit this YAML safely" in err and "Traceback" not in err
    assert (skill / "card.yaml").read_bytes() == before  # all cards or none
    assert main(["matrix", str(skill), "--repo", str(repo.path), "--in-repo", "--write-card"]) == 2


def _check(repo, skill, ref: str, capsys) -> dict:  # noqa: ANN001
    main(["check", str(skill), "--repo", str(repo.path), "--ref", ref, "--format", "json"])
    return json.loads(capsys.readouterr().out)


def _aa207(data: dict) -> list[dict]:
    return [f for s in data["skills"] for f in s["findings"] if f["code"] == "AA207"]


def test_check_says_when_the_card_claims_a_release_the_claim_is_broken_at(released, capsys) -> None:
    repo, skill = released
    card = skill / "card.yaml"
    card.write_text(CARD.replace("validation_status:", 'validated_versions:\n  gate: ">=0.1.0"\nvalidation_status:'))
    data = _check(repo, skill, "v0.3.0", capsys)
    (finding,) = _aa207(data)
    assert finding["message"] == "card.yaml says gate holds for >=0.1.0, but at v0.3.0 it is broken"
    assert (finding["file"].endswith("card.yaml"), finding["line"]) == (True, 4)
    (skill_json,) = data["skills"]
    assert skill_json["versions_contradicted"] == [
        {"claim": "gate", "validated_versions": [">=0.1.0"], "release": "v0.3.0", "verdict": "broken", "line": 4}
    ]
    schema = json.loads((ROOT / "src/anchor_audit/report/report.schema.json").read_text())
    jsonschema.validate(data, schema)
    assert not _aa207(_check(repo, skill, "v0.2.0", capsys))  # it holds there
    assert not _aa207(_check(repo, skill, "HEAD", capsys))  # not a version: nothing to compare
    _matrix(repo, skill, capsys)  # the card now says what the releases show
    assert not _aa207(_check(repo, skill, "v0.3.0", capsys))


def test_a_range_that_is_no_specifier_is_one_clear_error(released, capsys) -> None:
    repo, skill = released
    (skill / "card.yaml").write_text(CARD + "validated_versions:\n  gate: latest\n")
    assert main(["check", str(skill), "--repo", str(repo.path), "--ref", "v0.3.0"]) == 2
    err = capsys.readouterr().err
    assert err.endswith("card.yaml:13: validated_versions.gate: 'latest' is not a comparison like >=0.3.0\n"), err


def test_the_docs_card_is_what_write_card_writes(released, capsys) -> None:
    """docs/commands.md shows the middle of the card the first test writes: it is that text, line for line."""
    from .docpages import blocks

    repo, skill = released
    _matrix(repo, skill, capsys)
    (shown,) = [b for b in blocks(ROOT / "docs" / "commands.md") if b.language == "yaml" and b.marker and "write_card" in b.marker[1]]
    assert shown.text in (skill / "card.yaml").read_text(encoding="utf-8")


def test_a_claim_unlinked_at_every_release_gets_no_range_and_is_said_so(released, capsys, tmp_path) -> None:
    """Nothing checked it: no ``[]`` (a range of no release) written into the card, and the grid says why."""
    repo, _ = released
    skill = make_skill(tmp_path / "unlinked", card="validation_status:\n  wired: [code_verified]\n  notes: [doc_only]\n")
    assert "nothing written" in _matrix(repo, skill, capsys)  # wired unlinked, notes doc_only: nothing checked
    assert (skill / "card.yaml").read_text() == "validation_status:\n  wired: [code_verified]\n  notes: [doc_only]\n"
    assert main(["matrix", str(skill), "--repo", str(repo.path)]) == 0
    assert "  wired: unlinked at every release (no evidence checked it)\n" in capsys.readouterr().out
