"""Card-comment anchors: card.yaml comments tie claims to code, checked without any anchors.yaml entry."""

from __future__ import annotations

import json
from pathlib import Path

from anchor_audit.cli import main
from anchor_audit.spec.card import card_anchors

from .hostile.conftest import CODE, QUOTE, commit_later, make_code_repo, make_skill

CARD = """\
validated_on: "2026-01-10"
validation_status:
  gate:
    - code_verified  # plan.py:3-6
  returns_cfg:
    - code_verified  # plan.py:7
  plan_signature:
    - code_verified  # pkg/plan.py:2
  twice:
    - code_verified  # util.py:1
  mcore:
    - code_verified  # MCore plan.py:1
"""


def test_comments_name_files_and_ranges() -> None:
    text = "a:\n  - code_verified  # train.py:231-255, 338-350\n  - doc_only  # MCore transformer_config.py:1928-1931\n"
    (first,) = card_anchors(text, 2)
    assert (first.file, [str(r) for r in first.ranges], first.prefix) == ("train.py", ["231-255", "338-350"], "")
    (second,) = card_anchors(text, 3)
    assert (second.file, second.prefix) == ("transformer_config.py", "MCore")
    assert card_anchors('"x # y.py:1": [code_verified]\n', 1) == ()  # the # in a quoted key is no comment


def test_card_comments_link_claims_to_quotes_and_bare_ranges(tmp_path: Path, capsys) -> None:
    repo = make_code_repo(tmp_path / "code", {"a/util.py": "x = 1\n", "b/util.py": "y = 2\n"})  # 2026-01-01
    changed = "import os\n" + CODE.replace("def plan(self, cfg):", "def plan(self, cfg, env):")
    repo.write("pkg/plan.py", changed)
    repo.commit("plan takes env", date="2026-02-01T00:00:00")
    skill = make_skill(tmp_path / "skill", QUOTE, card=CARD)
    code = main(["check", "--repo", str(repo.path), "--ref", "HEAD", "--format", "json", str(skill)])
    data = json.loads(capsys.readouterr().out)
    assert code == 1
    (report,) = data["skills"]
    claims = {c["id"]: c for c in report["claims"]}
    # Covered by the SKILL.md quote 3:6, which moved one line down: found, so the claim holds.
    assert claims["gate"]["verdict"] == "code_verified"
    assert [e["ref"] for e in claims["gate"]["evidence"]] == ["pkg/plan.py:3-6"]
    # No quote covers line 7: the code there on validated_on ("return cfg") is found at line 8 now.
    assert claims["returns_cfg"]["verdict"] == "code_verified"
    assert claims["returns_cfg"]["evidence"][0]["location"] == "pkg/plan.py:8-8"
    # The claim holds, and the comment's range is said to be stale: never a silent pass.
    (said,) = [f for f in report["findings"] if f["code"] == "AA412"]
    assert said["message"] == ("claim returns_cfg: card.yaml cites pkg/plan.py:7-7; the code it cited on the "
                               "validation day is at pkg/plan.py:8-8 now")
    # The signature line changed since the card was validated: the function is there with other parameters, which
    # may or may not change what the claim says (a text that drifted never breaks a claim by itself).
    assert claims["plan_signature"]["verdict"] == "unverifiable"
    assert "defined with other parameters at the ref" in claims["plan_signature"]["evidence"][0]["detail"]
    # util.py names two files: the pointer is not followed (unverifiable), and a note names them.
    assert claims["twice"]["verdict"] == "unverifiable"
    assert any("util.py names 2 files here (a/util.py, b/util.py)" in n for n in report["notes"])
    # "MCore plan.py" is no file under megatron/core/ here.
    assert claims["mcore"]["evidence"][0]["status"] == "unverifiable"


def test_an_anchors_yaml_entry_wins_over_card_comments(tmp_path: Path, capsys) -> None:
    repo = make_code_repo(tmp_path / "code")
    skill = make_skill(tmp_path / "skill", QUOTE, card=CARD)
    spec = tmp_path / "anchors.yaml"
    spec.write_text(f"version: 1\nsource: {{repo: {repo.path}, ref: v1}}\nskills:\n  skill:\n    path: {skill}\n"
                    "    claims:\n      plan_signature:\n        conditions:\n"
                    "          - {path: pkg/plan.py, in: Planner, has: ['x = 1']}\n")  # fmt: skip
    main(["check", "--spec", str(spec), "--format", "json"])
    claims = {c["id"]: c for c in json.loads(capsys.readouterr().out)["skills"][0]["claims"]}
    assert [e["kind"] for e in claims["plan_signature"]["evidence"]] == ["condition"]  # the registry's, not the card's
    assert claims["gate"]["verdict"] == "code_verified"  # the others are still linked by their comments


def test_a_card_comment_whose_lines_named_nothing_of_the_claim_on_its_day_is_stale(tmp_path: Path, capsys) -> None:
    """On the card's validation day line 7 was ``return cfg``: nothing of ``overlap_needs_tp``; the comment was
    stale on its own day, so its lines holding at the ref prove nothing (unverifiable, and AA208 says why)."""
    repo = make_code_repo(tmp_path / "code")
    card = 'validated_on: "2026-01-10"\nvalidation_status:\n  overlap_needs_tp:\n    - code_verified  # plan.py:7\n'
    skill = make_skill(tmp_path / "skill", QUOTE, card=card)
    code = main(["check", "--repo", str(repo.path), "--ref", "HEAD", "--format", "json", str(skill)])
    (report,) = json.loads(capsys.readouterr().out)["skills"]
    (claim,) = report["claims"]
    assert code == 1 and claim["verdict"] == "unverifiable"
    (evidence,) = claim["evidence"]
    assert evidence["stale_on_validation_day"].startswith("card.yaml:4: pkg/plan.py:7-7 on the validation day (")
    assert evidence["stale_on_validation_day"].endswith("names nothing of overlap_needs_tp")
    assert [f["code"] for f in report["findings"] if f["code"] == "AA208"] == ["AA208"]


def test_a_card_comment_counts_where_its_lines_name_the_claim_by_an_abbreviation(tmp_path: Path, capsys) -> None:
    """``tp`` in the claim's id is ``tensor_model_parallel_size`` in the code (the constraints' table)."""
    repo = make_code_repo(tmp_path / "code", {"pkg/gate.py": "def f(c):\n    if c.tensor_model_parallel_size < 2:\n"
                                                              "        raise ValueError('no')\n"})  # fmt: skip
    card = 'validated_on: "2026-01-10"\nvalidation_status:\n  tp_floor:\n    - code_verified  # gate.py:2-3\n'
    skill = make_skill(tmp_path / "skill", QUOTE, card=card)
    main(["check", "--repo", str(repo.path), "--ref", "HEAD", "--format", "json", str(skill)])
    (report,) = json.loads(capsys.readouterr().out)["skills"]
    assert [c["verdict"] for c in report["claims"]] == ["code_verified"]


LIMITS = '''\
def check(cfg):
    width = cfg.width

    if cfg.use_ring and cfg.use_star:
        raise ValueError("ring and star exchanges exclude each other")
    return width
'''
STALE_CARD = 'validated_on: "2026-01-10"\nvalidation_status:\n  ring_star_exclusion:\n    - code_verified  # limits.py:2\n'


def test_a_claim_whose_card_comment_was_stale_is_decided_by_the_validations_its_id_names_in_that_file(
    tmp_path: Path, capsys
) -> None:
    """Line 2 named nothing of ``ring_star_exclusion`` on the card's day: no evidence, said by AA208.  The
    validation of the file it points into that names ``ring`` and ``star`` decides the claim instead."""
    repo = make_code_repo(tmp_path / "code", {"pkg/limits.py": LIMITS})
    skill = make_skill(tmp_path / "skill", QUOTE, card=STALE_CARD)
    main(["check", "--repo", str(repo.path), "--ref", "HEAD", "--format", "json", str(skill)])
    (report,) = json.loads(capsys.readouterr().out)["skills"]
    (claim,) = report["claims"]
    assert claim["verdict"] == "code_verified", claim
    stale, gate = claim["evidence"]
    assert stale["stale_on_validation_day"].startswith("card.yaml:4: pkg/limits.py:2-2 on the validation day")
    assert gate["kind"] == "condition" and "`cfg.use_ring and cfg.use_star` (pkg/limits.py:4)" in gate["detail"]
    assert [f["code"] for f in report["findings"] if f["code"] == "AA208"] == ["AA208"]


def test_a_stale_card_comments_claim_is_broken_when_the_validation_its_id_names_is_gone(tmp_path: Path, capsys) -> None:
    repo = make_code_repo(tmp_path / "code", {"pkg/limits.py": LIMITS})
    commit_later(repo, {"pkg/limits.py": LIMITS.replace("    if cfg.use_ring and cfg.use_star:\n", "").replace(
        '        raise ValueError("ring and star exchanges exclude each other")\n', "")})
    skill = make_skill(tmp_path / "skill", QUOTE, card=STALE_CARD)
    main(["check", "--repo", str(repo.path), "--ref", "HEAD", "--format", "json", str(skill)])
    (claim,) = json.loads(capsys.readouterr().out)["skills"][0]["claims"]
    assert claim["verdict"] == "broken", claim
    assert "no validation names ring, star at the ref" in claim["evidence"][1]["detail"]
