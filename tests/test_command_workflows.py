"""The commands as a user strings them together: claims and the card, fix, baselines, impact, bump, diff, init."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from anchor_audit.cli import main

from .conftest import DEMO, ROOT, GitRepo
from .hostile.conftest import QUOTE, make_code_repo, make_skill

CARD = 'validated_on: "2026-01-10"\nvalidation_status:\n  layout:\n    - file_exists\nevidence:\n  - pkg/plan.py\n'


def shifted(make_repo) -> GitRepo:  # noqa: ANN001
    """The demo repository at v1, and at v2 with one import on top: every quote below it one line lower."""
    repo = make_repo()
    repo.edit("src/demo/overlap.py", "from dataclasses import dataclass\n", "import os\nfrom dataclasses import dataclass\n")
    repo.commit("shift", tag="v2")
    return repo


def own_copy(tmp_path: Path, repo: GitRepo) -> tuple[Path, Path]:
    """The demo skill copied to ``tmp_path``, and a registry whose entry is that copy, pinned to ``repo`` at v1."""
    skill = tmp_path / "demo-overlap"
    shutil.copytree(DEMO / "skills" / "demo-overlap", skill)
    spec = tmp_path / "anchors.yaml"
    spec.write_text((DEMO / "anchors.yaml").read_text().replace(
        "https://git.example.invalid/demo-trainer.git", str(repo.path)).replace(
        "path: skills/demo-overlap", f"path: {skill}"))  # fmt: skip
    return skill, spec


@pytest.fixture
def laid_out(tmp_path: Path, monkeypatch) -> tuple[Path, Path]:
    """A skill whose file_exists claim holds at v1; at v2 the file it names is gone."""
    repo = make_code_repo(tmp_path / "code", {"pkg/layout.py": "x = 1\n"})
    card = CARD.replace("pkg/plan.py", "pkg/layout.py")
    skill = make_skill(tmp_path / "skill", QUOTE, card=card)
    repo.remove("pkg/layout.py")
    repo.commit("layout gone", tag="v2", date="2026-02-01T00:00:00")
    monkeypatch.chdir(tmp_path)
    return repo.path, skill


def test_a_file_exists_claim_whose_files_are_gone_is_a_card_mismatch(laid_out, capsys) -> None:
    repo, skill = laid_out
    assert main(["check", str(skill), "--repo", str(repo), "--ref", "v2", "--format", "json"]) == 1
    claim = json.loads(capsys.readouterr().out)["skills"][0]["claims"][0]
    assert (claim["verdict"], claim["mismatch"]) == ("broken", "card.yaml says file_exists, but a path it names is missing")
    main(["check", str(skill), "--repo", str(repo), "--ref", "v2"])
    out = capsys.readouterr().out
    assert "agrees" not in out and "1 card mismatch" in out.splitlines()[-1]


def test_fix_update_card_never_tags_code_verified_what_only_files_verify(laid_out, capsys) -> None:
    repo, skill = laid_out
    before = (skill / "card.yaml").read_text()
    main(["fix", str(skill), "--repo", str(repo), "--ref", "v1", "--update-card"])
    out = capsys.readouterr().out
    assert "registered evidence holds" not in out and "tagged code_verified" not in out
    assert (skill / "card.yaml").read_text() == before


def test_write_baseline_gives_new_entries_one_reason_and_keeps_the_old_ones(laid_out, capsys, tmp_path) -> None:
    repo, skill = laid_out
    first = tmp_path / "base.yaml"
    args = ["check", str(skill), "--repo", str(repo), "--ref", "v2"]
    main([*args, "--write-baseline", str(first), "--reason", "the layout moves in 2.0"])
    capsys.readouterr()
    text = first.read_text()
    assert "reason: TODO" not in text and text.count("reason: the layout moves in 2.0") == text.count("- key:") > 0
    assert main([*args, "--baseline", str(first)]) == 0
    capsys.readouterr()
    second = tmp_path / "again.yaml"
    main([*args, "--baseline", str(first), "--write-baseline", str(second), "--reason", "another"])
    assert "another" not in second.read_text() and "the layout moves in 2.0" in second.read_text()


def test_ref_validated_names_no_none_and_nothing_audited_is_exit_2(laid_out, capsys) -> None:
    repo, skill = laid_out
    (skill / "card.yaml").write_text(CARD.replace("2026-01-10", "2020-01-01"))  # before any commit
    code = main(["check", str(skill), "--repo", str(repo), "--ref", "validated"])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err == (f"anchor-audit: error: nothing could be audited: {skill}: no commit of the default branch on or "
                   "before 2020-01-01\n")  # fmt: skip
    (skill / "card.yaml").write_text(CARD)
    assert main(["check", str(skill), "--repo", str(repo), "--ref", "validated"]) == 0
    assert "(None)" not in capsys.readouterr().out
    assert main(["check", str(skill), "--repo", str(repo), "--ref", "validated", "--format", "markdown"]) == 0
    header = capsys.readouterr().out.split("\n")[2]
    assert "None" not in header and "commit" not in header and header.endswith("at the validated\\_on of each skill.")


def test_impact_of_a_deleted_quoted_file_is_annotated_on_the_skill_with_codes(make_repo, capsys) -> None:
    repo = make_repo()
    base = "v1"
    repo.remove("src/demo/overlap.py")
    repo.commit("drop overlap.py", tag="v2")
    args = ["impact", base, "v2", str(DEMO / "skills" / "demo-overlap"), "--spec", str(DEMO / "anchors.yaml"),
            "--repo", str(repo.path)]  # fmt: skip
    assert main([*args, "--format", "github"]) == 1
    lines = capsys.readouterr().out.splitlines()
    quotes = [x for x in lines if "anchor exact -> missing" in x]
    assert quotes and all(x.startswith("::error file=") and "demo-overlap/SKILL.md,line=" in x for x in quotes)
    assert all("title=AA501 skill-made-stale%3A skill demo-overlap" in x for x in lines)
    claims = [x for x in lines if "claim" in x and "-> broken" in x]
    assert claims and all("demo-overlap/card.yaml,line=" in x for x in claims)
    assert main([*args, "--format", "sarif"]) == 1
    results = json.loads(capsys.readouterr().out)["runs"][0]["results"]
    assert len(results) == len(lines) and {r["ruleId"] for r in results} == {"AA501"}
    assert all(r["partialFingerprints"]["anchorAuditKey/v1"].startswith("demo-overlap:AA501:") for r in results)


def test_impact_calls_a_quote_that_only_moved_a_warning_as_check_does(make_repo, capsys) -> None:
    repo = shifted(make_repo)
    args = ["impact", "v1", "v2", str(DEMO / "skills" / "demo-overlap"), "--spec", str(DEMO / "anchors.yaml"),
            "--repo", str(repo.path), "--format", "github"]  # fmt: skip
    assert main(args) == 1
    moved = [x for x in capsys.readouterr().out.splitlines() if "exact -> moved" in x]
    assert moved and all(x.startswith("::warning file=src/demo/overlap.py,") for x in moved)


def test_bump_says_what_fix_would_heal_and_bump_fix_heals_it_with_the_pin(make_repo, tmp_path, capsys) -> None:


    repo = shifted(make_repo)
    skill, spec = own_copy(tmp_path, repo)
    before = (skill / "SKILL.md").read_text()
    assert main(["bump", "v2", "--spec", str(spec)]) == 0  # moved quotes break no claim: the pin moves
    err = capsys.readouterr().err
    assert "fix would heal: " in err and "run `anchor-audit fix --write` (or bump v2 --fix next time)" in err
    assert (skill / "SKILL.md").read_text() == before and "  ref: v2\n" in spec.read_text()
    spec.write_text(spec.read_text().replace("  ref: v2\n", "  ref: v1\n"))
    assert main(["bump", "v2", "--spec", str(spec), "--fix"]) == 0
    err = capsys.readouterr().err
    assert "healed: " in err and "  ref: v2\n" in spec.read_text() and (skill / "SKILL.md").read_text() != before
    assert main(["check", "--spec", str(spec)]) == 0  # the pin and the healing, together: everything holds


def test_change_details_show_the_source_as_written_and_an_elision_is_no_change() -> None:
    from anchor_audit.match.closest import explain

    said = explain(['if self.cfg.fp16 and self.cfg.amp_dtype == "fp16":'], ['if self.cfg.fp16:'])
    assert said == '`and self.cfg.amp_dtype == "fp16"` removed in `if self.cfg.fp16 and self.cfg.amp_dtype == "fp16":`'
    said = explain(['log(...)'], ['log(f"batch_size={n}")'])
    assert said == "its lines are in the file, but not together"  # `...` stood for the arguments: no change


def test_the_diff_of_a_changed_quote_keeps_its_indentation(tmp_path: Path) -> None:
    from anchor_audit.match.closest import changed
    from anchor_audit.match.shape import shape_of
    from anchor_audit.model import LineRange, Quote
    from anchor_audit.source.file import SourceFile

    code = "class P:\n    def plan(self, cfg):\n        if cfg.tp > 2:\n            cfg.overlap = True\n        return cfg\n"
    body = ("if cfg.tp > 1:", "    cfg.overlap = True")
    quote = Quote("pkg/plan.py", LineRange(3, 4), body, 10)
    result = changed(quote, shape_of(body), SourceFile("pkg/plan.py", code, "0" * 40), [])
    assert "-if cfg.tp > 1:" in result.diff and "+if cfg.tp > 2:" in result.diff
    assert "     cfg.overlap = True" in result.diff  # a context line, its indentation kept (relative to the quote's)


def test_narrow_lists_say_a_range_once_and_keep_a_folder_of_a_long_path(make_repo, capsys, monkeypatch) -> None:
    from anchor_audit.report.terminal import short_path

    repo = shifted(make_repo)
    monkeypatch.setenv("COLUMNS", "80")
    main(["check", "--spec", str(DEMO / "anchors.yaml"), "--repo", str(repo.path), "--ref", "v2"])
    moved = [line for line in capsys.readouterr().out.splitlines() if line.lstrip().startswith("moved")]
    assert moved and all(line.count("41:47") + line.count("55:57") == 1 and " -> " in line for line in moved)
    assert short_path("src/megatron/bridge/training/comm_overlap.py", 28) == "src/…/comm_overlap.py"  # 60 columns


def test_the_note_of_a_skill_without_an_entry_agrees_with_its_claims(laid_out, capsys) -> None:
    repo, skill = laid_out
    main(["check", str(skill), "--repo", str(repo), "--ref", "v1", "--format", "json"])
    notes = json.loads(capsys.readouterr().out)["skills"][0]["notes"]
    # its one claim is checked by card.yaml's evidence paths: "claims have no evidence" would contradict the table
    assert notes[0] == "no entry in anchors.yaml: quotes are checked on their own, claims are checked by card.yaml's own comments and paths and SKILL.md's captions"


def test_right_after_init_an_unlinked_claim_is_none_registered_and_not_sent_back_to_init(make_repo, tmp_path, capsys,
                                                                                       monkeypatch) -> None:  # fmt: skip
    repo = make_repo()
    shutil.copytree(DEMO / "skills" / "demo-overlap", tmp_path / "demo-overlap")
    monkeypatch.chdir(tmp_path)
    assert main(["init", "demo-overlap", "--repo", str(repo.path), "--ref", "v1"]) == 0
    (tmp_path / "anchors.yaml").write_text(capsys.readouterr().out)
    assert main(["check"]) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if "unlinked" in line and "│" in line]
    assert rows and all("none registered" in row and "0/1 hold" not in row for row in rows)
    assert "anchor-audit init drafts" not in out and "add its quotes or conditions there" in out


def test_diff_says_one_claim_breaks(make_repo, capsys) -> None:
    repo = make_repo()
    repo.edit("src/demo/overlap.py", "if model.tp_size < 2:", "if model.tp_size < 4:")
    repo.commit("raise the threshold", tag="v2")
    code = main(["diff", "v1", "v2", "--spec", str(DEMO / "anchors.yaml"), "--repo", str(repo.path)])
    last = capsys.readouterr().out.splitlines()[-1]
    assert code == 1 and "· 1 claim held at v1 and breaks at v2 ·" in last


def test_fix_format_json_says_what_it_would_change_as_data(make_repo, tmp_path, capsys) -> None:


    repo = shifted(make_repo)
    skill, spec = own_copy(tmp_path, repo)
    before = (skill / "SKILL.md").read_text()
    args = ["fix", str(skill), "--spec", str(spec), "--repo", str(repo.path), "--ref", "v2"]
    assert main([*args, "--format", "json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["written"] == [] and data["exit_code"] == 1 and (skill / "SKILL.md").read_text() == before
    paths = sorted(f["path"] for f in data["files"])
    assert paths == sorted([str(skill / "SKILL.md"), str(spec)])  # the fences, and the registry keys naming them
    assert "42:48:src/demo/overlap.py" in next(f["diff"] for f in data["files"] if f["path"].endswith("SKILL.md"))
    assert data["healed"] and data["left"] == []
    assert main([*args, "--format", "json", "--write"]) == 0
    assert sorted(json.loads(capsys.readouterr().out)["written"]) == paths


def test_init_without_repo_says_the_quoted_files_are_not_in_the_skills_repository(tmp_path: Path, capsys,
                                                                                  monkeypatch) -> None:  # fmt: skip
    from .conftest import git

    skills = tmp_path / "skills-repo"
    make_skill(skills / "plan-skill")  # quotes pkg/plan.py, which lives in another repository
    git(skills, "init", "-q", "-b", "main")
    GitRepo(skills).commit("a skill")
    monkeypatch.chdir(tmp_path)
    assert main(["init", "skills-repo/plan-skill"]) == 0
    out, err = capsys.readouterr()
    said = ("1 of 1 quoted files are not in skills-repo at HEAD: pkg/plan.py (no --repo given, so the draft reads "
            "the repository the skill is in; give --repo and --ref of the code it quotes)")  # fmt: skip
    assert err == f"anchor-audit: warning: init: {said}\n"
    assert err in (ROOT / "docs" / "getting-started.md").read_text()  # as the getting-started page shows it
    assert f"# {said}\n" in out  # and in the draft itself, which is usually redirected to a file
    code = make_code_repo(tmp_path / "code")
    assert main(["init", "skills-repo/plan-skill", "--repo", str(code.path), "--ref", "HEAD"]) == 0
    assert capsys.readouterr().err == ""  # every quoted file is there: nothing to say


def test_a_patch_names_a_registry_given_by_absolute_path_relative_to_the_working_folder(tmp_path, monkeypatch) -> None:
    from anchor_audit.text.lines import unified_diff

    monkeypatch.chdir(tmp_path)
    diff = unified_diff("a: 1\n", "a: 2\n", str(tmp_path / "skills" / "anchors.yaml"))
    assert diff.startswith("--- a/skills/anchors.yaml\n+++ b/skills/anchors.yaml\n")  # not a//tmp/...: git apply takes it
