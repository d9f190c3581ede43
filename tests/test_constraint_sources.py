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


def _judged(tmp_path: Path, capsys, files: dict[str, str], card: str, later: dict[str, str | None] | None = None,
            ref: str = "HEAD") -> dict[str, dict]:  # fmt: skip
    """Each constraint's result, by its sentence: ``card`` over a repository of ``files`` (then a commit after the
    validation day writing ``later``), audited at ``ref``."""
    repo = make_code_repo(tmp_path / "code", files)
    if later is not None:
        commit_later(repo, later)
    skill = make_skill(tmp_path / "skill", "Notes.\n", card=card)
    main(["check", "--repo", str(repo.path), "--ref", ref, "--format", "json", str(skill)])
    (report,) = json.loads(capsys.readouterr().out)["skills"]
    return {p["path"]: p for p in report["promises"] if p["kind"] == "constraint"}


def _constraints(tmp_path: Path, capsys, code: str, later: str | None = None) -> dict[str, dict]:
    return _judged(tmp_path, capsys, {"pkg/capture.py": code}, CARD, None if later is None else {"pkg/capture.py": later})


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
    before = {"pkg/capture.py": "def capture(cfg):\n    return cfg\n"}
    said = _judged(tmp_path, capsys, before, CARD, {"pkg/capture.py": CAPTURE}, ref="validated")
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
    moved = {"pkg/old_capture.py": None, "pkg/capture.py": CAPTURE}
    said = _judged(tmp_path, capsys, {"pkg/old_capture.py": CAPTURE}, CARD, moved)
    spill = said["SPILL_MODE eager allows spill_layers at most 2."]
    assert spill["status"] == "unverifiable", spill
    assert "landed" not in spill["detail"] and spill["detail"].endswith("decides it: re-verify"), spill


STREAM = '''\
def check(cfg, stream_packing):
    if stream_packing:
        if cfg.draft_layers > 0:
            raise ValueError("stream packing cannot draft")
        if cfg.graph_mode not in (None, "none") or cfg.vision_graph_mode not in (None, "none"):
            raise ValueError("stream packing cannot capture graphs")
        if cfg.pipeline_model_parallel_size > 1:
            raise ValueError("stream packing needs one stage")
    assert cfg.pinning_off or not cfg.grow_pages, "growing pages needs pinning off"
'''
STREAM_CARD = CARD.split("known_constraints:")[0].replace("capture.py", "stream.py") + '''\
known_constraints:
  - Stream packing does not support draft_layers, graph_mode, or PP.
  - Stream packing does not support draft_layers, graph_mode, or offload_layers.
  - pinning_off must be True.
'''


def test_a_sentence_against_several_things_about_a_switch_it_says_in_words_is_decided_by_a_gate_for_each(
    tmp_path, capsys
) -> None:
    """"Stream packing" is the switch ``stream_packing``, said in words: a refusal under it for each thing the
    sentence names decides it; one that refuses either of two settings (``graph_mode ... or vision_graph_mode
    ...``) refuses each of them."""
    said = _judged(tmp_path, capsys, {"pkg/stream.py": STREAM}, STREAM_CARD)
    several = said["Stream packing does not support draft_layers, graph_mode, or PP."]
    assert several["status"] == "holds", several
    assert "`stream_packing and cfg.graph_mode not in (None, 'none')` (pkg/stream.py:5)" in several["detail"]
    assert "`stream_packing and cfg.pipeline_model_parallel_size > 1` (pkg/stream.py:7)" in several["detail"]
    # one thing with no refusal of its own: no decision
    assert said["Stream packing does not support draft_layers, graph_mode, or offload_layers."]["status"] == \
        "unverifiable"  # fmt: skip
    assert said["pinning_off must be True."]["status"] == "unverifiable"  # the assert requires either


def test_an_assert_of_either_of_two_tests_is_not_read_as_asserting_one() -> None:
    """``assert a or not b`` lets ``a`` be false: it never decides "a must be True" (an ``if`` refusing ``a or b``
    refuses ``a``; an assert requiring it requires neither)."""
    import ast

    from anchor_audit.checks.gates import _read_gates

    rows = _read_gates(ast.parse(STREAM))
    texts = [row[1] for row in rows]
    assert "cfg.pinning_off" not in texts and "not cfg.grow_pages" not in texts
    assert "stream_packing and cfg.graph_mode not in (None, 'none')" in texts
    assert "stream_packing and cfg.vision_graph_mode not in (None, 'none')" in texts


WRITER = '''\
def check(cfg):
    if cfg.async_write:
        assert cfg.save_format == "sharded_dist", "async write needs sharded_dist"
    if cfg.save_format == "flat":
        raise ValueError("flat saves are gone")
'''
WRITER_CARD = CARD.split("known_constraints:")[0].replace("capture.py", "writer.py") + '''\
known_constraints:
  - Async write requires save_format=sharded_dist.
  - save_format flat is refused.
'''


def test_an_assert_that_came_to_accept_another_value_since_the_validation_day_differs(tmp_path, capsys) -> None:
    """The requirement was one format on the validation day; at the ref the assert accepts a second one too: the
    sentence no longer holds as written, and the value accepted is named.  A refusal that came to refuse more
    still refuses what the sentence says."""
    later = WRITER.replace('== "sharded_dist"', 'in ["sharded_dist", "flat_tensor"]').replace(
        '== "flat"', 'in ("flat", "flat_v0")')
    said = _judged(tmp_path, capsys, {"pkg/writer.py": WRITER}, WRITER_CARD, {"pkg/writer.py": later})
    write = said["Async write requires save_format=sharded_dist."]
    assert write["status"] == "differs", write
    assert write["detail"] == (
        "decided on the validation day (" + write["detail"].split("(")[1].split(")")[0] + ") by `cfg.async_write "
        "and cfg.save_format == 'sharded_dist'` (pkg/writer.py:3); at the ref `cfg.async_write and cfg.save_format "
        "in ['sharded_dist', 'flat_tensor']` (pkg/writer.py:3) accepts save_format 'flat_tensor' too"
    )
    assert said["save_format flat is refused."]["status"] != "differs"


def test_a_gate_whose_line_is_too_long_to_ask_the_history_of_is_unverifiable_not_a_failed_run(tmp_path, capsys) -> None:
    """A repository's line of 200,000 characters (a comment after the gate) is not handed to git as a search: the
    sentence it decides at the ref is unverifiable, and the run goes on."""
    long = CAPTURE.replace("cfg.spill_layers > 2:", "cfg.spill_layers > 2:  # " + "x" * 200_000)
    said = _judged(tmp_path, capsys, {"pkg/capture.py": "def capture(cfg):\n    return cfg\n"}, CARD,
                   {"pkg/capture.py": long})  # fmt: skip
    spill = said["SPILL_MODE eager allows spill_layers at most 2."]
    assert spill["status"] == "unverifiable" and spill["detail"].endswith("decides it: re-verify"), spill


def test_an_assert_that_came_to_refuse_another_value_does_not_accept_it(tmp_path, capsys) -> None:
    """``assert fmt != "flat"`` become ``assert fmt not in ("flat", "flat_v0")`` refuses more, accepts nothing new:
    no value is said to be accepted too, nor let through (what an assert compares away it refuses)."""
    code = WRITER.replace('assert cfg.save_format == "sharded_dist"', 'assert cfg.save_format != "flat"')
    later = code.replace('!= "flat"', 'not in ("flat", "flat_v0")')
    card = WRITER_CARD.replace("Async write requires save_format=sharded_dist.", "Async write refuses save_format flat.")
    said = _judged(tmp_path, capsys, {"pkg/writer.py": code}, card, {"pkg/writer.py": later})
    refused = said["Async write refuses save_format flat."]
    assert refused["status"] != "differs" and "accepts" not in refused["detail"], refused
    assert "through" not in refused["detail"]  # an assert's `!=` refuses the value; it lets none through


def test_a_gate_that_refuses_what_the_sentence_requires_does_not_decide_it(tmp_path, capsys) -> None:
    """"offload_steps must be None" against a gate that refuses ``offload_steps is None``: the code says the
    opposite, so the gate is no evidence that the sentence holds (a bare switch and ``not`` read alike)."""
    code = '''\
def check(cfg):
    if cfg.spill and cfg.offload_steps is None:
        raise ValueError("spilling needs offload_steps")
    if cfg.spill:
        assert not cfg.pin_pages, "spilling cannot pin pages"
    if cfg.spill and not cfg.grow_pages:
        raise ValueError("spilling needs growing pages")
'''
    card = CARD.split("known_constraints:")[0].replace("capture.py", "spill.py") + '''known_constraints:
  - offload_steps must be None when spill is on.
  - offload_steps must not be None when spill is on.
  - pin_pages must be False when spill is on.
  - grow_pages must be False when spill is on.
  - grow_pages must be True when spill is on.
'''
    said = _judged(tmp_path, capsys, {"pkg/spill.py": code}, card)
    wrong = said["offload_steps must be None when spill is on."]
    assert wrong["status"] == "unverifiable", wrong
    assert "refuses offload_steps None, which the sentence requires" in wrong["detail"], wrong
    assert said["offload_steps must not be None when spill is on."]["status"] == "holds"
    assert said["pin_pages must be False when spill is on."]["status"] == "holds"  # the assert requires it
    assert said["grow_pages must be False when spill is on."]["status"] == "unverifiable"
    assert said["grow_pages must be True when spill is on."]["status"] == "holds"


def test_a_setting_written_with_a_value_is_not_what_a_sentence_requires() -> None:
    """``w=True`` is as often the case refused or the condition as what is required: only "must be" says it."""
    from anchor_audit.checks.polarity import required

    assert required("distribute_saved cannot be used with sequence_parallel=True") == frozenset()
    assert required("pad_cu=true also requires pad_max=true.") == frozenset()
    assert required("recompute_kind must not be full; recompute_way and `cfg.layers` must be None") == {
        ("recompute_way", "None", True), ("layers", "None", True)}
    assert required("spill_mode (in MB) must be None") == frozenset()  # not said of a setting
    assert required("pin_pages must not be False, and grow must be True") == {("pin_pages", "True", True)}


SPILL = '''\
def check(cfg):
    if cfg.spill_layers and cfg.pin_pages:
        raise ValueError("spilling cannot pin pages")
    if cfg.spill_layers:
        assert cfg.grad_accum is None, "spilling takes no accumulation"
        assert cfg.page_size is None, "spilling sets its own pages"
'''
INTERACTIONS = '''\
validated_on: "2026-01-15"
title: spill_layers
evidence:
  - pkg/spill.py
interactions:
  incompatible:
    - spill_layers with pin_pages
  required: []
  conditional:
    - grad_accum and page_size must be None
    - 12
  notes: not a list
'''


def test_a_cards_interactions_are_read_like_its_known_constraints(tmp_path, capsys) -> None:
    """``interactions`` (``incompatible``, ``required``, ``conditional`` lists, each sentence said with its word;
    or a list of ``{name, constraint}``) are sentences about the card's feature, decided by its gates; what is not
    a sentence is not read."""
    said = _judged(tmp_path, capsys, {"pkg/spill.py": SPILL}, INTERACTIONS)
    assert sorted(said) == ["conditional: grad_accum and page_size must be None",
                            "incompatible: spill_layers with pin_pages"]  # fmt: skip
    incompatible = said["incompatible: spill_layers with pin_pages"]
    assert incompatible["status"] == "holds" and "(pkg/spill.py:2)" in incompatible["detail"], incompatible
    assert incompatible["line"] == 7
    listed = INTERACTIONS.split("interactions:")[0] + '''interactions:
  - name: pages
    constraint: "pin_pages must be False; grad_accum must be None"
  - just a note
'''
    (pages,) = _judged(tmp_path / "listed", capsys, {"pkg/spill.py": SPILL}, listed).values()
    assert pages["path"] == "pin_pages must be False; grad_accum must be None" and pages["line"] == 7
    assert pages["status"] == "holds", pages


def test_a_sentence_that_joins_requirements_is_decided_requirement_by_requirement(tmp_path, capsys) -> None:
    """"a and b must be None" is "a must be None" and "b must be None": each decided by its own assert under the
    feature's switch, the sentence holds where each does, and is broken where one is gone."""
    said = _judged(tmp_path, capsys, {"pkg/spill.py": SPILL}, INTERACTIONS)
    joined = said["conditional: grad_accum and page_size must be None"]
    assert joined["status"] == "holds", joined
    assert '"conditional: grad_accum must be None": decided by ' in joined["detail"]
    assert '"conditional: page_size must be None": decided by ' in joined["detail"]
    later = {"pkg/spill.py": SPILL.replace("        assert cfg.page_size is None, \"spilling sets its own pages\"\n", "")}
    gone = _judged(tmp_path / "later", capsys, {"pkg/spill.py": SPILL}, INTERACTIONS, later)
    broken = gone["conditional: grad_accum and page_size must be None"]
    assert broken["status"] == "missing" and broken["detail"].startswith(
        '"conditional: page_size must be None": decided on the validation day'), broken


def test_the_requirements_a_sentence_joins() -> None:
    from anchor_audit.checks.polarity import MAX_CLAUSES, clauses

    assert clauses("With spill on, a_b, c_d and `e.f` must be None.") == [
        "With spill on, a_b must be None.", "With spill on, c_d must be None.", "With spill on, `e.f` must be None."]
    assert clauses("kind_x must not be full; way_y must be None") == ["kind_x must not be full", "way_y must be None"]
    assert clauses("a_b must be None") == ["a_b must be None"]
    many = "; ".join(f"s_{i} must be None" for i in range(MAX_CLAUSES + 1))
    assert clauses(many) == [many]  # past the bound: the sentence as one
    assert clauses("Spilling does not support MTP, CUDA graphs, or PP.") == [
        "Spilling does not support MTP, CUDA graphs, or PP."]
    assert clauses("whole replay requires replay_way and `cfg.replay_count`.") == [
        "whole replay requires replay_way", "whole replay requires `cfg.replay_count`"]
    assert clauses("whole replay requires replay_way, replay_count, and replay_seed") == [
        "whole replay requires replay_way", "whole replay requires replay_count", "whole replay requires replay_seed"]
    assert clauses("whole replay requires replay_way and a fast disk") == [  # not settings alone: read whole
        "whole replay requires replay_way and a fast disk"]
    assert clauses("whole replay requires replay_way") == ["whole replay requires replay_way"]


REPLAY = '''\
def check(cfg):
    if cfg.replay_kind is not None:
        if cfg.replay_kind not in ["whole", "partial"]:
            raise ValueError("replay is whole or partial")
        if cfg.replay_way is not None:
            if cfg.replay_way not in ["even", "chunked"]:
                raise ValueError("replay goes evenly or in chunks")
        elif cfg.replay_kind != "partial":
            raise ValueError("whole replay needs a way")
        if cfg.replay_kind != "partial" and cfg.replay_count is None:
            raise ValueError("whole replay needs a count")
'''


def test_a_sentence_that_requires_several_settings_is_decided_setting_by_setting(tmp_path, capsys) -> None:
    """"whole replay requires replay_way and replay_count": one validation refuses whole replay with no way (the
    ``elif`` of the way's own check), another with no count; the sentence holds by both, and is broken where the
    count's is gone."""
    card = INTERACTIONS.replace("title: spill_layers", "title: replay_kind").replace(
        "    - grad_accum and page_size must be None\n", "    - whole replay requires replay_way and replay_count\n")
    sentence = "conditional: whole replay requires replay_way and replay_count"
    said = _judged(tmp_path, capsys, {"pkg/spill.py": REPLAY}, card)[sentence]
    assert said["status"] == "holds", said
    assert '"conditional: whole replay requires replay_way": decided by ' in said["detail"], said
    assert "(pkg/spill.py:8)" in said["detail"] and "(pkg/spill.py:10)" in said["detail"], said
    later = {"pkg/spill.py": REPLAY.replace(" and cfg.replay_count is None", " and cfg.replay_seed is None")}
    gone = _judged(tmp_path / "later", capsys, {"pkg/spill.py": REPLAY}, card, later)[sentence]
    assert gone["status"] == "missing" and gone["detail"].startswith(
        '"conditional: whole replay requires replay_count": decided on the validation day'), gone


def test_a_word_of_a_setting_the_cards_feature_completes_is_said(tmp_path, capsys) -> None:
    """On a card about activation recompute, "full granularity" says ``recompute_granularity`` (the feature's word
    and its own) and the value ``full`` (the only other one the code lists); "conditional" says how, not what: one
    word is left ("always"), which a decision allows."""
    code = '''\
def check(cfg):
    if cfg.recompute_granularity is not None:
        if cfg.recompute_granularity not in ["full", "selective"]:
            raise ValueError("full or selective")
        if cfg.recompute_granularity != "selective" and cfg.saved_layers is None:
            raise ValueError("full recompute saves layers")
'''
    card = INTERACTIONS.replace("title: spill_layers", "title: activation_recompute").replace(
        "    - grad_accum and page_size must be None\n", "    - full granularity always requires saved_layers\n")
    said = _judged(tmp_path, capsys, {"pkg/spill.py": code}, card)["conditional: full granularity always requires saved_layers"]
    assert said["status"] == "holds" and "(pkg/spill.py:5)" in said["detail"], said


def test_a_sentence_saying_more_than_its_gate_decides_names_the_words_left(tmp_path, capsys) -> None:
    """The gate names what the sentence names, but the sentence says more: unverifiable, naming the words no gate
    decides (in the sentence's order), so that a reader sees what to re-verify. Words that only join ("on",
    "each") say nothing more: one word left ("shard") leaves the sentence decided."""
    code = "def check(cfg):\n    if cfg.spill_layers and cfg.pin_pages:\n        raise ValueError('no')\n"
    card = CARD.split("known_constraints:")[0].replace("pkg/capture.py", "pkg/spill.py") + \
        "known_constraints:\n  - spill_layers cannot be used with pin_pages across shards quickly.\n" \
        "  - spill_layers cannot be used with pin_pages on each shard.\n"
    said = _judged(tmp_path, capsys, {"pkg/spill.py": code}, card)
    more = said["spill_layers cannot be used with pin_pages across shards quickly."]
    assert more["status"] == "unverifiable", more
    assert more["detail"].endswith("the sentence says more than it decides (across, shards, quickly): re-verify"), more
    assert said["spill_layers cannot be used with pin_pages on each shard."]["status"] == "holds"


def test_a_joined_sentence_left_unverifiable_says_the_clause_that_names_something() -> None:
    from anchor_audit.checks.polarity import all_of
    from anchor_audit.model import PromiseStatus

    said = all_of([("scope is real", PromiseStatus.UNVERIFIABLE, "advice: it names nothing the code can be searched for"),
                   ("uses self_attention", PromiseStatus.UNVERIFIABLE, "advice: no gate names self_attention")])
    assert said == (PromiseStatus.UNVERIFIABLE, '"uses self_attention": advice: no gate names self_attention')
    held = all_of([("a", PromiseStatus.HOLDS, "by x"), ("b", PromiseStatus.HOLDS, "by y")])
    assert held == (PromiseStatus.HOLDS, '"a": by x; "b": by y')


def test_an_interaction_of_one_setting_is_decided_only_by_a_gate_of_the_cards_feature(tmp_path, capsys) -> None:
    """"incompatible: grad_clip" on a card about spill_layers says spilling refuses it: an assert that refuses
    ``grad_clip`` under another switch (``fast_path``), read alone, decides something else."""
    code = SPILL + '''    if cfg.fast_path:
        assert not cfg.grad_clip, "the fast path does not clip"
'''
    card = INTERACTIONS.replace("    - spill_layers with pin_pages\n", "    - spill_layers with pin_pages\n    - grad_clip\n"
                                "    - pin_pages\n")  # fmt: skip
    said = _judged(tmp_path, capsys, {"pkg/spill.py": code}, card)
    assert said["incompatible: grad_clip"]["status"] == "unverifiable", said["incompatible: grad_clip"]
    pages = said["incompatible: pin_pages"]  # refused under the feature's switch
    assert pages["status"] == "holds" and "(pkg/spill.py:2)" in pages["detail"], pages


def test_a_sentence_is_decided_in_the_files_the_cards_comments_point_into(tmp_path, capsys) -> None:
    """A card comment (``# deep/gates.py:2-3``) points into a file its evidence does not list: its gates decide the
    card's sentences too; a name that fits two files points into neither."""
    gates = "def check(cfg):\n    if cfg.spill_layers and cfg.pin_pages:\n        raise ValueError('no')\n"
    files = {"pkg/spill.py": "def nothing():\n    return 1\n", "pkg/deep/gates.py": gates}
    card = '''\
validated_on: "2026-01-15"
validation_status:
  gate:
    - code_verified  # deep/gates.py:2-3
evidence:
  - pkg/spill.py
known_constraints:
  - spill_layers cannot be used with pin_pages.
'''
    said = _judged(tmp_path, capsys, files, card)["spill_layers cannot be used with pin_pages."]
    assert said["status"] == "holds" and "(pkg/deep/gates.py:2)" in said["detail"], said
    twice = _judged(tmp_path / "twice", capsys, {**files, "lib/deep/gates.py": gates}, card)
    assert twice["spill_layers cannot be used with pin_pages."]["status"] == "unverifiable"


def test_a_card_whose_title_the_table_of_words_spells_has_that_setting_for_its_feature(tmp_path, capsys) -> None:
    """A card titled ``activation_recompute`` is about ``recompute_granularity`` ("activation recompute" in the
    table of words), though no setting's name says both of its words: a gate under that switch decides its
    interactions."""
    code = '''\
def check(cfg):
    if cfg.recompute_granularity is not None:
        if cfg.saved_split and cfg.seq_par:
            raise ValueError("split saves need no sequence parallelism")
'''
    card = INTERACTIONS.replace("title: spill_layers", "title: activation_recompute").replace(
        "    - spill_layers with pin_pages\n", "    - saved_split\n")  # fmt: skip
    said = _judged(tmp_path, capsys, {"pkg/spill.py": code}, card)["incompatible: saved_split"]
    assert said["status"] == "unverifiable" and "leaves out" in said["detail"], said  # seq_par: narrower
    card = card.replace("    - saved_split\n", "    - saved_split with seq_par\n")
    said = _judged(tmp_path / "pair", capsys, {"pkg/spill.py": code}, card)["incompatible: saved_split with seq_par"]
    assert said["status"] == "holds", said
    assert said["detail"].startswith("decided by `cfg.recompute_granularity is not None and (cfg.saved_split and "
                                     "cfg.seq_par)`")  # fmt: skip


def test_a_number_a_gate_compares_with_is_no_truth() -> None:
    """``x == 1`` and ``x == 0`` compare a number (Python's ``1 == True`` notwithstanding): they say nothing of
    whether ``x`` is true, so no sentence requiring a truth is contradicted by them."""
    from anchor_audit.checks.polarity import refusals

    assert refusals("cfg.layers == 1", "", False, True) == frozenset()
    assert refusals("cfg.layers == 0", "", False, True) == frozenset()
    assert refusals("cfg.pin and cfg.grow is False", "", False, True) == {("pin", "True", True), ("grow", "True", False)}
    assert refusals("cfg.spill and cfg.steps is not None", "cfg.steps is not None", True, False) == {
        ("steps", "None", True)}  # an assert refuses the opposite of its own test, not of the ifs that lead to it
