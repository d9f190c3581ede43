"""The shipped examples run as documented."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import yaml

from .conftest import ROOT


def test_demo_script_runs_and_shows_each_step() -> None:
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}
    done = subprocess.run(["bash", str(ROOT / "examples" / "demo.sh")], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "4 quotes: 4 exact · 5 claims: 4 code_verified, 1 doc_only · 2 references (2 evidence paths): 2 hold · exit 0 (all hold)" in out
    assert "4 quotes: 1 exact, 2 moved, 1 changed" in out
    assert "**1 claim breaks at `v2`:**" in out
    assert "fix: 2 files to change, dry run, nothing written (--write applies); 2 left for a person" in out


def test_workflow_and_pre_commit_hooks_are_valid_yaml_running_anchor_audit() -> None:
    workflow = yaml.safe_load((ROOT / "examples" / "github-workflow.yml").read_text())
    steps = workflow["jobs"]["audit"]["steps"]
    runs = "\n".join(step.get("run", "") for step in steps)
    assert "anchor-audit diff" in runs and "gh issue close" in runs
    (audit,) = [step for step in steps if step.get("id") == "audit"]
    assert audit["uses"].split("/")[1].startswith("anchor-audit@")  # the composite action, not pip install
    assert "sarif=anchor-audit.sarif" in audit["with"]["formats"]
    assert "pip install anchor-audit" not in (ROOT / "examples" / "github-workflow.yml").read_text()
    triggers = workflow.get("on", workflow.get(True))  # YAML 1.1 reads the key `on` as true
    assert "schedule" in triggers and "pull_request" in triggers
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert [h["id"] for h in hooks] == ["anchor-audit", "anchor-audit-github", "anchor-audit-impact"]
    assert all(h["entry"].startswith("anchor-audit check") for h in hooks[:2])
    assert hooks[2]["entry"] == "anchor-audit impact HEAD --worktree --quiet"  # run by test_worktree's hook case


def test_impact_workflow_runs_impact_against_the_merge_base_with_every_flag_real() -> None:
    from anchor_audit.cli.table import build_parser as _parser

    workflow = yaml.safe_load((ROOT / "examples" / "impact-workflow.yml").read_text())
    steps = workflow["jobs"]["impact"]["steps"]
    runs = [line.strip() for step in steps for line in step.get("run", "").splitlines()]
    commands = [line for line in runs if line.startswith("anchor-audit impact")]
    assert len(commands) == 2 and any("git merge-base" in line for line in runs)
    parser = _parser()
    for command in commands:  # every flag the example uses parses (the refs stand in for the shell variables)
        argv = command.replace('"$base"', "BASE").split()[1:]
        args = parser.parse_args(argv)
        assert (args.base, args.head, args.in_repo, args.all) == ("BASE", "HEAD", True, ["skills"])
    install = next(line for line in runs if line.startswith("pip install"))
    assert "git+https://" in install  # from a copy of this repository, never the unrelated PyPI name


def test_catalog_workflow_runs_the_catalog_commands_with_every_flag_real() -> None:
    from anchor_audit.cli.table import build_parser as _parser

    workflow = yaml.safe_load((ROOT / "examples" / "catalog-workflow.yml").read_text())
    triggers = workflow.get("on", workflow.get(True))
    assert "schedule" in triggers
    steps = workflow["jobs"]["staleness"]["steps"]
    runs = [line.strip() for step in steps for line in step.get("run", "").replace("\\\n", " ").splitlines()]
    commands = [line.split()[1:] for line in runs if line.startswith("anchor-audit ")]
    assert len(commands) == 2
    parser = _parser()
    parsed = [parser.parse_args(argv) for argv in commands]  # every flag the example uses is one the tool takes
    assert [a.command for a in parsed] == ["check", "fix"]  # one audit writes both reports
    assert parsed[0].format == "sarif" and parsed[0].report == ["markdown=anchor-audit.md"]
    assert all(a.catalog == "." for a in parsed) and parsed[0].exit_zero and parsed[1].format == "issue"
    assert parsed[1].output_dir == "upstream-patches"
    assert any("gh issue edit" in line for line in runs) and any("gh issue create" in line for line in runs)
