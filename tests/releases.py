"""A code repository with releases, for the matrix and the HTML report: the gate quoted, changed, restored."""

from __future__ import annotations

from pathlib import Path

from .conftest import GitRepo, git
from .hostile.conftest import make_code_repo, make_skill

CARD = "validation_status:\n  gate:\n    - code_verified  # plan.py:3-6\n  notes:\n    - doc_only\n"


def build_releases(tmp_path: Path) -> tuple[GitRepo, Path]:
    """v0.1.0 and v0.2.0 (the gate as quoted), v0.3.0 (the gate changed), v0.3.1rc1 (restored, a pre-release),
    and a tag that is no version."""
    repo = make_code_repo(tmp_path / "code")
    git(repo.path, "tag", "-d", "v1")  # the helper's own tag: these releases are numbered 0.x
    git(repo.path, "tag", "v0.1.0")
    repo.write("README.md", "docs\n")
    repo.commit("docs", date="2026-02-01T00:00:00")
    git(repo.path, "tag", "-a", "v0.2.0", "-m", "an annotated release")
    repo.edit("pkg/plan.py", "if cfg.tp > 1:", "if cfg.tp > 2:")
    repo.commit("raise the gate", date="2026-03-01T00:00:00")
    git(repo.path, "tag", "v0.3.0")
    git(repo.path, "tag", "nightly")
    repo.edit("pkg/plan.py", "if cfg.tp > 2:", "if cfg.tp > 1:")
    repo.commit("restore the gate", date="2026-04-01T00:00:00")
    git(repo.path, "tag", "v0.3.1rc1")
    return repo, make_skill(tmp_path / "plan-skill", card=CARD)
