"""The JSON report counts everything that drives the exit code, and every problem carries its code and the
fingerprint SARIF and the baseline use."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from .conftest import DEMO


def _run(*args: str) -> tuple[int, str]:
    done = subprocess.run([sys.executable, "-m", "anchor_audit", *args], capture_output=True, text=True)
    assert done.returncode != 2, done.stderr
    return done.returncode, done.stdout


def test_findings_carry_the_fingerprints_sarif_and_the_baseline_use(make_repo, tmp_path: Path) -> None:
    repo = make_repo()
    repo.edit("src/demo/overlap.py", "from dataclasses import", "import os\nfrom dataclasses import")  # quotes move
    repo.commit("shift", tag="v2")
    args = ["check", "--repo", str(repo.path), "--ref", "v2", "--spec", str(DEMO / "anchors.yaml")]
    code, out = _run(*args, "--format", "json")
    report = json.loads(out)
    found = [f for s in report["skills"] for f in s["findings"]]
    assert code == 1 and found and all(f["drift"] for f in found)
    _, sarif = _run(*args, "--format", "sarif")
    results = json.loads(sarif)["runs"][0]["results"]
    assert [(r["ruleId"], r["partialFingerprints"]["anchorAuditKey/v1"]) for r in results] == [
        (f["code"], f["fingerprint"]) for f in found
    ]
    summary = report["summary"]
    assert summary["findings"] == {code: sum(f["code"] == code for f in found) for code in {f["code"] for f in found}}
    assert (summary["drift"], summary["accepted"]) == (len(found), 0)
    promises = [p for s in report["skills"] for p in s["promises"]]
    assert sum(n for by_status in summary["promises"].values() for n in by_status.values()) == len(promises)
    assert summary["skills"] == {"audited": len(report["skills"]), "skipped": 0, "unreadable": 0, "out_of_sync": 0,
                                 "absent_upstream": 0, "behind_upstream": 0, "unlisted": 0}  # fmt: skip

    baseline = tmp_path / "baseline.json"
    _run(*args, "--write-baseline", str(baseline), "--format", "json")
    baseline.write_text(baseline.read_text().replace("TODO: say why this finding is acceptable", "moved by the import v2 adds"))
    code, out = _run(*args, "--baseline", str(baseline), "--format", "json")
    accepted = json.loads(out)
    assert code == 0 and accepted["summary"]["accepted"] == len(found) and accepted["summary"]["drift"] == 0
    marks = [(f["accepted"], f["drift"]) for s in accepted["skills"] for f in s["findings"]]
    assert marks == [(True, False)] * len(found)


def test_the_documented_report_has_the_schemas_summary_and_findings() -> None:
    import re

    from .conftest import ROOT

    schema = json.loads((ROOT / "src/anchor_audit/report/report.schema.json").read_text())
    shown = json.loads(re.search(r"```json\n(.*?)```", (ROOT / "docs/report-json.md").read_text(), re.S).group(1))
    assert sorted(shown["summary"]) == sorted(schema["properties"]["summary"]["required"])
    (skill,) = shown["skills"]
    assert sorted(skill["findings"][0]) == sorted(schema["$defs"]["finding"]["required"])
