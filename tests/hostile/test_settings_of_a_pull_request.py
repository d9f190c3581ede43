"""A settings file in a pull request's checkout is the author's to write: with --config-from BASE the base's
settings decide, each difference is said and annotated; without it, what the file relaxes is annotated."""

from __future__ import annotations

import pytest

from anchor_audit.cli import main

from ..conftest import DEMO, ROOT, GitRepo, empty_repo

SPEC = str(DEMO / "anchors.yaml")
RELAXING = 'exit-zero = true\nignore = ["AA1"]\nfail-on-codes = {AA = "never"}\n'


@pytest.fixture
def pull_request(tmp_path, monkeypatch) -> tuple[GitRepo, str]:
    """A skills repository whose base sets `strict = true` and whose pull request relaxes everything instead;
    the current folder is the pull request's checkout."""
    repo = empty_repo(tmp_path / "skills")
    repo.write("anchor-audit.toml", "strict = true\n")
    base = repo.commit("base")
    repo.write("anchor-audit.toml", RELAXING)
    repo.commit("a pull request that turns its own gate off")
    monkeypatch.chdir(repo.path)
    return repo, base


def _check(capsys, code_repo: GitRepo, *args: str) -> tuple[int, str, str]:
    code = main(["check", "--spec", SPEC, "--repo", str(code_repo.path), "--ref", "v2", "--format", "github", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_the_base_settings_keep_the_gate_and_each_relaxation_is_annotated(moved, pull_request, capsys) -> None:
    _, base = pull_request
    code, out, err = _check(capsys, moved, "--config-from", base)
    assert code == 1  # the moved quotes still fail the run
    notes = [line for line in out.splitlines() if ",title=anchor-audit settings::" in line]
    assert notes[0] == (
        f"::warning file=anchor-audit.toml,line=1,title=anchor-audit settings::exit-zero = true is not used: the "
        f"settings are read from {base}, where exit-zero is unset; it would relax the gate: drift exits 0"
    )
    assert notes[1].endswith(f"::strict is not set here; the settings are read from {base}, where strict = true")
    assert [n.split("::")[1].split(",")[1] for n in notes] == ["line=1", "line=1", "line=2", "line=3"]
    assert 'ignore = ["AA1"] is not used' in notes[2] and 'AA = "never"' in notes[3]
    assert "AA101" in out  # the ignore was not applied: the moved quotes are annotated
    assert err.count("anchor-audit: warning: anchor-audit.toml:") == 4


def test_without_the_base_the_relaxed_gate_passes_but_never_in_silence(moved, pull_request, capsys) -> None:
    code, out, _ = _check(capsys, moved)
    assert code == 0  # the checkout's settings apply: that is what --config-from is for
    notes = [line for line in out.splitlines() if ",title=anchor-audit settings::" in line]
    assert notes == [
        "::warning file=anchor-audit.toml,line=1,title=anchor-audit settings::exit-zero = true relaxes the gate: "
        "drift exits 0",
        '::warning file=anchor-audit.toml,line=2,title=anchor-audit settings::ignore = ["AA1"] relaxes the gate: '
        "findings AA1 are not reported",
        '::warning file=anchor-audit.toml,line=3,title=anchor-audit settings::fail-on-codes = {AA = "never"} '
        "relaxes the gate: findings AA never fail",
    ]
    assert f"`{notes[0]}`" in (ROOT / "docs" / "commands.md").read_text()  # the page shows this very line


def test_the_command_line_still_wins_over_the_base_settings(moved, pull_request, capsys) -> None:
    _, base = pull_request
    code, _, _ = _check(capsys, moved, "--config-from", base, "--exit-zero")
    assert code == 0  # the workflow's own flag is the workflow author's, not the pull request's


def test_a_pull_request_that_breaks_its_settings_file_is_said_and_the_base_is_used(moved, pull_request, capsys) -> None:
    repo, base = pull_request
    repo.write("anchor-audit.toml", "exit-zero = [\n")
    code, out, err = _check(capsys, moved, "--config-from", base)
    assert code == 1 and "anchor-audit.toml: not valid TOML" in err and "not used: the settings are read from" in err
    assert ",title=anchor-audit settings::anchor-audit.toml: not valid TOML" in out


def test_a_pull_request_that_adds_a_pyproject_table_is_compared_too(moved, tmp_path, monkeypatch, capsys) -> None:
    repo = empty_repo(tmp_path / "skills")
    repo.write("pyproject.toml", '[project]\nname = "skills"\n')
    base = repo.commit("base without settings")
    repo.write("pyproject.toml", '[project]\nname = "skills"\n\n[tool.anchor-audit]\nexit-zero = true\n')
    repo.commit("pr")
    monkeypatch.chdir(repo.path)
    code, out, _ = _check(capsys, moved, "--config-from", base)
    assert code == 1 and "::warning file=pyproject.toml,line=5,title=anchor-audit settings::exit-zero = true" in out


@pytest.mark.parametrize("ref, says", [
    ("0" * 40, f"--config-from {'0' * 40}: no such commit in the repository here"),
    ("--output=x", "--config-from '--output=x': not a ref name or commit sha"),
    ("HEAD@{1}", "--config-from 'HEAD@{1}': @{...} names a reflog entry"),
])  # fmt: skip
def test_a_base_that_cannot_be_read_is_one_line_and_exit_2(moved, pull_request, capsys, ref, says) -> None:
    code, out, err = _check(capsys, moved, f"--config-from={ref}")
    assert code == 2 and out == "" and err.startswith(f"anchor-audit: error: {says}") and len(err.splitlines()) == 1


def test_config_from_outside_a_repository_is_one_line(moved, tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = _check(capsys, moved, "--config-from", "HEAD")
    assert code == 2 and out == "" and len(err.splitlines()) == 1 and "not a git repository" in err


def test_the_base_settings_file_is_read_from_git_objects_not_the_checkout(moved, tmp_path, monkeypatch, capsys) -> None:
    repo = empty_repo(tmp_path / "skills")
    repo.write("anchor-audit.toml", 'select = ["AA2"]\n')  # moved quotes (AA101) not reported
    base = repo.commit("base")
    repo.remove("anchor-audit.toml")
    repo.commit("pr: no settings file")
    monkeypatch.chdir(repo.path)
    assert _check(capsys, moved)[0] == 1  # the checkout has no settings: the moved quotes fail the run
    code, out, err = _check(capsys, moved, "--config-from", base)
    assert code == 0 and "AA101" not in out  # the base's select, read from git objects
    assert f"anchor-audit.toml:1: select is not set here; the settings are read from {base}, where select" in err
