"""Benchmark: a repository's own skills, cold, against the naive script (naive_inrepo.py).

    python benchmarks/inrepo.py --repo MEGATRON_BRIDGE [--ref HEAD] [--skills skills] [--runs 3]

Measures, in this one run: ``check --all SKILLS --in-repo --jobs 1`` from an empty cache (every run), the
same with ``--jobs`` left to its default, and the naive script over the same skills; medians of rounds that
run each once, end to end.
The goal: cold within 5x the naive script.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from _common import ROOT, anchor_audit, bench_env, timed, verdict

GOAL = 5.0
NAIVE = Path(__file__).resolve().parent / "naive_inrepo.py"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repo", required=True, help="a local Megatron-Bridge repository or fetched copy")
    parser.add_argument("--ref", default="HEAD")
    parser.add_argument("--skills", default="skills")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="anchor-audit-bench-"))
    cache = work / "cache"
    env = bench_env(ANCHOR_AUDIT_CACHE=str(cache))
    check = [*anchor_audit(), "check", "--quiet", "--spec", str(ROOT / "anchors.yaml"), "--repo", args.repo,
             "--ref", args.ref, "--all", args.skills, "--in-repo", "--format", "json"]  # fmt: skip

    def cold(jobs: list[str]) -> float:
        shutil.rmtree(cache, ignore_errors=True)
        return timed([*check, *jobs], env)

    timed([sys.executable, "-c", "import anchor_audit.cli"], env)  # bytecode cached before anything is timed
    naive_cmd = [sys.executable, str(NAIVE), args.repo, args.ref, args.skills]
    said = subprocess.run(naive_cmd, env=env, capture_output=True, text=True, check=True).stdout.strip()
    ones, spreads, naives = [], [], []
    for _ in range(args.runs):  # each kind once a round, beside the others: the machine's drift falls on both sides
        ones.append(cold(["--jobs", "1"]))
        naives.append(timed(naive_cmd, env))
        spreads.append(cold([]))
    one, spread, naive = statistics.median(ones), statistics.median(spreads), statistics.median(naives)
    print(f"input: {args.repo} at {args.ref}, every skill under {args.skills}/ ({said})")
    print(f"check --in-repo cold, --jobs 1: {one:.3f} s; --jobs default: {spread:.3f} s; naive script: {naive:.3f} s")
    print(verdict("cold (--jobs 1) / naive", one / naive, GOAL))
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
