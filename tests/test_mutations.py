"""Tests for plausible one-line bugs the rest of the suite once let through (STYLE.md 25: mutation is the test).

Each names the mutation it kills.  (The ``inside:`` order one is a condition example, in
``match/condition_examples.py``: "nested gates in the other order".)
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from anchor_audit.text.fsutil import WriteFailed, _replace_all

from .conftest import git
from .hostile.conftest import CODE, make_code_repo, make_skill, registry, run_cli


def test_the_blob_cache_never_serves_a_file_under_another_path(tmp_path: Path) -> None:
    """Kills: ``if cached is not None`` without ``and cached.path == path`` in GitTree.read."""
    from anchor_audit.source.git import open_git

    make_code_repo(tmp_path / "code", {"pkg/copy.py": CODE})  # the same bytes as pkg/plan.py: one blob
    tree = open_git(str(tmp_path / "code"), "v1")
    first, second = tree.read("pkg/plan.py"), tree.read("pkg/copy.py")
    assert first is not None and second is not None and first.blob == second.blob
    assert (first.path, second.path) == ("pkg/plan.py", "pkg/copy.py")
    assert tree.at(tree.commit.hexsha).read("pkg/copy.py").path == "pkg/copy.py"  # trees of a repository share it


def test_a_failed_rename_puts_back_the_files_already_replaced(tmp_path: Path) -> None:
    """Kills: deleting the rollback in fsutil (``_roll_back(done)``), for edits and for a run's outputs."""
    kept, new, blocker = tmp_path / "kept.txt", tmp_path / "new.txt", tmp_path / "a-folder"
    kept.write_bytes(b"before\n")
    blocker.mkdir()  # renaming a file over a folder fails, after the first two are in place
    with pytest.raises(WriteFailed) as caught:
        _replace_all([(kept, b"before\n", b"after\n"), (new, None, b"made\n"), (blocker, b"", b"x")])
    assert caught.value.index == 2 and caught.value.path == blocker
    assert kept.read_bytes() == b"before\n" and not new.exists()  # back as they were
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-folder", "kept.txt"]  # and no temporary left


COMMANDS = {  # every command that opens a repository, with the arguments it needs around --repo
    "check": ["check", "--ref", "v1"],
    "fix": ["fix", "--ref", "v1"],
    "diff": ["diff", "v1", "v1"],
    "bump": ["bump", "v1"],
    "history": ["history"],
    "impact": ["impact", "v1", "v1"],
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_command_hands_allow_protocol_to_git(tmp_path: Path, command: str) -> None:
    """Kills: dropping ``allow=options.allow`` where one command opens its sources.

    Without the flag the ext:: transport is refused before git starts; with it, git really runs the
    transport's command (it touches the marker), which only happens if the option reached the tree.
    """
    marker = tmp_path / "RAN"
    skill = make_skill(tmp_path / "skill")
    url = f"ext::sh -c touch% {marker}"
    spec = registry(tmp_path / "anchors.yaml", tmp_path / "unused", skill)
    spec.write_text(spec.read_text().replace(f"repo: {tmp_path / 'unused'}", "repo: https://example.invalid/x.git"))
    args = [*COMMANDS[command], str(skill), "--spec", str(spec), "--repo", url, "--cache-dir", str(tmp_path / "c")]
    refused = run_cli(*args, cwd=tmp_path)
    assert "the ext:: transport can run commands; refused (--allow-protocol ext)" in refused.err and not marker.exists()
    allowed = run_cli(*args, "--allow-protocol", "ext", cwd=tmp_path)
    assert marker.exists(), (command, allowed.err)
    assert allowed.code == 2 and "Traceback" not in allowed.err


def test_a_submodule_never_inherits_a_command_transport(tmp_path: Path) -> None:
    """Kills: handing the main repository's --allow-protocol on to a submodule's URL."""
    marker = tmp_path / "RAN"
    repo = make_code_repo(tmp_path / "code")
    (repo.path / ".gitmodules").write_text(f'[submodule "m"]\n\tpath = mod\n\turl = ext::sh -c touch% {marker}\n')
    git(repo.path, "add", ".gitmodules")
    git(repo.path, "update-index", "--add", "--cacheinfo", f"160000,{'1' * 40},mod")
    git(repo.path, "commit", "-q", "-m", "submodule")
    git(repo.path, "tag", "v2")
    skill = make_skill(tmp_path / "skill", "```1:1:mod/x.py\nx = 1\n```\n")
    done = run_cli("check", "--repo", str(repo.path), "--ref", "v2", "--allow-protocol", "ext", str(skill))
    assert done.code == 1 and not marker.exists() and os.path.exists(repo.path)


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("keep", [True, False], ids=["--cache-dir", "--no-cache"])
def test_every_command_keeps_its_results_where_the_run_says(tmp_path: Path, command: str, keep: bool) -> None:
    """Kills: a command building its own judge or cache instead of the run's (results kept elsewhere, or
    kept with --no-cache). The run's cache directory holds the result store, and with --no-cache nothing."""
    repo = make_code_repo(tmp_path / "code")
    git(repo.path, "tag", "v2")
    skill = make_skill(tmp_path / "skill")
    spec = registry(tmp_path / "anchors.yaml", repo.path, skill)
    cache = tmp_path / "chosen-cache"
    args = [*COMMANDS[command], str(skill), "--spec", str(spec), "--repo", str(repo.path), "--cache-dir", str(cache)]
    if command == "bump":
        args[1] = "v2"
    done = run_cli(*args, *([] if keep else ["--no-cache"]), cwd=tmp_path)
    assert done.code in (0, 1) and "Traceback" not in done.err, (command, done.err)
    assert (cache / "results.sqlite3").exists() is keep, (command, sorted(p.name for p in cache.glob("*")))
