"""Claims linked to SKILL.md's quotes by the heading and lead-in the author wrote above each fence."""

from __future__ import annotations

import json
from pathlib import Path

from anchor_audit.checks.captions import captioned, mentions, words
from anchor_audit.checks.claimquotes import named_by_code
from anchor_audit.checks.sentencewords import ABBREVIATIONS
from anchor_audit.cli import main
from anchor_audit.model import LineRange, Quote
from anchor_audit.spec.skill import parse_skill_md

from .hostile.conftest import QUOTE, make_code_repo, make_skill


def _quote(caption: str, line: int = 1) -> Quote:
    return Quote("pkg/plan.py", LineRange(line, line), ("x = 1",), line, caption)


def test_the_caption_is_the_nearest_heading_and_the_last_paragraph_above_the_fence_not_the_title() -> None:
    text = ("# Page title\n\n## Gates\n\nIntro.\n\nTP overlap gating:\n\n```1:1:a.py\nx\n```\n\n"
            "Next one:\n\n```2:2:a.py\ny\n```\n\n1. In a list:\n\n   ```3:3:a.py\n   z\n   ```\n\n"
            "```4:4:a.py\nw\n```\n")  # fmt: skip
    assert [q.caption for q in parse_skill_md(text)] == [
        "Gates TP overlap gating:",
        "Gates Next one:",
        "Gates In a list:",
        "Gates",  # another fence stands between it and the paragraph: that paragraph is the other fence's
    ]


def test_words_are_split_at_underscores_dashes_and_case_and_plurals_are_one() -> None:
    assert words("dp_overlap_defaults") == {"dp", "overlap", "default"}
    assert words("Data-parallel DEFAULTS of the ConfigLoader") == {
        "data", "parallel", "default", "config", "loader", "configloader"}  # fmt: skip


def test_a_word_written_in_mixed_case_is_also_one_word() -> None:
    assert words("flex dispatcher (DeepEP or HybridEP)") == {
        "flex", "dispatcher", "deep", "ep", "deepep", "hybrid", "hybridep"}  # fmt: skip
    assert captioned("deepep_hybridep_helper_behavior", [_quote("flex dispatcher (DeepEP or HybridEP)", 1)])


def test_a_claim_is_linked_to_the_quotes_under_its_best_caption_only() -> None:
    gating, pp, dp = _quote("Bridge overlap gating:", 1), _quote("PP overlap selection:", 2), _quote("DP overlap", 3)
    assert captioned("tp_overlap_gating", [gating, pp, dp]) == (gating,)  # overlap + gating beats overlap alone
    assert captioned("pp_overlap_auto_selection", [gating, pp, dp]) == (pp,)
    assert captioned("launch_env_wiring", [gating, pp, dp]) == ()  # nothing shared
    assert captioned("overlap_gating", [_quote("overlap gating", 1), _quote("gating overlap!", 2)]) == ()  # a tie
    twins = [_quote("Delayed wgrad validation", 1), _quote("Delayed wgrad validation", 2)]
    assert captioned("delayed_wgrad_validation", twins) == tuple(twins)  # every quote under one caption
    assert captioned("dp_defaults", [_quote("Data-parallel defaults:")]) != ()  # dp spelt out
    assert captioned("dp_defaults", [_quote("Optimizer defaults:")]) == ()  # one word of two is too few
    wiring = _quote("Initialization wires parallelism into process groups:")
    assert captioned("combined_parallelism_init", [wiring]) == (wiring,)  # "init" said by its longer form
    assert captioned("tp_init", [_quote("TP setup:")]) == ()  # a short word has no longer form: one of two


def test_a_caption_saying_what_the_claim_is_about_beats_one_saying_words_any_claim_may_say() -> None:
    options, limits = _quote("Shard loader options", 1), _quote("Shard runtime limits", 2)
    assert captioned("offline_shard_loader_runtime", [options, limits]) == (options,)  # shard + loader beats shard
    gate, tuning = _quote("Cache eviction validation", 1), _quote("Cache eviction tuning", 2)
    assert captioned("cache_eviction_validation", [gate, tuning]) == (gate,)  # equals on cache + eviction


def test_lines_mention_a_claim_by_a_telling_word_a_longer_form_or_an_abbreviation() -> None:
    assert mentions("activation_offload_pp_constraint", "if self.cpu_offloading and pp > 1:", ABBREVIATIONS)
    assert mentions("tp_floor", "if c.tensor_model_parallel_size < 2:", ABBREVIATIONS)
    assert not mentions("cpu_offloading_incompatible", "if self.softmax_scale is None:", ABBREVIATIONS)
    assert not mentions("router_constraint_validation", "raise ValueError('constraint validation')", {})


def test_a_claim_linked_by_its_caption_is_judged_by_that_quote_and_says_how_it_was_linked(
    tmp_path: Path, capsys
) -> None:
    claim = _held_then_broken(tmp_path, capsys, "overlap_gate", "## The overlap gate\n\nOverlap only with TP:\n\n")
    assert claim["evidence"][0]["detail"].startswith("linked by the caption 'The overlap gate Overlap only with TP:': ")


def _held_then_broken(tmp_path: Path, capsys, claim_id: str, above: str) -> dict:
    """A skill whose one quote (under ``above``) is its only evidence for ``claim_id``: the claim holds at v1, and
    is broken once the gate's constant changes after the card's day; the broken claim."""
    repo = make_code_repo(tmp_path / "code")
    card = f'validated_on: "2026-01-10"\nvalidation_status:\n  {claim_id}:\n    - code_verified\n'
    skill = make_skill(tmp_path / "skill", above + QUOTE, card=card)
    assert main(["check", "--repo", str(repo.path), "--ref", "v1", "--format", "json", str(skill)]) == 0
    (claim,) = json.loads(capsys.readouterr().out)["skills"][0]["claims"]
    assert (claim["verdict"], [e["ref"] for e in claim["evidence"]]) == ("code_verified", ["pkg/plan.py:3-6"])
    repo.edit("pkg/plan.py", "cfg.tp > 1", "cfg.tp > 4")
    repo.commit("tp > 4", date="2026-02-01T00:00:00")
    assert main(["check", "--repo", str(repo.path), "--ref", "HEAD", "--format", "json", str(skill)]) == 1
    (claim,) = json.loads(capsys.readouterr().out)["skills"][0]["claims"]
    assert claim["verdict"] == "broken"
    return claim


def test_a_doc_only_claim_is_never_linked_by_a_caption(tmp_path: Path, capsys) -> None:
    repo = make_code_repo(tmp_path / "code")
    card = 'validated_on: "2026-01-10"\nvalidation_status:\n  overlap_gate:\n    - doc_only\n'
    skill = make_skill(tmp_path / "skill", "## The overlap gate\n\n" + QUOTE, card=card)
    main(["check", "--repo", str(repo.path), "--ref", "v1", "--format", "json", str(skill)])
    (claim,) = json.loads(capsys.readouterr().out)["skills"][0]["claims"]
    assert (claim["verdict"], claim["evidence"]) == ("doc_only", [])


def _code(body: str, line: int = 1) -> Quote:
    return Quote("pkg/init.py", LineRange(line, line), tuple(body.split("\n")), line, "")


def test_a_claim_no_caption_links_is_linked_to_the_quotes_whose_code_names_every_telling_word() -> None:
    wiring = _code("init_groups(\n    tensor_model_parallel_size=cfg.tensor_model_parallel_size,\n"
                   "    expert_model_parallel_size=cfg.expert_model_parallel_size,\n)", 1)
    packing = _code("if cfg.context_parallel_size > 1 and cfg.enable_offline_packing:\n    raise ValueError", 2)
    assert named_by_code("ep_expert_groups", [wiring, packing]) == (wiring,)  # ep, expert, groups
    assert named_by_code("cp_packing_checks", [wiring, packing]) == (packing,)  # "packing", "cp"
    assert named_by_code("tp_setting_runtime", [wiring, packing]) == (wiring,)  # one abbreviation: one setting
    assert named_by_code("pp_interleaved_order", [wiring, packing]) == ()  # nothing says "interleaved"
    assert named_by_code("offload_runtime", [wiring, packing]) == ()  # one word, no abbreviation: too little
    many = [_code("cfg.expert_model_parallel_size = 2", n) for n in range(4)]
    assert named_by_code("ep_expert_groups", many) == ()  # four quotes name it: which one is a guess


def test_a_claim_linked_by_what_its_quotes_code_names_is_judged_by_that_quote_and_says_how(
    tmp_path: Path, capsys
) -> None:
    claim = _held_then_broken(tmp_path, capsys, "tp_overlap", "## Plan\n\nSee below:\n\n")
    assert claim["evidence"][0]["detail"].startswith("linked by what its code names: ")
