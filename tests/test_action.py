"""The composite GitHub Action's audit step, run with bash as the runner would (inputs in the environment)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import yaml

from .conftest import DEMO, ROOT, empty_repo, git


def _audit_step() -> dict:
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    (step,) = [s for s in action["runs"]["steps"] if s.get("id") == "audit"]
    return step


def test_the_action_installs_from_its_own_checkout_never_the_index() -> None:
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    installs = [s["run"].strip() for s in action["runs"]["steps"] if "pip install" in s.get("run", "")]
    assert installs == ['python -m pip install --quiet "${{ github.action_path }}"']


def _run_step(tmp_path: Path, code_repo: Path, cwd: Path, **env: str) -> tuple[subprocess.CompletedProcess[str], str]:
    """The audit step as the runner runs it, in ``cwd``, with the inputs ``env`` gives (the rest empty)."""
    out = tmp_path / "github_output"
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    (bin_dir / "anchor-audit").write_text(f"#!/bin/sh\nexec {sys.executable} -m anchor_audit \"$@\"\n")
    (bin_dir / "anchor-audit").chmod(0o755)
    inputs = {"AA_PATHS": "", "AA_SPEC": "", "AA_REF": "", "AA_FORMATS": "", "AA_BASELINE": "", "AA_CONFIG_FROM": ""}
    full = {**os.environ, **inputs, **env, "PATH": f"{bin_dir}:{os.environ['PATH']}", "GITHUB_OUTPUT": str(out),
            "RUNNER_TEMP": str(tmp_path)}  # fmt: skip
    # The demo registry points at a placeholder URL: the test repository stands in for it.
    script = _audit_step()["run"].replace('args=(check --quiet --spec "$AA_SPEC")',
                                          f'args=(check --quiet --spec "$AA_SPEC" --repo {code_repo})')  # fmt: skip
    done = subprocess.run(["bash", "-eo", "pipefail", "-c", script], env=full, capture_output=True, text=True,
                          timeout=120, cwd=cwd)  # fmt: skip
    return done, out.read_text() if out.exists() else ""


def test_the_audit_step_writes_each_format_and_reports_the_worst_exit_code(make_repo, tmp_path: Path) -> None:
    repo = make_repo()
    repo.edit("src/demo/overlap.py", "from dataclasses import dataclass\n", "import os\nfrom dataclasses import dataclass\n")
    repo.commit("shift", tag="v2")
    done, output = _run_step(tmp_path, repo.path, tmp_path, AA_PATHS=str(DEMO / "skills" / "demo-overlap"),
                             AA_SPEC=str(DEMO / "anchors.yaml"), AA_REF="v2",
                             AA_FORMATS=f"sarif={tmp_path / 'a.sarif'} github")  # fmt: skip
    assert done.returncode == 1 and done.stderr == "", done.stderr  # three quotes moved: drift
    assert output == "exit-code=1\n"
    assert (tmp_path / "a.sarif").read_text().startswith("{")
    assert done.stdout.startswith("::")  # the github format went to the log


def test_on_a_pull_request_the_base_settings_decide_and_the_relaxation_is_annotated(make_repo, tmp_path: Path) -> None:
    code = make_repo()
    code.edit("src/demo/overlap.py", "from dataclasses import dataclass\n", "import os\nfrom dataclasses import dataclass\n")
    code.commit("shift", tag="v2")
    origin = empty_repo(tmp_path / "origin")  # the skills repository, and a pull request that turns its gate off
    origin.write("README.md", "skills\n")
    base = origin.commit("base")
    git(origin.path, "checkout", "-q", "-b", "pr")
    origin.write("anchor-audit.toml", 'exit-zero = true\n')
    origin.commit("pr")
    checkout = tmp_path / "checkout"  # as actions/checkout makes it: the pull request's commit alone
    git(tmp_path, "clone", "-q", "--depth", "1", "--branch", "pr", f"file://{origin.path}", str(checkout))
    assert subprocess.run(["git", "cat-file", "-e", f"{base}^{{commit}}"], cwd=checkout).returncode != 0
    done, output = _run_step(tmp_path, code.path, checkout, AA_SPEC=str(DEMO / "anchors.yaml"), AA_REF="v2",
                             AA_CONFIG_FROM=base)  # fmt: skip
    assert output == "exit-code=1\n", done.stderr  # the base has no exit-zero: the drift fails the pull request
    assert done.stdout.splitlines()[-1] == (
        f"::warning file=anchor-audit.toml,line=1,title=anchor-audit settings::exit-zero = true is not used: the "
        f"settings are read from {base}, where exit-zero is unset; it would relax the gate: drift exits 0"
    )
    assert not (tmp_path / "anchor-audit-settings.github").exists()
    assert subprocess.run(["git", "cat-file", "-e", f"{base}^{{commit}}"], cwd=checkout).returncode == 0  # fetched
