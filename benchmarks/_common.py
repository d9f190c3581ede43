"""Helpers shared by the benchmarks: timing commands, and a generated repository of the right shape."""

from __future__ import annotations

import os
import random
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "fixtures" / "demo"


def timed(cmd: list[str], env: dict[str, str] | None = None, cwd: Path | None = None) -> float:
    """Seconds one run of ``cmd`` takes, end to end (exit codes 0 and 1 are both results)."""
    start = time.perf_counter()
    done = subprocess.run(cmd, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise SystemExit(f"benchmark command failed ({done.returncode}): {' '.join(cmd)}\n{done.stderr}")
    return elapsed


def median_of(runs: int, fn) -> float:  # type: ignore[no-untyped-def]
    return statistics.median(fn() for _ in range(runs))


def anchor_audit() -> list[str]:
    return [sys.executable, "-m", "anchor_audit"]


def git(cwd: Path, *args: str, env: dict[str, str] | None = None) -> str:
    return subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True).stdout


def _filler_function(k: int) -> str:
    return (
        f"\n\ndef helper_{k}(cfg, world):\n"
        f'    """Generated helper {k}."""\n'
        f"    total = 0\n"
        f"    for rank in range(world.size):\n"
        f"        if rank % {k + 2} == 0:\n"
        f"            total += cfg.bucket or {k}\n"
        f"        elif cfg.tp_overlap:\n"
        f"            total -= {k}\n"
        f"    return {{'helper': {k}, 'total': total}}\n"
    )


def generated_repo(where: Path, commits: int = 600, touch_every: int = 50, other_files: int = 40) -> Path:
    """A repository shaped like Megatron-Bridge's history around one skill.

    The demo skill lives in ``skills/demo-overlap``; its code in
    ``src/demo``.  Most commits touch other files; every ``touch_every``-th
    inserts lines above the quoted code (the quotes move), and the skill
    folder is renamed once, as the real one was.
    """
    repo = where / "generated.git-work"
    if repo.exists():
        shutil.rmtree(repo)
    repo.mkdir(parents=True)
    env = {**os.environ, "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.invalid",
           "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.invalid"}  # fmt: skip
    git(repo, "init", "-q", "-b", "main", env=env)
    shutil.copytree(DEMO / "src", repo / "src")
    for name in ("overlap.py", "launch.py"):  # the real files are ~650 lines: pad below the quoted code
        path = repo / "src" / "demo" / name
        path.write_text(path.read_text() + "".join(_filler_function(k) for k in range(40)))
    shutil.copytree(DEMO / "skills" / "demo-overlap", repo / "skills" / "overlap-guide")
    rng = random.Random(1234)
    for i in range(other_files):  # a tree with other code in it, not too compressible
        folder = repo / "src" / "other" / f"pkg{i // 100}"
        folder.mkdir(parents=True, exist_ok=True)
        names = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz_") for _ in range(12)) for _ in range(60)]
        (folder / f"mod{i}.py").write_text("".join(f"{n} = {rng.randint(0, 10**9)}  # {n[::-1]}\n" for n in names))
    git(repo, "add", "-A", env=env)
    git(repo, "commit", "-q", "-m", "start", env=env)
    overlap = repo / "src" / "demo" / "overlap.py"
    for n in range(1, commits):
        if n == commits // 3:
            git(repo, "mv", "skills/overlap-guide", "skills/demo-overlap", env=env)
        elif n % touch_every == 0:
            text = overlap.read_text()
            new_import = f"import mod{n}\nfrom dataclasses import dataclass\n"
            overlap.write_text(text.replace("from dataclasses import dataclass\n", new_import, 1))
        else:
            k = n % other_files
            target = repo / "src" / "other" / f"pkg{k // 100}" / f"mod{k}.py"
            target.write_text(target.read_text() + f"# revision {n}\n")
        git(repo, "commit", "-q", "-a", "-m", f"change {n}", env=env)
    return repo
