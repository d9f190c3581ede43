"""Benchmark: what checking every reference of the prose costs, against this tool before it did.

    python benchmarks/citations.py --repo PATH [--catalog DIR --mirror URL=GITDIR ...] [--runs 3]
        [--baseline-rev 6a1a424]

``--repo``: a local Megatron-Bridge repository or fetched copy (only read). Its in-repo skills are
checked at HEAD (``check --in-repo --all skills``) by this checkout and by ``--baseline-rev`` (the
last commit before paths, links, commands, names and pins were checked), checked out beside it in a
temporary worktree; with ``--catalog`` (and ``--mirror`` for the components at hand) the catalog run
too. Both run cold of results (``--no-cache``) with the same environment; the ratio is the median
time of this checkout over the baseline's, in the same run. The goal: at most 2x.
"""

from __future__ import annotations

import argparse
import os
import statistics
from pathlib import Path

from _common import ROOT, bench_env, checked_out_beside, measure, verdict

GOAL = 2.0
BASELINE = "6a1a424"  # "Moved and Relocated share what a healed quote carries": before any citation was checked


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repo", required=True, help="a local Megatron-Bridge repository or fetched copy")
    parser.add_argument("--catalog", help="a clone of the NVIDIA skills catalog")
    parser.add_argument("--mirror", action="append", default=[], help="URL=GITDIR, as for check --catalog")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--baseline-rev", default=BASELINE)
    args = parser.parse_args()
    with checked_out_beside(args.baseline_rev) as (work, baseline):
        spec = work / "anchors.yaml"
        spec.write_text(f"version: 1\nsource:\n  repo: {args.repo}\n  ref: HEAD\nskills: {{}}\n")
        jobs = {
            "in-repo skills": ["check", "--quiet", "--no-cache", "--format", "json", "--spec", str(spec),
                               "--repo", args.repo, "--ref", "HEAD", "--in-repo", "--all", "skills"],
        }  # fmt: skip
        if args.catalog:
            mirrors = [arg for m in args.mirror for arg in ("--mirror", m)]
            catalog = ["--catalog", args.catalog, *mirrors]
            jobs["catalog"] = ["check", "--quiet", "--no-cache", "--format", "json", *catalog]
        for name, command in jobs.items():
            now = _median(args.runs, command, ROOT / "src", work)
            before = _median(args.runs, command, baseline / "src", work)
            print(f"{name}: {now:.2f} s now, {before:.2f} s at {args.baseline_rev}")
            print(verdict(f"{name}, now / before", now / before, GOAL))
    return 0


def _median(runs: int, command: list[str], src: Path, work: Path) -> float:
    env = bench_env(PYTHONPATH=str(src), HOME=str(work), XDG_CONFIG_HOME=str(work / ".config"))
    cmd = [os.environ.get("PYTHON", "python3"), "-m", "anchor_audit", *command]
    measure(cmd, env, cwd=work)  # bytecode compiled before anything is timed
    return statistics.median(measure(cmd, env, cwd=work)[0] for _ in range(runs))


if __name__ == "__main__":
    raise SystemExit(main())
