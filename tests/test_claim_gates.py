"""A claim nothing links, decided by the validations its id names, from the card's validation day to the ref."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from anchor_audit.checks.claimgates import telling
from anchor_audit.cli import main

from .hostile.conftest import make_code_repo, make_skill

OFFLOAD = """\
class Config:
    def validate(self):
        if self.cpu_offloading and self.pipeline_model_parallel_size > 1:
            raise ValueError("offloading needs one pipeline stage")
        if self.cpu_offloading:
            self.offload_layers = 1
"""
CARD = ('validated_on: "2026-01-15"\nevidence:\n  - pkg/config.py\nvalidation_status:\n'
        "  cpu_offloading_pp_incompatibility:\n    - code_verified\n")  # fmt: skip
BODY = "Nothing here links the claim.\n"


def _verdict(tmp_path: Path, capsys, later: str | None, card: str = CARD, path: str = "pkg/config.py",
             code: str = OFFLOAD) -> dict:  # fmt: skip
    """The one claim's verdict at the ref, the file at ``path`` written ``code`` before the card's validation day
    and ``later`` (where given) after it."""
    repo = make_code_repo(tmp_path / "code", {path: code})
    if later is not None:
        repo.write(path, later)
        repo.commit("later", date="2026-02-01T00:00:00")
    skill = make_skill(tmp_path / "skill", BODY, card=card)
    main(["check", "--repo", str(repo.path), "--ref", "HEAD", "--format", "json", str(skill)])
    (claim,) = json.loads(capsys.readouterr().out)["skills"][0]["claims"]
    return claim


def test_a_claims_telling_words_leave_out_what_kind_of_claim_it_is() -> None:
    assert telling("cpu_offloading_pp_incompatibility") == {"cpu", "offloading", "pp"}
    assert telling("optimizer_offload_config_fields") == {"optimizer", "offload"}
    assert telling("upstream_cpu_offloading_core") == {"cpu", "offloading"}  # where it is, not what


def test_one_test_written_twice_in_a_file_is_one_validation(tmp_path: Path, capsys) -> None:
    twice = OFFLOAD + """
    def validate_again(self):
        if self.cpu_offloading and self.pipeline_model_parallel_size > 1:
            raise ValueError("still one pipeline stage")
"""
    repo = make_code_repo(tmp_path / "code", {"pkg/config.py": twice})
    skill = make_skill(tmp_path / "skill", BODY, card=CARD)
    main(["check", "--repo", str(repo.path), "--ref", "HEAD", "--format", "json", str(skill)])
    (claim,) = json.loads(capsys.readouterr().out)["skills"][0]["claims"]
    assert claim["verdict"] == "code_verified"
    assert [e["detail"].rsplit("(", 1)[-1] for e in claim["evidence"]] == ["pkg/config.py:3)"]


@pytest.mark.parametrize(
    ("later", "verdict", "said"),
    [
        (None, "code_verified", "a validation the claim's id names, on the validation day ("),
        ("# moved down\n" + OFFLOAD, "code_verified", "(pkg/config.py:4)"),
        (OFFLOAD.replace("size > 1", "size > 2"), "broken", "at the ref the validation is `self.cpu_offloading"),
        (OFFLOAD.replace('raise ValueError("offloading needs one pipeline stage")', "pass"), "broken",
         "no validation names cpu, offloading, pp at the ref"),
        (OFFLOAD.replace("if self.cpu_offloading and self.pipeline_model_parallel_size > 1:",
                         "if self.pipeline_model_parallel_size > 1 and self.cpu_offloading and self.strict:"),
         "unverifiable", "names the same: re-verify"),
    ],
    ids=["same", "moved", "other-constant", "gone", "rewritten"],
)  # fmt: skip
def test_a_claim_is_decided_by_the_validation_its_id_names(tmp_path: Path, capsys, later, verdict, said) -> None:
    claim = _verdict(tmp_path, capsys, later)
    assert claim["verdict"] == verdict
    assert [e["kind"] for e in claim["evidence"]] == ["condition"]  # the if that raises; not the one that sets
    assert said in claim["evidence"][0]["detail"]


def test_without_a_validation_day_a_claims_id_decides_nothing(tmp_path: Path, capsys) -> None:
    claim = _verdict(tmp_path, capsys, None, CARD.replace('validated_on: "2026-01-15"\n', ""))
    assert claim["verdict"] == "unlinked"


def test_a_claim_whose_words_name_too_many_validations_gets_none(tmp_path: Path, capsys) -> None:
    many = OFFLOAD + "".join(f"        assert self.cpu_offloading or self.pipeline_model_parallel_size > {n}\n"
                             for n in range(4))  # fmt: skip
    repo = make_code_repo(tmp_path / "code", {"pkg/config.py": many})
    skill = make_skill(tmp_path / "skill", BODY, card=CARD)
    main(["check", "--repo", str(repo.path), "--ref", "HEAD", "--format", "json", str(skill)])
    (claim,) = json.loads(capsys.readouterr().out)["skills"][0]["claims"]
    assert claim["verdict"] == "unlinked"  # five validations name its words: too vague to be decided by them


BACKENDS = """\
def check_backend(cfg, gpu):
    if cfg.dispatcher == "flex":
        if cfg.backend == "ringex":
            if gpu.major < 8:
                raise ValueError("RingEx needs Ampere or newer")
        if cfg.backend == "meshex":
            if gpu.major not in (9, 10):
                raise ValueError("MeshEx needs Hopper or Blackwell")
"""
BACKEND_CARD = ('validated_on: "2026-01-15"\nevidence:\n  - pkg/backend.py\nvalidation_status:\n'
                "  ringex_meshex_helper_behavior:\n    - code_verified\n")  # fmt: skip


@pytest.mark.parametrize(
    ("later", "verdict", "said"),
    [
        (None, "code_verified", "meshex"),
        (BACKENDS.replace("gpu.major < 8", "gpu.major < 9"), "broken", "at the ref the validation is"),
        (BACKENDS.split('        if cfg.backend == "meshex"')[0], "broken", "no validation names meshex at the ref"),
    ],
    ids=["same", "other-constant", "one-value-gone"],
)  # fmt: skip
def test_a_claim_naming_values_of_one_setting_is_decided_by_the_validations_of_each(
    tmp_path: Path, capsys, later, verdict, said
) -> None:
    """No one validation names both words of ``ringex_meshex_helper_behavior``; the file's validations of the
    setting they are values of (``backend == "ringex"``, ``backend == "meshex"``) do, one each."""
    claim = _verdict(tmp_path, capsys, later, BACKEND_CARD, "pkg/backend.py", BACKENDS)
    assert claim["verdict"] == verdict
    assert [e["kind"] for e in claim["evidence"]] == ["condition", "condition"]
    assert "ringex" in claim["evidence"][0]["ref"] and "meshex" in claim["evidence"][1]["ref"]
    assert any(said in e["detail"] for e in claim["evidence"])


def test_values_of_two_settings_do_not_decide_a_claim_together(tmp_path: Path, capsys) -> None:
    two = BACKENDS.replace('cfg.backend == "meshex"', 'cfg.fallback == "meshex"')
    assert _verdict(tmp_path, capsys, None, BACKEND_CARD, "pkg/backend.py", two)["verdict"] == "unlinked"


def test_one_validation_comparing_a_setting_with_both_values_is_the_claims_evidence_once(tmp_path, capsys) -> None:
    """(Five validations of ``ringex_meshex_*`` limits name both words too: too many to decide it by.)"""
    limits = "".join(f"    assert cfg.ringex_meshex_limit_{n} > {n}\n" for n in range(5))
    both = ('def check_backend(cfg):\n    if cfg.backend in ("ringex", "meshex") and cfg.world < 2:\n'
            '        raise ValueError("either needs two ranks")\n' + limits)  # fmt: skip
    claim = _verdict(tmp_path, capsys, None, BACKEND_CARD, "pkg/backend.py", both)
    assert claim["verdict"] == "code_verified"
    (evidence,) = claim["evidence"]
    assert "ringex" in evidence["ref"] and "meshex" in evidence["ref"]
