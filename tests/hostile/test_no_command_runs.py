"""Class 9: a repository or a cache is data. Its configuration, hooks and links never run a command or write outside.

Every case plants a script that touches a marker file wherever a git setting
could start it, runs the real command, and checks that the marker is absent
and that the answer is the one the same objects give without the setting.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
from pathlib import Path

import pytest

from ..conftest import git
from .conftest import GitRepo, make_code_repo, make_skill, run_cli, snapshot

MOVED = "class Planner:\n    # planning\n    def plan(self, cfg):\n"


def marker_script(tmp_path: Path) -> tuple[Path, Path]:
    """(a script that touches MARKER and then behaves like cat, the marker)."""
    marker = tmp_path / "MARKER"
    script = tmp_path / "evil.sh"
    script.write_text(f'#!/bin/sh\ntouch {marker}\ncat "$@" 2>/dev/null\nexit 0\n')
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script, marker


def anchors(out: str) -> list[tuple[str, list[int] | None]]:
    return [(a["status"], a.get("found")) for s in json.loads(out)["skills"] for a in s["anchors"]]


def three_versions(tmp_path: Path) -> GitRepo:
    """v1; v2 moves the quoted gate one line down; v3 edits inside it."""
    repo = make_code_repo(tmp_path / "upstream")
    repo.edit("pkg/plan.py", "class Planner:\n    def plan(self, cfg):\n", MOVED)
    repo.commit("a comment", tag="v2")
    repo.edit("pkg/plan.py", "if cfg.tp > 1:", "if cfg.tp > 2:")
    repo.commit("raise the threshold", tag="v3")
    return repo


def test_a_vendored_partial_clone_never_runs_its_upload_pack(tmp_path: Path) -> None:
    upstream = three_versions(tmp_path)
    git(upstream.path, "config", "uploadpack.allowFilter", "true")
    vendored = tmp_path / "pr" / "vendored.git"
    git(tmp_path, "clone", "-q", "--bare", "--filter=blob:none", f"file://{upstream.path}", str(vendored))
    script, marker = marker_script(tmp_path)
    git(vendored, "config", "remote.origin.uploadpack", f"{script}; git-upload-pack")
    git(vendored, "config", "core.hooksPath", str(tmp_path / "hooks"))
    (tmp_path / "hooks").mkdir()
    for hook in ("reference-transaction", "post-checkout", "pre-auto-gc"):
        os.symlink(script, tmp_path / "hooks" / hook)
    skill = make_skill(tmp_path / "skill")
    done = run_cli("check", "--repo", str(vendored), "--ref", "v2", "--format", "json", str(skill))
    assert not marker.exists()
    # Its promisor is a local path, which no setting may make anchor-audit fetch from: the blob is missing.
    (anchor,) = json.loads(done.out)["skills"][0]["anchors"]
    assert (done.code, anchor["status"]) == (1, "error") and anchor["detail"].endswith("(missing)"), anchor
    assert not list(vendored.glob("objects/pack/*.promisor"))[1:]  # nothing was fetched into the user's repository


def test_diff_and_log_settings_of_a_repository_change_no_answer(tmp_path: Path) -> None:
    upstream = three_versions(tmp_path)
    skill = make_skill(tmp_path / "skill")
    clean = run_cli("impact", "v1", "v3", str(skill), "--repo", str(upstream.path), "--format", "json")
    history_clean = run_cli("history", "--repo", str(upstream.path), "--format", "json", str(skill))
    assert clean.code == 1 and json.loads(clean.out)["impacts"], clean.out

    hostile = tmp_path / "pr" / "vendored.git"
    git(tmp_path, "clone", "-q", "--bare", str(upstream.path), str(hostile))
    script, marker = marker_script(tmp_path)
    (hostile / "info").mkdir(exist_ok=True)
    (hostile / "info" / "attributes").write_text("* diff=evil filter=evil\n")
    for key, value in [("diff.external", script), ("diff.evil.textconv", script), ("diff.evil.command", script),
                       ("filter.evil.smudge", script), ("filter.evil.clean", script), ("filter.evil.process", script),
                       ("log.showSignature", "true"), ("gpg.program", script), ("core.fsmonitor", script),
                       ("core.pager", script), ("diff.noprefix", "true"), ("diff.relative", "true"),
                       ("color.ui", "always"), ("log.follow", "true"), ("diff.renames", "copies")]:  # fmt: skip
        git(hostile, "config", key, str(value))
    # v3 again, signed (v4), so that log.showSignature would have to call gpg.program.
    raw = git(hostile, "cat-file", "commit", "v3")
    head, _, message = raw.partition("\n\n")
    signed = f"{head}\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n -----END PGP SIGNATURE-----\n\nsigned {message}\n"
    path = tmp_path / "commit.txt"
    path.write_text(signed)
    sha = git(hostile, "hash-object", "-t", "commit", "-w", str(path))
    git(hostile, "update-ref", "refs/heads/main", sha)
    git(hostile, "tag", "v4", sha)

    impact = run_cli("impact", "v1", "v3", str(skill), "--repo", str(hostile), "--format", "json")
    history = run_cli("history", "--repo", str(hostile), "--until", "v3", "--format", "json", str(skill))
    signed_history = run_cli("history", "--repo", str(hostile), "--until", "v4", "--format", "json", str(skill))
    assert not marker.exists()
    assert (impact.code, impact.out.replace(str(hostile), "R")) == (clean.code, clean.out.replace(str(upstream.path), "R"))
    events = lambda out: json.loads(out)["events"]  # noqa: E731
    assert events(history.out) == events(history_clean.out) != []
    changes = lambda out: [(e["key"], e["from"], e["to"]) for e in events(out)]  # noqa: E731
    assert signed_history.code == 0 and changes(signed_history.out) == changes(history_clean.out)  # v4 stands for v3


def served_mirror(tmp_path: Path) -> tuple[GitRepo, str, Path, Path]:
    """(upstream, its file:// URL, the cache, the mirror the first check made in it)."""
    upstream = three_versions(tmp_path)
    git(upstream.path, "config", "uploadpack.allowFilter", "true")
    url, cache = f"file://{upstream.path}", tmp_path / "cache"
    skill = make_skill(tmp_path / "skill")
    assert run_cli("check", "--repo", url, "--ref", "v1", "--cache-dir", str(cache), str(skill)).code == 0
    (mirror,) = (cache / "git").glob("*.git")
    return upstream, url, cache, mirror


def test_a_poisoned_cache_mirror_is_data_not_configuration(tmp_path: Path) -> None:
    upstream, url, cache, mirror = served_mirror(tmp_path)
    script, marker = marker_script(tmp_path)
    for hook in ("reference-transaction", "pre-auto-gc", "post-checkout"):
        shutil.copy(script, mirror / "hooks" / hook)  # executable, as the script is
    elsewhere = make_code_repo(tmp_path / "elsewhere", {"pkg/secret.py": "TOKEN = 'hunter2'\n"})
    (mirror / "objects" / "info" / "alternates").write_text(f"{elsewhere.path}/.git/objects\n")
    with open(mirror / "config", "a") as config:
        config.write(f'[remote "origin"]\n\tuploadpack = {script}; git-upload-pack\n\turl = /nowhere\n'
                     f"[core]\n\tfsmonitor = {script}\n[credential]\n\thelper = !{script}\n")  # fmt: skip
    skill = tmp_path / "skill"
    done = run_cli("check", "--repo", url, "--ref", "v2", "--cache-dir", str(cache), "--format", "json", str(skill))
    assert not marker.exists()
    assert done.code == 1 and anchors(done.out) == [("moved", [4, 7])]
    assert "uploadpack" not in (mirror / "config").read_text() and not (mirror / "objects/info/alternates").exists()


def test_links_in_the_cache_are_never_followed(tmp_path: Path) -> None:
    upstream, url, cache, mirror = served_mirror(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    lock = Path(f"{mirror}.lock")
    lock.unlink()
    os.symlink(outside / "made-by-the-mirror-lock", lock)
    for name in ("results.sqlite3.lock", "results.sqlite3-wal"):
        (cache / name).unlink(missing_ok=True)
        os.symlink(outside / f"made-by-{name}", cache / name)
    skill = tmp_path / "skill"
    done = run_cli("check", "--repo", url, "--ref", "v1", "--cache-dir", str(cache), str(skill))
    assert list(outside.iterdir()) == []
    assert done.code == 2 and "Traceback" not in done.err
    assert done.err.splitlines()[-1] == f"anchor-audit: error: {lock}: a symbolic link in the cache; not followed"

    lock.unlink()  # the mirror is usable again; the result cache still is not, and says so once
    done = run_cli("check", "--repo", url, "--ref", "v1", "--cache-dir", str(cache), str(skill))
    assert done.code == 0 and list(outside.iterdir()) == []
    assert "the result cache is off for this run" in done.err and "a symbolic link in the cache; not followed" in done.err

    (outside / "objects").mkdir()
    os.rename(mirror / "objects" / "pack", outside / "objects" / "pack")
    os.symlink(outside / "objects" / "pack", mirror / "objects" / "pack")  # a folder inside the mirror, linked out
    done = run_cli("check", "--repo", url, "--ref", "v3", "--cache-dir", str(cache), str(skill))
    assert done.code == 2 and list((outside / "objects" / "pack").iterdir()) != [] and not (outside / "x").exists()
    assert done.err.splitlines()[-1] == f"anchor-audit: error: {mirror}/objects/pack: a symbolic link in the cache; not followed"


def test_every_neutralised_setting_is_written_down() -> None:
    from anchor_audit.source.gitenv import NEUTRAL_CONFIG, NEUTRAL_ENV

    from ..conftest import ROOT

    page = (ROOT / "docs" / "security.md").read_text()
    missing = [f"{k}={v}" for k, v, _ in NEUTRAL_CONFIG if f"`{k}={v}`" not in page]
    missing += [k for k in NEUTRAL_ENV if f"`{k}`" not in page]
    assert missing == []


@pytest.mark.parametrize("promisor", ["git://127.0.0.1:9/x.git", "http://127.0.0.1:9/x.git"])
def test_a_partial_clone_fetches_only_through_an_overlay_of_our_own(tmp_path: Path, promisor: str) -> None:
    upstream = three_versions(tmp_path)
    git(upstream.path, "config", "uploadpack.allowFilter", "true")
    vendored = tmp_path / "pr" / "vendored.git"
    git(tmp_path, "clone", "-q", "--bare", "--filter=blob:none", f"file://{upstream.path}", str(vendored))
    script, marker = marker_script(tmp_path)
    for key, value in [("remote.origin.url", promisor), ("core.gitProxy", script), ("credential.helper", f"!{script}"),
                       ("core.sshCommand", script), ("remote.origin.uploadpack", script), ("core.askPass", script),
                       ("http.proxy", "http://127.0.0.1:9")]:  # fmt: skip
        git(vendored, "config", key, str(value))
    before = snapshot(vendored)
    skill = make_skill(tmp_path / "skill")
    done = run_cli("check", "--repo", str(vendored), "--ref", "v2", "--format", "json", str(skill), timeout=120)
    assert not marker.exists() and done.code == 1
    assert snapshot(vendored) == before  # the user's repository is never written to
    (overlay,) = (tmp_path / "cache" / "git").glob("local-*.git")
    assert promisor in (overlay / "config").read_text() and "gitProxy" not in (overlay / "config").read_text()


def test_a_working_tree_runs_no_filter_fsmonitor_or_hook_of_its_repository(tmp_path: Path) -> None:
    """--worktree reads the files itself: a clean filter the attributes name, an fsmonitor and hooks never run."""
    script, marker = marker_script(tmp_path)
    repo = make_code_repo(tmp_path / "code")
    (repo.path / ".gitattributes").write_text("*.py filter=evil\n")
    for key, value in (("filter.evil.clean", str(script)), ("filter.evil.smudge", str(script)),
                       ("filter.evil.required", "true"), ("core.fsmonitor", str(script)),
                       ("core.hooksPath", str(tmp_path / "hooks"))):  # fmt: skip
        git(repo.path, "config", key, value)
    (tmp_path / "hooks").mkdir()
    for hook in ("post-index-change", "reference-transaction", "pre-commit"):
        shutil.copy(script, tmp_path / "hooks" / hook)
    repo.write("pkg/plan.py", MOVED + repo.read("pkg/plan.py").split("\n", 1)[1])  # an edit git has not seen
    before = snapshot(repo.path)
    skill = make_skill(tmp_path / "skill")
    done = run_cli("check", "--worktree", str(repo.path), str(skill), "--format", "json", cwd=tmp_path)
    assert done.code in (0, 1), done.err
    assert not marker.exists()
    assert snapshot(repo.path) == before
    assert json.loads(done.out)["source"]["kind"] == "worktree"
