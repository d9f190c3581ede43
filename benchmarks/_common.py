"""Helpers shared by the benchmarks: timing commands, serving a repository, and a generated one of the right shape.

Every figure is measured in the run that prints it, end to end in a child
process (start-up, imports and exit included), as a user meets it.  The
children run with the same environment, bytecode cached under a temporary
``PYTHONPYCACHEPREFIX`` (as an installed package has it), so neither the tool
nor a floor pays for compiling Python on every run.
"""

from __future__ import annotations

import contextlib
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Iterator

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "fixtures" / "demo"
PYCACHE = Path(tempfile.gettempdir()) / "anchor-audit-bench-pycache"


def bench_env(**extra: str) -> dict[str, str]:
    """The environment every measured child gets (the tool's and the baselines' alike)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return {**env, "PYTHONPYCACHEPREFIX": str(PYCACHE), **extra}


def measure(cmd: list[str], env: dict[str, str] | None = None, cwd: Path | None = None) -> tuple[float, int]:
    """(seconds, peak resident memory in kB of the command or any process it waited for) of one run.

    Exit codes 0 and 1 are both results; anything else stops the benchmark with the command's stderr.
    """
    with tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        child = subprocess.Popen(cmd, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(child.pid, 0)
        elapsed = time.perf_counter() - start
        child.returncode = os.waitstatus_to_exitcode(status)
        if child.returncode not in (0, 1):
            err.seek(0)
            said = err.read().decode("utf-8", "replace")
            raise SystemExit(f"benchmark command failed ({child.returncode}): {' '.join(cmd)}\n{said}")
    return elapsed, usage.ru_maxrss


def run_from(tree: Path, command: list[str], work: Path, cache: Path | None = None) -> float:
    """Seconds of one run of ``anchor-audit COMMAND`` from ``tree``'s source in ``work`` (its home and
    configuration there too), with ``cache``, or a new empty one that is removed after (a cold run)."""
    where = Path(tempfile.mkdtemp(dir=work)) if cache is None else cache
    env = bench_env(PYTHONPATH=str(tree / "src"), HOME=str(work), ANCHOR_AUDIT_CACHE=str(where),
                    XDG_CONFIG_HOME=str(work / ".config"))  # fmt: skip
    try:
        return measure([sys.executable, "-m", "anchor_audit", *command], env, cwd=work)[0]
    finally:
        if cache is None:
            shutil.rmtree(where, ignore_errors=True)


def timed(cmd: list[str], env: dict[str, str] | None = None, cwd: Path | None = None) -> float:
    """Seconds one run of ``cmd`` takes, end to end."""
    return measure(cmd, env, cwd)[0]


def median_of(runs: int, fn) -> float:  # type: ignore[no-untyped-def]
    return statistics.median(fn() for _ in range(runs))


def verdict(name: str, value: float, goal: float, unit: str = "x", at_least: bool = False) -> str:
    """One line: a measured ratio and the goal it is held to."""
    met = value >= goal if at_least else value <= goal
    shown = f"{value:.2%}" if unit == "%" else f"{value:.2f}{unit}"
    target = f"{goal:.0%}" if unit == "%" else f"{goal:g}{unit}"
    return f"{name}: {shown} (goal {'>=' if at_least else '<='} {target}: {'met' if met else 'NOT met'})"


def served_copy(repo: Path, work: Path) -> Path:
    """A bare repository to serve over ``file://`` in place of ``repo``, which is never written to.

    It borrows ``repo``'s objects (``objects/info/alternates``), holds its
    branches and tags only (not the thousands of ``refs/pull/*`` a fetched
    GitHub copy has), and allows the partial-clone filter, as GitHub does.
    """
    served = work / "served.git"
    if served.exists():
        shutil.rmtree(served)
    git(work, "init", "-q", "--bare", str(served))
    objects = Path(git(repo, "rev-parse", "--path-format=absolute", "--git-common-dir").strip()) / "objects"
    (served / "objects" / "info" / "alternates").write_text(f"{objects}\n")
    refs = git(repo, "for-each-ref", "--format=create %(refname) %(objectname)", "refs/heads", "refs/tags")
    subprocess.run(["git", "update-ref", "--stdin"], cwd=served, input=refs, text=True, check=True)
    head = subprocess.run(["git", "symbolic-ref", "-q", "HEAD"], cwd=repo, capture_output=True, text=True)
    if head.returncode == 0:
        git(served, "symbolic-ref", "HEAD", head.stdout.strip())
    git(served, "config", "uploadpack.allowFilter", "true")
    return served


def full_clone_bytes(served: Path, work: Path) -> tuple[int, str]:
    """(bytes, how measured) of a full ``git clone --bare`` of ``served``.

    A fetched snapshot may lack a few blobs, and a clone of it then fails;
    the measure is then the pack git builds of everything those refs reach
    but the missing blobs, which is what such a clone would store.
    """
    target = work / "full-clone.git"
    done = subprocess.run(["git", "clone", "-q", "--bare", "--no-local", f"file://{served}", str(target)],
                          capture_output=True)  # fmt: skip
    if done.returncode == 0:
        size = sum(f.stat().st_size for f in target.rglob("*") if f.is_file())
        shutil.rmtree(target)
        return size, "git clone --bare"
    shutil.rmtree(target, ignore_errors=True)
    missing = git(served, "rev-list", "--objects", "--all", "--missing=print").count("\n?")
    pack = subprocess.Popen(["git", "pack-objects", "--revs", "--all", "--missing=allow-any", "--stdout", "-q"],
                            cwd=served, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE)  # fmt: skip
    assert pack.stdout is not None
    size = sum(len(chunk) for chunk in iter(lambda: pack.stdout.read(1 << 20), b""))  # type: ignore[union-attr]
    if pack.wait() != 0:
        raise SystemExit("git pack-objects of the served repository failed")
    return size, f"a full clone fails ({missing} blobs absent from this copy): the pack of all it reaches"


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


@contextlib.contextmanager
def checked_out_beside(rev: str) -> Iterator[tuple[Path, Path]]:
    """A temporary work folder, and ``rev`` of this checkout checked out in it (a worktree); both gone after."""
    work = Path(tempfile.mkdtemp(prefix="anchor-audit-bench-"))
    baseline = work / "baseline"
    git(ROOT, "worktree", "add", "--detach", "-q", str(baseline), rev)
    try:
        yield work, baseline
    finally:
        git(ROOT, "worktree", "remove", "--force", str(baseline))
        shutil.rmtree(work, ignore_errors=True)
