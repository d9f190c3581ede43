"""The composite GitHub Action's audit step, run with bash as the runner would (inputs in the environment)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import yaml

from .conftest import DEMO, ROOT


def _audit_step() -> dict:
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    (step,) = [s for s in action["runs"]["steps"] if s.get("id") == "audit"]
    return step


def test_the_action_installs_from_its_own_checkout_never_the_index() -> None:
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    installs = [s["run"].strip() for s in action["runs"]["steps"] if "pip install" in s.get("run", "")]
    assert installs == ['python -m pip install --quiet "${{ github.action_path }}"']


def test_the_audit_step_writes_each_format_and_reports_the_worst_exit_code(make_repo, tmp_path: Path) -> None:
    repo = make_repo()
    repo.edit("src/demo/overlap.py", "from dataclasses import dataclass\n", "import os\nfrom dataclasses import dataclass\n")
    repo.commit("shift", tag="v2")
    step = _audit_step()
    out = tmp_path / "github_output"
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "anchor-audit").write_text(f"#!/bin/sh\nexec {sys.executable} -m anchor_audit \"$@\"\n")
    (bin_dir / "anchor-audit").chmod(0o755)
    env = {
        **os.environ,
        "PATH": f"{bin_dir}:{os.environ['PATH']}",
        "GITHUB_OUTPUT": str(out),
        "AA_PATHS": str(DEMO / "skills" / "demo-overlap"),
        "AA_SPEC": str(DEMO / "anchors.yaml"),
        "AA_REF": "v2",
        "AA_FORMATS": f"sarif={tmp_path / 'a.sarif'} github",
        "AA_BASELINE": "",
    }
    # The demo registry points at a placeholder URL: the test repository stands in for it.
    script = step["run"].replace('args=(check --quiet --spec "$AA_SPEC")', f'args=(check --quiet --spec "$AA_SPEC" --repo {repo.path})')
    done = subprocess.run(["bash", "-eo", "pipefail", "-c", script], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stderr  # three quotes moved: drift
    assert out.read_text() == "exit-code=1\n"
    assert (tmp_path / "a.sarif").read_text().startswith("{")
    assert done.stdout.startswith("::")  # the github format went to the log
