"""Benchmark: ``matrix`` over every release tag, against one check at one ref and a history over the same range.

    python benchmarks/matrix.py [--repo PATH] [--skill DIR] [--all-in-repo skills] [--pre]

With ``--repo`` (a local Megatron-Bridge clone or fetched copy, only read) the skill is ``--skill`` (a folder
on disk, such as the published tp-dp skill) or, without it, the repository's own
``skills/nemo-mbridge-perf-tp-dp-comm-overlap`` read at each release; without ``--repo`` a generated
repository of the same shape gets a release tag every 25 commits.  All measured in this one run, end to end
(medians of --runs; cold runs start from an empty cache each):

* matrix warm / one warm ``check`` at the newest release tag (goal <= 3x);
* matrix cold / a cold ``history`` from the first release tag to the newest (goal <= 2x);
* with ``--all-in-repo ROOT``: matrix over every in-repo skill, warm / one warm ``check --all ROOT --in-repo``
  at the newest tag (goal <= 3x).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from _common import ROOT, anchor_audit, bench_env, generated_repo, git, median_of, timed, verdict

GOAL_WARM, GOAL_COLD, GOAL_ALL = 3.0, 2.0, 3.0
TP_DP = "skills/nemo-mbridge-perf-tp-dp-comm-overlap"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repo", help="a local Megatron-Bridge repository (default: a generated one)")
    parser.add_argument("--skill", help="a skill folder on disk (default: the repository's own, read at each tag)")
    parser.add_argument("--spec", default=None, help="the registry (default: the project's, or the demo's)")
    parser.add_argument("--all-in-repo", metavar="ROOT", help="also every skill under ROOT in the repository")
    parser.add_argument("--pre", action="store_true", help="pre-release tags too (Megatron-Bridge: 24 tags)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--cold-runs", type=int, default=3)
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="anchor-audit-bench-"))
    if args.repo:
        repo, spec, kind = Path(args.repo), args.spec or str(ROOT / "anchors.yaml"), f"real repository {args.repo}"
    else:
        repo, spec = generated_repo(work), args.spec or str(ROOT / "fixtures" / "demo" / "anchors.yaml")
        for n, commit in enumerate(git(repo, "rev-list", "--reverse", "HEAD").split()[::25]):
            git(repo, "tag", f"v0.{n}.0", commit)
        kind = "generated repository (600 commits, a release tag every 25)"
    skill = [args.skill] if args.skill else ["--in-repo", TP_DP if args.repo else "skills/demo-overlap"]
    cache = work / "cache"
    env = bench_env(ANCHOR_AUDIT_CACHE=str(cache))
    base = anchor_audit()
    common = ["--quiet", "--spec", spec, "--repo", str(repo)]
    pre = ["--pre"] if args.pre else []
    matrix = [*base, "matrix", *common, *skill, *pre, "--format", "json"]
    out = json.loads(subprocess.run(matrix, env=env, capture_output=True, text=True, check=True).stdout)
    tags = [r["tag"] for r in out["releases"]]
    one = [*base, "check", *common, "--ref", tags[-1], *skill]
    # Release branches: the earliest tag that is an ancestor of the newest is where a history can start.
    since = next(t for t in tags if _is_ancestor(repo, t, tags[-1]))
    hist = [*base, "history", *common, *skill, "--since", since, "--until", tags[-1], "--format", "json"]

    def cold(cmd: list[str]) -> float:
        shutil.rmtree(cache, ignore_errors=True)
        return timed(cmd, env)

    timed([sys.executable, "-c", "import anchor_audit.cli"], env)  # bytecode cached before anything is timed
    matrix_cold = median_of(args.cold_runs, lambda: cold(matrix))
    history_cold = median_of(args.cold_runs, lambda: cold(hist))
    timed(matrix, env)
    timed(one, env)
    matrix_warm = median_of(args.runs, lambda: timed(matrix, env))
    one_warm = median_of(args.runs, lambda: timed(one, env))

    print(f"machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}")
    print(f"input: {kind}; skill {' '.join(skill)}; {len(tags)} release tags, {tags[0]} .. {tags[-1]}")
    print(f"one check at {tags[-1]}, warm: {one_warm:.3f} s; matrix warm: {matrix_warm:.3f} s")
    print(f"history {since}..{tags[-1]}, cold: {history_cold:.3f} s; matrix cold: {matrix_cold:.3f} s")
    print(verdict("matrix warm / one warm check", matrix_warm / one_warm, GOAL_WARM))
    print(verdict("matrix cold / cold history", matrix_cold / history_cold, GOAL_COLD))
    if args.all_in_repo:
        every = ["--all", args.all_in_repo, "--in-repo"]
        matrix_all = [*base, "matrix", *common, *every, *pre, "--format", "json"]
        check_all = [*base, "check", *common, "--ref", tags[-1], *every]
        timed(matrix_all, env)
        timed(check_all, env)
        all_warm = median_of(args.runs, lambda: timed(matrix_all, env))
        check_warm = median_of(args.runs, lambda: timed(check_all, env))
        skills = len(json.loads(subprocess.run([*check_all, "--format", "json"], env=env, capture_output=True,
                                               text=True).stdout)["skills"])  # fmt: skip
        print(f"every in-repo skill under {args.all_in_repo} ({skills} at {tags[-1]}): one check warm "
              f"{check_warm:.3f} s; matrix warm {all_warm:.3f} s")
        print(verdict("matrix of every in-repo skill warm / one warm check of them", all_warm / check_warm, GOAL_ALL))
    shutil.rmtree(work, ignore_errors=True)
    return 0


def _is_ancestor(repo: Path, old: str, new: str) -> bool:
    return subprocess.run(["git", "merge-base", "--is-ancestor", old, new], cwd=repo).returncode == 0


if __name__ == "__main__":
    raise SystemExit(main())
