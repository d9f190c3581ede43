"""The benchmarks' own parts: the naive baseline counts what it should, and a served copy leaves the repository alone."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import GitRepo, git

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

from _common import full_clone_bytes, served_copy  # noqa: E402

OVERLAP, LAUNCH = "src/demo/overlap.py", "src/demo/launch.py"


@pytest.fixture
def five_versions(make_repo) -> GitRepo:
    repo = make_repo()  # v1
    repo.write("docs/notes.md", "unrelated\n")
    repo.commit("docs")  # touches neither file
    repo.edit(OVERLAP, "from dataclasses import dataclass\n", "import os\nfrom dataclasses import dataclass\n")
    repo.commit("overlap moves", tag="v2")
    repo.write(LAUNCH, repo.read(LAUNCH) + "# a comment\n")
    repo.write(OVERLAP, repo.read(OVERLAP) + "# a comment\n")
    repo.commit("both change", tag="v3")
    repo.remove(LAUNCH)
    repo.commit("launch goes", tag="v4")
    return repo


def test_the_naive_baseline_reads_every_touching_commit_in_full(five_versions: GitRepo) -> None:
    since = git(five_versions.path, "rev-parse", "v1")
    out = subprocess.run(
        [sys.executable, str(BENCHMARKS / "naive_history.py"), str(five_versions.path / ".git"), since, "HEAD",
         OVERLAP, LAUNCH], capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    # v2, v3 and v4 touch the files (the docs commit does not); with v1 that is 4 commits x 2 files, of which
    # launch.py is absent at v4: 7 parsed, 1 absent.
    assert out.strip() == "3 commits touch the files; 7 file versions parsed, 1 absent"


def test_a_served_copy_leaves_the_repository_alone_and_clones_whole(five_versions: GitRepo, tmp_path: Path) -> None:
    before = (five_versions.path / ".git" / "config").read_text()
    served = served_copy(five_versions.path, tmp_path)
    assert (five_versions.path / ".git" / "config").read_text() == before  # nothing written to the user's repository
    assert git(served, "config", "uploadpack.allowFilter") == "true"
    assert git(served, "rev-parse", "v3") == git(five_versions.path, "rev-parse", "v3")
    size, how = full_clone_bytes(served, tmp_path)
    assert how == "git clone --bare" and size > 0


def test_git_time_counts_every_git_process_a_run_starts(make_repo, tmp_path: Path) -> None:
    """The floor's own count: a quote that left its file costs a search (one ``git grep``), and the tool's own
    git (not GitPython's) is counted too (``git --git-dir DIR config --local``: the repository's settings)."""
    repo = make_repo()
    text = repo.read(OVERLAP)
    repo.write(OVERLAP, "# moved out\n")
    repo.write("src/demo/elsewhere.py", text)
    repo.commit("move the overlap code", tag="v2")
    skill = tmp_path / "skill"
    skill.mkdir()
    first = next(line for line in text.splitlines() if line.strip())
    (skill / "SKILL.md").write_text(f"---\nname: s\ndescription: d\n---\n\n```1:1:{OVERLAP}\n{first}\n```\n")
    out = subprocess.run(
        [sys.executable, str(BENCHMARKS / "git_time.py"), "--cold", "--", "check", str(skill), "--repo",
         str(repo.path), "--ref", "v2", "--jobs", "1"], capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    lines = out.splitlines()
    assert lines[0].startswith(f"anchor-audit check {skill}") and ": exit 1, " in lines[0]
    assert any(line.startswith("  git grep: 1 processes, ") for line in lines), out
    assert any(line.startswith("  git config: ") for line in lines), out  # a subprocess.run of git's own
    assert lines[-1].startswith("inside git: ") and " processes, " in lines[-1]


def test_every_benchmark_command_the_docs_show_names_a_script_and_flags_it_takes() -> None:
    """Each ``python benchmarks/NAME.py ...`` a page shows runs a script that is there, with only the flags its own
    ``--help`` lists (a renamed or dropped flag fails here, not for the reader)."""
    import shlex

    from .docpages import every_block

    shown: dict[str, set[str]] = {}
    for block in every_block():
        if block.language not in {"bash", "sh", "console", "shell"}:
            continue
        for line in block.text.replace("\\\n", " ").splitlines():
            words = shlex.split(line, comments=True)
            if len(words) >= 2 and words[0] == "python" and words[1].startswith("benchmarks/"):
                flags = {w.split("=")[0] for w in words[2:] if w.startswith("--")}
                shown.setdefault(words[1], set()).update(flags)
    assert "benchmarks/cards.py" in shown and len(shown) >= 6  # the pages' benchmark commands were found at all
    root = BENCHMARKS.parent
    for script, flags in sorted(shown.items()):
        assert (root / script).is_file(), script
        usage = subprocess.run([sys.executable, str(root / script), "--help"], capture_output=True, text=True,
                               cwd=root, check=True).stdout  # fmt: skip
        listed = set(re.findall(r"--[a-z][a-z0-9-]*", usage))
        assert flags <= listed, f"{script}: {sorted(flags - listed)} not among its flags"
