"""Verdicts: how evidence, card.yaml and failures while checking combine."""

from __future__ import annotations

import shutil
from pathlib import Path

from anchor_audit.audit.skills import audit
from anchor_audit.findings import exit_code
from anchor_audit.model import AnchorStatus, ExitCode, Verdict
from anchor_audit.source.git import open_git
from anchor_audit.spec.registry import parse_spec
from anchor_audit.spec.skill import load_skill

from .conftest import DEMO, GitRepo


def demo_skill(tmp_path: Path, card: str | None = None) -> Path:
    target = tmp_path / "skills" / "demo-overlap"
    shutil.copytree(DEMO / "skills" / "demo-overlap", target)
    if card is not None:
        (target / "card.yaml").write_text(card)
    return target


def run(repo: GitRepo, skill_dir: Path, registry: str, ref: str = "v1"):
    spec = parse_spec(registry, skill_dir.parent.parent / "anchors.yaml")
    skill = load_skill(skill_dir)
    return audit([(skill, spec.skill(skill.name))], open_git(str(repo.path), ref), spec)


REGISTRY = """\
source: {repo: ., ref: v1}
skills:
  demo-overlap:
    claims:
"""


def claim(report, cid: str):
    return next(c for c in report.skills[0].claims if c.id == cid)


def test_registry_quote_that_skill_md_no_longer_has_is_a_finding(make_repo, tmp_path: Path) -> None:
    registry = REGISTRY + "      tp_gate:\n        quotes: [src/demo/overlap.py:30-38]\n"
    report = run(make_repo(), demo_skill(tmp_path), registry)
    verdict = claim(report, "tp_gate")
    assert verdict.verdict is Verdict.BROKEN
    (evidence,) = verdict.evidence
    assert (evidence.status, evidence.ok) == ("unresolved", False)
    assert evidence.detail == "SKILL.md has no quote with this range"


def test_doc_only_card_contradicted_by_holding_evidence(make_repo, tmp_path: Path) -> None:
    card = "validation_status:\n  dp_defaults: [doc_only]\n"
    registry = REGISTRY + "      dp_defaults:\n        quotes: [src/demo/overlap.py:55-57]\n"
    report = run(make_repo(), demo_skill(tmp_path, card), registry)
    verdict = claim(report, "dp_defaults")
    assert verdict.verdict is Verdict.CODE_VERIFIED
    assert verdict.mismatch == "card.yaml says doc_only, but the registered evidence holds"
    assert exit_code(report) is ExitCode.DRIFT


def test_registry_claim_missing_from_card_and_unknown_tags(make_repo, tmp_path: Path) -> None:
    card = "validation_status:\n  perf_notes: [doc_only, benchmarked]\n"
    registry = REGISTRY + "      dp_defaults:\n        quotes: [src/demo/overlap.py:55-57]\n"
    report = run(make_repo(), demo_skill(tmp_path, card), registry)
    assert [c.id for c in report.skills[0].claims] == ["perf_notes", "dp_defaults"]
    assert claim(report, "perf_notes").unknown_tags == ("benchmarked",)
    assert claim(report, "perf_notes").mismatch is None
    assert claim(report, "dp_defaults").mismatch == "card.yaml does not list this claim"


def test_unreadable_file_is_a_result_not_a_crash(make_repo, tmp_path: Path) -> None:
    repo = make_repo()
    (repo.path / "src/demo/launch.py").write_bytes(b"\x00\x01binary\x00")
    repo.write("src/demo/overlap.py", "class OverlapPlanner(:\n")  # does not parse
    repo.commit("break both files", tag="v2")
    registry = REGISTRY + (
        "      launch_env:\n        quotes: [src/demo/launch.py:10-13]\n"
        "      dp_defaults:\n        conditions:\n"
        "          - {path: src/demo/overlap.py, in: OverlapPlanner.optimizer_overlap, if: self.world.dp_size > 1}\n"
    )
    report = run(repo, demo_skill(tmp_path), registry, ref="v2")
    launch = report.skills[0].anchors[3]
    assert (launch.status, launch.detail) == (AnchorStatus.ERROR, "src/demo/launch.py is a binary file")
    assert claim(report, "launch_env").verdict is Verdict.UNVERIFIABLE
    dp = claim(report, "dp_defaults")
    assert dp.verdict is Verdict.UNVERIFIABLE and dp.evidence[0].status == "error"
    assert "does not parse" in dp.evidence[0].detail
    assert exit_code(report) is ExitCode.DRIFT  # could not check: never "fine"
