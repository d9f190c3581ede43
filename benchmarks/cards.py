"""A card skill's audit costs at most 1.5x what it cost before claims were judged by their facts: each card copy
of the skills catalog checked alone, cold, by this checkout and by a baseline, in one run.

    python benchmarks/cards.py --repo MEGATRON_BRIDGE --submodule 3rdparty/Megatron-LM=MEGATRON_LM \
        --catalog SKILLS_CATALOG [--baseline-rev 1c98e29] [--runs 3]

A card copy is a skill of the catalog with a card.yaml beside its SKILL.md (Megatron-Bridge's). Each is checked
alone at ``--repo``'s HEAD with its submodules (``check SKILL --repo ... --ref HEAD --submodule ...``), with an
empty cache, from each side's source tree in turn (``PYTHONPATH``), ``--runs`` times; a card's figure is the median
of its runs. The baseline is the commit before a claim's verdict rested on the facts of its quotes at the card's
validation day, and before a card's constraint sentences were decided by gates (``1c98e29``): it does none of that
work. Each card's ratio is printed, and the largest is held to :data:`GOAL`.
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path

from _common import ROOT, checked_out_beside, run_from, verdict

GOAL = 1.5
BASELINE = "1c98e29"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--repo", required=True, help="a local Megatron-Bridge repository or fetched copy")
    parser.add_argument("--submodule", action="append", default=[], help="PATH=GITDIR, as for check")
    parser.add_argument("--catalog", required=True, help="a clone of the NVIDIA skills catalog (only read)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--baseline-rev", default=BASELINE)
    args = parser.parse_args()
    cards = sorted(p.parent for p in Path(args.catalog).glob("skills/*/card.yaml"))
    if not cards:
        raise SystemExit(f"{args.catalog}: no skills/*/card.yaml")
    submodules = [arg for s in args.submodule for arg in ("--submodule", s)]
    ratios = []
    with checked_out_beside(args.baseline_rev) as (work, baseline):
        for card in cards:
            command = ["check", str(card), "--quiet", "--repo", args.repo, "--ref", "HEAD", *submodules,
                       "--format", "json"]  # fmt: skip
            seconds: dict[Path, list[float]] = {ROOT: [], baseline: []}
            for _ in range(args.runs):
                for tree in seconds:
                    seconds[tree].append(run_from(tree, command, work))
            mine, theirs = statistics.median(seconds[ROOT]), statistics.median(seconds[baseline])
            ratios.append(mine / theirs)
            print(f"{card.name}: {mine:.2f} s now, {theirs:.2f} s at {args.baseline_rev}: {mine / theirs:.2f}x")
    print(f"card skills, the median of {len(ratios)}: {statistics.median(ratios):.2f}x")
    print(verdict(f"a card skill's audit, now / {args.baseline_rev}, the largest of {len(ratios)}", max(ratios), GOAL))
    return 0




if __name__ == "__main__":
    raise SystemExit(main())
