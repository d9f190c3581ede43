"""What a user expects of a linter's command line (ruff, pre-commit, semgrep): settings in pyproject.toml,
--select/--ignore, --fail-on, --exit-zero, jsonl, --color, -o, each command's own exit codes, cache info/prune."""

from __future__ import annotations

import json
import os
import time

import pytest

from anchor_audit.cli import main

from .conftest import DEMO, GitRepo

SPEC = str(DEMO / "anchors.yaml")


def _check(capsys, repo: GitRepo, *args: str) -> tuple[int, str, str]:
    code = main(["check", "--spec", SPEC, "--repo", str(repo.path), "--ref", "v2", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_select_and_ignore_choose_the_codes_reported_the_longer_prefix_winning(moved: GitRepo, capsys) -> None:
    code, out, _ = _check(capsys, moved, "--format", "jsonl")
    assert code == 1 and {json.loads(line)["code"] for line in out.splitlines()} == {"AA101"}
    n = len(out.splitlines())
    code, out, _ = _check(capsys, moved, "--format", "jsonl", "--ignore", "AA1")
    assert (code, out) == (0, "")  # the only drift ignored: nothing reported, nothing fails
    code, out, _ = _check(capsys, moved, "--format", "jsonl", "--ignore", "AA1", "--select", "AA101")
    assert code == 1 and len(out.splitlines()) == n  # AA101 is longer than AA1: selected
    code, _, err = _check(capsys, moved, "--select", "AA1,moved")
    assert code == 2 and err == "anchor-audit: error: --select 'MOVED': not a finding code or prefix (AA, AA4, AA406; anchor-audit explain)\n"


def test_fail_on_error_lets_warnings_pass_and_says_so(moved: GitRepo, capsys) -> None:
    code, out, _ = _check(capsys, moved, "--fail-on", "error")
    assert code == 0  # moved quotes are warnings
    assert out.splitlines()[-1].endswith("exit 0 (no drift of level error or worse)")
    code, _, _ = _check(capsys, moved, "--fail-on", "warning")
    assert code == 1


def test_exit_zero_reports_the_drift_and_exits_0(moved: GitRepo, capsys) -> None:
    code, out, _ = _check(capsys, moved, "--exit-zero", "--format", "json")
    report = json.loads(out)
    assert code == 0 and report["summary"]["exit_code"] == 0 and report["summary"]["drift"] == 2
    code, out, _ = _check(capsys, moved, "--exit-zero")
    assert out.splitlines()[-1].endswith("exit 0 (drift, but --exit-zero)")
    code, _, _ = _check(capsys, moved, "--exit-zero", "--ref", "no-such-ref")
    assert code == 2  # could not run is never hidden


def test_jsonl_is_one_finding_a_line_with_its_code_and_fingerprint(moved: GitRepo, capsys) -> None:
    _, out, _ = _check(capsys, moved, "--format", "jsonl")
    lines = [json.loads(line) for line in out.splitlines()]
    assert len(lines) == 2
    first = lines[0]
    assert sorted(first) == ["code", "drift", "file", "fingerprint", "level", "line", "message", "rule", "skill"]
    assert (first["code"], first["rule"], first["level"], first["drift"]) == ("AA101", "quote-moved", "warning", True)
    assert first["fingerprint"].startswith(f"{first['skill']}:AA101:")


def test_settings_come_from_pyproject_and_the_command_line_wins(moved: GitRepo, capsys, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n\n[tool.anchor-audit]\nignore = ["AA101"]\n')
    code, out, _ = _check(capsys, moved, "--format", "jsonl")
    assert (code, out) == (0, "")
    code, _, _ = _check(capsys, moved, "--ignore", "AA2")  # given on the command line: the file's is not used
    assert code == 1
    (tmp_path / "anchor-audit.toml").write_text("exit-zero = true\n")  # wins over pyproject.toml
    code, out, _ = _check(capsys, moved)
    assert code == 0 and out.splitlines()[-1].endswith("exit 0 (drift, but --exit-zero)")
    other = tmp_path / "ci.toml"
    other.write_text('fail-on = "warning"\n')
    code, _, _ = _check(capsys, moved, "--config", str(other))
    assert code == 1


@pytest.mark.parametrize("text, says", [
    ("[tool.anchor-audit]\nselct = [\"AA1\"]\n", "pyproject.toml:2: selct: not a setting (did you mean select?)"),
    ("[tool.anchor-audit]\n\nfail-on = \"never\"\n", "pyproject.toml:3: fail-on: expected one of error, warning"),
    ("[tool.anchor-audit]\nignore = \"AA1\"\n", "pyproject.toml:2: ignore: expected a list of finding codes"),
    ("[tool.anchor-audit\n", "pyproject.toml: not valid TOML: "),
])  # fmt: skip
def test_a_bad_setting_is_one_line_naming_the_file_and_line(moved, capsys, tmp_path, monkeypatch, text, says) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text(text)
    code, out, err = _check(capsys, moved)
    assert code == 2 and out == "" and err.startswith(f"anchor-audit: error: {says}") and len(err.splitlines()) == 1


def test_color_always_never_and_the_environment(moved: GitRepo, capsys, monkeypatch) -> None:
    assert "\x1b[" not in _check(capsys, moved)[1]  # not a terminal
    assert "\x1b[" in _check(capsys, moved, "--color", "always")[1]
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert "\x1b[" in _check(capsys, moved)[1]
    assert "\x1b[" not in _check(capsys, moved, "--color", "never")[1]
    monkeypatch.setenv("NO_COLOR", "1")  # NO_COLOR wins over FORCE_COLOR
    assert "\x1b[" not in _check(capsys, moved)[1]


def test_o_is_output(moved: GitRepo, capsys, tmp_path) -> None:
    code, out, _ = _check(capsys, moved, "-o", str(tmp_path / "r.json"), "--format", "json")
    assert code == 1 and out == "" and json.loads((tmp_path / "r.json").read_text())["summary"]["drift"] == 2


@pytest.mark.parametrize("command, says", [
    ("fix", "1 changes pending"), ("history", "0 the timeline was written, whatever it shows"),
    ("check", "1 drift"), ("impact", "1 a quote, condition, claim or promise changes to a status that does not hold"),
])  # fmt: skip
def test_each_command_documents_its_own_exit_codes(command: str, says: str, capsys) -> None:
    with pytest.raises(SystemExit):
        main([command, "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "exit codes: 0 " in out and says in out and "2 could not run" in out


def test_cache_info_is_the_default_and_prune_removes_what_was_not_written_to(capsys, tmp_path, monkeypatch) -> None:
    from anchor_audit.store.cachedir import TAG_NAME, TAG_TEXT

    root = tmp_path / "cache"
    (root / "git" / "old-1234.git" / "objects").mkdir(parents=True)
    (root / "git" / "old-1234.git" / "objects" / "pack").write_bytes(b"x" * 2048)
    (root / "git" / "new-5678.git").mkdir()
    (root / "git" / "new-5678.git" / "HEAD").write_text("ref: refs/heads/main\n")
    (root / "wheels").mkdir()
    (root / "wheels" / "dist-1.0-py3-none-any.whl").write_bytes(b"w" * 10)
    (root / TAG_NAME).write_text(TAG_TEXT)
    long_ago = time.time() - 40 * 86_400
    for path in (root / "git" / "old-1234.git" / "objects" / "pack", root / "wheels" / "dist-1.0-py3-none-any.whl"):
        os.utime(path, (long_ago, long_ago))
    assert main(["cache", "--cache-dir", str(root)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"{root}: 2.0 KiB in 2 mirrors, 1 wheel"
    assert out[1].split() [:2] == ["mirror", "2.0"] and out[1].endswith("old-1234.git")
    assert main(["cache", "prune", "--older-than", "30", "--cache-dir", str(root)]) == 0
    assert capsys.readouterr().out == f"removed 2 entries (2.0 KiB) not written to for 30 days from {root}\n"
    assert sorted(p.name for p in (root / "git").iterdir()) == ["new-5678.git"]
    assert not (root / "wheels" / "dist-1.0-py3-none-any.whl").exists()
    precious = tmp_path / "precious"
    (precious / "git" / "a.git").mkdir(parents=True)
    assert main(["cache", "prune", "--older-than", "0", "--cache-dir", str(precious)]) == 2
    assert (precious / "git" / "a.git").exists()


def test_the_settings_docs_show_keys_that_work_and_the_error_a_bad_one_gets(tmp_path, capsys, monkeypatch) -> None:
    import argparse
    import re

    from anchor_audit.cli.settings import SETTINGS, apply_settings

    from .conftest import ROOT

    docs = (ROOT / "docs" / "commands.md").read_text(encoding="utf-8")
    shown = re.search(r"```toml\n\[tool.anchor-audit\]\n(.*?)```", docs, re.S)
    assert shown is not None
    (tmp_path / "pyproject.toml").write_text("[tool.anchor-audit]\n" + shown.group(1))
    args = argparse.Namespace(**{dest: None for dest, _ in SETTINGS.values()})
    apply_settings(args, tmp_path)  # every key the page shows is a setting, of the kind it shows
    assert args.fail_on == "error" and args.ignore == ["AA404"] and args.strict is True
    said = re.search(r"`(anchor-audit: error: pyproject.toml:2: selct: [^`]*)`", docs)
    assert said is not None
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text('[tool.anchor-audit]\nselct = ["AA1"]\n')
    assert main(["check", "--repo", str(tmp_path), "--ref", "HEAD"]) == 2
    assert capsys.readouterr().err == said.group(1) + "\n"


def test_the_registry_docs_show_the_error_an_unknown_key_gets(tmp_path, capsys) -> None:
    import re

    from .conftest import ROOT

    docs = " ".join((ROOT / "docs" / "anchors-yaml.md").read_text(encoding="utf-8").split())
    said = re.search(r"`(anchors.yaml:6: bogus: unknown key [^`]*)`", docs)
    assert said is not None
    spec = tmp_path / "anchors.yaml"
    spec.write_text("version: 1\nsource:\n  repo: x\n  ref: v1\nskills: {}\nbogus: 1\n")
    assert main(["check", "--spec", str(spec)]) == 2
    assert capsys.readouterr().err == f"anchor-audit: error: {tmp_path}/{said.group(1)}\n"
