"""The command line as a user meets it: exit codes, output formats, one-line errors."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from anchor_audit.cli import main

from .conftest import DEMO, ROOT, GitRepo, git

SPEC = str(DEMO / "anchors.yaml")


@pytest.fixture
def repo(make_repo) -> GitRepo:
    repo = make_repo()
    repo.edit("src/demo/overlap.py", "from dataclasses import dataclass\n", "import os\nimport sys\nfrom dataclasses import dataclass\n")
    repo.commit("add imports", tag="v2")
    return repo


def check(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["check", "--spec", SPEC, *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_exit_0_when_everything_holds(repo: GitRepo, capsys) -> None:
    code, out, err = check(capsys, "--repo", str(repo.path))
    assert code == 0 and err == ""
    assert out.splitlines()[-1] == "4 quotes: 4 exact · 5 claims: 4 code_verified, 1 doc_only · 2 references (2 evidence paths): 2 hold · exit 0 (all hold)"


def test_exit_1_on_drift_with_suggestions_in_the_table(repo: GitRepo, capsys) -> None:
    code, out, _ = check(capsys, "--repo", str(repo.path), "--ref", "v2")
    assert code == 1
    assert out.splitlines()[-1] == ("4 quotes: 1 exact, 3 moved · 5 claims: 4 code_verified, 1 doc_only · 2 references (2 evidence paths): 2 hold · "
                                     "exit 1 (drift)")
    row = next(line for line in out.splitlines() if line.startswith("moved") and "│ 22 " in line)
    assert row.split("│")[3:] == [" 41:47    ", " 43-49 ", " 43:49"]  # piped: no padding at the line's end
    assert "\x1b[" not in out  # not a terminal: no colour codes


def test_json_report_shape_and_byte_identical_runs(repo: GitRepo, capsys, tmp_path: Path) -> None:
    code, first, _ = check(capsys, "--repo", str(repo.path), "--ref", "v2", "--format", "json")
    _, second, _ = check(capsys, "--repo", str(repo.path), "--ref", "v2", "--format", "json")
    assert first == second
    data = json.loads(first)
    assert code == 1 and data["summary"]["exit_code"] == 1
    assert data["source"] == {
        "repo": str(repo.path), "ref": "v2", "commit": data["source"]["commit"], "kind": "git", "date": "2026-01-01",
    } and len(data["source"]["commit"]) == 40
    (skill,) = data["skills"]
    assert skill["name"] == "demo-overlap"
    assert skill["anchors"][0] == {
        "path": "src/demo/overlap.py", "declared": [32, 38], "status": "moved", "line": 10,
        "found": [34, 39], "suggested": [34, 40], "region": [33, 40],
    }
    assert skill["claims"][-1] == {"id": "perf_notes", "declared": ["doc_only"], "verdict": "doc_only", "evidence": []}
    assert data["summary"]["anchors"] == {
        "exact": 1, "moved": 3, "relocated": 0, "changed": 0, "missing": 0, "unverifiable": 0, "incomplete": 0,
        "error": 0,
    }
    assert list(data) == sorted(data)


def test_output_file_is_written_whole(repo: GitRepo, capsys, tmp_path: Path) -> None:
    target = tmp_path / "report.json"
    code, out, _ = check(capsys, "--repo", str(repo.path), "--format", "json", "--output", str(target))
    assert code == 0 and out == ""
    assert json.loads(target.read_text())["summary"]["exit_code"] == 0
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".report")] == []


def test_bad_input_is_one_line_exit_2_and_writes_nothing(tmp_path: Path, capsys) -> None:
    spec = tmp_path / "anchors.yaml"
    spec.write_text("source: {repo: ., ref: v1}\nskills:\n  x:\n    claims:\n      y:\n        conditions:\n          - path: a.py\n            if: [a]\n")
    target = tmp_path / "out.json"
    code = main(["check", "--spec", str(spec), "--output", str(target), str(DEMO / "skills" / "demo-overlap")])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err == f"anchor-audit: error: {spec}:8: skills.x.claims.y.conditions[0].if: expected a string\n"
    assert not target.exists()


def test_unknown_ref_is_exit_2(repo: GitRepo, capsys) -> None:
    code, _, err = check(capsys, "--repo", str(repo.path), "--ref", "v9")
    assert code == 2 and err == f"anchor-audit: error: {repo.path}: unknown ref 'v9'\n"


def test_without_registry_needs_a_repo(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    code = main(["check", str(DEMO / "skills" / "demo-overlap")])
    assert code == 2
    said = "anchor-audit: error: no anchors.yaml here: give --spec, or --repo (and --ref; without it, HEAD)\n"
    assert capsys.readouterr().err == said


def test_a_repo_without_a_ref_is_read_at_head_as_init_reads_it(repo: GitRepo, tmp_path: Path, capsys, monkeypatch
                                                                ) -> None:  # fmt: skip
    monkeypatch.chdir(tmp_path)
    main(["check", "--repo", str(repo.path), "--format", "json", str(DEMO / "skills" / "demo-overlap")])
    source = json.loads(capsys.readouterr().out)["source"]
    assert (source["ref"], source["commit"]) == ("HEAD", git(repo.path, "rev-parse", "HEAD"))


def test_bare_anchor_audit_prints_its_usage_and_commands(capsys) -> None:
    assert main([]) == 2
    out = capsys.readouterr().out
    assert out.startswith("usage: anchor-audit") and "commands:" in out
    assert all(f"    {name} " in out for name in ("check", "fix", "matrix", "impact", "explain"))


def test_skill_without_registry_entry_is_audited_on_its_own(repo: GitRepo, tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    code = main(["check", "--repo", str(repo.path), "--ref", "v1", "--format", "json", str(DEMO / "skills" / "demo-overlap")])
    data = json.loads(capsys.readouterr().out)
    # Its card says code_verified and nothing links that to evidence: "unlinked", counted and noted; the run
    # fails on it only with --strict, so a catalog of unregistered skills can go green on what it can check.
    # dp_defaults is linked by the caption above its quote ("Data-parallel defaults:"), and holds.
    assert code == 0 and data["summary"]["claims"]["unlinked"] == 3
    assert [e["ref"] for e in next(c for c in data["skills"][0]["claims"] if c["id"] == "dp_defaults")["evidence"]] == [
        "src/demo/overlap.py:55-57"
    ]
    assert [a["status"] for a in data["skills"][0]["anchors"]] == ["exact"] * 4
    claims = {c["id"]: c for c in data["skills"][0]["claims"]}
    assert claims["tp_gate"]["verdict"] == "unlinked" and "mismatch" not in claims["tp_gate"]
    assert claims["tp_gate"]["evidence"][0]["detail"].startswith("no evidence is registered for this claim")
    assert claims["perf_notes"]["verdict"] == "doc_only"
    assert "no entry in anchors.yaml" in data["skills"][0]["notes"][0]
    # The card's evidence paths are checked as promises.
    assert [(p["kind"], p["path"], p["status"]) for p in data["skills"][0]["promises"]] == [
        ("evidence", "src/demo/overlap.py", "exists"),
        ("evidence", "src/demo/launch.py", "exists"),
    ]


def test_as_a_process_no_traceback(tmp_path: Path) -> None:
    env = {**os.environ, "NO_COLOR": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "anchor_audit", "check", "--spec", str(tmp_path / "nope.yaml")],
        capture_output=True, text=True, env=env, cwd=tmp_path,
    )
    assert done.returncode == 2
    assert done.stderr == f"anchor-audit: error: {tmp_path / 'nope.yaml'}: no such file (give the registry with --spec)\n"
    usage = subprocess.run([sys.executable, "-m", "anchor_audit", "check", "--format", "xml"], capture_output=True, text=True)
    assert usage.returncode == 2 and "Traceback" not in usage.stderr and "invalid choice" in usage.stderr


def test_release_needs_a_release_section(repo: GitRepo, capsys) -> None:
    code, _, err = check(capsys, "--repo", str(repo.path), "--release")
    assert code == 2 and "--release needs source.release" in err


def test_version() -> None:
    done = subprocess.run([sys.executable, "-m", "anchor_audit", "--version"], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0 and done.stdout.startswith("anchor-audit ")


def test_registry_repo_path_is_relative_to_the_registry(repo: GitRepo, tmp_path: Path, capsys, monkeypatch) -> None:
    spec = repo.path.parent / "anchors.yaml"
    spec.write_text(
        (DEMO / "anchors.yaml").read_text()
        .replace("https://git.example.invalid/demo-trainer.git", repo.path.name)
        .replace("path: skills/demo-overlap", f"path: {DEMO / 'skills' / 'demo-overlap'}")
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert main(["check", "--spec", str(spec), "--ref", "v2", "--format", "json"]) == 1
    assert json.loads(capsys.readouterr().out)["source"]["repo"] == f"../{repo.path.name}"


def test_cache_dir_and_clean(repo: GitRepo, cache_dir: Path, capsys) -> None:
    assert main(["cache", "dir"]) == 0
    assert capsys.readouterr().out == f"{cache_dir}\n"
    check(capsys, "--repo", str(repo.path))  # fills the result cache
    assert (cache_dir / "results.sqlite3").exists()
    assert main(["cache", "clean"]) == 0
    assert capsys.readouterr().out == f"removed {cache_dir}\n"
    assert not cache_dir.exists()
    assert main(["cache", "clean"]) == 0
    assert capsys.readouterr().out == f"{cache_dir} is already empty\n"


def test_cache_clean_refuses_a_folder_that_is_not_a_cache(tmp_path: Path, capsys) -> None:
    precious = tmp_path / "precious"
    precious.mkdir()
    (precious / "thesis.tex").write_text("years of work\n")
    assert main(["cache", "clean", "--cache-dir", str(precious)]) == 2
    assert "not an anchor-audit cache (it has no CACHEDIR.TAG made by anchor-audit); nothing removed" in capsys.readouterr().err
    assert (precious / "thesis.tex").exists()


def test_every_command_applies_every_source_option(repo: GitRepo, capsys) -> None:
    # diff used to drop --installed and audit git twice: one open_sources serves every command now.
    base = ["diff", "v1", "v1", "--spec", SPEC, "--repo", str(repo.path)]
    assert main([*base, "--installed", "no-such-dist"]) == 2
    assert capsys.readouterr().err == (
        "anchor-audit: error: --installed reads the one version installed here; it cannot be compared with another ref\n"
    )
    assert main([*base, "--release", "0.6.0"]) == 2
    assert "--release 0.6.0 names one version" in capsys.readouterr().err


def test_commands_are_callable_from_python(repo: GitRepo, tmp_path: Path) -> None:
    import io

    from anchor_audit.commands import Reporter, ReportOptions, RunContext, SourceOptions, check

    err = io.StringIO()
    options = SourceOptions(spec=SPEC, repo=str(repo.path), ref="v2")
    out = tmp_path / "report.json"
    ctx = RunContext(Reporter(stream=err), cache_dir=str(tmp_path / "c"))  # no result store: nothing kept
    code = check(options, ReportOptions(format="json", output=str(out)), ctx)
    assert code == 1 and err.getvalue() == ""
    assert json.loads(out.read_text())["summary"]["exit_code"] == 1


def test_unlinked_claims_fail_only_with_strict(repo: GitRepo, tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    base = ["check", "--repo", str(repo.path), "--ref", "v1", str(DEMO / "skills" / "demo-overlap")]
    assert main(base) == 0
    last = capsys.readouterr().out.splitlines()[-1]
    assert last == ("4 quotes: 4 exact · 5 claims: 1 code_verified, 1 doc_only, 3 unlinked · 2 references (2 evidence paths): 2 hold "
                    "· exit 0 (all linked evidence holds)")
    assert main([*base, "--strict"]) == 1
    assert capsys.readouterr().out.splitlines()[-1].endswith("3 unlinked · 2 references (2 evidence paths): 2 hold · exit 1 (drift)")


def test_ref_validated_audits_each_skill_at_its_cards_day(make_repo, tmp_path: Path, capsys) -> None:
    repo = make_repo()  # the demo sources, committed 2026-01-01
    repo.edit("src/demo/overlap.py", "from dataclasses import dataclass\n", "import os\nimport sys\nfrom dataclasses import dataclass\n")
    later = repo.commit("add imports", date="2026-02-01T12:00:00")
    skills = tmp_path / "skills"
    shutil.copytree(DEMO / "skills" / "demo-overlap", skills / "demo-overlap")  # validated_on: 2026-01-10
    undated = skills / "undated"
    shutil.copytree(DEMO / "skills" / "demo-overlap", undated)
    (undated / "card.yaml").write_text((undated / "card.yaml").read_text().replace('validated_on: "2026-01-10"\n', ""))
    base = ["check", "--spec", SPEC, "--repo", str(repo.path), "--format", "json", "--all", str(skills)]
    assert main([*base, "--ref", "HEAD"]) == 1
    at_head = {s["name"]: s for s in json.loads(capsys.readouterr().out)["skills"]}
    assert [a["status"] for a in at_head["demo-overlap"]["anchors"]].count("moved") == 3  # at HEAD the quotes moved
    code = main([*base, "--ref", "validated"])
    data = json.loads(capsys.readouterr().out)
    by_name = {s["name"]: s for s in data["skills"]}
    dated = by_name["demo-overlap"]
    first = git(repo.path, "rev-list", "--max-parents=0", "HEAD")
    assert dated["source"]["commit"] == first and dated["source"]["ref"] == "validated_on 2026-01-10" and later != first
    assert [a["status"] for a in dated["anchors"]] == ["exact"] * 4  # right on the day they were validated
    assert by_name["undated"]["error"].endswith("card.yaml gives no validated_on date (YYYY-MM-DD) to audit at")
    assert code == 1


@pytest.mark.parametrize(
    "argv, says",
    [
        (["chek"], "(did you mean check?)"),
        (["check", "--formt", "json"], "unrecognized arguments: --formt (did you mean --format?)"),
        (["check", "--format", "jsn"], "(did you mean json?)"),
    ],
)
def test_a_mistake_on_the_command_line_gets_a_suggestion(argv: list[str], says: str, capsys) -> None:
    with pytest.raises(SystemExit) as exited:
        main(argv)
    err = capsys.readouterr().err
    assert exited.value.code == 2 and err.count("\n") == 1 and says in err


def test_an_unknown_ref_names_the_nearest(repo: GitRepo, capsys) -> None:
    assert main(["check", "--spec", SPEC, "--repo", str(repo.path), "--ref", "v"]) == 2
    assert capsys.readouterr().err.endswith("unknown ref 'v' (nearest: v1, v2)\n")


def test_help_describes_every_argument_and_the_exit_codes(capsys) -> None:
    for command in ("check", "diff", "bump", "history", "init", "fix", "cache"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        out = capsys.readouterr().out
        assert "exit codes: 0 " in out and "2 could not run (bad input" in " ".join(out.split())
    with pytest.raises(SystemExit):
        main(["history", "--help"])
    assert "--all ROOT" not in capsys.readouterr().out  # history follows named skills


def test_the_command_collects_cycles_seldom_and_main_leaves_the_collector_alone() -> None:
    """The installed command and ``python -m anchor_audit`` go through ``program()``, which freezes what the imports
    made and collects seldom; ``main()`` (a caller's process, this test run's) changes nothing of the collector."""
    import tomllib

    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts == {"anchor-audit": "anchor_audit.cli:program"}
    assert (ROOT / "src" / "anchor_audit" / "__main__.py").read_text().count("program()") == 1
    probe = (
        "import gc, sys\nfrom anchor_audit import cli\nbefore = gc.get_threshold()\n"
        "cli.main = lambda: print(before != gc.get_threshold(), gc.get_freeze_count() > 0) or 0\ncli.program()\n"
    )  # fmt: skip
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=ROOT)
    assert run.stdout == "True True\n"
    probe = (
        "import gc\nfrom anchor_audit import cli\nbefore = gc.get_threshold()\n"
        "try:\n    cli.main(['--version'])\nexcept SystemExit:\n    pass\n"
    )  # fmt: skip
    run = subprocess.run([sys.executable, "-c", probe + "print(before != gc.get_threshold(), gc.get_freeze_count() > 0)"],
                         capture_output=True, text=True, check=True, cwd=ROOT)  # fmt: skip
    assert run.stdout.split("\n")[-2] == "False False"


def test_the_command_ends_its_process_with_mains_code_and_every_output_flushed() -> None:
    """``program()`` ends the process itself (an interpreter's exit would free every object the run's caches
    hold, one at a time): with main()'s exit code, what it left in stdout's and stderr's buffers written (a pipe
    is block-buffered), and nothing run after it, not even an ``atexit`` hook."""
    probe = (
        "import atexit, sys\nfrom anchor_audit import cli\natexit.register(print, 'atexit ran')\n"
        "cli.main = lambda: print('the report', end='') or sys.stderr.write('a warning') and 3\n"
        "cli.program()\nprint('after program()')\n"
    )  # fmt: skip
    buffered = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, env=buffered)
    assert (run.returncode, run.stdout, run.stderr) == (3, "the report", "a warning")


def test_a_skill_with_only_references_has_them_counted_and_no_registry_note(repo: GitRepo, tmp_path: Path, capsys
                                                                             ) -> None:  # fmt: skip
    skill = tmp_path / "paths-only"
    skill.mkdir()
    (skill / "SKILL.md").write_text("---\nname: paths-only\ndescription: d\n---\n\nSee `src/demo/overlap.py` and "
                                    "`src/demo/gone.py`.\n")  # fmt: skip
    assert main(["check", "--repo", str(repo.path), "--ref", "v1", str(skill)]) == 1
    out = capsys.readouterr().out
    assert out.splitlines()[-1] == "2 references (2 paths): 1 hold, 1 missing · exit 1 (drift)"  # not "0 quotes: none"
    assert "quotes are checked on their own" not in out  # it has none
