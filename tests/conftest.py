"""Shared fixtures: real git repositories built in temporary directories."""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
os.environ.pop("COLUMNS", None)  # piped output takes its width from COLUMNS: the goldens are at the default, 100
FIXTURES = ROOT / "fixtures"
DEMO = FIXTURES / "demo"
SHARED_SKILL = ROOT.parent / "shared" / "skills" / "nemo-mbridge-perf-tp-dp-comm-overlap"

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Test Author",
    "GIT_AUTHOR_EMAIL": "author@example.invalid",
    "GIT_COMMITTER_NAME": "Test Author",
    "GIT_COMMITTER_EMAIL": "author@example.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def git(cwd: Path, *args: str) -> str:
    env = {**os.environ, **GIT_ENV, "HOME": str(cwd)}
    done = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True)
    return done.stdout.strip()


@dataclass
class GitRepo:
    """A real repository with a work tree; tests commit and tag in it."""

    path: Path

    def write(self, rel: str, text: str) -> None:
        target = self.path / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")

    def read(self, rel: str) -> str:
        return (self.path / rel).read_text(encoding="utf-8")

    def edit(self, rel: str, old: str, new: str) -> None:
        """Replace ``old`` by ``new`` once; fail loudly if ``old`` is not there."""
        text = self.read(rel)
        assert text.count(old) == 1, f"{old!r} occurs {text.count(old)} times in {rel}"
        self.write(rel, text.replace(old, new))

    def remove(self, rel: str) -> None:
        git(self.path, "rm", "-q", rel)

    def commit(self, message: str, tag: str | None = None, date: str = "2026-01-01T00:00:00") -> str:
        git(self.path, "add", "-A")
        env_date = {"GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}
        os.environ.update(env_date)
        try:
            git(self.path, "commit", "-q", "-m", message)
        finally:
            for key in env_date:
                os.environ.pop(key, None)
        if tag:
            git(self.path, "tag", tag)
        return git(self.path, "rev-parse", "HEAD")


def empty_repo(path: Path) -> GitRepo:
    """A new repository at ``path`` (made), on ``main``, with nothing committed."""
    path.mkdir(parents=True)
    git(path, "init", "-q", "-b", "main")
    return GitRepo(path)


@pytest.fixture
def make_repo(tmp_path: Path):
    """Build a repository holding the demo sources, committed and tagged v1."""

    def make(name: str = "code") -> GitRepo:
        path = tmp_path / name
        path.mkdir()
        git(path, "init", "-q", "-b", "main")
        repo = GitRepo(path)
        shutil.copytree(DEMO / "src", path / "src")
        repo.commit("demo sources", tag="v1")
        return repo

    return make


@pytest.fixture
def moved(make_repo) -> GitRepo:
    """The demo at v2: two quotes moved (AA101, a warning); nothing else drifts."""
    repo = make_repo()
    repo.edit("src/demo/overlap.py", "from dataclasses import dataclass\n", "import os\nfrom dataclasses import dataclass\n")
    repo.commit("shift", tag="v2")
    return repo


@pytest.fixture
def change(make_repo) -> tuple[GitRepo, dict[str, str]]:
    """v1 -> docs (unrelated) -> move (two imports on top) -> edit (inside the TP gate) -> delete (DP defaults)."""
    repo = make_repo()
    shas = {"v1": git(repo.path, "rev-parse", "HEAD")}
    repo.write("docs/notes.md", "unrelated\n")
    shas["docs"] = repo.commit("docs")
    repo.edit("src/demo/overlap.py", "from dataclasses import dataclass\n", "import os\nimport sys\nfrom dataclasses import dataclass\n")
    shas["move"] = repo.commit("add imports")
    repo.edit("src/demo/overlap.py", "if model.tp_size < 2:", "if model.tp_size < 4:")
    shas["edit"] = repo.commit("raise the tp threshold")
    repo.edit("src/demo/overlap.py", "            cfg.bucket = 64 * 1024 * 1024\n", "")
    shas["delete"] = repo.commit("drop the bucket default")
    return repo, shas


@pytest.fixture(autouse=True)
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own cache directory; none touches the user's."""
    path = tmp_path / "cache"
    monkeypatch.setenv("ANCHOR_AUDIT_CACHE", str(path))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))  # the result cache's key file
    monkeypatch.delenv("ANCHOR_AUDIT_CACHE_KEY", raising=False)
    return path


GOLDEN = Path(__file__).parent / "golden"


def assert_golden(name: str, out: str) -> None:
    """``out`` is the golden file ``tests/golden/NAME``, checked by hand once.

    ``ANCHOR_AUDIT_UPDATE_GOLDEN=1`` rewrites the file instead; read its diff before committing.
    """
    golden = GOLDEN / name
    if os.environ.get("ANCHOR_AUDIT_UPDATE_GOLDEN"):
        golden.write_text(out)
    assert out == golden.read_text()
