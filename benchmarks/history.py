"""Benchmark: the history of one skill over every commit, against a one-ref audit and an honest naive script.

    python benchmarks/history.py [--repo PATH] [--skill skills/nemo-mbridge-perf-tp-dp-comm-overlap]

With ``--repo`` (a local Megatron-Bridge clone or fetched copy, bare or not;
only read) it follows the tp-dp comm-overlap skill from the commit its card
was validated on to HEAD; without, it builds a generated history of the same
shape.  It prints, all measured in this one run, end to end (medians of
--runs; cold runs start from an empty cache each):

* warm one-ref audit (``check --in-repo`` at HEAD, results cached);
* warm and cold history;
* the naive baseline, ``naive_history.py``: path-limited ``git rev-list``,
  one ``git cat-file --batch`` of the files at every commit touching them,
  ``ast.parse`` of each; it matches nothing, and runs in full;
* the counts: commits in the range, commits that touch the files, distinct
  blobs parsed.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from importlib import metadata
from pathlib import Path

from _common import ROOT, anchor_audit, bench_env, generated_repo, git, median_of, timed, verdict

GOAL_ONE_REF = 1.2  # warm history / warm one-ref audit
GOAL_NAIVE = 2.0  # warm history / the naive script
NAIVE = Path(__file__).resolve().parent / "naive_history.py"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repo", help="a local Megatron-Bridge repository (default: a generated one)")
    parser.add_argument("--skill", default=None, help="the skill folder inside the repository")
    parser.add_argument("--spec", default=None, help="the registry (default: the project's, or the demo's)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--cold-runs", type=int, default=3)
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="anchor-audit-bench-"))
    if args.repo:
        repo, skill = Path(args.repo), args.skill or "skills/nemo-mbridge-perf-tp-dp-comm-overlap"
        spec = args.spec or str(ROOT / "anchors.yaml")
        kind = f"real repository {repo}"
    else:
        repo, skill = generated_repo(work), args.skill or "skills/demo-overlap"
        spec = args.spec or str(ROOT / "fixtures" / "demo" / "anchors.yaml")
        kind = "generated repository (600 commits, 1 in 50 moves the quoted code, the skill renamed once)"
    cache = work / "cache"
    env = bench_env(ANCHOR_AUDIT_CACHE=str(cache))
    base = anchor_audit()
    hist = [*base, "history", "--quiet", "--spec", spec, "--repo", str(repo), "--in-repo", skill, "--format", "json"]
    one = [*base, "check", "--quiet", "--spec", spec, "--repo", str(repo), "--ref", "HEAD", "--in-repo", skill]

    def cold_history() -> float:
        shutil.rmtree(cache, ignore_errors=True)
        return timed(hist, env)

    timed([sys.executable, "-c", "import anchor_audit.cli"], env)  # bytecode cached before anything is timed
    cold = median_of(args.cold_runs, cold_history)
    timed(hist, env)
    warm = median_of(args.runs, lambda: timed(hist, env))
    timed(one, env)
    one_ref = median_of(args.runs, lambda: timed(one, env))

    out = subprocess.run(hist, env=env, capture_output=True, text=True, check=True).stdout
    info = json.loads(out)["range"]
    # history starts where the skill's card was validated (validated_on), or, without a date, at the skill's
    # first commit; the naive script walks the same range.
    first = info["since"] or git(repo, "log", "--format=%H", "--diff-filter=A", "--first-parent", "--reverse", "HEAD",
                                 "--", f"{info['skill_paths'][0]}/SKILL.md").split()[0]  # fmt: skip
    files = _files_of(repo, info, spec)
    touching = git(repo, "rev-list", "--first-parent", f"{first}..HEAD", "--", *files).split()
    blobs = {git(repo, "rev-parse", f"{c}:{f}").strip() for c in [*touching, first] for f in files
             if _exists(repo, c, f)}  # fmt: skip
    gitdir = git(repo, "rev-parse", "--path-format=absolute", "--git-dir").strip()
    naive_cmd = [sys.executable, str(NAIVE), gitdir, first, "HEAD", *files]
    said = subprocess.run(naive_cmd, env=env, capture_output=True, text=True, check=True).stdout.strip()
    naive = median_of(args.runs, lambda: timed(naive_cmd, env))

    versions = f"Python {sys.version.split()[0]}, libcst {metadata.version('libcst')}, git {_git_version()}"
    print(f"machine: {os.cpu_count()} cores, {versions}")
    print(f"input: {kind}, skill {skill} (folders over time: {' -> '.join(info['skill_paths'])})")
    start = "the skill's validated_on commit" if info["since"] else "the skill's first commit"
    print(f"commits in range: {info['commits_in_range']} from {start} {first[:10]} to HEAD")
    print(f"commits that touch the skill or its files: {info['commits_touching']}")
    print(f"files the skill quotes or conditions: {len(files)}; distinct blobs of them in the range: {len(blobs)}")
    print(f"warm one-ref audit (check --in-repo at HEAD): {one_ref:.3f} s")
    print(f"history, warm cache: {warm:.3f} s; cold cache: {cold:.3f} s (median of {args.cold_runs})")
    print(f"naive script, in full: {naive:.3f} s ({said})")
    print(verdict("warm history / warm one-ref", warm / one_ref, GOAL_ONE_REF))
    print(verdict("warm history / naive", warm / naive, GOAL_NAIVE))
    print(f"cold history / warm one-ref: {cold / one_ref:.2f}x; cold history / naive: {cold / naive:.2f}x (no goal)")
    shutil.rmtree(work, ignore_errors=True)
    return 0


def _files_of(repo: Path, info: dict, spec: str) -> list[str]:
    sys.path.insert(0, str(ROOT / "src"))
    from anchor_audit.spec.registry import load_spec
    from anchor_audit.spec.skill import parse_skill_md

    folder = info["skill_paths"][-1]
    quotes = parse_skill_md(git(repo, "show", f"HEAD:{folder}/SKILL.md"))
    paths = {q.path for q in quotes}
    for skill in load_spec(Path(spec)).skills:
        paths |= {c.path for claim in skill.claims for c in claim.conditions}
    return sorted(p for p in paths if p.endswith(".py"))


def _git_version() -> str:
    return subprocess.run(["git", "--version"], capture_output=True, text=True).stdout.split()[-1]


def _exists(repo: Path, commit: str, path: str) -> bool:
    return subprocess.run(["git", "cat-file", "-e", f"{commit}:{path}"], cwd=repo, capture_output=True).returncode == 0


if __name__ == "__main__":
    raise SystemExit(main())
