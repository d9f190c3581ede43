"""``init`` and ``cache``: drafting registry entries, managing the cache."""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

from ..errors import UsageError
from ..model import ExitCode


def cmd_init(args: argparse.Namespace) -> ExitCode:
    """``anchor-audit init SKILL_DIR``: a registry entry for a maintainer to complete."""
    from ..spec.skill import load_skill

    skill = load_skill(Path(args.skill_dir), shown_as=args.skill_dir)
    out = ["skills:", f"  {skill.name}:", f"    path: {args.skill_dir}", "    claims:"]
    for claim in skill.card.claims if skill.card else ():
        out.append(f"      {claim.id}:  # card.yaml: {', '.join(claim.tags)}")
        out += ["        quotes: []", "        conditions: []"]
    if not skill.card or not skill.card.claims:
        out.append("      {}  # card.yaml lists no claims")
    out.append("# The quotes of SKILL.md, to list under the claims they back:")
    out += [f"#   - {q.key}  # SKILL.md:{q.skill_line}" for q in skill.quotes]
    out.append("# Conditions: see the README, 'anchors.yaml'.")
    print("\n".join(out))
    return ExitCode.OK


def cmd_cache(args: argparse.Namespace) -> ExitCode:
    """``anchor-audit cache dir|clean``."""
    from ..source.cache import cache_root

    root = cache_root(args.cache_dir)
    if args.action == "dir":
        print(root)
    elif root.exists():
        if not (root / "results.sqlite3").exists() and not (root / "git").exists() and not (root / "wheels").exists():
            raise UsageError(f"{root}: does not look like an anchor-audit cache; not removed")
        shutil.rmtree(root)
        print(f"removed {root}")
    else:
        print(f"{root} is already empty")
    return ExitCode.OK
