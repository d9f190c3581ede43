"""Helpers for the hostile suite: the real command in a subprocess, and small repositories and skills.

Each case is built in a temporary directory from text written here; it
asserts the exact outcome a user (or CI) meets: exit code, one stderr line,
files untouched, nothing created, memory held under a limit.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from textwrap import dedent

import pytest

from ..conftest import GIT_ENV, GitRepo, git

CODE = dedent(
    """\
    class Planner:
        def plan(self, cfg):
            if cfg.tp > 1:
                cfg.overlap = True
            else:
                cfg.overlap = False
            return cfg
    """
)
QUOTE = "```3:6:pkg/plan.py\nif cfg.tp > 1:\n    cfg.overlap = True\nelse:\n    cfg.overlap = False\n```\n"


@dataclass
class Result:
    code: int
    out: str
    err: str

    def one_error_line(self) -> str:
        """The single stderr line of a refused run (and that there is exactly one, and no traceback)."""
        assert self.code == 2, (self.code, self.out, self.err)
        assert "Traceback" not in self.err, self.err
        lines = self.err.splitlines()
        assert len(lines) == 1 and lines[0].startswith("anchor-audit: error: "), self.err
        return lines[0]


def run_cli(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None,
            memory_bytes: int | None = None, file_bytes: int | None = None, timeout: float = 300) -> Result:
    """``python -m anchor_audit ARGS`` in a subprocess (optionally under RLIMIT_AS or RLIMIT_FSIZE)."""
    def limit() -> None:
        if memory_bytes is not None:
            resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
        if file_bytes is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (file_bytes, file_bytes))

    done = subprocess.run(
        [sys.executable, "-m", "anchor_audit", *args], cwd=cwd, env={**os.environ, **(env or {})},
        capture_output=True, timeout=timeout, preexec_fn=limit, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    return Result(done.returncode, done.stdout.decode("utf-8", "replace"), done.stderr.decode("utf-8", "replace"))


def make_code_repo(path: Path, files: dict[str, str] | None = None) -> GitRepo:
    """A repository holding ``pkg/plan.py`` (and ``files``), committed and tagged v1."""
    path.mkdir(parents=True)
    git(path, "init", "-q", "-b", "main")
    repo = GitRepo(path)
    repo.write("pkg/plan.py", CODE)
    for rel, text in (files or {}).items():
        repo.write(rel, text)
    repo.commit("code", tag="v1")
    return repo


def commit_later(repo: GitRepo, files: dict[str, str | None]) -> None:
    """A commit after the cards' validation days (2026-02-01) that writes ``files`` (None: removes the file)."""
    for rel, text in files.items():
        if text is None:
            (repo.path / rel).unlink()
        else:
            repo.write(rel, text)
    repo.commit("later", date="2026-02-01T00:00:00")


def make_skill(path: Path, body: str = QUOTE, card: str | None = None) -> Path:
    """A skill folder with a SKILL.md holding ``body`` (and a card.yaml)."""
    path.mkdir(parents=True)
    (path / "SKILL.md").write_text(f"---\nname: {path.name}\ndescription: hostile case\n---\n\n{body}", encoding="utf-8")
    if card is not None:
        (path / "card.yaml").write_text(card, encoding="utf-8")
    return path


def registry(path: Path, repo: Path, skill: Path, name: str = "s", claims: str = "") -> Path:
    text = f"version: 1\nsource:\n  repo: {repo}\n  ref: v1\nskills:\n  {name}:\n    path: {skill}\n"
    if claims:
        text += "    claims:\n" + claims
    path.write_text(text, encoding="utf-8")
    return path


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` and its bytes: to assert that nothing changed, appeared or went."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


__all__ = ["GIT_ENV", "Result", "run_cli", "make_code_repo", "make_skill", "registry", "snapshot", "pytest"]
