"""A card's own words: what its ``feature_meaning`` and ``summary`` say a short name or a phrase stands for, read
before the built-in table when its known constraints are decided."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from anchor_audit.checks.sentencewords import wanted
from anchor_audit.cli import main
from anchor_audit.spec.cardwords import MAX_ALIASES, MAX_TEXT, card_aliases

from .hostile.conftest import make_code_repo, make_skill

SPILL = '''\
def check(cfg):
    if cfg.graph_impl == "engine_graphs" and cfg.spill_layers:
        raise ValueError("layer spilling cannot run under engine-captured graphs")
    if cfg.spill_layers and cfg.grad_accum != 1:
        raise ValueError("layer spilling takes one accumulation step")
'''
CARD = '''\
validated_on: "2026-01-15"
summary: >
  Two ways to save memory: layer activation spilling (spill_layers) and pinned pages.
feature_meaning:
  graph_impl: "Which capture backend to use: plain (PC), engine_graphs (TE), or none."
evidence:
  - pkg/spill.py
known_constraints:
  - spill_layers cannot be used with the TE impl.
  - Activation spilling requires grad_accum == 1.
'''


def _constraints(tmp_path: Path, capsys, card: str) -> dict[str, dict]:
    repo = make_code_repo(tmp_path / "code", {"pkg/spill.py": SPILL})
    skill = make_skill(tmp_path / "skill", "Notes.\n", card=card)
    main(["check", "--repo", str(repo.path), "--ref", "HEAD", "--format", "json", str(skill)])
    (report,) = json.loads(capsys.readouterr().out)["skills"]
    return {p["path"]: p for p in report["promises"] if p["kind"] == "constraint"}


def test_a_short_name_the_card_gives_a_value_is_that_value_not_the_library(tmp_path, capsys) -> None:
    """"TE" is ``HAVE_TE`` by the built-in table; this card says it is the value ``engine_graphs``, which the gate
    compares ``graph_impl`` with."""
    said = _constraints(tmp_path, capsys, CARD)
    te = said["spill_layers cannot be used with the TE impl."]
    assert te["status"] == "holds", te
    assert "(pkg/spill.py:2)" in te["detail"]
    plain = _constraints(tmp_path / "plain", capsys, CARD.replace("  graph_impl:", "  other_setting:").replace(
        "engine_graphs (TE)", "engine_graphs"))  # fmt: skip
    assert plain["spill_layers cannot be used with the TE impl."]["status"] == "unverifiable"


def test_words_the_card_puts_before_a_setting_in_parentheses_are_that_setting(tmp_path, capsys) -> None:
    """"Activation spilling" is ``spill_layers`` on this card: the gate that tests it with ``grad_accum`` decides
    the sentence; without the summary's words that gate tests what the sentence leaves out."""
    said = _constraints(tmp_path, capsys, CARD)
    spilling = said["Activation spilling requires grad_accum == 1."]
    assert spilling["status"] == "holds", spilling
    assert "(pkg/spill.py:4)" in spilling["detail"]
    plain = _constraints(tmp_path / "plain", capsys, CARD.replace(" (spill_layers)", ""))
    narrower = plain["Activation spilling requires grad_accum == 1."]
    assert narrower["status"] == "unverifiable" and "leaves out" in narrower["detail"], narrower


@pytest.mark.parametrize(
    ("meaning", "summary", "aliases"),
    [
        ({"impl": "local (MCore), transformer_engine (TE), or none."}, None,
         (("MCore", ("local",)), ("TE", ("transformer_engine",)))),
        (None, "It offers layer-level activation offloading (cpu_offloading) and state offloading (opt_offload via X).",
         (("activation offloading", ("cpu_offloading",)), ("state offloading", ("opt_offload",)))),
        # lower-case or long words in parentheses describe, they name nothing: "(per-module)", "(default 3)"
        ({"granularity": "selective (per-module) or full (complete layers); warmup steps (default 3)."}, None, ()),
        # a setting in parentheses after the words that are its own name: no new word
        (None, "The overlap flag (overlap_flag) is off.", ()),
        # what is not text is no word
        (["a (B)"], 12, ()),
        ({"impl": 3, "other": ["x_y (TE)"]}, {"x": "y"}, ()),
    ],
    ids=["values", "settings", "descriptions", "own-name", "not-a-mapping", "not-text"],
)
def test_the_words_a_card_defines(meaning, summary, aliases) -> None:
    assert card_aliases(meaning, summary) == aliases


def test_a_card_of_many_words_is_read_within_bounds() -> None:
    many = {f"k{i}": " ".join(f"value_{i}_{j} (N{i}x{j})" for j in range(40)) for i in range(200)}
    assert len(card_aliases(many, None)) == MAX_ALIASES
    late = "x" * MAX_TEXT + " engine_graphs (TE)"  # past the part of a text that is read
    assert card_aliases({"impl": late}, late) == ()


def test_the_word_before_a_line_citation_is_where_not_what() -> None:
    """``MCore transformer_config.py:12`` names the file's tree; on a card where "MCore" is the value ``local`` the
    sentence does not name ``local`` by its citation."""
    aliases = (("MCore", ("local",)),)
    assert "local" not in wanted("offload_layers is incompatible with graphs (MCore transformer_config.py:12).",
                                 aliases)[0]  # fmt: skip
    assert "local" in wanted("offload_layers only works with the MCore impl and graph_scope.", aliases)[0]


def test_a_phrase_is_said_with_a_hyphen_or_a_space() -> None:
    assert "cuda_graph_impl" in wanted("pad_to_max_length is kept on a CUDA-graph path.")[0]
    assert "cuda_graph_impl" in wanted("pad_to_max_length is kept on a CUDA graph path.")[0]


@pytest.mark.parametrize("written", ["train.spill_layers", "`train.spill_layers`", "`cfg.train.spill_layers`"])
def test_a_dotted_setting_is_named_by_its_last_part(tmp_path, capsys, written: str) -> None:
    """A gate reads ``cfg.train.spill_layers`` by its last name: so does a sentence; the groups before it
    (``train``) are where the setting lives, not settings the gate must test too."""
    card = CARD.split("known_constraints:")[0] + f"known_constraints:\n  - '{written} requires grad_accum == 1.'\n"
    said = _constraints(tmp_path, capsys, card)
    result = said[f"{written} requires grad_accum == 1."]
    assert result["status"] == "holds", result
    assert "(pkg/spill.py:4)" in result["detail"]
