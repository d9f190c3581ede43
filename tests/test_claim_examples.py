"""A claim nothing else links, decided by the SKILL.md example its caption names: the settings it sets, the values
it gives them and the functions it calls, from the card's validation day to the ref."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from anchor_audit.cli import main

from .hostile.conftest import commit_later, make_code_repo, make_skill

CONFIG = """\
class ModelConfig:
    replay_mode: str = None
    replay_depth: int = 1

    def check(self):
        if self.replay_mode not in ("whole", "partial"):
            raise ValueError("unknown replay mode")
"""
ROUTER = """\
def pick_router(model, backend="plain"):
    if backend == "fastlane":
        model.router = "fast"
    return model
"""
CARD = ('validated_on: "2026-01-15"\nevidence:\n  - pkg/config.py\n'
        "validation_status:\n  partial_replay_setup:\n    - code_verified\n")  # fmt: skip
EXAMPLE = """\
# Replay

## Partial replay

```python
from pkg.routing import pick_router

cfg.model.replay_mode = "partial"
cfg.model.replay_depth = 2
pick_router(cfg.model, backend="fastlane")
```
"""


def _claim(tmp_path: Path, capsys, later: dict[str, str | None] | None = None, body: str = EXAMPLE,
           first: dict[str, str] | None = None) -> dict:  # fmt: skip
    """The claim's verdict at the ref, after a later commit writes (or, for None, removes) files."""
    files = {"pkg/config.py": CONFIG, "pkg/routing.py": ROUTER} if first is None else first
    repo = make_code_repo(tmp_path / "code", files)
    if later is not None:
        commit_later(repo, later)
    skill = make_skill(tmp_path / "skill", body, card=CARD)
    main(["check", "--repo", str(repo.path), "--ref", "HEAD", "--format", "json", str(skill)])
    (claim,) = json.loads(capsys.readouterr().out)["skills"][0]["claims"]
    return claim


def _by_ref(claim: dict) -> dict[str, dict]:
    assert {e["kind"] for e in claim["evidence"]} == {"example"}
    return {e["ref"]: e for e in claim["evidence"]}


def test_what_the_captioned_example_sets_and_calls_is_the_claims_evidence(tmp_path: Path, capsys) -> None:
    claim = _claim(tmp_path, capsys)
    assert claim["verdict"] == "code_verified"
    facts = _by_ref(claim)
    assert set(facts) == {
        "replay_mode", 'replay_mode = "partial"', "replay_depth",
        "pkg.routing:pick_router", "pick_router(backend=)", 'pick_router(backend="fastlane")',
    }  # fmt: skip
    assert "ModelConfig.replay_mode (pkg/config.py)" in facts["replay_mode"]["detail"]
    assert "on the validation day (" in facts["replay_mode"]["detail"]
    assert "pkg/config.py:6" in facts['replay_mode = "partial"']["detail"]
    assert "pkg/routing.py:2" in facts['pick_router(backend="fastlane")']["detail"]


@pytest.mark.parametrize(
    ("later", "ref", "verdict", "said"),
    [
        ({"pkg/config.py": CONFIG.replace("    replay_depth: int = 1\n", "")}, "replay_depth", "broken",
         "at the ref: named by no Python file"),
        ({"pkg/config.py": CONFIG.replace("    replay_depth: int = 1\n", ""),
          "pkg/train.py": "def run(cfg):\n    return cfg.replay_depth\n"}, "replay_depth", "unverifiable",
         "at the ref: named by 1 Python file, defined by no class of the files read"),
        ({"pkg/config.py": CONFIG.replace('"whole", "partial"', '"whole", "halves"')}, 'replay_mode = "partial"',
         "unverifiable", 'at the ref: no gate compares replay_mode with "partial"'),
        ({"pkg/routing.py": ROUTER.replace('backend="plain"', 'engine="plain"').replace("if backend", "if engine")},
         "pick_router(backend=)", "broken", "has no parameter backend"),
        ({"pkg/routing.py": None}, "pkg.routing:pick_router", "broken", "at the ref: no module pkg.routing in this repository's package pkg"),
    ],
    ids=["field-gone", "field-named-not-defined", "value-no-longer-compared", "keyword-gone", "module-gone"],
)  # fmt: skip
def test_a_fact_of_the_example_that_changed_decides_the_claim(tmp_path, capsys, later, ref, verdict, said) -> None:
    claim = _claim(tmp_path, capsys, later)
    assert claim["verdict"] == verdict
    fact = _by_ref(claim)[ref]
    assert not fact["ok"]
    assert said in fact["detail"]


def test_an_example_whose_settings_landed_after_the_validation_day_is_no_evidence(tmp_path, capsys) -> None:
    claim = _claim(tmp_path, capsys, {"pkg/config.py": CONFIG}, first={"pkg/other.py": "x = 1\n"})
    assert claim["verdict"] == "unverifiable"
    (fact,) = claim["evidence"]
    assert fact["kind"] == "example"
    assert "not there on the validation day" in fact["detail"]
    assert "the card was validated before its code landed" in fact["detail"]


@pytest.mark.parametrize(
    "body",
    [
        EXAMPLE.replace("## Partial replay", "## Getting started"),
        EXAMPLE.replace("from pkg.routing import pick_router\n\n", "").replace(
            'cfg.model.replay_mode = "partial"\ncfg.model.replay_depth = 2\npick_router(cfg.model, backend="fastlane")',
            "depth = 2\nprint(depth)"),
    ],
    ids=["caption-names-another-thing", "example-sets-and-calls-nothing"],
)  # fmt: skip
def test_an_example_that_does_not_name_the_claim_or_says_nothing_leaves_it_unlinked(tmp_path, capsys, body) -> None:
    assert _claim(tmp_path, capsys, body=body)["verdict"] == "unlinked"


def test_a_quote_under_the_same_caption_is_the_evidence_before_the_example(tmp_path: Path, capsys) -> None:
    body = EXAMPLE + "\n## Partial replay check\n\n```5:7:pkg/config.py\n" + CONFIG.split("\n", 4)[4].rstrip() + "\n```\n"
    claim = _claim(tmp_path, capsys, body=body)
    assert [e["kind"] for e in claim["evidence"]] == ["quote"]


SPOKEN = """\
# Replay

## Partial replay

Setting the depth alone does not replay anything.
You must also set `replay_mode = "partial"`, and keep `replay_depth` small.
"""


@pytest.mark.parametrize(
    ("later", "verdict"),
    [
        (None, "code_verified"),
        ({"pkg/config.py": CONFIG.replace('"whole", "partial"', '"whole", "halves"')}, "unverifiable"),
    ],
    ids=["still-compared", "no-longer-compared"],
)  # fmt: skip
def test_a_setting_a_sentence_writes_as_code_is_the_example_where_no_fence_is(tmp_path, capsys, later, verdict) -> None:
    """`` `replay_mode = "partial"` `` in a sentence under the caption naming the claim: a name alone is the setting
    there, and the word it gives is one a gate must compare it with, on the validation day and at the ref."""
    claim = _claim(tmp_path, capsys, later, body=SPOKEN)
    assert claim["verdict"] == verdict
    fact = _by_ref(claim)['replay_mode = "partial"']
    assert fact["ok"] is (verdict == "code_verified")
    assert ('no gate compares replay_mode with "partial"' in fact["detail"]) is (verdict != "code_verified")


def test_a_fence_the_caption_names_is_the_example_before_a_setting_in_a_sentence(tmp_path: Path, capsys) -> None:
    body = EXAMPLE + "\n## Partial replay, in words\n\nSet `replay_mode = \"whole\"` to turn it off.\n"
    facts = _by_ref(_claim(tmp_path, capsys, body=body))
    assert 'replay_mode = "partial"' in facts and 'replay_mode = "whole"' not in facts
