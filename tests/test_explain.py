"""anchor-audit explain: every finding code's meaning, why it matters and what to do, from one source (rules.py)."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from anchor_audit.commands.explain import describe
from anchor_audit.findings.rules import RULES

from .conftest import ROOT


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "anchor_audit", "explain", *args], capture_output=True, text=True)


@pytest.mark.parametrize("code", list(RULES))
def test_every_rule_says_what_why_and_what_to_do(code: str) -> None:
    rule = RULES[code]
    assert re.fullmatch(r"AA[1-5]\d\d", code) and re.fullmatch(r"[a-z]+(?:-[a-z]+)+", rule.name)
    for text in (rule.summary, rule.why, rule.act):
        assert len(text) > 20 and text.endswith(".") and (text[0].isupper() or text.startswith("card.yaml")), text
    shown = _run(code.lower())  # codes are read in any case, and names too
    assert shown.returncode == 0 and shown.stdout == describe(rule) == _run(rule.name).stdout


def test_explain_lists_every_rule_and_refuses_an_unknown_one() -> None:
    listing = _run()
    assert listing.returncode == 0
    assert [line.split()[0] for line in listing.stdout.splitlines()[:-1]] == list(RULES)
    assert listing.stdout.splitlines()[-1] == f"{len(RULES)} rules; anchor-audit explain CODE tells one in full"
    refused = _run("AA999")
    assert refused.returncode == 2 and refused.stdout == ""
    assert refused.stderr == "anchor-audit: error: explain: no rule 'AA999' (anchor-audit explain lists them)\n"


def test_sarif_rules_carry_the_same_text(make_repo, tmp_path) -> None:
    from .conftest import DEMO

    repo = make_repo()
    done = subprocess.run(
        [sys.executable, "-m", "anchor_audit", "check", "--repo", str(repo.path), "--ref", "v1", "--spec",
         str(DEMO / "anchors.yaml"), "--format", "sarif"], capture_output=True, text=True,
    )  # fmt: skip
    rules = json.loads(done.stdout)["runs"][0]["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == [c for c in RULES if not c.startswith("AA5")]  # impact's are in impact's log
    for r in rules:
        rule = RULES[r["id"]]
        assert r["fullDescription"]["text"] == f"{rule.summary} {rule.why}" and r["help"]["text"] == rule.act


def test_the_docs_show_what_explain_prints() -> None:
    docs = (ROOT / "docs" / "commands.md").read_text(encoding="utf-8")
    shown = re.search(r"```text\n\$ anchor-audit explain AA406\n(.*?)```", docs, re.S)
    assert shown is not None and shown.group(1) == _run("AA406").stdout
