"""Folders logged together answer as each logged alone (``source/folderlog.py``, ``version_matching``)."""

from __future__ import annotations

import os

import git as gitpython

from anchor_audit.source import git_blob_sha
from anchor_audit.source.folderlog import log_folders
from anchor_audit.source.git import open_git

from .conftest import GitRepo, empty_repo, git

FOLDERS = ["skills/a/", "skills/b/", "skills/a/deep/", "skills/quiet/"]


def history(tmp_path) -> tuple[GitRepo, list[dict[str, dict[str, str]]]]:
    """Commits to several folders (one inside another), a file added and removed, a merge whose second parent
    changed a folder, commits elsewhere; and each folder's files (name -> blob sha) after every commit."""
    repo = empty_repo(tmp_path / "up")
    repo.write("skills/quiet/SKILL.md", "quiet\n")
    repo.write("skills/a/SKILL.md", "a root\n")
    repo.commit("root")
    for i in range(6):
        repo.write(f"skills/{'ab'[i % 2]}/SKILL.md", f"{'ab'[i % 2]}{i}\n")
        if i == 2:
            repo.write("skills/a/deep/notes.md", "deep\n")
        if i == 4:
            repo.remove("skills/a/deep/notes.md")
        repo.commit(f"step {i}")
        repo.write("other.py", f"x = {i}\n")
        repo.commit(f"elsewhere {i}")
    git(repo.path, "checkout", "-q", "-b", "side")
    repo.write("skills/b/side.md", "from the side\n")
    repo.commit("on the side")
    git(repo.path, "checkout", "-q", "main")
    repo.write("skills/a/SKILL.md", "a after\n")
    repo.commit("before the merge")
    git(repo.path, "merge", "-q", "--no-ff", "-m", "merge side", "side")
    repo.write("skills/a/SKILL.md", "a last\n")
    repo.commit("last")
    versions = []
    for sha in git(repo.path, "rev-list", "--first-parent", "main").split():
        listed = git(repo.path, "ls-tree", "-r", sha, "skills/").splitlines()
        versions.append({
            folder: {line.split("\t")[1][len(folder):]: line.split()[2] for line in listed
                     if line.split("\t")[1].startswith(folder)}
            for folder in FOLDERS
        })  # fmt: skip
    return repo, versions


def mine(records: list[str] | None, folder: str) -> list[tuple[str, list[str]]] | None:
    """Each record's commit and its changes under ``folder``: what ``version_matching`` reads of it."""
    if records is None:
        return None
    out = []
    for record in records:
        head, *fields = record.split("\0")
        out.append((head, [f"{meta.strip()} {path}" for meta, path in zip(fields[::2], fields[1::2], strict=False)
                           if path.startswith(folder)]))  # fmt: skip
    return out


def test_each_folders_records_from_one_log_of_all_are_its_own_logs(tmp_path) -> None:
    repo, _ = history(tmp_path)
    handle = gitpython.Repo(repo.path)
    together = log_folders(handle, "main", FOLDERS, 500)
    for folder in FOLDERS:
        assert mine(together[folder], folder) == mine(log_folders(handle, "main", [folder], 500)[folder], folder)
    assert len(together["skills/quiet/"] or []) == 1 and len(together["skills/b/"] or []) == 4  # the merge's too


def test_a_folder_the_window_may_cut_short_is_left_to_a_log_of_its_own(tmp_path) -> None:
    """Two records per folder read in a window of eight commits: the busy folders fill it, and the quiet folder's
    one commit (the root) lies past it, so the window cannot say it had no other."""
    repo, _ = history(tmp_path)
    handle = gitpython.Repo(repo.path)
    cut = log_folders(handle, "main", FOLDERS, 2)
    assert cut["skills/quiet/"] is None
    for folder in ("skills/a/", "skills/b/", "skills/a/deep/"):  # two each in the window: as their own logs
        assert mine(cut[folder], folder) == mine(log_folders(handle, "main", [folder], 2)[folder], folder), folder


def test_version_matching_with_siblings_answers_as_alone_with_one_git_log(tmp_path) -> None:
    repo, versions = history(tmp_path)
    for folder in FOLDERS:
        for i, version in enumerate(versions):
            wanted = version[folder]
            alone = open_git(str(repo.path), "main").version_matching(folder, wanted)
            together = open_git(str(repo.path), "main").version_matching(folder, wanted, FOLDERS)
            assert together == alone, (folder, i)
    assert open_git(str(repo.path), "main").version_matching("skills/a", versions[3]["skills/a/"]).behind == 2
    tree = open_git(str(repo.path), "main")
    trace = tmp_path / "trace"
    os.environ["GIT_TRACE"] = str(trace)
    try:
        for folder in FOLDERS:
            tree.version_matching(folder, {"SKILL.md": git_blob_sha(b"not a version\n")}, FOLDERS)
    finally:
        del os.environ["GIT_TRACE"]
    assert sum("built-in: git log" in line for line in trace.read_text().splitlines()) == 1
    os.environ["GIT_TRACE"] = str(trace)
    try:  # a folder asked again (its records were let go once used): logged alone, the same answer
        again = tree.version_matching("skills/b", versions[2]["skills/b/"], FOLDERS)
    finally:
        del os.environ["GIT_TRACE"]
    logs = [line for line in trace.read_text().splitlines() if "built-in: git log" in line]
    assert len(logs) == 2 and logs[-1].endswith("-- skills/b/")
    assert again == open_git(str(repo.path), "main").version_matching("skills/b", versions[2]["skills/b/"])


def test_a_sibling_git_would_read_as_a_pattern_or_refuse_is_not_logged_with_the_others(tmp_path) -> None:
    """A glob would match paths no record is kept under; a path git refuses would fail the one log: either
    way each folder's answer stays its own."""
    repo, versions = history(tmp_path)
    for odd in (["skills/*/"], [":(exclude)skills/a/"], ["../outside/"]):
        tree = open_git(str(repo.path), "main")
        found = tree.version_matching("skills/a", versions[1]["skills/a/"], [*FOLDERS, *odd])
        assert found == open_git(str(repo.path), "main").version_matching("skills/a", versions[1]["skills/a/"])
        assert found.commit is not None, odd
