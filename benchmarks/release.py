"""The work grows, the cost does not: this checkout against a release, on the real data, in one run.

    python benchmarks/release.py --repo MEGATRON_BRIDGE --submodule 3rdparty/Megatron-LM=MEGATRON_LM \
        --catalog SKILLS_CATALOG [--mirror OWNER/NAME=GITDIR ...] [--baseline-rev 9ab2ba1] [--runs 3]

``--repo``: a local Megatron-Bridge repository or fetched copy (only read), given to the catalog run as its
component's mirror; ``--submodule``: its Megatron-LM, for the catalog run; ``--catalog``: a clone of the NVIDIA
skills catalog (copied, never changed); ``--mirror``: the other components at hand.  The release is checked out
in a temporary worktree and each side runs from its own source tree (``PYTHONPATH``) with the same
environment, a run of one side then one of the other, ``--runs`` times; the figures are the medians:

* the catalog, cold (an empty cache), ``--jobs 2``;
* the same catalog after one skill's SKILL.md is edited, cache warm: each side's own copy of the catalog, whose
  ``--edited`` skill gets a new line before each run (after one run that warms the cache);
* Megatron-Bridge's in-repo skills, cold, ``--jobs 1``;
* the tp-dp skill's history from the repository's root, cold, then warm.

Each ratio (this checkout / the release) is held to :data:`GOAL`.
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path
from typing import Callable

from _common import ROOT, checked_out_beside, git, run_from, verdict

GOAL = 1.3
BASELINE = "9ab2ba1"
EDITED = "nemo-mbridge-perf-tp-dp-comm-overlap"
HISTORY = "skills/nemo-mbridge-perf-tp-dp-comm-overlap"


class Side:
    """One of the two trees measured: its source, registry, catalog copy and warm cache."""

    def __init__(self, name: str, tree: Path, work: Path, catalog: str | None) -> None:
        self.name, self.tree, self.work = name, tree, work / name
        self.work.mkdir()
        self.catalog = self.work / "catalog"
        if catalog:
            git(self.work, "clone", "-q", catalog, str(self.catalog))
        self.warm = self.work / "warm"
        self.edits = 0

    def run(self, command: list[str], cache: Path | None = None) -> float:
        """Seconds of one run of ``anchor-audit COMMAND`` from this side's tree; a new empty cache unless given."""
        return run_from(self.tree, command, self.work, cache)

    def edit(self, skill: str) -> None:
        """A new line at the end of the catalog copy's SKILL.md of ``skill``."""
        self.edits += 1
        with open(self.catalog / "skills" / skill / "SKILL.md", "a", encoding="utf-8") as handle:
            handle.write(f"\nAn edited line, {self.edits}.\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--repo", required=True, help="a local Megatron-Bridge repository or fetched copy")
    parser.add_argument("--submodule", action="append", default=[], help="PATH=GITDIR, as for check")
    parser.add_argument("--catalog", help="a clone of the NVIDIA skills catalog")
    parser.add_argument("--mirror", action="append", default=[], help="OWNER/NAME=GITDIR, as for check --catalog")
    parser.add_argument("--edited", default=EDITED, help="the catalog skill whose SKILL.md is edited")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--baseline-rev", default=BASELINE)
    args = parser.parse_args()
    with checked_out_beside(args.baseline_rev) as (work, baseline):
        now, before = Side("now", ROOT, work, args.catalog), Side("before", baseline, work, args.catalog)
        for name, jobs in _jobs(args, now, before).items():
            seconds = {side.name: [] for side in (now, before)}  # type: dict[str, list[float]]
            for _ in range(args.runs):
                for side in (now, before):
                    seconds[side.name].append(jobs(side))
            mine, theirs = (statistics.median(seconds[s]) for s in ("now", "before"))
            print(f"{name}: {mine:.2f} s now, {theirs:.2f} s at {args.baseline_rev}")
            print(verdict(f"{name}, now / {args.baseline_rev}", mine / theirs, GOAL))
    return 0


def _jobs(args: argparse.Namespace, now: Side, before: Side) -> dict[str, Callable[[Side], float]]:
    """Each measurement, as one run of a side."""
    submodules = [arg for s in args.submodule for arg in ("--submodule", s)]
    out: dict[str, Callable[[Side], float]] = {}
    if args.catalog:
        mirrors = ["--mirror", f"NVIDIA-NeMo/Megatron-Bridge={args.repo}", *submodules,
                   *(arg for m in args.mirror for arg in ("--mirror", m))]  # fmt: skip

        def catalog(side: Side) -> list[str]:
            return ["check", "--quiet", "--catalog", str(side.catalog), "--format", "json", "--jobs", "2", *mirrors]

        for side in (now, before):
            side.run(catalog(side), side.warm)  # the warm cache the edited runs start from

        def edited(side: Side) -> float:
            side.edit(args.edited)
            return side.run(catalog(side), side.warm)

        out["catalog, cold"] = lambda side: side.run(catalog(side))
        out["catalog after one skill is edited, warm"] = edited

    def spec(side: Side) -> list[str]:
        return ["--spec", str(side.tree / "anchors.yaml"), "--repo", args.repo]

    out["in-repo skills, cold"] = lambda side: side.run(
        ["check", "--quiet", *spec(side), "--ref", "HEAD", "--all", "skills", "--in-repo", "--format", "json",
         "--jobs", "1"])  # fmt: skip

    def history(side: Side, cache: Path | None = None) -> float:
        return side.run(["history", "--quiet", *spec(side), "--in-repo", HISTORY, "--format", "json"], cache)

    out["history, cold"] = history
    for side in (now, before):
        history(side, side.work / "history-cache")  # warmed once
    out["history, warm"] = lambda side: history(side, side.work / "history-cache")
    return out


if __name__ == "__main__":
    raise SystemExit(main())
