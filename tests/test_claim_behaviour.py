"""A claim judged by what its quotes do, from the card's validation day to the ref, not by how their text reads.

The code: a config's ``validate`` with a gate and its asserts (2026-01-01, the card's validation day is
2026-01-15); later commits paraphrase nothing but refactor, remove or change what the claim rests on. Each case
is a skill whose card links a claim to its quote by a comment; the quote drifted as text in every case.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from anchor_audit.cli import main
from anchor_audit.match.quotefacts import facts_in, facts_of, holds_in

from .conftest import GitRepo
from .hostile.conftest import commit_later, make_code_repo, make_skill

CONFIG = '''\
class Config:
    def validate(self):
        if self.graph_impl == "local" and "full" in self.graph_scope:
            assert not self.nan_check, "disable nan_check with full graphs"
            assert self.warmup > 0, "full graphs need warmup"
        if self.graph_impl == "none":
            self.graph_scope = []
'''

# A fence that summarises: a line that is in no version of the file, an elision as a comment, then the gate and
# its asserts with their messages elided.
PARAPHRASE = '''\
```1:5:pkg/config.py
settings = load_graph_settings(self)  # a line in no version of the file
    # ... scope parsing ...
    if self.graph_impl == "local" and "full" in self.graph_scope:
        assert not self.nan_check, ...
        assert self.warmup > 0, ...
```
'''
CARD = 'validated_on: "2026-01-15"\nvalidation_status:\n  graphs:\n    - code_verified  # config.py:1-5\n'


def _claim(tmp_path: Path, capsys, later: dict[str, str] | None = None, body: str = PARAPHRASE,
           card: str = CARD) -> dict:  # fmt: skip
    repo = make_code_repo(tmp_path / "code", {"pkg/config.py": CONFIG})
    for path, text in (later or {}).items():
        repo.write(path, text)
    if later:
        repo.commit("later", date="2026-02-01T00:00:00")
    skill = make_skill(tmp_path / "skill", body, card=card)
    main(["check", "--repo", str(repo.path), "--ref", "HEAD", "--format", "json", str(skill)])
    (report,) = json.loads(capsys.readouterr().out)["skills"]
    assert report["anchors"][0]["status"] != "exact"  # the quote is citation drift in every case, as ever
    (claim,) = report["claims"]
    return claim


def test_a_paraphrased_quote_whose_gate_and_asserts_hold_holds_the_claim(tmp_path: Path, capsys) -> None:
    claim = _claim(tmp_path, capsys)
    assert claim["verdict"] == "code_verified"
    assert "what it does holds: `if self.graph_impl == 'local'" in claim["evidence"][0]["detail"]


def test_a_check_moved_into_a_helper_of_another_file_still_holds_the_claim(tmp_path: Path, capsys) -> None:
    helper = '''\
def check_graphs(cfg):
    if is_full_graph(cfg):
        assert not cfg.nan_check, "disable nan_check with full graphs"
        assert cfg.warmup > 0, "full graphs need warmup"
'''
    config = 'from pkg.graphs import check_graphs\n\nclass Config:\n    def validate(self):\n        check_graphs(self)\n'
    claim = _claim(tmp_path, capsys, {"pkg/graphs.py": helper, "pkg/config.py": config})
    # the gate's test is gone, but the asserts it guarded are in the helper: unverifiable at worst, never broken
    assert claim["verdict"] == "unverifiable", claim
    assert "while what it does is (written another way?)" in claim["evidence"][0]["detail"]


BOUND_HELPER = '''\
def check_graphs(config, *, name="model"):
    """Graph settings a run cannot start with."""
    impl = getattr(config, "graph_impl", "none")
    scope = config.graph_scope
    if impl == "local" and "full" in scope:
        assert not config.nan_check, f"disable {name}.nan_check with full graphs"
        assert config.warmup > 0, "full graphs need warmup"
'''
CALLS_HELPER = 'from pkg.graphs import check_graphs\n\nclass Config:\n    def validate(self):\n        check_graphs(self)\n'


def test_a_gate_refactored_into_a_helper_is_read_with_the_callers_arguments_and_holds_the_claim(
    tmp_path: Path, capsys
) -> None:
    """The gate left config.py for a helper that reads the config through a parameter and a local set by
    getattr: bound to the call ``check_graphs(self)`` it is the same test, with the same asserts."""
    claim = _claim(tmp_path, capsys, {"pkg/graphs.py": BOUND_HELPER, "pkg/config.py": CALLS_HELPER})
    assert claim["verdict"] == "code_verified", claim
    detail = claim["evidence"][0]["detail"]
    assert "`if self.graph_impl == 'local' and 'full' in self.graph_scope` in a helper the file calls" in detail


def test_a_gate_already_in_a_helper_on_the_validation_day_is_evidence_from_that_day(tmp_path: Path, capsys) -> None:
    """The code had moved the gate into the helper before the card was validated: the quote names the gate as
    it read before, and the helper bound to its call is what held on the validation day, and holds at the ref."""
    repo = make_code_repo(tmp_path / "code", {"pkg/config.py": CALLS_HELPER, "pkg/graphs.py": BOUND_HELPER})
    claim = _claim_after_a_later_edit(repo, "pkg/config.py", CALLS_HELPER, tmp_path, capsys)
    assert claim["verdict"] == "code_verified", claim


def _claim_after_a_later_edit(repo: GitRepo, path: str, text: str, tmp_path: Path, capsys) -> dict:
    """The paraphrased quote's claim at HEAD, after a commit past the validation day that adds a line to ``path``."""
    repo.write(path, text + "\n\nVERSION = 2\n")
    repo.commit("later", date="2026-02-01T00:00:00")
    main(["check", "--repo", str(repo.path), "--ref", "HEAD", "--format", "json",
          str(make_skill(tmp_path / "skill", PARAPHRASE, card=CARD))])  # fmt: skip
    (claim,) = json.loads(capsys.readouterr().out)["skills"][0]["claims"]
    return claim


def test_a_helpers_gate_narrower_than_the_quoted_one_or_unbound_does_not_hold_the_claim(tmp_path: Path, capsys) -> None:
    """A helper that tests one more condition than the quoted gate, or that sets its parameter again before
    testing it, is not the quoted gate: the claim is not held by it (its asserts are there: unverifiable)."""
    narrower = BOUND_HELPER.replace('"full" in scope:', '"full" in scope and config.strict:')
    claim = _claim(tmp_path / "narrower", capsys, {"pkg/graphs.py": narrower, "pkg/config.py": CALLS_HELPER})
    assert claim["verdict"] == "unverifiable", claim
    rebound = BOUND_HELPER.replace('    impl = getattr', '    config = config.inner\n    impl = getattr')
    claim = _claim(tmp_path / "rebound", capsys, {"pkg/graphs.py": rebound, "pkg/config.py": CALLS_HELPER})
    assert claim["verdict"] == "unverifiable", claim


ELIDED = '''\
```1:7:pkg/config.py
class Config:
    def validate(self):
        ...
        if self.graph_impl == "none":
            self.graph_scope = []
```
'''


def test_a_quote_that_held_on_its_validation_day_is_judged_by_the_code_it_held_elided_lines_included(
    tmp_path: Path, capsys
) -> None:
    """The fence elides the asserts (``...``) but held on the validation day: what the card validated is the code
    of those lines, asserts included. At the ref the class gains a base (the quote no longer holds as text, its
    visible gate does) and an elided assert is gone: the claim is broken, naming the assert."""
    later = CONFIG.replace('            assert not self.nan_check, "disable nan_check with full graphs"\n', "")
    later = later.replace("class Config:", "class Config(Base):")
    claim = _claim(tmp_path, capsys, {"pkg/config.py": later}, body=ELIDED, card=CARD.replace("1-5", "1-7"))
    assert claim["verdict"] == "broken", claim
    assert "`assert not self.nan_check`" in claim["evidence"][0]["detail"]


def test_an_assert_removed_since_the_validation_day_breaks_the_claim_and_is_named(tmp_path: Path, capsys) -> None:
    claim = _claim(tmp_path, capsys, {"pkg/config.py": CONFIG.replace(
        '            assert self.warmup > 0, "full graphs need warmup"\n', "")})  # fmt: skip
    assert claim["verdict"] == "broken"
    detail = claim["evidence"][0]["detail"]
    assert detail.startswith("`assert self.warmup > 0` held on the validation day (") and "nowhere in the code" in detail


def test_a_gate_whose_constant_changed_since_the_validation_day_breaks_the_claim(tmp_path: Path, capsys) -> None:
    claim = _claim(tmp_path, capsys, {"pkg/config.py": CONFIG.replace('"full" in', '"partial" in')})
    assert claim["verdict"] == "broken"
    assert "changed its constants at the ref" in claim["evidence"][0]["detail"]


def test_an_anchor_stale_on_its_own_validation_day_is_no_evidence(tmp_path: Path, capsys) -> None:
    stale = PARAPHRASE.replace("self.warmup > 0", "self.warmup > 9").replace("self.nan_check", "self.nan_guard")
    stale = stale.replace('"local"', '"remote"')
    claim = _claim(tmp_path, capsys, body=stale)
    assert claim["verdict"] == "unverifiable"
    assert "stale on its own validation day" in claim["evidence"][0]["detail"]


def test_without_a_validation_day_a_quote_not_in_the_code_is_unverifiable_never_broken(tmp_path: Path, capsys) -> None:
    card = CARD.replace('validated_on: "2026-01-15"\n', "")
    gone = PARAPHRASE.replace("assert self.warmup > 0, ...", "assert self.warmup_steps, ...")
    claim = _claim(tmp_path, capsys, body=gone, card=card)
    assert claim["verdict"] == "unverifiable"
    assert "cannot be read here" in claim["evidence"][0]["detail"]


def test_a_function_that_is_only_still_defined_does_not_hold_a_claim(tmp_path: Path, capsys) -> None:
    body = "```1:2:pkg/config.py\ndef validate(self):\n    return self.run_all_checks()\n```\n"
    claim = _claim(tmp_path, capsys, body=body)
    assert claim["verdict"] == "unverifiable"
    assert "is still defined, but the quote holds no gate" in claim["evidence"][0]["detail"]


def test_the_facts_of_a_quote_are_its_gates_asserts_raises_and_gated_values_not_its_incidental_lines() -> None:
    body = [
        "    scope = getattr(cfg, 'scope', []) or []",  # incidental: set under no gate
        "    # ... scope parsing ...",
        "    if in_scope:",
        "        assert te_version('2.1'), ...",
        "        if attn:",
        "            raise ValueError(",
        '                "no bias with attention graphs"',
        "            )",
        "        cfg.mode = 'graph'",
        "this line is prose, not code",
    ]
    found = facts_of(body)
    assert [(f.kind, f.text) for f in found.facts] == [
        ("gate", "in_scope"), ("assert", "te_version('2.1')"), ("gate", "attn"), ("raise", "ValueError"),
        ("set", "cfg.mode = 'graph'"),
    ]
    assert found.paraphrased == (10,)
    code = facts_in("def f(config):\n    if in_scope:\n        assert te_version('2.1'), 'msg'\n")
    assert code is not None and holds_in(found.facts[1], code) and not holds_in(found.facts[4], code)


def test_a_quote_whose_code_landed_after_the_validation_day_names_the_commit_it_landed_in(
    tmp_path: Path, capsys
) -> None:
    """Validated on 2026-01-15 against a file without the gate; the gate lands 2026-02-01, a comment 2026-03-01:
    the anchor was stale on its own day, and the card was validated before its code landed (in the first)."""
    before = "class Config:\n    def validate(self):\n        pass\n"
    repo = make_code_repo(tmp_path / "code", {"pkg/config.py": before})
    repo.write("pkg/config.py", CONFIG)
    landed = repo.commit("the gate lands", date="2026-02-01T00:00:00")
    repo.write("pkg/config.py", "# a comment\n" + CONFIG)
    repo.commit("a comment", date="2026-03-01T00:00:00")
    skill = make_skill(tmp_path / "skill", PARAPHRASE, card=CARD)
    assert main(["check", "--repo", str(repo.path), "--ref", "HEAD", "--format", "json", str(skill)]) == 1
    (report,) = json.loads(capsys.readouterr().out)["skills"]
    ((evidence,),) = [c["evidence"] for c in report["claims"]]
    assert report["claims"][0]["verdict"] == "unverifiable"
    assert evidence["stale_on_validation_day"].endswith(
        f"the card was validated before its code landed: they are first there in {landed[:10]} on 2026-02-01"
    )
    # AA206: the quote did not hold at the day's commit either (the card's date is contradicted).
    assert [f["code"] for f in report["findings"] if f["code"].startswith("AA2")] == ["AA206", "AA202", "AA208"]
    day = report["validation_day"]
    assert (day["validated_on"], day["date"], day["rule"].startswith("the last first-parent commit")) == (
        "2026-01-15", "2026-01-01", True
    )
    assert day["commit"] != landed


def test_a_release_wheel_has_no_commit_for_the_validation_day_and_says_so(tmp_path: Path, capsys) -> None:
    from anchor_audit.model import ValidationDay

    assert ValidationDay("2026-03-15", None).said == (
        "validated_on 2026-03-15: no commit (this source has no history); drifted quotes are judged as quoted"
    )
    said = ValidationDay("2026-03-15", "0dae728241d4ead9", "2026-03-14").said
    assert said.startswith("validated_on 2026-03-15 is commit 0dae728241 of 2026-03-14 (the default branch's")


LAUNCH = '''\
class LaunchEnv:
    def setup(self, job):
        if self.limit_connections:
            job.env["MAX_CONNECTIONS"] = "1"
        if self.enable_norm_margin:
            job.env["NORM_MARGIN_FWD"] = str(self.norm_margin)
            job.env["NORM_MARGIN_BWD"] = str(self.norm_margin)
'''
LAUNCH_QUOTE = '```2:7:pkg/launch.py\n    def setup(self, job):\n        if self.limit_connections:\n' \
               '            job.env["MAX_CONNECTIONS"] = "1"\n' \
               '        if self.enable_norm_margin:\n            job.env["NORM_MARGIN_FWD"] = str(self.norm_margin)\n' \
               '            job.env["NORM_MARGIN_BWD"] = str(self.norm_margin)\n```\n'  # fmt: skip
LAUNCH_CARD = 'validated_on: "2026-01-15"\nvalidation_status:\n  env:\n    - code_verified  # launch.py:2-7\n'


def _launch_claim(tmp_path: Path, capsys, later: str) -> dict:
    repo = make_code_repo(tmp_path / "code", {"pkg/launch.py": LAUNCH})
    repo.write("pkg/launch.py", later)
    repo.commit("later", date="2026-02-01T00:00:00")
    skill = make_skill(tmp_path / "skill", LAUNCH_QUOTE, card=LAUNCH_CARD)
    main(["check", "--repo", str(repo.path), "--ref", "HEAD", "--format", "json", str(skill)])
    (report,) = json.loads(capsys.readouterr().out)["skills"]
    (claim,) = report["claims"]
    return claim


def test_a_gate_gone_with_what_it_set_and_named_nowhere_in_the_code_breaks_the_claim(tmp_path: Path, capsys) -> None:
    """The margin setting and the variables it set are gone from every file, while the plugin keeps limiting
    connections as quoted: what the quote says is gone, so the claim is broken, naming the setting no code names."""
    later = LAUNCH.split("        if self.enable_norm_margin:")[0] + "        job.env['EXTRA'] = '0'\n"
    claim = _launch_claim(tmp_path, capsys, later)
    assert claim["verdict"] == "broken", claim
    detail = claim["evidence"][0]["detail"]
    assert "`if self.enable_norm_margin`" in detail and "no code names enable_norm_margin at the ref" in detail


def test_a_gate_whose_setting_is_still_named_somewhere_is_not_called_gone(tmp_path: Path, capsys) -> None:
    """The same removal, but another file still reads the setting: the behaviour may live on there, so the
    claim is unverifiable, never broken."""
    later = LAUNCH.split("        if self.enable_norm_margin:")[0] + "        job.env['EXTRA'] = '0'\n"
    repo = make_code_repo(tmp_path / "code", {"pkg/launch.py": LAUNCH})
    repo.write("pkg/launch.py", later)
    repo.write("pkg/margins.py", "def margins(cfg):\n    return cfg.enable_norm_margin and cfg.norm_margin\n")
    repo.commit("later", date="2026-02-01T00:00:00")
    skill = make_skill(tmp_path / "skill", LAUNCH_QUOTE, card=LAUNCH_CARD)
    main(["check", "--repo", str(repo.path), "--ref", "HEAD", "--format", "json", str(skill)])
    (claim,) = json.loads(capsys.readouterr().out)["skills"][0]["claims"]
    assert claim["verdict"] == "unverifiable", claim
    assert "written another way?" in claim["evidence"][0]["detail"]


# The asserts written shorter than the code writes them: bare names for the config's attributes.
SHORTHAND = PARAPHRASE.replace("assert not self.nan_check, ...", "assert not nan_check, ...").replace(
    "assert self.warmup > 0, ...", "assert warmup > 0, ..."
)


def test_an_assert_the_quote_writes_shorter_is_judged_as_the_code_writes_it(tmp_path: Path, capsys) -> None:
    """``assert not nan_check`` for the code's ``assert not self.nan_check``: the one assert of the file that tests
    the same names is the fact, on the validation day and at the ref."""
    claim = _claim(tmp_path, capsys, body=SHORTHAND)
    assert claim["verdict"] == "code_verified", claim
    detail = claim["evidence"][0]["detail"]
    assert "`assert not self.nan_check`" in detail and "the quote writes `assert not nan_check`" in detail


def test_an_assert_the_quote_writes_shorter_is_broken_when_the_code_drops_it(tmp_path: Path, capsys) -> None:
    later = CONFIG.replace('            assert self.warmup > 0, "full graphs need warmup"\n', "")
    claim = _claim(tmp_path / "x", capsys, {"pkg/config.py": later}, body=SHORTHAND)
    assert claim["verdict"] == "broken", claim
    assert "`assert self.warmup > 0`" in claim["evidence"][0]["detail"]


# A fence under a heading that names no claim; its comment says what its `...` elides.
COMMENTED = '''\
## Notes

Below:

```1:5:pkg/config.py
settings = load_graph_settings(self)  # a line in no version of the file
    # ... warmup schedule checks elided ...
    if self.graph_impl == "local" and "full" in self.graph_scope:
        assert not self.nan_check, ...
```
'''


def test_a_claim_its_quote_names_only_in_a_comment_is_not_held_by_the_quotes_other_facts(
    tmp_path: Path, capsys
) -> None:
    """The quote's code names "graph" and "nan"; "schedule" only its comment does, for lines it elides. Judged by
    its facts (its text drifted), it holds a claim about graphs and the nan check, not one about the schedule."""
    card = 'validated_on: "2026-01-15"\nvalidation_status:\n  graph_nan_guard:\n    - code_verified\n' \
           '  graph_schedule_guard:\n    - code_verified\n'  # fmt: skip
    repo = make_code_repo(tmp_path / "code", {"pkg/config.py": CONFIG})
    skill = make_skill(tmp_path / "skill", COMMENTED, card=card)
    main(["check", "--repo", str(repo.path), "--ref", "HEAD", "--format", "json", str(skill)])
    claims = {c["id"]: c for c in json.loads(capsys.readouterr().out)["skills"][0]["claims"]}
    assert claims["graph_nan_guard"]["verdict"] == "code_verified"
    schedule = claims["graph_schedule_guard"]
    assert schedule["verdict"] == "unverifiable", schedule
    assert "(schedule only in its comments, which say what it elides)" in schedule["evidence"][0]["detail"]


def _only_claim(repo, skill: Path, capsys) -> dict:
    """The one claim of ``skill`` checked against ``repo`` at HEAD."""
    main(["check", "--repo", str(repo.path), "--ref", "HEAD", "--format", "json", str(skill)])
    (claim,) = json.loads(capsys.readouterr().out)["skills"][0]["claims"]
    return claim


OPTIMIZER = '''\
class Optimizers:
    def build(self, cfg, groups):
        if cfg.offload:
            opt = Hybrid(groups, fraction=cfg.fraction, pin=cfg.pin, fp32=True)
        return opt
'''
# The call quoted with some of its keywords, under a signature the file never had.
FEWER_KEYWORDS = '''\
```2:5:pkg/opt.py
    def build(self, cfg, groups, extra):
        if cfg.offload:
            opt = Hybrid(groups, fraction=cfg.fraction, pin=cfg.pin)
```
'''


def test_a_call_the_quote_writes_with_fewer_keywords_is_judged_as_the_code_writes_it(tmp_path: Path, capsys) -> None:
    card = 'validated_on: "2026-01-15"\nvalidation_status:\n  offload:\n    - code_verified  # opt.py:2-5\n'
    repo = make_code_repo(tmp_path / "code", {"pkg/opt.py": OPTIMIZER})
    claim = _only_claim(repo, make_skill(tmp_path / "skill", FEWER_KEYWORDS, card=card), capsys)
    assert claim["verdict"] == "code_verified", claim
    assert ("the quote writes `opt = Hybrid(groups, fraction=cfg.fraction, pin=cfg.pin)` for "
            "`opt = Hybrid(groups, fraction=cfg.fraction, pin=cfg.pin, fp32=True)`") in claim["evidence"][0]["detail"]


DISPATCH = '''\
def use_fast_path(cfg, backend):
    if backend not in ("a", "b"):
        raise ValueError(backend)
    cfg.dispatcher = "fast"
    cfg.fast_backend = backend
'''
# A signature paraphrased, its checks elided, what it sets quoted.
SETTINGS = '''\
## Fast path activation

```1:5:pkg/dispatch.py
def use_fast_path(...):
    # ... backend checks ...
    cfg.dispatcher = "fast"
    cfg.fast_backend = backend
```
'''


def test_a_quote_of_a_signature_and_what_it_sets_is_judged_by_the_values_it_sets(tmp_path: Path, capsys) -> None:
    """No gate, assert or raise quoted: the values the function sets are what it does, held on the validation
    day and at the ref; one of them gone at the ref leaves the claim unverifiable, never broken."""
    card = 'validated_on: "2026-01-15"\nvalidation_status:\n  fast_path_activation:\n    - code_verified\n'
    repo = make_code_repo(tmp_path / "code", {"pkg/dispatch.py": DISPATCH})
    skill = make_skill(tmp_path / "skill", SETTINGS, card=card)
    claim = _only_claim(repo, skill, capsys)
    assert claim["verdict"] == "code_verified", claim
    assert "what it does holds: `cfg.dispatcher = 'fast'`, `cfg.fast_backend = backend`" in claim["evidence"][0]["detail"]
    repo.write("pkg/dispatch.py", DISPATCH.replace('    cfg.dispatcher = "fast"\n', ""))
    repo.commit("later", date="2026-02-01T00:00:00")
    assert _only_claim(repo, skill, capsys)["verdict"] == "unverifiable"


BUILT = OPTIMIZER.replace(", fp32=True)", ")")
EXACT_CALL = '''\
```2:5:pkg/opt.py
    def build(self, cfg, groups):
        if cfg.offload:
            opt = Hybrid(groups, fraction=cfg.fraction, pin=cfg.pin)
        return opt
```
'''


def test_a_call_given_one_more_argument_since_the_validation_day_still_holds_the_claim(tmp_path, capsys) -> None:
    card = 'validated_on: "2026-01-15"\nvalidation_status:\n  offload:\n    - code_verified  # opt.py:2-5\n'
    repo = make_code_repo(tmp_path / "code", {"pkg/opt.py": BUILT})
    commit_later(repo, {"pkg/opt.py": OPTIMIZER})  # fp32=True added to the call after the card's day
    claim = _only_claim(repo, make_skill(tmp_path / "skill", EXACT_CALL, card=card), capsys)
    assert claim["verdict"] == "code_verified", claim
    assert ("`opt = Hybrid(groups, fraction=cfg.fraction, pin=cfg.pin)` is called with more arguments at the ref: "
            "`opt = Hybrid(groups, fraction=cfg.fraction, pin=cfg.pin, fp32=True)`") in claim["evidence"][0]["detail"]


def test_a_warm_run_judges_a_call_written_otherwise_as_a_cold_run_does(tmp_path, capsys) -> None:
    """The facts of the quoted file at the ref are remembered by its blob: read back from the cache, they give the
    same verdict and the same words (a second run writing elsewhere is computed, not replayed whole)."""
    card = 'validated_on: "2026-01-15"\nvalidation_status:\n  offload:\n    - code_verified  # opt.py:2-5\n'
    repo = make_code_repo(tmp_path / "code", {"pkg/opt.py": BUILT})
    commit_later(repo, {"pkg/opt.py": OPTIMIZER})
    skill = make_skill(tmp_path / "skill", EXACT_CALL, card=card)
    cold = _only_claim(repo, skill, capsys)
    warm_file = tmp_path / "warm.json"
    main(["check", "--repo", str(repo.path), "--ref", "HEAD", "--format", "json", "-o", str(warm_file), str(skill)])
    (warm,) = json.loads(warm_file.read_text())["skills"][0]["claims"]
    assert warm == cold and cold["verdict"] == "code_verified"
    assert "is called with more arguments at the ref" in warm["evidence"][0]["detail"]


def test_a_call_whose_quoted_argument_changed_since_the_validation_day_does_not_hold_the_claim(tmp_path, capsys) -> None:
    card = 'validated_on: "2026-01-15"\nvalidation_status:\n  offload:\n    - code_verified  # opt.py:2-5\n'
    repo = make_code_repo(tmp_path / "code", {"pkg/opt.py": BUILT})
    commit_later(repo, {"pkg/opt.py": OPTIMIZER.replace("pin=cfg.pin", "pin=False")})
    claim = _only_claim(repo, make_skill(tmp_path / "skill", EXACT_CALL, card=card), capsys)
    assert claim["verdict"] != "code_verified", claim


OVERRIDES = '''\
import logging


def apply_graph_overrides(recipe, impl=None, scope=None):
    """Set the graph overrides."""
    if isinstance(scope, str):
        scope = [scope]
    if impl is not None:
        recipe.model.graph_impl = impl
        if impl != "none":
            recipe.rng.rng_tracker = True
    recipe.train.log_every = 10
    return recipe
'''
# A signature (written shorter) and a comment that says what the body does: all a fence shows of a function.
SIGNATURE_AND_COMMENT = '''\
```1:8:pkg/overrides.py
def apply_graph_overrides(
    recipe, impl, scope
):
    # Sets impl and turns on rng_tracker
```
'''
OVERRIDES_CARD = 'validated_on: "2026-01-15"\nvalidation_status:\n  harness:\n    - code_verified  # overrides.py:1-8\n'


def _changed_claim(tmp_path: Path, capsys, path: str, first: str, later: str, quote: str, card: str) -> dict:
    """The one claim of a skill quoting ``path``, after a later commit rewrites it from ``first`` to ``later``."""
    repo = make_code_repo(tmp_path / "code", {path: first})
    commit_later(repo, {path: later})
    return _only_claim(repo, make_skill(tmp_path / "skill", quote, card=card), capsys)


def _overrides_claim(tmp_path: Path, capsys, later: str) -> dict:
    return _changed_claim(tmp_path, capsys, "pkg/overrides.py", OVERRIDES, later, SIGNATURE_AND_COMMENT, OVERRIDES_CARD)


def test_a_quote_of_a_signature_and_a_comment_is_judged_by_the_values_the_comment_names(tmp_path, capsys) -> None:
    claim = _overrides_claim(tmp_path, capsys, "# a line above moves the function\n" + OVERRIDES)
    assert claim["verdict"] == "code_verified", claim
    detail = claim["evidence"][0]["detail"]
    assert "`recipe.model.graph_impl = impl`" in detail and "`recipe.rng.rng_tracker = True`" in detail
    assert "log_every" not in detail and "scope = [scope]" not in detail  # no comment names them


def test_a_value_the_comment_names_that_the_function_no_longer_sets_does_not_hold_the_claim(tmp_path, capsys) -> None:
    claim = _overrides_claim(tmp_path, capsys, OVERRIDES.replace("            recipe.rng.rng_tracker = True\n",
                                                                 "            pass\n"))  # fmt: skip
    assert claim["verdict"] != "code_verified", claim
    assert "`recipe.rng.rng_tracker = True`" in claim["evidence"][0]["detail"]


def test_the_values_a_function_sets_are_read_from_its_body_and_none_from_a_file_that_does_not_parse() -> None:
    from anchor_audit.match.quotefacts import function_sets

    assert [f.text for f in function_sets(OVERRIDES, "apply_graph_overrides")] == [
        "scope = [scope]", "recipe.model.graph_impl = impl", "recipe.rng.rng_tracker = True",
        "recipe.train.log_every = 10"]  # fmt: skip
    assert function_sets(OVERRIDES, "absent") == () and function_sets("def broken(:\n", "broken") == ()


PACKING_CHECKS = '''\
class Config:
    def validate(self):
        if self.packing:
            assert self.batch > 1, "packing needs batches"
        if self.offline and self.packing:
            raise ValueError("pick one packing")
'''
# The gate's body paraphrased: the assert's message left out.
PACKING_QUOTE = '''\
```3:6:pkg/config.py
        if self.packing:
            assert self.batch > 1, ...
        if self.offline and self.packing:
            raise ValueError(...)
```
'''
PACKING_CARD = 'validated_on: "2026-01-15"\nvalidation_status:\n  packing:\n    - code_verified  # config.py:3-6\n'


def _packing_claim(tmp_path: Path, capsys, later: str) -> dict:
    return _changed_claim(tmp_path, capsys, "pkg/config.py", PACKING_CHECKS, later, PACKING_QUOTE, PACKING_CARD)


def test_a_gate_that_became_one_of_two_tests_still_holds_the_claim(tmp_path: Path, capsys) -> None:
    claim = _packing_claim(tmp_path, capsys, PACKING_CHECKS.replace("if self.packing:",
                                                                    "if self.packing or self.streaming:"))
    assert claim["verdict"] == "code_verified", claim
    assert "`if self.packing` is one of two tests at the ref: `if self.packing or self.streaming`" in (
        claim["evidence"][0]["detail"])


def test_a_gate_that_became_one_of_two_conditions_together_does_not_hold_the_claim(tmp_path, capsys) -> None:
    claim = _packing_claim(tmp_path, capsys, PACKING_CHECKS.replace("if self.packing:",
                                                                    "if self.packing and self.streaming:"))
    assert claim["verdict"] != "code_verified", claim  # narrower: it no longer checks plain packing


TRAINER = '''\
class Trainer:
    def check(self):
        if self.delay_grads is True:
            if self.reduce_overlap:
                assert te_at_least("2.7"), "overlapped reduction needs a newer TE"
            grads_in_graph = self.graph_attn or self.graph_router
            if grads_in_graph:
                assert te_at_least("2.12"), "captured delayed grads need a newer TE"
                assert self.fused_accum, "captured delayed grads need fused accumulation"
            assert self.expert_overlap, "delayed grads need expert overlap"
'''
# A summary of lines 3-10: the gate and its last assert, the checks between them said in comments.
ELIDING = '''\
```3:10:pkg/trainer.py
if self.delay_grads is True:
    # TE floor for reduce_overlap
    # graph capture checks for delayed grads
    assert expert_overlap, ...
```
'''
ELIDING_CARD = 'validated_on: "2026-01-15"\nvalidation_status:\n  graph_delay_interaction:\n    - code_verified\n'


@pytest.mark.parametrize(
    ("body", "later", "verdict", "said"),
    [
        (ELIDING, None, "code_verified", "`if self.reduce_overlap`, `assert te_at_least('2.7')` and 4 more"),
        (ELIDING, TRAINER.replace('                assert self.fused_accum, "captured delayed grads need fused '
                                  'accumulation"\n', ""), "broken", "`assert self.fused_accum`"),
        (ELIDING.replace("graph capture checks for delayed grads", "graph checks live elsewhere"), None, "unverifiable",
         "graph only in its comments"),
    ],
    ids=["elided-checks-hold", "an-elided-assert-gone", "no-comment-names-them"],
)  # fmt: skip
def test_the_validations_a_fences_comments_say_it_elides_are_facts_of_it(
    tmp_path: Path, capsys, body: str, later: str | None, verdict: str, said: str
) -> None:
    """A comment of a paraphrased fence ("graph capture checks for delayed grads") names the validations it
    elides in its lines on the validation day (``if grads_in_graph:`` and its asserts): they are the quote's facts,
    and say the claim's words the comment says ("graph"); a comment naming no validation there adds none."""
    repo = make_code_repo(tmp_path / "code", {"pkg/trainer.py": TRAINER})
    if later is not None:
        commit_later(repo, {"pkg/trainer.py": later})
    claim = _only_claim(repo, make_skill(tmp_path / "skill", body, card=ELIDING_CARD), capsys)
    assert claim["verdict"] == verdict, claim
    assert said in claim["evidence"][0]["detail"]


TEARDOWN = '''\
import gc


def release_graphs(helper: "Helper"):
    """Drop the captured graphs."""
    if "train" in GraphWrapper.captured:
        del GraphWrapper.captured["train"]
    if helper is not None:
        helper.reset()
    gc.collect()
'''
TEARDOWN_LATER = '''\
import gc


def release_graphs(helper: "Helper | None"):
    """Drop the captured graphs, every stage's."""
    for stage in ("train", "eval"):
        if stage in GraphWrapper.captured:
            del GraphWrapper.captured[stage]
        GraphWrapper.captured[stage] = None
    if helper is not None:
        helper.reset()
    gc.collect()
'''
TEARDOWN_QUOTE = '''\
```4:11:pkg/teardown.py
def release_graphs(helper):
    # Deletes GraphWrapper objects to free their buffers
```
'''
TEARDOWN_CARD = 'validated_on: "2026-01-15"\nvalidation_status:\n  cleanup:\n    - code_verified  # teardown.py:4-11\n'


@pytest.mark.parametrize(
    ("later", "verdict"),
    [(TEARDOWN_LATER, "code_verified"), (TEARDOWN_LATER.replace("        if stage in GraphWrapper.captured:\n"
                                                                "            del GraphWrapper.captured[stage]\n", ""),
                                         "unverifiable")],
    ids=["deleted-for-every-stage", "no-longer-deleted"],
)  # fmt: skip
def test_a_quote_of_a_signature_and_a_comment_is_judged_by_what_the_comment_names_it_deleting(
    tmp_path: Path, capsys, later: str, verdict: str
) -> None:
    """"Deletes GraphWrapper objects": the function deleted ``GraphWrapper.captured["train"]`` that day; at the ref
    it deletes ``GraphWrapper.captured[stage]`` for each stage, the same item of another key."""
    claim = _changed_claim(tmp_path, capsys, "pkg/teardown.py", TEARDOWN, later, TEARDOWN_QUOTE, TEARDOWN_CARD)
    assert claim["verdict"] == verdict, claim
    assert "`del GraphWrapper.captured[...]`" in claim["evidence"][0]["detail"]


def test_a_quote_whose_file_moved_before_the_validation_day_is_judged_where_the_file_went(
    tmp_path: Path, capsys
) -> None:
    """The package moved ``config.py`` under ``pkg/settings/`` before the card's validation day, and the card kept
    the old path: on that day the quote's gate and asserts are in the moved file, and they hold at the ref. The
    claim holds, saying where the file went; the stale path is citation drift."""
    from .conftest import git

    repo = make_code_repo(tmp_path / "code", {"pkg/config.py": CONFIG})
    (repo.path / "pkg/settings").mkdir()
    git(repo.path, "mv", "pkg/config.py", "pkg/settings/config.py")
    moved = repo.commit("settings in a package of their own", date="2026-01-10T00:00:00")
    claim = _claim_after_a_later_edit(repo, "pkg/settings/config.py", CONFIG, tmp_path, capsys)
    assert claim["verdict"] == "code_verified", claim
    detail = claim["evidence"][0]["detail"]
    assert f"pkg/config.py was moved to pkg/settings/config.py in commit {moved[:10]}, before the validation day" \
        in detail, detail  # fmt: skip
