"""What the reports show and how they are written: every format, accepted findings, output files, narrow
terminals, progress."""

from __future__ import annotations

import json
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest

from anchor_audit.cli import main

from .hostile.conftest import QUOTE, make_code_repo, make_skill

TESTS = "def test_one():\n    pass\n\n\ndef test_two():\n    pass\n"
SKILL = QUOTE + "\nRun the tests:\n\n```bash\npytest tests/test_plan.py\n```\n\nThe first command reports 3 passed.\n"
CARD = (
    'validated_on: "2026-01-10"\nvalidation_status:\n  files_there:\n    - file_exists\n'
    "evidence:\n  - pkg/plan.py\n  - docs/gone.md\n"
)


@pytest.fixture
def promised(tmp_path: Path, monkeypatch) -> Path:
    """A skill whose card has a file_exists claim (one path gone) and whose prose promises 3 tests (2 exist)."""
    repo = make_code_repo(tmp_path / "code", {"tests/test_plan.py": TESTS})
    make_skill(tmp_path / "skill", SKILL, card=CARD)
    monkeypatch.chdir(tmp_path)
    return repo.path


@pytest.mark.parametrize("fmt", ["terminal", "json", "markdown", "sarif", "junit", "github"])
def test_every_format_renders_file_exists_claims_and_shows_why_it_fails(promised: Path, fmt: str, capsys) -> None:
    code = main(["check", "--repo", str(promised), "--ref", "v1", "--format", fmt, "skill"])
    out, err = capsys.readouterr()
    assert code == 1 and err == ""  # no crash (the Markdown report used to die on file_exists paths)
    if fmt == "markdown":
        assert "file `docs/gone.md` missing" in out and "at `pkg/plan.py`" in out
        assert "Drift: 1 card-mismatch, 1 claim-broken, 1 evidence-missing, 1 test-count-differs." in out
    if fmt == "junit":
        failures = int(ET.fromstring(out).get("failures"))
        assert failures >= 2  # the broken claim and the test count: every reason for exit 1 is a failure
        assert 'name="tests:tests/test_plan.py"' in out
    if fmt == "terminal":
        assert out.splitlines()[-1].endswith("· 4 references (2 evidence paths, 1 path, 1 test count): 2 hold, 1 differs, 1 missing · 1 card mismatch · exit 1 (drift)")


@pytest.mark.parametrize("color", ["never", "always"])
def test_a_piped_terminal_report_ends_no_line_with_the_spaces_its_tables_pad(promised: Path, capsys, color) -> None:
    main(["check", "--repo", str(promised), "--ref", "v1", "--color", color, "skill"])
    lines = capsys.readouterr().out.splitlines()
    assert any("┃" in line for line in lines)  # a table was drawn
    assert [line for line in lines if line.replace("\x1b[0m", "").endswith(" ")] == []


def test_accepted_findings_are_marked_and_counted_apart(promised: Path, capsys) -> None:
    base = ["check", "--repo", str(promised), "--ref", "v1", "skill"]
    assert main([*base, "--write-baseline", "baseline.yaml"]) == 1
    capsys.readouterr()
    text = Path("baseline.yaml").read_text()
    assert main([*base, "--baseline", "baseline.yaml"]) == 2  # four reasons missing: all four named at once
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "4 entries have no reason (lines " in err
    Path("baseline.yaml").write_text(text.replace("TODO: say why this finding is acceptable", "tracked in #7"))
    assert main([*base, "--baseline", "baseline.yaml"]) == 0
    out = capsys.readouterr().out
    assert "accepted: skill: claim files_there is broken" in out and "(baseline: tracked in #7)" in out
    assert out.splitlines()[-1].endswith("· 4 findings accepted by the baseline · exit 0 (no drift but what the baseline accepts)")


def test_output_files_follow_the_umask(promised: Path) -> None:
    import os

    old = os.umask(0o022)
    try:
        main(["check", "--repo", str(promised), "--ref", "v1", "--format", "json", "--output", "r.json", "skill"])
    finally:
        os.umask(old)
    assert oct(Path("r.json").stat().st_mode & 0o777) == "0o644"


def test_json_report_names_the_promise_counts(promised: Path, capsys) -> None:
    main(["check", "--repo", str(promised), "--ref", "v1", "--format", "json", "skill"])
    report = json.loads(capsys.readouterr().out)
    tests = [p for p in report["skills"][0]["promises"] if p["kind"] == "tests"]
    assert tests == [{"kind": "tests", "path": "tests/test_plan.py", "status": "differs", "file": "skill/SKILL.md",
                      "line": 19, "tests_promised": 3, "tests_found": 2}]  # fmt: skip


def test_github_annotations_are_capped_with_a_summary(tmp_path: Path, capsys, monkeypatch) -> None:
    code = "".join(f"x{i} = {i}\n" for i in range(30))
    repo = make_code_repo(tmp_path / "code", {"pkg/many.py": code})
    body = "".join(f"```{i + 1}:{i + 1}:pkg/many.py\nx{i} = {i + 100}\n```\n\n" for i in range(14))  # 14 changed
    make_skill(tmp_path / "skill", body)
    monkeypatch.chdir(tmp_path)
    assert main(["check", "--repo", str(repo.path), "--ref", "v1", "--format", "github", "skill"]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert len([ln for ln in lines if ln.startswith("::error file=")]) == 10
    said, *items = lines[-1].split("%0A")
    assert said == ("::error title=anchor-audit::4 more errors not shown (4 quotes and line citations changed or "
                    "moved): see the full report (--format sarif or markdown)")  # what the cap left out, by class
    # each claim and quote the cap left out is still named, worst first, before any link or other finding
    assert items == [f"skill/SKILL.md:{4 * i + 6}: AA102 pkg/many.py:{i + 1}-{i + 1}" for i in range(10, 14)]


def test_the_github_summary_names_every_claim_and_quote_the_cap_left_out_and_only_counts_links(tmp_path: Path, capsys,
                                                                                               monkeypatch) -> None:
    code = "".join(f"x{i} = {i}\n" for i in range(30))
    repo = make_code_repo(tmp_path / "code", {"pkg/many.py": code})
    body = "".join(f"```{i + 1}:{i + 1}:pkg/many.py\nx{i} = {i + 100}\n```\n\n" for i in range(12))
    body += "".join(f"[page {i}](missing-{i}.md)\n\n" for i in range(5))
    make_skill(tmp_path / "skill", body)
    monkeypatch.chdir(tmp_path)
    assert main(["check", "--repo", str(repo.path), "--ref", "v1", "--format", "github", "skill"]) == 1
    lines = capsys.readouterr().out.splitlines()
    shown = [ln for ln in lines if ln.startswith("::error file=")]
    assert len(shown) == 10 and all("AA102" in ln for ln in shown)  # quotes before links
    said, *items = [ln for ln in lines if ln.startswith("::error title=")][0].split("%0A")
    assert said.startswith("::error title=anchor-audit::7 more errors not shown (2 quotes and line citations changed "
                           "or moved, 5 links broken)")
    assert [item.split(": ")[1].split()[0] for item in items] == ["AA102", "AA102"]  # the links only counted


def test_sarif_uris_are_relative_to_the_repository_root(promised: Path, tmp_path: Path, capsys, monkeypatch) -> None:
    (tmp_path / ".git").mkdir()  # the skills repository the run is in
    (tmp_path / "ci").mkdir()
    monkeypatch.chdir(tmp_path / "ci")
    main(["check", "--repo", str(promised), "--ref", "v1", "--format", "sarif", "../skill"])
    log = json.loads(capsys.readouterr().out)
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in log["runs"][0]["results"]}
    assert uris == {"skill/SKILL.md", "skill/card.yaml"}
    assert "informationUri" not in log["runs"][0]["tool"]["driver"]  # no home page that does not exist


def test_one_audit_writes_many_reports(promised: Path, capsys) -> None:
    code = main(["check", "--repo", str(promised), "--ref", "v1", "--format", "github", "skill",
                 "--report", "sarif=r.sarif", "--report", "markdown=r.md"])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 1 and out.startswith("::error ")  # stdout keeps --format
    assert json.loads(Path("r.sarif").read_text())["version"] == "2.1.0"
    assert Path("r.md").read_text().startswith("# anchor-audit report")
    assert main(["check", "skill", "--report", "sarf=x"]) == 2
    assert "--report sarf=...: not a format" in capsys.readouterr().err


def test_narrow_terminals_keep_file_names_and_fall_back_to_lists(tmp_path: Path) -> None:
    import io

    from anchor_audit.audit.skills import audit
    from anchor_audit.report.terminal import TerminalRenderer, short_path
    from anchor_audit.source.git import open_git
    from anchor_audit.spec.skill import load_skill

    long_path = "src/megatron/bridge/training/comm_overlap.py"
    assert short_path(long_path, 30) == "src/…/training/comm_overlap.py"
    assert short_path(long_path, 80) == long_path
    code = "\n" * 2 + "if cfg.tp > 1:\n    cfg.overlap = True\n"
    repo = make_code_repo(tmp_path / "code", {long_path: code})
    skill = make_skill(tmp_path / "skill", f"```1:2:{long_path}\nif cfg.tp > 1:\n    cfg.overlap = True\n```\n",
                       card="validation_status:\n  a_claim_with_a_long_name:\n    - code_verified\n")  # fmt: skip
    tree = open_git(str(repo.path), "v1")
    report = audit([(load_skill(skill), None)], tree)
    for width in (80, 120):
        out = io.StringIO()
        TerminalRenderer(width=width)(report, out)
        text = out.getvalue()
        assert "comm_overlap.py" in text  # the file name survives any width
        assert all(len(line) <= width for line in text.splitlines() if not line.startswith(("source:", "  ", "note:")))
    narrow = io.StringIO()
    TerminalRenderer(width=80)(report, narrow)
    assert "a_claim_with_a_long_name: unlinked (" in narrow.getvalue()  # one line per claim, not a squeezed table


def test_progress_counts_skills_on_a_terminal_and_says_nothing_in_a_log(tmp_path: Path) -> None:
    import io

    from anchor_audit.audit.skills import audit
    from anchor_audit.commands import Reporter
    from anchor_audit.source.git import open_git
    from anchor_audit.spec.skill import load_skill

    repo = make_code_repo(tmp_path / "code")
    skills = [(load_skill(make_skill(tmp_path / f"s{i}")), None) for i in range(3)]
    said: list[tuple[str, float | None]] = []
    audit(skills, open_git(str(repo.path), "v1"), progress=lambda m, f: said.append((m, f)))
    assert said == [("skill 1 of 3: s0", 0.0), ("skill 2 of 3: s1", 1 / 3), ("skill 3 of 3: s2", 2 / 3), ("", 1.0)]
    log = io.StringIO()  # not a terminal (a CI log): no progress at all
    Reporter(stream=log).progress()("fetching v1", None)
    assert log.getvalue() == ""


def test_a_fetch_reports_its_progress(tmp_path: Path) -> None:
    from anchor_audit.source.mirror import mirror

    from .conftest import git

    repo = make_code_repo(tmp_path / "code", {f"pkg/f{i}.py": f"x = {i}\n" * 200 for i in range(40)})
    git(repo.path, "config", "uploadpack.allowFilter", "true")
    said: list[str] = []
    mirror(f"file://{repo.path}", "v1", tmp_path / "cache", lambda message, fraction: said.append(message))
    assert said[0] == f"fetching v1 from file://{repo.path}"
    assert any(m.startswith(f"fetching v1 from file://{repo.path}: ") and m.endswith("%") for m in said[1:-1])
    assert said[-1] == ""


def test_every_kind_of_reference_is_named_in_the_summary_line() -> None:
    """A kind of promise added without its words would print as a KeyError in every summary."""
    from anchor_audit.model import PromiseKind
    from anchor_audit.report.referencecounts import KIND_WORDS

    assert set(KIND_WORDS) == set(PromiseKind)
    assert all(one != many for one, many in KIND_WORDS.values())
