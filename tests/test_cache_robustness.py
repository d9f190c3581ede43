"""The cache survives a run killed during a fetch, and concurrent runs (a file lock per mirror)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .conftest import DEMO, GitRepo, git

SKILL = str(DEMO / "skills" / "demo-overlap")
SPEC = str(DEMO / "anchors.yaml")


@pytest.fixture
def slow_server(make_repo, tmp_path: Path) -> tuple[str, dict[str, str], dict[str, str]]:
    """A file:// server whose pack-objects waits 3 s first; the environments with and without the wait."""
    repo: GitRepo = make_repo()
    server = tmp_path / "server.git"
    git(tmp_path, "clone", "-q", "--bare", str(repo.path), str(server))
    git(server, "config", "uploadpack.allowFilter", "true")
    hook = tmp_path / "slow-pack-objects"
    hook.write_text('#!/bin/sh\nsleep 3\nexec "$@"\n')
    hook.chmod(0o755)
    config = tmp_path / "slow.gitconfig"
    config.write_text(f"[uploadpack]\n\tpackObjectsHook = {hook}\n")  # honoured only from global config
    base = {**os.environ, "ANCHOR_AUDIT_CACHE": str(tmp_path / "cache"), "NO_COLOR": "1"}
    return f"file://{server}", {**base, "GIT_CONFIG_GLOBAL": str(config)}, base


def command(url: str) -> list[str]:
    return [sys.executable, "-m", "anchor_audit", "check", "--quiet", "--spec", SPEC, "--repo", url, "--ref", "v1", SKILL]


def test_a_run_killed_during_the_fetch_leaves_a_usable_cache(slow_server, tmp_path: Path) -> None:
    url, slow, fast = slow_server
    victim = subprocess.Popen(command(url), env=slow, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              start_new_session=True)  # fmt: skip
    deadline = time.monotonic() + 10
    while not list((tmp_path / "cache" / "git").glob("*.git")) and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.5)  # now inside the fetch (pack-objects is sleeping)
    os.killpg(victim.pid, signal.SIGKILL)
    victim.wait()
    assert victim.returncode == -signal.SIGKILL
    again = subprocess.run(command(url), env=fast, capture_output=True, text=True, timeout=60)
    assert again.returncode == 0, again.stderr
    assert again.stdout.splitlines()[-1] == "4 quotes: 4 exact · 5 claims: 4 code_verified, 1 doc_only · 2 references (2 evidence paths): 2 hold · exit 0 (all hold)"


def test_concurrent_runs_share_one_fetch(slow_server) -> None:
    url, slow, _ = slow_server
    runs = [subprocess.Popen(command(url), env=slow, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for _ in range(2)]  # fmt: skip
    results = [run.communicate(timeout=60) for run in runs]
    for run, (_, err) in zip(runs, results, strict=True):
        if run.returncode != 0:
            pytest.fail(f"a concurrent run exited {run.returncode}:\n{err}")
    assert results[0][0] == results[1][0]


def test_many_runs_opening_a_new_result_cache_at_once(tmp_path: Path) -> None:
    code = (
        "import sys; from pathlib import Path; from anchor_audit.store.sqlite import ResultStore\n"
        "store = ResultStore(Path(sys.argv[1])); store.put(sys.argv[2], {'n': 1}); store.close()\n"
        "sys.exit(3 if store.problem else 0)\n"
    )
    target = tmp_path / "cache" / "results.sqlite3"
    runs = [subprocess.Popen([sys.executable, "-c", code, str(target), f"key{i}"]) for i in range(6)]
    assert [run.wait(timeout=60) for run in runs] == [0] * 6


def test_a_broken_result_cache_is_turned_off_not_fatal(tmp_path: Path, make_repo, capsys) -> None:
    from anchor_audit.cli import main

    repo = make_repo()
    cache = tmp_path / "broken-cache"
    (cache / "results.sqlite3").mkdir(parents=True)  # not a database: SQLite cannot open it
    code = main(["check", "--spec", SPEC, "--repo", str(repo.path), "--cache-dir", str(cache), SKILL])
    out, err = capsys.readouterr()
    assert code == 0 and out.splitlines()[-1].endswith("exit 0 (all hold)")
    assert err.startswith("anchor-audit: warning: the result cache is off for this run (")


def test_a_store_empty_when_opened_answers_what_it_put_and_misses_the_rest_without_asking(
    tmp_path: Path, monkeypatch
) -> None:
    """A new cache holds only what this run puts: other keys are misses, a concurrent run's rows among them (they
    are computed again, never wrong); past MAX_OWN_KEYS, and in a store that had rows, SQLite is asked."""
    from anchor_audit.store import sqlite as resultstore
    from anchor_audit.store.sqlite import ResultStore

    path, key = tmp_path / "cache" / "results.sqlite3", b"k" * 32
    mine, theirs = ResultStore(path, key), ResultStore(path, key)
    theirs.put("theirs", {"n": 1})
    theirs.flush()
    mine.put("mine", {"n": 2})
    mine.flush()
    assert mine.get("mine") == {"n": 2} and mine.get("theirs") is None  # not put here: not asked of SQLite
    assert ResultStore(path, key).get("theirs") == {"n": 1}  # opened on rows: each key asked
    monkeypatch.setattr(resultstore, "MAX_OWN_KEYS", 2)
    bounded = ResultStore(tmp_path / "other" / "results.sqlite3", key)
    theirs_too = ResultStore(tmp_path / "other" / "results.sqlite3", key)
    theirs_too.put("theirs", {"n": 1})
    theirs_too.flush()
    for n in range(3):
        bounded.put(f"mine{n}", {"n": n})
    bounded.flush()
    assert bounded.get("theirs") == {"n": 1}  # too many keys to remember: SQLite is asked again
    for store in (mine, theirs, bounded, theirs_too):
        store.close()
