"""Benchmark: ``impact`` on a commit that concerns no skill, warm, against its import floor.

    python benchmarks/impact_floor.py GITDIR [--skills skills] [--runs 7] [--search 30]

Finds, among the last ``--search`` first-parent commits of GITDIR, the newest whose ``impact PARENT COMMIT``
concerns no in-repo skill under ``--skills``; then measures, in this one run, that command warm (medians, end
to end) and its import floor: Python start-up importing exactly the top-level modules the command imports
(read from ``python -X importtime``), nothing run.  The goal: the command within 1.2x of the floor, so
everything but its imports (opening the repository, the diff, reading the skills) costs a fifth of them.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from _common import anchor_audit, bench_env, median_of, timed, verdict

GOAL = 1.2
_TOP = re.compile(r"^import time:\s+\d+ \|\s+\d+ \| (\S+)$")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("gitdir")
    parser.add_argument("--skills", default="skills")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--search", type=int, default=30)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="anchor-audit-bench-"))
    env = bench_env(ANCHOR_AUDIT_CACHE=str(work / "cache"))
    command = None
    for back in range(1, args.search + 1):
        candidate = [*anchor_audit(), "impact", f"HEAD~{back}", f"HEAD~{back - 1}", "--repo", args.gitdir,
                     "--all", args.skills, "--in-repo", "--quiet"]  # fmt: skip
        said = subprocess.run(candidate, env=env, capture_output=True, text=True).stdout
        if ", 0 skills concerned" in said.split("\n", 1)[0]:
            command = candidate
            print(f"input: {args.gitdir}, {said.splitlines()[0]}")
            break
    if command is None:
        raise SystemExit(f"no commit of the last {args.search} concerns no skill")
    timed(command, env)  # warm: the skills' texts and git's answers are in the result cache
    run = median_of(args.runs, lambda: timed(command, env))
    modules = _imported(command, env)
    floor_command = [sys.executable, "-c", "import " + ", ".join(modules)]
    timed(floor_command, env)
    floor = median_of(args.runs, lambda: timed(floor_command, env))
    print(f"impact, warm: {run:.3f} s; its import floor ({len(modules)} top-level modules): {floor:.3f} s")
    print(verdict("impact / import floor", run / floor, GOAL))
    return 0


def _imported(command: list[str], env: dict[str, str]) -> list[str]:
    """The modules the command imports at the top level of its import tree (as -X importtime shows them)."""
    err = subprocess.run([sys.executable, "-X", "importtime", *command[1:]], env=env, capture_output=True,
                         text=True).stderr  # fmt: skip
    found = [m.group(1) for line in err.splitlines() if (m := _TOP.match(line))]
    return [name for name in dict.fromkeys(found) if not name.startswith("_") and name not in ("encodings", "site")]


if __name__ == "__main__":
    raise SystemExit(main())
