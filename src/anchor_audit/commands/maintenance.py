"""``init`` and ``cache``: drafting registry entries, managing the cache."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..model import ExitCode


def cmd_init(args: argparse.Namespace) -> ExitCode:
    """``anchor-audit init SKILL_DIR``: a registry entry for a maintainer to complete.

    Names from the skill (its folder, claim ids, quote paths) are untrusted:
    every key and value goes through the YAML serializer, and comments are
    flattened to one line, so no input can add keys to the draft.
    """
    from ..escape import printable  # a comment must stay one line
    from ..fix.text import yaml_key
    from ..spec.skill import load_skill

    skill = load_skill(Path(args.skill_dir), shown_as=args.skill_dir)
    out = ["skills:", f"  {yaml_key(skill.name)}:", f"    path: {yaml_key(args.skill_dir)}", "    claims:"]
    for claim in skill.card.claims if skill.card else ():
        out.append(f"      {yaml_key(claim.id)}:  # card.yaml: {printable(', '.join(claim.tags))}")
        out += ["        quotes: []", "        conditions: []"]
    if not skill.card or not skill.card.claims:
        out.append("      {}  # card.yaml lists no claims")
    out.append("# The quotes of SKILL.md, to list under the claims they back:")
    out += [f"#   - {printable(q.key)}  # SKILL.md:{q.skill_line}" for q in skill.quotes]
    out.append("# Conditions: see the README, 'anchors.yaml'.")
    print("\n".join(out))
    return ExitCode.OK


def cmd_cache(args: argparse.Namespace) -> ExitCode:
    """``anchor-audit cache dir|clean``."""
    from ..source.cache import cache_root, clean_cache

    root = cache_root(args.cache_dir)
    if args.action == "dir":
        print(root)
    elif root.exists() or root.is_symlink():
        clean_cache(root)
        if root.exists():
            print(f"removed anchor-audit's entries from {root}; the other files in it were left")
        else:
            print(f"removed {root}")
    else:
        print(f"{root} is already empty")
    return ExitCode.OK
