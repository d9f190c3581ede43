"""Benchmark: the history of one skill over every commit, against a naive baseline.

    python benchmarks/history.py [--repo PATH] [--skill skills/nemo-mbridge-perf-tp-dp-comm-overlap]

With ``--repo`` (a local Megatron-Bridge clone or fetched copy, bare or not)
it follows the tp-dp comm-overlap skill from its first appearance to HEAD;
without, it builds a generated history of the same shape.  It prints, all
measured in this one run (medians of --runs end-to-end runs, ratios since
absolute times are noisy here):

* warm one-ref audit (``check --in-repo`` at HEAD, results cached on disk);
* cold history (empty cache) and warm history (the cache filled);
* the naive baseline: one ``git show`` per quoted file per commit in the
  range plus a fresh libcst parse, timed on a sample of commits and scaled
  to the whole range;
* the counts: commits in the range, commits that touch the files, distinct
  blobs parsed.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from importlib import metadata
from pathlib import Path

import libcst
from _common import ROOT, anchor_audit, generated_repo, git, median_of, timed

GOALS = {"warm history / warm one-ref": 2.0, "cold history / warm one-ref": 5.0}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repo", help="a local Megatron-Bridge repository (default: a generated one)")
    parser.add_argument("--skill", default=None, help="the skill folder inside the repository")
    parser.add_argument("--spec", default=None, help="the registry (default: the project's, or the demo's)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--naive-sample", type=int, default=40, help="commits the naive baseline is timed on")
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
    env = {**os.environ, "ANCHOR_AUDIT_CACHE": str(cache)}
    base = anchor_audit()
    hist = [*base, "history", "--quiet", "--spec", spec, "--repo", str(repo), "--in-repo", skill, "--format", "json"]
    one = [*base, "check", "--quiet", "--spec", spec, "--repo", str(repo), "--ref", "HEAD", "--in-repo", skill]

    def cold_history() -> float:
        subprocess.run([*base, "cache", "clean"], env=env, stdout=subprocess.DEVNULL, check=True)
        return timed(hist, env)

    cold = median_of(args.runs, cold_history)
    timed(hist, env)  # fill the cache
    warm = median_of(args.runs, lambda: timed(hist, env))
    timed(one, env)
    one_ref = median_of(args.runs, lambda: timed(one, env))

    out = subprocess.run(hist, env=env, capture_output=True, text=True, check=True).stdout
    info = json.loads(out)["range"]
    # The history command starts where the skill's card was validated (validated_on), or, without a date, at the
    # skill's first commit; the naive baseline walks the same commits.
    first = info["since"] or git(repo, "log", "--format=%H", "--diff-filter=A", "--first-parent", "--reverse", "HEAD",
                                 "--", f"{info['skill_paths'][0]}/SKILL.md").split()[0]  # fmt: skip
    mainline = git(repo, "rev-list", "--first-parent", "HEAD").split()  # newest first
    commits = mainline[: mainline.index(first) + 1] if first in mainline else mainline
    files = _files_of(repo, info, spec)
    touching = set(git(repo, "rev-list", "--first-parent", "HEAD", "--", *files).split()) & set(commits)
    blobs = {git(repo, "rev-parse", f"{c}:{f}").strip() for c in touching | {commits[-1]} for f in files
             if _exists(repo, c, f)}  # fmt: skip
    naive_per_commit = _naive(repo, commits, files, args.naive_sample)
    naive = naive_per_commit * len(commits)

    versions = f"Python {sys.version.split()[0]}, libcst {metadata.version('libcst')}, git {_git_version()}"
    print(f"machine: {os.cpu_count()} cores, {versions}")
    print(f"input: {kind}, skill {skill} (folders over time: {' -> '.join(info['skill_paths'])})")
    start = "the skill's validated_on commit" if info["since"] else "the skill's first commit"
    print(f"commits in range: {len(commits)} from {start} {first[:10]} to HEAD")
    print(f"commits that touch the skill or its files: {info['commits_touching']}")
    print(f"files the skill quotes or conditions: {len(files)}; distinct blobs of them in the range: {len(blobs)} "
          "(a cold history parses each once; the naive way parses a file per commit)")  # fmt: skip
    print(f"warm one-ref audit (check --in-repo at HEAD): {one_ref:.3f} s")
    print(f"history, cold cache: {cold:.3f} s")
    print(f"history, warm cache: {warm:.3f} s")
    print(f"naive baseline: {naive_per_commit * 1000:.1f} ms a commit x {len(commits)} commits = {naive:.1f} s "
          f"(timed on {min(args.naive_sample, len(commits))} commits)")  # fmt: skip
    ratios = {
        "warm history / warm one-ref": warm / one_ref,
        "cold history / warm one-ref": cold / one_ref,
        "naive / warm history": naive / warm,
        "naive / cold history": naive / cold,
    }
    for name, value in ratios.items():
        goal = GOALS.get(name)
        verdict = f"goal <= {goal}x: {'met' if value <= goal else 'NOT met'}" if goal else (
            f"goal >= 50x: {'met' if value >= 50 else 'NOT met'}")  # fmt: skip
        print(f"{name}: {value:.1f}x ({verdict})")
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


def _naive(repo: Path, commits: list[str], files: list[str], sample: int) -> float:
    """Seconds a commit costs done naively: git show each file, parse it afresh."""
    step = max(1, len(commits) // sample)
    chosen = commits[::step][:sample]
    start = time.perf_counter()
    for commit in chosen:
        for path in files:
            done = subprocess.run(["git", "show", f"{commit}:{path}"], cwd=repo, capture_output=True, text=True)
            if done.returncode == 0:
                module = libcst.parse_module(done.stdout)
                libcst.MetadataWrapper(module).resolve(libcst.metadata.PositionProvider)
    return (time.perf_counter() - start) / len(chosen)


if __name__ == "__main__":
    raise SystemExit(main())
