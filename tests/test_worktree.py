"""``--worktree``: the code read from a working tree, uncommitted changes included, nothing written there."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

import pytest

from anchor_audit.cli import main
from anchor_audit.source.worktree import snapshot

from .conftest import DEMO, GitRepo, git

OVERLAP = "src/demo/overlap.py"
SKILL = DEMO / "skills" / "demo-overlap"
TWO_IMPORTS = ("from dataclasses import dataclass\n", "import os\nimport sys\nfrom dataclasses import dataclass\n")


def check(repo: GitRepo, capsys, *extra: str) -> tuple[int, dict]:
    code = main(["check", str(SKILL), "--spec", str(DEMO / "anchors.yaml"), "--worktree", str(repo.path),
                 "--format", "json", "-q", *extra])  # fmt: skip
    return code, json.loads(capsys.readouterr().out)


def anchors(data: dict) -> dict[str, str]:
    return {f"{a['path']}:{a['declared'][0]}-{a['declared'][1]}": a["status"] for a in data["skills"][0]["anchors"]}


def repository_state(path: Path) -> dict[str, str]:
    """Every file of the repository's .git and work tree, by content: what "nothing written" is checked against."""
    state = {}
    for folder, _, files in os.walk(path):
        for name in files:
            full = Path(folder, name)
            if not full.is_symlink():
                state[str(full.relative_to(path))] = hashlib.sha1(full.read_bytes()).hexdigest()
    return state


def test_an_unstaged_edit_moves_the_quotes_and_nothing_is_written_in_the_repository(make_repo, capsys) -> None:
    repo = make_repo()
    code, data = check(repo, capsys)
    assert code == 0 and set(anchors(data).values()) == {"exact"}
    repo.edit(OVERLAP, *TWO_IMPORTS)  # not staged, not committed
    before = repository_state(repo.path)
    code, data = check(repo, capsys)
    assert code == 1
    moved = {f"{OVERLAP}:32-38": "moved", f"{OVERLAP}:41-47": "moved", f"{OVERLAP}:55-57": "moved"}
    assert anchors(data) == {**moved, "src/demo/launch.py:10-13": "exact"}
    assert data["source"]["kind"] == "worktree" and data["source"]["ref"] == "worktree"
    assert repository_state(repo.path) == before  # not the index, not an object, not a ref
    assert git(repo.path, "status", "--porcelain") == f"M {OVERLAP}"  # git's view unchanged too


def test_staged_deleted_and_untracked_files_are_as_on_disk_and_ignored_files_are_not_read(make_repo, tmp_path) -> None:
    repo = make_repo()
    repo.write("src/demo/new.py", "NEW = 1\n")  # untracked, not ignored
    repo.write("build/out.py", "IGNORED = 1\n")
    repo.write(".gitignore", "build/\n")
    repo.write("src/demo/launch.py", repo.read("src/demo/launch.py") + "# staged\n")
    git(repo.path, "add", "src/demo/launch.py")
    repo.write("src/demo/launch.py", repo.read("src/demo/launch.py") + "# then edited again: the disk wins\n")
    os.remove(repo.path / OVERLAP)  # deleted, not staged
    snap = snapshot(repo.path, tmp_path / "cache")
    listed = git(repo.path, "--git-dir", str(snap.git_dir), "ls-tree", "-r", "--name-only", snap.commit).split("\n")
    assert "src/demo/new.py" in listed and ".gitignore" in listed
    assert "build/out.py" not in listed and OVERLAP not in listed
    shown = git(repo.path, "--git-dir", str(snap.git_dir), "show", f"{snap.commit}:src/demo/launch.py")
    assert shown + "\n" == repo.read("src/demo/launch.py")
    assert snap.head == git(repo.path, "rev-parse", "HEAD")
    assert set(snap.changed) == {"src/demo/new.py", ".gitignore", "src/demo/launch.py"}


def test_the_same_files_give_the_same_commit_and_an_edit_another(make_repo, tmp_path) -> None:
    repo = make_repo()
    repo.edit(OVERLAP, *TWO_IMPORTS)
    first = snapshot(repo.path, tmp_path / "cache").commit
    assert snapshot(repo.path, tmp_path / "cache").commit == first  # the stat cache answers, the same sha
    repo.edit(OVERLAP, "import os\n", "import re\n")  # same size: the stat cache must not hide it
    assert snapshot(repo.path, tmp_path / "cache").commit != first


def test_a_link_is_recorded_never_followed(make_repo, tmp_path) -> None:
    repo = make_repo()
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.py").write_text("TOKEN = 'x'\n")
    os.symlink(outside, repo.path / "src" / "linked")  # a folder link: git lists it as one path
    os.symlink(outside / "secret.py", repo.path / "src" / "secret.py")
    snap = snapshot(repo.path, tmp_path / "cache")
    tree = git(repo.path, "--git-dir", str(snap.git_dir), "ls-tree", "-r", snap.commit)
    rows = {line.split("\t")[1]: line.split(" ")[0] for line in tree.split("\n")}
    assert rows["src/secret.py"] == "120000" and rows["src/linked"] == "120000"
    assert "TOKEN" not in git(repo.path, "--git-dir", str(snap.git_dir), "show", f"{snap.commit}:src/secret.py")


def test_impact_from_head_to_the_working_tree_is_what_a_pre_commit_hook_sees(make_repo, capsys) -> None:
    repo = make_repo()
    repo.edit(OVERLAP, *TWO_IMPORTS)
    git(repo.path, "add", OVERLAP)  # staged, as pre-commit leaves it
    args = ["impact", "HEAD", "--worktree", str(repo.path), str(SKILL), "--spec", str(DEMO / "anchors.yaml")]
    code = main([*args, "--format", "json", "-q"])
    data = json.loads(capsys.readouterr().out)
    assert code == 1
    rows = [(i["key"], i["from"], i["to"], i["code"]["lines"]) for i in data["impacts"]]
    assert rows[0] == (f"{OVERLAP}:32-38", "exact", "moved", [34, 40])
    assert data["base"] == git(repo.path, "rev-parse", "HEAD") and len(data["impacts"]) == 3
    assert "+```34:40:src/demo/overlap.py" in data["impacts"][0]["patch"]


def test_a_checked_out_submodule_is_read_from_its_working_tree(make_repo, tmp_path, capsys) -> None:
    inner = make_repo("inner")
    outer = make_repo("outer")
    shutil.rmtree(outer.path / "src")
    git(outer.path, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(inner.path), "vendor")
    outer.commit("vendor the code")
    edited = outer.path / "vendor" / OVERLAP
    edited.write_text(edited.read_text().replace(*TWO_IMPORTS))  # an edit inside the submodule, uncommitted
    snap = snapshot(outer.path, tmp_path / "cache")
    assert set(snap.submodules) == {"vendor"}
    shown = git(outer.path, "--git-dir", snap.submodules["vendor"], "show", f"HEAD:{OVERLAP}")
    assert "import os" not in shown  # the submodule's HEAD is as committed
    link = git(outer.path, "--git-dir", str(snap.git_dir), "ls-tree", snap.commit, "vendor").split()[2]
    assert git(outer.path, "--git-dir", snap.submodules["vendor"], "show", f"{link}:{OVERLAP}").count("import os") == 1
    # and an audit reads the edit through the gitlink
    registry = tmp_path / "anchors.yaml"
    registry.write_text((DEMO / "anchors.yaml").read_text().replace("src/demo/", "vendor/src/demo/"))
    skill = tmp_path / "skills" / "demo-overlap"
    shutil.copytree(SKILL, skill)
    (skill / "SKILL.md").write_text((SKILL / "SKILL.md").read_text().replace(":src/demo/", ":vendor/src/demo/"))
    (skill / "card.yaml").unlink(missing_ok=True)
    code = main(["check", str(skill), "--spec", str(registry), "--worktree", str(outer.path), "--format", "json", "-q"])
    statuses = {a["path"]: a["status"] for a in json.loads(capsys.readouterr().out)["skills"][0]["anchors"]}
    assert code == 1 and statuses[f"vendor/{OVERLAP}"] == "moved"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["check", str(SKILL), "--worktree", "--ref", "v1"], "--worktree reads the code from the working tree; it cannot be used with --ref"),
        (["check", str(SKILL), "--worktree", "--repo", "x"], "--worktree reads the code from the working tree; it cannot be used with --repo"),
        (["impact", "HEAD"], "impact needs HEAD, or --worktree to end the change at the working tree"),
    ],
)
def test_what_cannot_go_with_a_working_tree_is_one_line(args, message, capsys) -> None:
    assert main([*args, "--spec", str(DEMO / "anchors.yaml")]) == 2
    assert capsys.readouterr().err == f"anchor-audit: error: {message}\n"


def test_a_folder_outside_any_working_tree_is_one_line(tmp_path, capsys) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    code = main(["check", str(SKILL), "--spec", str(DEMO / "anchors.yaml"), "--worktree", str(plain)])
    assert code == 2
    assert capsys.readouterr().err == f"anchor-audit: error: --worktree {plain}: not inside a git working tree\n"


def test_fix_heals_against_the_working_tree_and_init_drafts_from_it(make_repo, tmp_path, capsys) -> None:
    repo = make_repo()
    repo.edit(OVERLAP, *TWO_IMPORTS)
    skill = tmp_path / "skills" / "demo-overlap"
    shutil.copytree(SKILL, skill)
    registry = tmp_path / "anchors.yaml"
    registry.write_text((DEMO / "anchors.yaml").read_text().replace("path: skills/demo-overlap", f"path: {skill}"))
    assert main(["fix", str(skill), "--spec", str(registry), "--worktree", str(repo.path), "-q"]) == 1
    assert "+```34:40:src/demo/overlap.py" in capsys.readouterr().out  # a dry run: the diff, nothing written
    assert "```32:38:src/demo/overlap.py" in (skill / "SKILL.md").read_text()
    os.remove(repo.path / OVERLAP)  # HEAD has it; the working tree does not
    assert main(["init", str(skill), "--worktree", str(repo.path)]) == 0
    drafted, said = capsys.readouterr()
    assert f'repo: "{os.path.relpath(repo.path)}"' in drafted and 'ref: "HEAD"' in drafted
    assert f"1 of 2 quoted files are not in {os.path.relpath(repo.path)} at its working tree: {OVERLAP}" in said


def test_the_pre_commit_hook_entry_fails_on_a_staged_move_and_passes_once_healed(make_repo, tmp_path, capsys, monkeypatch) -> None:
    import shlex

    import yaml

    from .conftest import ROOT

    entry = next(h for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text()) if h["id"] == "anchor-audit-impact")
    repo = make_repo()
    shutil.copytree(SKILL, repo.path / "skills" / "demo-overlap")
    (repo.path / "anchors.yaml").write_text((DEMO / "anchors.yaml").read_text().replace("https://git.example.invalid/demo-trainer.git", "."))
    repo.commit("the skill beside the code")
    monkeypatch.chdir(repo.path)  # pre-commit runs the entry at the repository's top
    argv = shlex.split(entry["entry"])[1:]
    repo.edit(OVERLAP, *TWO_IMPORTS)
    git(repo.path, "add", OVERLAP)
    assert main(argv) == 1
    assert "moved" in capsys.readouterr().out
    assert main([*argv, "--apply"]) == 1  # the patch written into the skill, as the hook's user would
    capsys.readouterr()
    git(repo.path, "add", "-A")
    assert main(argv) == 0


def test_the_editors_pages_hook_configuration_runs_without_a_registry(make_repo, capsys, monkeypatch) -> None:
    import shlex

    import yaml

    from .conftest import ROOT
    from .docpages import blocks

    config = yaml.safe_load(next(b.text for b in blocks(ROOT / "docs" / "editors.md") if b.language == "yaml"))
    hook = config["repos"][0]["hooks"][0]
    entry = next(h for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text()) if h["id"] == hook["id"])
    repo = make_repo()
    shutil.copytree(SKILL, repo.path / "skills" / "demo-overlap")
    repo.commit("the skill beside the code, no registry")
    monkeypatch.chdir(repo.path)
    repo.edit(OVERLAP, *TWO_IMPORTS)
    git(repo.path, "add", OVERLAP)
    assert main([*shlex.split(entry["entry"])[1:], *hook["args"]]) == 1  # pre-commit appends the args
    assert "demo-overlap: anchor src/demo/overlap.py:32-38: exact -> moved" in capsys.readouterr().out


def test_a_file_too_large_to_audit_is_not_copied_into_the_cache(make_repo, tmp_path) -> None:
    from anchor_audit.source import MAX_FILE_BYTES

    repo = make_repo()
    big = b"x" * (MAX_FILE_BYTES + 1)
    (repo.path / "data.bin").write_bytes(big)  # untracked
    snap = snapshot(repo.path, tmp_path / "cache")
    listed = git(repo.path, "--git-dir", str(snap.git_dir), "ls-tree", "-r", "--name-only", snap.commit).split("\n")
    assert "data.bin" not in listed
    stored = sum(f.stat().st_size for f in (snap.git_dir / "objects").rglob("*") if f.is_file())
    assert stored < MAX_FILE_BYTES // 10
