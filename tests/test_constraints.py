"""A card's known_constraints, each decided by a gate of its evidence on the validation day, and checked at the ref."""

from __future__ import annotations

import json
from pathlib import Path

from anchor_audit.checks.sentencewords import wanted
from anchor_audit.cli import main

from .hostile.conftest import make_code_repo, make_skill

OVERLAP = '''\
HAVE_TE = True


def overlap(cfg):
    if cfg.tensor_model_parallel_size < 2:
        cfg.tp_overlap = False
    if not HAVE_TE and cfg.tensor_model_parallel_size > 1:
        raise ValueError("fused kernels missing")
    if cfg.micro_batch_size > 1:
        cfg.packing = False
    if cfg.use_flash and cfg.num_layers > 4:
        cfg.fused = True
'''
CARD_HEAD = '''\
validated_on: "2026-01-15"
validation_status:
  gate:
    - doc_only
evidence:
  - pkg/overlap.py
known_constraints:
'''
CARD = CARD_HEAD + '''\
  - Overlapping needs tensor_model_parallel_size > 1.
  - TP overlapping needs TE.
  - Packed fine-tuning runs need micro_batch_size == 1.
  - Tune launch settings by hand.
  - num_layers must be greater than 4.
'''


def _constraints(
    tmp_path: Path, capsys, later: str | None = None, code: str = OVERLAP, card: str = CARD
) -> dict[str, dict]:
    """Each constraint of ``card``'s result, by its sentence, with ``code`` as pkg/overlap.py (then ``later``)."""
    repo = make_code_repo(tmp_path / "code", {"pkg/overlap.py": code})
    if later is not None:
        repo.write("pkg/overlap.py", later)
        repo.commit("later", date="2026-02-01T00:00:00")
    skill = make_skill(tmp_path / "skill", "Overlap notes.\n", card=card)
    main(["check", "--repo", str(repo.path), "--ref", "HEAD", "--format", "json", str(skill)])
    data = json.loads(capsys.readouterr().out)
    (report,) = data["skills"]
    found = {p["path"]: p for p in report["promises"] if p["kind"] == "constraint"}
    assert all(p["file"].endswith("card.yaml") and p["line"] >= 8 for p in found.values())
    return found


def test_each_constraint_is_decided_by_the_gate_that_names_what_it_says(tmp_path: Path, capsys) -> None:
    said = _constraints(tmp_path, capsys)
    tp = said["Overlapping needs tensor_model_parallel_size > 1."]
    assert tp["status"] == "holds"
    assert tp["detail"].startswith("decided by `cfg.tensor_model_parallel_size < 2` (pkg/overlap.py:5)")
    te = said["TP overlapping needs TE."]  # "TE" and "TP", as the code spells them
    assert (te["status"], te["detail"].split(" (")[0]) == (
        "holds", "decided by `not HAVE_TE and cfg.tensor_model_parallel_size > 1`"
    )
    # the gate tests micro_batch_size, but the sentence is about a feature it does not name
    assert said["Packed fine-tuning runs need micro_batch_size == 1."]["status"] == "unverifiable"
    # the only gate on num_layers also needs use_flash: narrower than the sentence, so it decides nothing
    assert said["num_layers must be greater than 4."]["status"] == "unverifiable"
    assert said["num_layers must be greater than 4."]["detail"] == (
        "`cfg.use_flash and cfg.num_layers > 4` (pkg/overlap.py:11) tests num_layers only together with use_flash, "
        "which the sentence leaves out: narrower than it says"
    )
    advice = said["Tune launch settings by hand."]
    assert (advice["status"], advice["detail"]) == ("unverifiable", "advice: it names nothing the code can be searched for")


def test_a_gate_that_changed_its_constant_since_the_validation_day_breaks_the_constraint(tmp_path: Path, capsys) -> None:
    said = _constraints(tmp_path, capsys, OVERLAP.replace("size < 2:", "size < 4:"))
    tp = said["Overlapping needs tensor_model_parallel_size > 1."]
    assert tp["status"] == "differs" and "at the ref the gate is `cfg.tensor_model_parallel_size < 4`" in tp["detail"]


def test_a_gate_removed_since_the_validation_day_breaks_the_constraint(tmp_path: Path, capsys) -> None:
    gone = OVERLAP.replace("    if cfg.tensor_model_parallel_size < 2:\n        cfg.tp_overlap = False\n", "")
    gone = gone.replace("not HAVE_TE and cfg.tensor_model_parallel_size > 1", "not HAVE_TE")
    said = _constraints(tmp_path, capsys, gone)
    tp = said["Overlapping needs tensor_model_parallel_size > 1."]
    assert tp["status"] == "missing" and "no gate names tensor_model_parallel_size at the ref" in tp["detail"]


def test_a_broken_constraint_is_a_finding_on_the_cards_line(tmp_path: Path, capsys) -> None:
    repo = make_code_repo(tmp_path / "code", {"pkg/overlap.py": OVERLAP})
    repo.write("pkg/overlap.py", OVERLAP.replace("size < 2:", "size < 4:"))
    repo.commit("later", date="2026-02-01T00:00:00")
    skill = make_skill(tmp_path / "skill", "Overlap notes.\n", card=CARD)
    code = main(["check", "--repo", str(repo.path), "--ref", "HEAD", "--format", "github", str(skill)])
    out = capsys.readouterr().out
    assert code == 1
    assert any(line.startswith("::error file=") and "card.yaml,line=8,title=AA411 constraint-broken::" in line
               for line in out.splitlines())  # fmt: skip


def test_what_a_sentence_names_and_states() -> None:
    assert wanted("Keep expert_model_parallel_size greater than 1.") == (
        frozenset({"expert_model_parallel_size"}), frozenset({"~+1"})
    )
    assert wanted("PP scheduling differs between setups.") == (frozenset(), frozenset())  # one word the code spells
    names, _ = wanted("Set `comm_overlap.tp_comm_overlap` when TP and SP are on.")
    assert names == {"tp_comm_overlap", "tensor_model_parallel_size", "sequence_parallel"}  # a group is where
    # the longer phrase first: "TP overlap" is not also "TP"; a version floor is the version as written
    assert wanted("TP overlap needs TE >= 2.7.0.") == (frozenset({"tp_comm_overlap", "is_te_min_version"}),
                                                         frozenset({"2.7.0"}))


def test_a_constraint_the_code_stops_enforcing_is_a_break_in_diff_and_a_row_of_matrix(tmp_path: Path) -> None:
    from .hostile.conftest import run_cli

    repo = make_code_repo(tmp_path / "code", {"pkg/overlap.py": OVERLAP})
    repo.write("pkg/overlap.py", OVERLAP.replace("size < 2", "size < 4"))
    repo.commit("later", tag="v2", date="2026-02-01T00:00:00")
    skill = make_skill(tmp_path / "skill", "Overlap notes.\n", card=CARD)
    diff = run_cli("diff", "v1", "v2", str(skill), "--repo", str(repo.path), "--format", "json")
    assert diff.code == 1
    assert json.loads(diff.out)["breaks"] == [
        {"skill": "skill", "constraint": "Overlapping needs tensor_model_parallel_size > 1."}
    ]
    said = run_cli("diff", "v1", "v2", str(skill), "--repo", str(repo.path)).out.splitlines()[-1]
    assert said == "1 changes · 1 constraint held at v1 and breaks at v2 · exit 1"
    matrix = run_cli("matrix", str(skill), "--repo", str(repo.path)).out
    assert "  constraint 1: Overlapping needs tensor_model_parallel_size > 1.: holds for >=1,<2; broken from v2" in matrix
    assert "Tune launch settings by hand" not in matrix  # advice no gate decides is no row of the grid
    impact = run_cli("impact", "v1", "v2", str(skill), "--repo", str(repo.path), "--format", "json")
    assert impact.code == 1 and [i["kind"] for i in json.loads(impact.out)["impacts"]] == ["promise"]


def test_a_constraint_is_decided_in_the_file_it_cites_which_says_where_not_what(tmp_path: Path, capsys) -> None:
    limits = "class Limits:\n    def check(self):\n        if self.offload_weights and self.pipeline_stages > 1:\n" \
             "            raise ValueError('offloading needs one stage')\n"  # fmt: skip
    repo = make_code_repo(tmp_path / "code", {"pkg/overlap.py": OVERLAP, "pkg/deep/limits.py": limits})
    card = CARD.split("known_constraints:")[0] + "known_constraints:\n  - offload_weights requires pipeline_stages = 1 (limits.py:3).\n"
    skill = make_skill(tmp_path / "skill", "Notes.\n", card=card)
    main(["check", "--repo", str(repo.path), "--ref", "HEAD", "--format", "json", str(skill)])
    (report,) = json.loads(capsys.readouterr().out)["skills"]
    (sentence,) = [p for p in report["promises"] if p["kind"] == "constraint"]
    assert sentence["status"] == "holds"  # not in the evidence: the file it cites; its name no word of what it says
    assert "(pkg/deep/limits.py:3)" in sentence["detail"]
    assert wanted("offload_weights requires pipeline_stages = 1 (limits.py:3).")[0] == {"offload_weights",
                                                                                       "pipeline_stages"}


def test_a_files_gates_are_read_in_the_order_a_walk_of_every_node_gives() -> None:
    """Only statements are walked (expressions hold none), yet the gates come in the order of a walk of every
    node: through try's handlers before its else, match cases, nested defs and classes."""
    import ast
    import textwrap

    from anchor_audit.checks.gates import _read_gates

    code = textwrap.dedent("""\
        def f(cfg):
            try:
                assert cfg.a > 1
            except ValueError:
                if cfg.b == "x":
                    raise
            else:
                while cfg.c:
                    if cfg.z:
                        break
            finally:
                assert cfg.d
            match cfg.mode:
                case "tp":
                    if cfg.tp < 2 and fn(cfg.e.f):
                        raise ValueError("tp")
        class C:
            def g(self):
                if self.h is None:
                    return
        if lambda: 1:
            pass
        """)
    module = ast.parse(code)
    walked = [n.lineno for n in ast.walk(module) if isinstance(n, (ast.If, ast.While, ast.Assert))]
    rows = _read_gates(module)
    assert [row[0] for row in rows] == walked and len(walked) == 8
    assert rows[[r[0] for r in rows].index(15)][2:] == [["f", "fn", "tp"], ["2"], True, "", [], False, True]  # last names
    assert [row[0] for row in rows if row[7]] == [3, 12]  # an assert's test is what must hold
    assert [row[0] for row in rows if row[8]] == [5, 15]  # only an if whose body raises refuses what its test says


def test_a_gate_under_an_if_is_also_read_with_the_tests_that_lead_to_it() -> None:
    """``if a:`` then ``assert b`` is the gate ``a and b`` too, after the file's own gates, with its own test kept;
    an ``else`` reads ``not a``, an ``elif`` that does what the branch before it does (turns the overlap off)
    does not; nothing is read across a def; a validation under ``if a or b:`` is read under each of them too."""
    import ast
    import textwrap

    from anchor_audit.checks.gates import _read_gates

    code = textwrap.dedent("""\
        def f(cfg):
            if cfg.tp_overlap:
                if cfg.tp < 2:
                    cfg.tp_overlap = False
                elif not cfg.sp:
                    cfg.tp_overlap = False
            else:
                assert cfg.x
            if cfg.delay or cfg.other:
                def g():
                    assert cfg.y
                assert cfg.ep_overlap
        """)
    rows = _read_gates(ast.parse(code))
    plain = [r for r in rows if not r[5]]
    nested = [(r[0], r[1], r[5]) for r in rows if r[5]]
    assert len(plain) == 7 and rows[: len(plain)] == plain  # the file's own gates first, as before
    assert nested == [
        (3, "cfg.tp_overlap and cfg.tp < 2", "cfg.tp < 2"),
        (5, "cfg.tp_overlap and not cfg.sp", "not cfg.sp"),
        (8, "not cfg.tp_overlap and cfg.x", "cfg.x"),
        (12, "(cfg.delay or cfg.other) and cfg.ep_overlap", "cfg.ep_overlap"),
        (12, "cfg.delay and cfg.ep_overlap", "cfg.ep_overlap"),
        (12, "cfg.other and cfg.ep_overlap", "cfg.ep_overlap"),
    ]


NESTED = '''\
HAVE_TE = True


def overlap(cfg):
    if cfg.tp_comm_overlap:
        if cfg.tensor_model_parallel_size < 2:
            cfg.tp_comm_overlap = False
        elif not cfg.sequence_parallel:
            cfg.tp_comm_overlap = False
        elif not HAVE_TE:
            cfg.tp_comm_overlap = False
    if cfg.delay_wgrad:
        assert is_torch_min_version("2.6.0")
        assert cfg.bf16 or cfg.fp16
    if cfg.use_megatron_fsdp:
        if cfg.use_torch_fsdp2:
            raise ValueError("one FSDP at a time")
        assert not cfg.use_tp_pp_dp_mapping
    if cfg.cpu_offloading and cfg.pipeline_model_parallel_size > 1:
        raise ValueError("no pipeline with offloading")
    if cfg.cpu_offloading and cfg.recompute_granularity is not None:
        raise ValueError("no recompute with offloading")
'''
NESTED_CARD = CARD_HEAD + '''\
  - TP overlap needs sequence_parallel=True.
  - TP overlap needs Transformer Engine available.
  - Use BF16 or FP16 only.
  - PyTorch >= 2.6.0 is needed.
  - Megatron FSDP and Torch FSDP2 cannot be used together.
  - Megatron FSDP cannot be used with use_tp_pp_dp_mapping.
  - CPU offloading cannot be used with PP>1 or activation recomputation.
  - CPU offloading cannot be used with PP>1, activation recomputation or FP16.
'''


def _nested_constraints(tmp_path: Path, capsys, later: str | None = None) -> dict[str, tuple[str, str]]:
    found = _constraints(tmp_path, capsys, later, NESTED, NESTED_CARD)
    return {sentence: (p["status"], p["detail"]) for sentence, p in found.items()}


def test_a_constraint_is_decided_by_a_gate_read_with_the_ifs_that_lead_to_it_and_the_words_the_code_spells(
    tmp_path: Path, capsys
) -> None:
    """"TP overlap" is ``tp_comm_overlap`` (not also "TP"), "PyTorch >= 2.6.0" is
    ``is_torch_min_version("2.6.0")``, "BF16" is ``bf16``; each decided by a gate under an ``if``, read with it."""
    said = _nested_constraints(tmp_path, capsys)
    decided = {sentence: detail.split(" (")[0] for sentence, (status, detail) in said.items() if status == "holds"}
    assert decided == {
        "TP overlap needs sequence_parallel=True.": "decided by `cfg.tp_comm_overlap and not cfg.sequence_parallel`",
        "TP overlap needs Transformer Engine available.": "decided by `cfg.tp_comm_overlap and not HAVE_TE`",
        "Use BF16 or FP16 only.": "decided by `cfg.bf16 or cfg.fp16`",
        "PyTorch >= 2.6.0 is needed.": "decided by `is_torch_min_version('2.6.0')`",
        "Megatron FSDP and Torch FSDP2 cannot be used together.": "decided by `cfg.use_megatron_fsdp and cfg.use_torch_fsdp2`",
        "Megatron FSDP cannot be used with use_tp_pp_dp_mapping.":
            "decided by `cfg.use_megatron_fsdp and not cfg.use_tp_pp_dp_mapping`",
        # one thing against several: a gate for each pair
        "CPU offloading cannot be used with PP>1 or activation recomputation.":
            "decided by `cfg.cpu_offloading and cfg.pipeline_model_parallel_size > 1`",
    }
    both = said["CPU offloading cannot be used with PP>1 or activation recomputation."][1]
    assert "; decided by `cfg.cpu_offloading and cfg.recompute_granularity is not None`" in both
    assert said["CPU offloading cannot be used with PP>1, activation recomputation or FP16."][0] == "unverifiable"


def test_a_nested_gate_moved_out_from_under_its_if_is_unverifiable_not_broken(tmp_path: Path, capsys) -> None:
    """The FSDP checks move into a helper the ``if`` calls: the assert is still there, no longer under the test
    that led to it, so the constraint is not called broken."""
    moved = NESTED.replace(
        "    if cfg.use_megatron_fsdp:\n        if cfg.use_torch_fsdp2:\n            raise ValueError(\"one FSDP at a time\")\n"
        "        assert not cfg.use_tp_pp_dp_mapping\n",
        "    if cfg.use_megatron_fsdp:\n        _fsdp_checks(cfg)\n\n\ndef _fsdp_checks(cfg):\n"
        "    if cfg.use_torch_fsdp2:\n        raise ValueError(\"one FSDP at a time\")\n    assert not cfg.use_tp_pp_dp_mapping\n",
    )
    said = _nested_constraints(tmp_path, capsys, moved)
    status, detail = said["Megatron FSDP cannot be used with use_tp_pp_dp_mapping."]
    assert status == "unverifiable"
    assert detail.endswith("at the ref `not cfg.use_tp_pp_dp_mapping` is at pkg/overlap.py:22, not under the same tests: re-verify")
    assert said["Megatron FSDP and Torch FSDP2 cannot be used together."][0] == "unverifiable"


def test_a_sentence_against_several_things_is_broken_when_the_gate_of_one_of_them_is_gone(tmp_path: Path, capsys) -> None:
    gone = NESTED.replace('    if cfg.cpu_offloading and cfg.recompute_granularity is not None:\n'
                          '        raise ValueError("no recompute with offloading")\n', "")
    said = _nested_constraints(tmp_path, capsys, gone)
    status, detail = said["CPU offloading cannot be used with PP>1 or activation recomputation."]
    assert status == "missing"
    assert detail.endswith("no gate names cpu_offloading, recompute_granularity at the ref")


GRAPHS = '''\
import numpy as np


def check(cfg):
    if cfg.cuda_graph_impl != "none":
        assert getattr(cfg, "use_rng_tracker", False), "graphs need the rng tracker"
        if cfg.offload_layers and cfg.cuda_graph_impl != "whole_step":
            raise ValueError("no offloading with graphs")
    assert np.prod(cfg.ring_sizes) == cfg.ring_total
    if cfg.swap_modules is not None and cfg.swap_modules not in ("attn", "mlp"):
        raise ValueError("unknown swap module")
    if is_whole_step_graph(cfg.model):
        assert not cfg.nan_check
    if cfg.async_write:
        assert cfg.save_format == "sharded_dist"
'''
GRAPHS_CARD = CARD_HEAD + '''\
  - use_rng_tracker must be True when cuda_graph_impl is not none.
  - The product of ring_sizes must equal ring_total.
  - offload_layers is incompatible with CUDA graphs.
  - swap_modules requires a value.
  - whole_step requires nan_check False.
  - Async write requires save_format=sharded_dist.
'''


def test_a_gate_reads_a_setting_through_getattr_and_a_product_as_the_settings_it_multiplies(
    tmp_path: Path, capsys
) -> None:
    """``getattr(cfg, "use_rng_tracker", False)`` tests ``use_rng_tracker`` (its default is no constant the gate
    compares with); ``np.prod(cfg.ring_sizes)`` conditions on ``ring_sizes``, not on a setting called ``prod``."""
    said = _constraints(tmp_path, capsys, code=GRAPHS, card=GRAPHS_CARD)
    rng = said["use_rng_tracker must be True when cuda_graph_impl is not none."]
    assert (rng["status"], rng["detail"].split(" (")[0]) == (
        "holds", "decided by `cfg.cuda_graph_impl != 'none' and getattr(cfg, 'use_rng_tracker', False)`"
    )
    ring = said["The product of ring_sizes must equal ring_total."]
    assert (ring["status"], ring["detail"].split(" (")[0]) == (
        "holds", "decided by `np.prod(cfg.ring_sizes) == cfg.ring_total`"
    )


def test_a_predicate_stands_for_what_it_is_named_after_and_a_setting_may_be_said_in_words(
    tmp_path: Path, capsys
) -> None:
    """``is_whole_step_graph(cfg.model)`` tests ``whole_step`` (not ``model``, which it is given); "Async write" is
    ``async_write`` and ``sharded_dist``, which the sentence writes as a name, is the value the gate compares with."""
    said = _constraints(tmp_path, capsys, code=GRAPHS, card=GRAPHS_CARD)
    decided = {sentence: (p["status"], p["detail"].split(" (")[0]) for sentence, p in said.items()}
    assert decided["whole_step requires nan_check False."] == (
        "holds", "decided by `is_whole_step_graph(cfg.model) and not cfg.nan_check`"
    )
    assert decided["Async write requires save_format=sharded_dist."] == (
        "holds", "decided by `cfg.async_write and cfg.save_format == 'sharded_dist'`"
    )


def test_a_gate_that_exempts_one_value_of_what_it_tests_is_narrower_than_a_sentence_that_does_not(
    tmp_path: Path, capsys
) -> None:
    """Offloading is refused with graphs on, except the whole-step kind: a sentence calling them incompatible says
    more than the code refuses, and is told which value the code lets through."""
    said = _constraints(tmp_path, capsys, code=GRAPHS, card=GRAPHS_CARD)
    offload = said["offload_layers is incompatible with CUDA graphs."]
    assert offload["status"] == "unverifiable"
    assert offload["detail"] == (
        "`cfg.offload_layers and cfg.cuda_graph_impl != 'whole_step'` (pkg/overlap.py:7) lets cuda_graph_impl "
        "'whole_step' through, which the sentence leaves out: narrower than it says"
    )
    # a gate checking a set value's spelling is no gate requiring one
    assert said["swap_modules requires a value."]["status"] == "unverifiable"


def test_a_gate_that_came_to_let_a_value_through_since_the_validation_day_differs(tmp_path: Path, capsys) -> None:
    """On the validation day offloading was refused with any graphs; at the ref the whole-step kind is let through:
    the sentence no longer holds as written, and the value let through is named."""
    before = GRAPHS.replace(' and cfg.cuda_graph_impl != "whole_step"', "")
    repo = make_code_repo(tmp_path / "code", {"pkg/overlap.py": before})
    repo.write("pkg/overlap.py", GRAPHS)
    repo.commit("later", date="2026-02-01T00:00:00")
    skill = make_skill(tmp_path / "skill", "Overlap notes.\n", card=GRAPHS_CARD)
    main(["check", "--repo", str(repo.path), "--ref", "HEAD", "--format", "json", str(skill)])
    (report,) = json.loads(capsys.readouterr().out)["skills"]
    found = {p["path"]: p for p in report["promises"] if p["kind"] == "constraint"}
    offload = found["offload_layers is incompatible with CUDA graphs."]
    assert offload["status"] == "differs"
    assert offload["detail"].endswith(
        "at the ref `cfg.offload_layers and cfg.cuda_graph_impl != 'whole_step'` (pkg/overlap.py:7) lets "
        "cuda_graph_impl 'whole_step' through"
    )


RINGS = '''\
def rings(cfg):
    if cfg.ring_kind is None:
        cfg.ring_kind = "flat"
    elif cfg.ring_kind == "two+level":
        assert is_te_min_version("1.12.0"), "two-level rings need a newer TE"
'''
RINGS_CARD = CARD_HEAD + '''\
  - Transformer Engine must be >= 1.12.0 for two+level.
  - Transformer Engine must be >= 1.12.0 for three+level.
'''


def test_a_setting_the_sentence_gives_by_the_value_the_gate_compares_it_with_is_said(tmp_path: Path, capsys) -> None:
    """"for two+level" says ``ring_kind == "two+level"``: the floor the gate asserts under that test decides the
    sentence; a value the gate does not compare with is more than it tests."""
    said = _constraints(tmp_path, capsys, code=RINGS, card=RINGS_CARD)
    rings = said["Transformer Engine must be >= 1.12.0 for two+level."]
    assert (rings["status"], rings["detail"].split(" (pkg")[0]) == (
        "holds", "decided by `not cfg.ring_kind is None and cfg.ring_kind == 'two+level' and "
                 "is_te_min_version('1.12.0')`"
    )
    assert said["Transformer Engine must be >= 1.12.0 for three+level."]["status"] == "unverifiable"


REPLAY = '''\
def check(cfg):
    if cfg.replay_mode not in ["whole", "partial"]:
        raise ValueError("unknown replay mode")
    if cfg.replay_mode != "partial" and cfg.replay_depth is None:
        raise ValueError("whole replay needs a depth")
'''


def test_a_gate_that_lets_through_all_but_one_listed_value_decides_a_sentence_about_that_one(tmp_path, capsys) -> None:
    card = CARD_HEAD + "  - replay_mode=whole requires replay_depth\n"
    found = _constraints(tmp_path, capsys, code=REPLAY, card=card)["replay_mode=whole requires replay_depth"]
    assert found["status"] == "holds", found
    assert "`cfg.replay_mode != 'partial' and cfg.replay_depth is None`" in found["detail"]


def test_without_a_list_of_its_values_a_gate_that_lets_one_through_stays_narrower(tmp_path, capsys) -> None:
    card = CARD_HEAD + "  - replay_mode=whole requires replay_depth\n"
    code = REPLAY.replace('["whole", "partial"]', '["whole", "partial", "sampled"]')  # not one value left
    found = _constraints(tmp_path, capsys, code=code, card=card)["replay_mode=whole requires replay_depth"]
    assert found["status"] == "unverifiable", found
    assert "lets replay_mode 'partial' through" in found["detail"]


PACKING = '''\
def check(cfg, enable_offline_packing, enable_in_batch_packing):
    if enable_offline_packing:
        if cfg.micro_batch_size > 1:
            raise ValueError("offline packs hold one sample a batch")
    if enable_in_batch_packing and cfg.micro_batch_size == 1:
        raise ValueError("in-batch packing needs samples to pack")
'''


def test_a_switch_the_sentence_names_in_other_forms_of_its_words_is_said(tmp_path: Path, capsys) -> None:
    card = CARD_HEAD + ("  - Offline packed runs require micro_batch_size == 1.\n"
                        "  - In-batch packing requires micro_batch_size > 1.\n"
                        "  - Sharded packing requires micro_batch_size == 1.\n")  # fmt: skip
    found = _constraints(tmp_path, capsys, code=PACKING, card=card)
    offline = found["Offline packed runs require micro_batch_size == 1."]
    assert offline["status"] == "holds" and "`enable_offline_packing and cfg.micro_batch_size > 1`" in offline["detail"]
    in_batch = found["In-batch packing requires micro_batch_size > 1."]
    assert in_batch["status"] == "holds" and "enable_in_batch_packing and" in in_batch["detail"]
    assert found["Sharded packing requires micro_batch_size == 1."]["status"] == "unverifiable"  # no such switch


FEATURE = '''\
def check(cfg):
    if cfg.use_replay_buffer:
        if cfg.num_workers > 1:
            assert cfg.shared_memory, "several workers share the buffer"
    if cfg.replay_buffer_kind == "ring" and cfg.ring_slots > 8:
        raise ValueError("a ring holds eight slots")
'''
FEATURE_SENTENCES = "  - If num_workers > 1, shared_memory is required.\n  - ring_slots must be at most 8.\n"


def test_a_gate_that_also_tests_the_cards_feature_is_on_decides_its_sentences(tmp_path: Path, capsys) -> None:
    """A card is about its feature (its title): that the feature is on goes without saying in its sentences."""
    card = "title: replay_buffer\n" + CARD_HEAD + FEATURE_SENTENCES
    found = _constraints(tmp_path, capsys, code=FEATURE, card=card)
    workers = found["If num_workers > 1, shared_memory is required."]
    assert workers["status"] == "holds", workers
    assert "`cfg.use_replay_buffer and cfg.num_workers > 1 and cfg.shared_memory`" in workers["detail"]
    # the feature's kind compared with a value is a condition of its own, which the sentence leaves out
    assert "only together with replay_buffer_kind" in found["ring_slots must be at most 8."]["detail"]


def test_without_a_title_naming_it_the_feature_a_gate_tests_is_left_out_by_the_sentence(tmp_path, capsys) -> None:
    card = "title: sharing\n" + CARD_HEAD + FEATURE_SENTENCES
    workers = _constraints(tmp_path, capsys, code=FEATURE, card=card)["If num_workers > 1, shared_memory is required."]
    assert workers["status"] == "unverifiable" and "only together with use_replay_buffer" in workers["detail"]


CAPTURE = '''\
import enum


class Part(enum.Enum):
    attn_block = "attn_block"
    expert_router = "expert_router"
    expert_mlp = "expert_mlp"


def check(cfg):
    assert Part.expert_mlp not in cfg.capture_parts or Part.expert_router not in cfg.capture_parts, "pick one"
    if Part.attn_block in cfg.capture_parts and cfg.num_layers > 8:
        raise ValueError("too many layers to capture")
'''


def test_members_of_an_enumeration_a_list_setting_holds_are_values_of_it(tmp_path: Path, capsys) -> None:
    """``Part.expert_router in cfg.capture_parts`` compares the setting with the value ``expert_router``: a sentence
    naming the values says the setting, as it would say ``kind == "expert_router"``."""
    card = CARD_HEAD + ("  - expert_mlp capture and expert_router capture are mutually exclusive.\n"
                        "  - attn_block capture is unsupported with num_layers > 8.\n"
                        "  - expert_mlp capture requires num_layers > 8.\n")  # fmt: skip
    found = _constraints(tmp_path, capsys, code=CAPTURE, card=card)
    both = found["expert_mlp capture and expert_router capture are mutually exclusive."]
    assert both["status"] == "holds", both
    assert "`Part.expert_mlp not in cfg.capture_parts or Part.expert_router not in cfg.capture_parts`" in both["detail"]
    assert found["attn_block capture is unsupported with num_layers > 8."]["status"] == "holds"
    assert found["expert_mlp capture requires num_layers > 8."]["status"] == "unverifiable"  # no gate tests both


CHECKPOINTS = '''\
def check(cfg):
    if cfg.use_sharded_engine:
        if cfg.save is not None or cfg.load is not None:
            assert cfg.ckpt_format == "sharded_tensor", "the sharded engine writes sharded tensors only"
    if cfg.use_sharded_engine and cfg.mode == "fast":
        raise ValueError("no fast mode with the sharded engine")
'''


def test_a_one_word_setting_the_sentence_says_as_a_word_is_said(tmp_path: Path, capsys) -> None:
    """"save/load" says ``cfg.save`` and ``cfg.load``: the assert under them decides the sentence; a sentence that
    does not say them leaves out what the gate also tests."""
    card = CARD_HEAD + ("  - use_sharded_engine save/load requires sharded_tensor.\n"
                        "  - use_sharded_engine requires sharded_tensor.\n")  # fmt: skip
    found = _constraints(tmp_path, capsys, code=CHECKPOINTS, card=card)
    saved = found["use_sharded_engine save/load requires sharded_tensor."]
    assert saved["status"] == "holds", saved
    assert "(cfg.save is not None or cfg.load is not None) and cfg.ckpt_format == 'sharded_tensor'" in saved["detail"]
    bare = found["use_sharded_engine requires sharded_tensor."]
    assert bare["status"] == "unverifiable" and "narrower than it says" in bare["detail"], bare


PARALLEL_CONFIG = '''\
from dataclasses import dataclass


@dataclass
class ParallelConfig:
    split_size: int = 1
    split_activations: bool = False

    def __post_init__(self):
        if self.split_activations:
            if self.split_size <= 1:
                raise ValueError("splitting activations needs a split size")
'''


def test_a_sentence_no_gate_of_the_evidence_names_is_decided_in_the_files_defining_its_settings(
    tmp_path: Path, capsys
) -> None:
    """The card's evidence (``pkg/overlap.py``) tests neither setting; the submodule's class that defines both as
    fields validates them, on the validation day and at the ref; a setting no class defines stays advice."""
    from .conftest import git
    from .hostile.conftest import GitRepo

    lib = tmp_path / "lib"
    lib.mkdir()
    git(lib, "init", "-q", "-b", "main")
    GitRepo(lib).write("core/parallel_config.py", PARALLEL_CONFIG)
    GitRepo(lib).commit("config")
    repo = make_code_repo(tmp_path / "code", {"pkg/overlap.py": OVERLAP})
    git(repo.path, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(lib), "third/lib")
    repo.commit("the library", tag="v2")
    card = CARD_HEAD + ("  - split_activations requires split_size > 1.\n"
                        "  - split_activations requires fused_norms.\n")  # fmt: skip
    skill = make_skill(tmp_path / "skill", "Overlap notes.\n", card=card)
    main(["check", "--repo", str(repo.path), "--ref", "v2", "--format", "json", "--submodule", f"third/lib={lib}",
          str(skill)])  # fmt: skip
    (report,) = json.loads(capsys.readouterr().out)["skills"]
    found = {p["path"]: p for p in report["promises"] if p["kind"] == "constraint"}
    split = found["split_activations requires split_size > 1."]
    assert split["status"] == "holds", split
    assert "`self.split_activations and self.split_size <= 1` (third/lib/core/parallel_config.py:11)" in split["detail"]
    assert found["split_activations requires fused_norms."]["detail"].startswith("advice: no gate of the evidence")
