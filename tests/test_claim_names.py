"""A claim nothing else links, decided by the file or the definition its id names, from the card's validation day
to the ref."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from anchor_audit.cli import main

from .hostile.conftest import commit_later, make_code_repo, make_skill

CONFIG = """\
class TrainConfig:
    recompute_modules: list = None
    seed: int = 0

    def describe(self):
        return "plain"
"""
SCRIPT = "def main():\n    print('converting')\n"
CARD = ('validated_on: "2026-01-15"\nevidence:\n  - pkg/config.py\n  - scripts/convert_weights.py\n'
        "validation_status:\n  CLAIM:\n    - code_verified\n")  # fmt: skip
BODY = "Nothing here links the claim.\n"


def _inheriting(folder: str, base: str) -> dict[str, str]:
    """The files of a later commit where ``TrainConfig`` no longer defines ``recompute_modules`` but inherits from
    ``BaseConfig``, which ``base`` (``FOLDER/settings/common.py``) defines and the package ``settings`` (under
    ``folder``, importable as the folder's last name) re-exports."""
    top = folder.rsplit("/", 1)[-1]
    config = CONFIG.replace("class TrainConfig:", "class TrainConfig(_Base):").replace(
        "    recompute_modules: list = None\n", "")
    return {"pkg/config.py": f"from {top}.settings import BaseConfig as _Base\n\n\n{config}",
            f"{folder}/settings/__init__.py": "from .common import BaseConfig\n", f"{folder}/settings/common.py": base}


def _claim(tmp_path: Path, capsys, claim_id: str, later: dict[str, str | None] | None = None, body: str = BODY,
           files: dict[str, str] | None = None) -> dict:  # fmt: skip
    """The verdict of ``claim_id`` at the ref (the code: ``files``, else a config and a script), after a later commit
    writes (or, for None, removes) files."""
    repo = make_code_repo(tmp_path / "code", files or {"pkg/config.py": CONFIG, "scripts/convert_weights.py": SCRIPT})
    if later is not None:
        commit_later(repo, later)
    skill = make_skill(tmp_path / "skill", body, card=CARD.replace("CLAIM", claim_id))
    main(["check", "--repo", str(repo.path), "--ref", "HEAD", "--format", "json", str(skill)])
    (claim,) = json.loads(capsys.readouterr().out)["skills"][0]["claims"]
    return claim


@pytest.mark.parametrize(
    ("later", "verdict", "said"),
    [
        (None, "code_verified", "there on the validation day ("),
        ({"scripts/convert_weights.py": None, "tools/convert_weights.py": SCRIPT}, "code_verified",
         "at the ref it is tools/convert_weights.py"),
        ({"scripts/convert_weights.py": None}, "broken", "is gone at the ref, and no file has its name"),
    ],
    ids=["there", "moved", "gone"],
)  # fmt: skip
def test_a_claim_is_decided_by_the_file_its_id_names(tmp_path: Path, capsys, later, verdict, said) -> None:
    claim = _claim(tmp_path, capsys, "weight_conversion_script", later)
    assert claim["verdict"] == verdict
    (evidence,) = claim["evidence"]
    assert (evidence["kind"], evidence["ref"]) == ("named", "scripts/convert_weights.py")
    assert said in evidence["detail"]


@pytest.mark.parametrize(
    ("later", "verdict", "said"),
    [
        (None, "code_verified", "and at the ref"),
        ({"pkg/config.py": CONFIG.replace("    recompute_modules: list = None\n", ""),
          "pkg/training.py": "class TrainConfig:\n    recompute_modules: list = None\n"},
         "code_verified", "at the ref in pkg/training.py"),
        ({"pkg/config.py": CONFIG.replace("    recompute_modules: list = None\n", "")}, "broken",
         "is named by no Python file at the ref"),
        ({"pkg/config.py": CONFIG.replace("    recompute_modules: list = None\n", ""),
          "pkg/other.py": "class Unrelated:\n    recompute_modules: list = None\n"},
         "unverifiable", "1 files name it: re-verify"),
        (_inheriting("pkg", "class BaseConfig:\n    seed_offset: int = 1\n    recompute_modules: list = None\n"),
         "code_verified", "at the ref TrainConfig inherits it from pkg/settings/common.py:3"),
        ({**_inheriting("pkg", "class BaseConfig:\n    seed_offset: int = 1\n"),
          "pkg/other.py": "class Unrelated:\n    recompute_modules: list = None\n"},
         "unverifiable", "1 files name it: re-verify"),
        (_inheriting("vendor/core/ns", "class BaseConfig:\n    recompute_modules: list = None\n"),
         "code_verified", "inherits it from vendor/core/ns/settings/common.py:2"),
    ],
    ids=["there", "moved-with-its-class", "gone", "another-class-has-the-name", "inherited-from-a-base-elsewhere",
         "a-base-elsewhere-without-it", "inherited-from-a-namespace-package"],
)  # fmt: skip
def test_a_claim_is_decided_by_the_definition_its_id_names(tmp_path: Path, capsys, later, verdict, said) -> None:
    claim = _claim(tmp_path, capsys, "recompute_modules_enum", later)
    assert claim["verdict"] == verdict
    (evidence,) = claim["evidence"]
    assert (evidence["kind"], evidence["ref"]) == ("named", "pkg/config.py: TrainConfig.recompute_modules")
    assert said in evidence["detail"]


def test_a_file_that_landed_after_the_validation_day_is_no_evidence(tmp_path: Path, capsys) -> None:
    body = "Export with `scripts/export_checkpoint.py`.\n"  # named by the prose, there only at the ref
    claim = _claim(tmp_path, capsys, "checkpoint_export_script", {"scripts/export_checkpoint.py": SCRIPT}, body)
    assert claim["verdict"] == "unverifiable"
    (evidence,) = claim["evidence"]
    assert evidence["ref"] == "scripts/export_checkpoint.py"
    assert "is not there on the validation day" in evidence["detail"]
    assert "the card was validated before its code landed: " in evidence["detail"]
    assert "on 2026-02-01" in evidence["detail"]


@pytest.mark.parametrize(
    "claim_id",
    ["tp_config", "weights_quantization_runtime", "summary_validation"],
    ids=["a-short-abbreviation-only", "a-word-no-name-says", "three-names-say-it-alike"],
)
def test_a_claim_whose_id_says_too_little_or_too_much_stays_unlinked(tmp_path: Path, capsys, claim_id) -> None:
    summaries = "".join(f"\n\ndef summary_{kind}():\n    pass\n" for kind in ("text", "json", "html"))
    repo = make_code_repo(tmp_path / "code", {"pkg/config.py": CONFIG + summaries, "scripts/convert_weights.py": SCRIPT})
    skill = make_skill(tmp_path / "skill", BODY, card=CARD.replace("CLAIM", claim_id))
    main(["check", "--repo", str(repo.path), "--ref", "HEAD", "--format", "json", str(skill)])
    (claim,) = json.loads(capsys.readouterr().out)["skills"][0]["claims"]
    assert claim["verdict"] == "unlinked"


def test_without_a_validation_day_a_claims_id_names_nothing(tmp_path: Path, capsys) -> None:
    repo = make_code_repo(tmp_path / "code", {"scripts/convert_weights.py": SCRIPT})
    card = CARD.replace('validated_on: "2026-01-15"\n', "").replace("CLAIM", "weight_conversion_script")
    skill = make_skill(tmp_path / "skill", BODY, card=card)
    main(["check", "--repo", str(repo.path), "--ref", "HEAD", "--format", "json", str(skill)])
    (claim,) = json.loads(capsys.readouterr().out)["skills"][0]["claims"]
    assert claim["verdict"] == "unlinked"


TESTS = "from pkg.plan import PLAN\n\n\ndef test_plan_is_built():\n    assert PLAN\n"  # a test file's text, never run


@pytest.mark.parametrize(
    ("later", "verdict", "said"),
    [
        (None, "code_verified", "with tests on the validation day ("),
        ({"tests/unit/test_planner.py": None, "tests/unit/planning/test_planner.py": TESTS}, "code_verified",
         "at the ref it is tests/unit/planning/test_planner.py"),
        ({"tests/unit/test_planner.py": None}, "broken", "is gone at the ref, and no file of its name has tests"),
        ({"tests/unit/test_planner.py": "import pytest\n"}, "broken", "at the ref it defines none"),
    ],
    ids=["there", "moved", "gone", "emptied"],
)  # fmt: skip
def test_a_claim_that_tests_are_there_is_decided_by_the_test_files_the_skill_names(tmp_path, capsys, later, verdict,
                                                                                    said) -> None:  # fmt: skip
    body = "Run `tests/unit/test_planner.py`; the config is `pkg/config.py`.\n"
    files = {"tests/unit/test_planner.py": TESTS, "pkg/config.py": CONFIG}
    claim = _claim(tmp_path, capsys, "test_functions_exist", later, body, files)
    assert claim["verdict"] == verdict
    (evidence,) = claim["evidence"]  # the test file only: the config module is no test
    assert (evidence["kind"], evidence["ref"]) == ("named", "tests/unit/test_planner.py")
    assert said in evidence["detail"]


def test_a_claim_that_says_more_than_that_tests_are_there_is_not_decided_by_them(tmp_path: Path, capsys) -> None:
    body = "Run `tests/unit/test_planner.py`.\n"
    claim = _claim(tmp_path, capsys, "test_planner_speedup", None, body, {"tests/unit/test_planner.py": TESTS})
    assert claim["verdict"] == "unlinked"


def test_a_namespace_package_lies_where_its_packages_do() -> None:
    """A folder with no ``__init__.py`` holding packages (``ns/settings/__init__.py``) is a package its modules
    are imported through (``ns.settings``); a package's own subpackage adds no such root."""
    from anchor_audit.source.listing import roots_of

    roots = roots_of(["vendor/core/ns/settings/__init__.py", "pkg/__init__.py", "pkg/sub/__init__.py"])
    assert roots["ns"] == {"vendor/core/"} and roots["settings"] == {"vendor/core/ns/"}
    assert roots["pkg"] == {""} and roots["sub"] == {"pkg/"} and "core" not in roots


def test_a_base_nested_past_reading_leaves_the_claim_unverifiable(tmp_path: Path, capsys) -> None:
    """A base class's file nested too deeply to parse is no answer about the member: the claim stays
    unverifiable, the run goes on."""
    deep = "DEEP = " + "(" * 5000 + "1" + ")" * 5000 + "\n\nclass BaseConfig:\n    recompute_modules: list = None\n"
    later = {**_inheriting("pkg", deep), "pkg/other.py": "class Unrelated:\n    recompute_modules: list = None\n"}
    claim = _claim(tmp_path, capsys, "recompute_modules_enum", later)
    assert claim["verdict"] == "unverifiable"
    assert "files name it: re-verify" in claim["evidence"][0]["detail"]


def test_audited_on_its_validation_day_a_file_the_claims_id_names_that_landed_later_says_so(tmp_path, capsys) -> None:
    """``--ref validated``: the card's evidence names a script the default branch gains only after the card's day;
    that day it is not there, and the claim is unverifiable saying when it landed, not unlinked."""
    repo = make_code_repo(tmp_path / "code", {"pkg/config.py": CONFIG})
    commit_later(repo, {"scripts/export_checkpoint.py": SCRIPT})
    card = CARD.replace("scripts/convert_weights.py", "scripts/export_checkpoint.py").replace(
        "CLAIM", "checkpoint_export_script")
    skill = make_skill(tmp_path / "skill", BODY, card=card)
    main(["check", "--repo", str(repo.path), "--ref", "validated", "--format", "json", str(skill)])
    (claim,) = json.loads(capsys.readouterr().out)["skills"][0]["claims"]
    assert claim["verdict"] == "unverifiable", claim
    (evidence,) = claim["evidence"]
    assert evidence["ref"] == "scripts/export_checkpoint.py"
    assert "the card was validated before its code landed: " in evidence["detail"] and "on 2026-02-01" in evidence["detail"]


SYNC = "\n\ndef sync_sharded_optimizer_settings(cfg):\n    cfg.ddp.sharded = cfg.optimizer.sharded\n"


@pytest.mark.parametrize(
    ("claim_id", "verdict"),
    [("dp_ddp_sharded_optimizer", "code_verified"), ("dp_ddp_optimizer", "unlinked"),
     ("dp_sharded_optimizer_buckets", "unlinked")],
    ids=["the-rest-named", "one-word-left-too-little", "a-long-word-no-name-says"],
)  # fmt: skip
def test_abbreviations_no_name_says_are_left_out_where_the_rest_of_the_claims_id_names_a_definition(
    tmp_path: Path, capsys, claim_id, verdict
) -> None:
    """``dp`` and ``ddp`` say which strategy the claim is about: where no name says them, the definition whose name
    says the rest of the id, two words at least, decides it."""
    files = {"pkg/config.py": CONFIG + SYNC, "scripts/convert_weights.py": SCRIPT}
    claim = _claim(tmp_path, capsys, claim_id, files=files)
    assert claim["verdict"] == verdict, claim
    if verdict == "code_verified":
        (evidence,) = claim["evidence"]
        assert evidence["ref"] == "pkg/config.py: sync_sharded_optimizer_settings"
