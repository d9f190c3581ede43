"""Benchmark: many distinct real skills against one, warm and cold, with peak memory.

    python benchmarks/catalog.py --repo PATH [--catalog NVIDIA_SKILLS] [--runs 5] [--cold-runs 3]

``--repo``: a local Megatron-Bridge repository or fetched copy (only read).

* Its in-repo skills at HEAD (``check --all skills --in-repo``), every one a
  different real skill, against the tp-dp skill alone, warm.
* With ``--catalog`` (a clone of the public NVIDIA skills catalog): ``check
  --catalog`` against the catalog's own tp-dp skill alone, warm and cold.
  Megatron-Bridge is served from a copy of ``--repo`` as its GitHub URL (a
  ``url.insteadOf`` in a temporary HOME), so a cold run really fetches it, lean;
  components whose repositories are out of reach here are skipped, as any
  run without them would.

Medians of --runs (--cold-runs from an empty cache each); peak memory is the
largest resident size of the run or any process it waited for.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import tempfile
from pathlib import Path

from _common import ROOT, anchor_audit, bench_env, git, measure, served_copy, verdict

GOAL_IN_REPO = 3.0  # in-repo skills / one skill, warm
GOAL_CATALOG_WARM = 5.0  # catalog / one skill, warm
GOAL_CATALOG_COLD = 10.0  # catalog / one skill, cold
GOAL_MEMORY_MB = 150.0
TP_DP = "nemo-mbridge-perf-tp-dp-comm-overlap"
MB_URL = "https://github.com/NVIDIA-NeMo/Megatron-Bridge"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repo", required=True, help="a local Megatron-Bridge repository or fetched copy")
    parser.add_argument("--catalog", help="a clone of the NVIDIA skills catalog (github.com/NVIDIA/skills)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--cold-runs", type=int, default=3)
    args = parser.parse_args()
    repo = Path(args.repo)
    work = Path(tempfile.mkdtemp(prefix="anchor-audit-bench-"))
    spec = str(ROOT / "anchors.yaml")
    cache = work / "cache"
    home = work / "home"
    home.mkdir()
    served = served_copy(repo, work)
    (home / ".gitconfig").write_text(f'[url "file://{served}"]\n\tinsteadOf = {MB_URL}\n')
    env = bench_env(ANCHOR_AUDIT_CACHE=str(cache), HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"))
    check = [*anchor_audit(), "check", "--quiet", "--spec", spec]
    measure([*anchor_audit()[:1], "-c", "import anchor_audit.cli"], env)  # bytecode cached before anything is timed

    # 1. The repository's own skills at HEAD, each a different skill.
    skills = [p for p in git(repo, "ls-tree", "-r", "--name-only", "HEAD", "--", "skills/").split()
              if p.endswith("/SKILL.md")]  # fmt: skip
    every = [*check, "--repo", str(repo), "--ref", "HEAD", "--all", "skills", "--in-repo"]
    one = [*check, "--repo", str(repo), "--ref", "HEAD", "--in-repo", f"skills/{TP_DP}"]
    many_warm, many_mem = _warm(every, env, args.runs)
    one_warm, one_mem = _warm(one, env, args.runs)
    print(f"in-repo: {len(skills)} skills under skills/ at HEAD of {repo}, against {TP_DP} alone")
    print(f"  warm: {many_warm:.3f} s ({many_mem:.0f} MB) against {one_warm:.3f} s ({one_mem:.0f} MB)")
    print("  " + verdict("in-repo skills / one skill, warm", many_warm / one_warm, GOAL_IN_REPO))

    # 2. The NVIDIA catalog, each skill against its own component's repository.
    if args.catalog:
        catalog = Path(args.catalog)
        whole = [*check, "--catalog", str(catalog), "--format", "json", "--output", str(work / "catalog.json")]
        alone = [*check, "--repo", MB_URL, "--ref", "main", str(catalog / "skills" / TP_DP)]
        cold_whole, cold_whole_mem = _cold(whole, env, cache, args.cold_runs)
        cold_one, _ = _cold(alone, env, cache, args.cold_runs)
        warm_whole, warm_whole_mem = _warm(whole, env, args.runs)
        warm_one, _ = _warm(alone, env, args.runs)
        report = json.loads((work / "catalog.json").read_text())
        audited = [s for s in report["skills"] if s.get("source")]
        quoting = [s for s in audited if s["anchors"]]
        components = len(list((catalog / "components.d").glob("*.yml")))
        reachable = len({s["source"]["repo"] for s in audited})
        print(f"catalog {catalog}: {components} components, {len(report['skills'])} skills; "
              f"{len(audited)} audited ({len(quoting)} with quotes), from the {reachable} repositories reachable here")
        print(f"  warm: {warm_whole:.3f} s against {warm_one:.3f} s for {TP_DP} alone")
        print(f"  cold: {cold_whole:.3f} s against {cold_one:.3f} s (a lean fetch of Megatron-Bridge in each)")
        print("  " + verdict("catalog / one skill, warm", warm_whole / warm_one, GOAL_CATALOG_WARM))
        print("  " + verdict("catalog / one skill, cold", cold_whole / cold_one, GOAL_CATALOG_COLD))
        print(f"  catalog cold / one skill warm: {cold_whole / warm_one:.2f}x (no goal)")
        print("  " + verdict("peak memory of a catalog run, MB", max(cold_whole_mem, warm_whole_mem), GOAL_MEMORY_MB,
                             unit=" MB"))  # fmt: skip
    shutil.rmtree(work, ignore_errors=True)
    return 0


def _warm(cmd: list[str], env: dict[str, str], runs: int) -> tuple[float, float]:
    """(median seconds, peak MB) of ``cmd`` with its results cached (one run first fills the cache)."""
    measure(cmd, env)
    runs_seen = [measure(cmd, env) for _ in range(runs)]
    return statistics.median(s for s, _ in runs_seen), max(kb for _, kb in runs_seen) / 1024


def _cold(cmd: list[str], env: dict[str, str], cache: Path, runs: int) -> tuple[float, float]:
    """(median seconds, peak MB) of ``cmd`` from an empty cache each run: fetches and results alike."""
    seen = []
    for _ in range(runs):
        shutil.rmtree(cache, ignore_errors=True)
        seen.append(measure(cmd, env))
    return statistics.median(s for s, _ in seen), max(kb for _, kb in seen) / 1024


if __name__ == "__main__":
    raise SystemExit(main())
