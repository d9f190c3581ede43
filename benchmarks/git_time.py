"""Benchmark: how much of one run is spent waiting on git: the floor under a cold run's time.

    python benchmarks/git_time.py [--cold] -- ANCHOR_AUDIT_ARGUMENTS...

Runs one anchor-audit command in this process and prints, by git subcommand, how many git processes it
started and the seconds it waited on them, then the run's wall time: what no change to anchor-audit's own
work can take below.  Counted: every command GitPython runs and every git the tool runs itself (its
persistent ``cat-file`` readers are one process each, their reads not timed).  Give ``--jobs 1``: a worker
process's git is not seen here.  ``--cold``: from an empty cache (a new temporary ``ANCHOR_AUDIT_CACHE``).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any, Callable, TypeVar

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

import git.cmd  # noqa: E402

T = TypeVar("T")
WAITED: dict[str, list[float]] = defaultdict(list)  # git subcommand -> seconds waited on each process


def _subcommand(argv: list[str]) -> str:
    """``grep`` of ``git -c x=y --git-dir D grep ...``: the first word after git's own options."""
    words = iter(argv[1:])
    for word in words:
        if word in ("-c", "-C", "--git-dir", "--work-tree"):
            next(words, None)
        elif not word.startswith("-"):
            return word
    return "?"


def _timed(name: str, run: Callable[[], T]) -> T:
    start = time.perf_counter()
    try:
        return run()
    finally:
        WAITED[name].append(time.perf_counter() - start)


def _count_git() -> None:
    """Time every git process: GitPython's (``Git.execute``) and the tool's own (``subprocess.run`` of git)."""
    execute, run = git.cmd.Git.execute, subprocess.run

    def counted_execute(self: git.cmd.Git, command: Any, *args: Any, **kwargs: Any) -> Any:
        return _timed(_subcommand([str(c) for c in command]), lambda: execute(self, command, *args, **kwargs))

    def counted_run(argv: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(argv, (list, tuple)) and argv and Path(str(argv[0])).name == "git":
            return _timed(_subcommand([str(a) for a in argv]), lambda: run(argv, *args, **kwargs))
        return run(argv, *args, **kwargs)

    git.cmd.Git.execute = counted_execute  # type: ignore[method-assign, assignment]
    subprocess.run = counted_run


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cold", action="store_true", help="start from an empty cache")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="the anchor-audit command, after --")
    options = parser.parse_args()
    args = options.args[1:] if options.args[:1] == ["--"] else options.args
    cold = tempfile.mkdtemp(prefix="anchor-audit-git-time-") if options.cold else None
    if cold is not None:
        os.environ["ANCHOR_AUDIT_CACHE"] = cold
    try:
        return _timed_run(args)
    finally:
        if cold is not None:
            shutil.rmtree(cold, ignore_errors=True)  # the empty cache it started from, and all it fetched


def _timed_run(args: list[str]) -> int:
    _count_git()
    from anchor_audit.cli import main as anchor_audit

    start = time.perf_counter()
    with open(os.devnull, "w") as quiet:
        out, sys.stdout = sys.stdout, quiet
        try:
            code = anchor_audit(args)
        finally:
            sys.stdout = out
    wall = time.perf_counter() - start
    waited = sum(sum(times) for times in WAITED.values())
    count = sum(len(times) for times in WAITED.values())
    print(f"anchor-audit {' '.join(args)}: exit {code}, {wall:.3f} s")
    for name, times in sorted(WAITED.items(), key=lambda item: -sum(item[1])):
        print(f"  git {name}: {len(times)} processes, {sum(times):.3f} s")
    print(f"inside git: {count} processes, {waited:.3f} s ({waited / wall:.0%} of the run)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
