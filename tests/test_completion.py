"""``anchor-audit completion SHELL``: the scripts, run in the real shells (bash here; zsh and fish where installed)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from anchor_audit.cli import main
from anchor_audit.cli.completion import SHELLS, commands
from anchor_audit.cli.table import build_parser


def _script(shell: str, tmp_path: Path, capsys) -> Path:  # noqa: ANN001
    assert main(["completion", shell]) == 0
    path = tmp_path / f"completion.{shell}"
    path.write_text(capsys.readouterr().out, encoding="utf-8")
    return path


def _shell(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        pytest.skip(f"{name} is not installed (Debian's {name}; .ci/run installs it)")
    return found


def test_every_command_and_its_options_are_known_to_the_scripts() -> None:
    known = {c.name: c for c in commands(build_parser())}
    assert {"check", "fix", "matrix", "completion", "explain"} <= set(known)
    assert "--verbose" in known["matrix"].options and "-v" in known["matrix"].options
    assert known["check"].choices["--format"][:2] == ("terminal", "json")
    assert known["completion"].positional == SHELLS and known["cache"].positional[:2] == ("info", "dir")


def test_bash_completes_commands_options_and_their_choices(tmp_path: Path, capsys) -> None:
    bash, script = _shell("bash"), _script("bash", tmp_path, capsys)
    (tmp_path / "skill-dir").mkdir()

    def complete(*words: str) -> list[str]:
        line = " ".join(f"'{w}'" for w in words)
        run = (f"source {script}; COMP_WORDS=({line}); COMP_CWORD={len(words) - 1}; _anchor_audit; "
               'printf "%s\\n" "${COMPREPLY[@]}"')  # fmt: skip
        done = subprocess.run([bash, "-c", run], cwd=tmp_path, capture_output=True, text=True, timeout=30)
        assert done.returncode == 0, done.stderr
        return done.stdout.split()

    assert complete("anchor-audit", "ch") == ["check"]
    assert complete("anchor-audit", "check", "--for") == ["--format"]
    assert complete("anchor-audit", "check", "--format", "s") == ["sarif"]
    assert complete("anchor-audit", "check", "skill") == ["skill-dir"]  # a path where a SKILL_DIR goes
    assert complete("anchor-audit", "cache", "p") == ["prune"]  # an action, not a file


def test_fish_completes_commands_options_and_their_choices(tmp_path: Path, capsys) -> None:
    fish, script = _shell("fish"), _script("fish", tmp_path, capsys)

    def complete(line: str) -> list[str]:
        run = f"source {script}; complete -C '{line}'"
        done = subprocess.run([fish, "--no-config", "-c", run], capture_output=True, text=True, timeout=30)
        assert done.returncode == 0, done.stderr
        return [row.split("\t")[0] for row in done.stdout.splitlines()]

    assert complete("anchor-audit ch") == ["check"]
    assert complete("anchor-audit check --format s") == ["sarif"]
    assert sorted(complete("anchor-audit completion ")) == ["bash", "fish", "zsh"]


def test_zsh_reads_the_script_and_offers_what_each_place_takes(tmp_path: Path, capsys) -> None:
    zsh, script = _shell("zsh"), _script("zsh", tmp_path, capsys)
    # The completion system's own builtins only exist inside a completion widget: here they print what they get.
    stubs = 'compadd() { print -r -- "${@[2,-1]}"; }; _describe() { print -r -- "${(@P)2}"; }; _files() { print FILES; }'

    def offered(*words: str) -> str:
        run = f"{stubs}; source {script}; words=({' '.join(repr(w) for w in words)}); CURRENT={len(words)}; _anchor_audit"
        done = subprocess.run([zsh, "-f", "-c", run], capture_output=True, text=True, timeout=30)
        assert done.returncode == 0, done.stderr
        return done.stdout

    assert subprocess.run([zsh, "-n", str(script)], capture_output=True, timeout=30).returncode == 0
    assert "check:audit skills at a ref" in offered("anchor-audit", "")
    assert offered("anchor-audit", "check", "--format", "").split() == ["terminal", "json", "jsonl", "markdown",
                                                                         "sarif", "junit", "github", "html"]  # fmt: skip
    assert "FILES" in offered("anchor-audit", "check", "") and "FILES" not in offered("anchor-audit", "cache", "")
