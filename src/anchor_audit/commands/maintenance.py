"""``init`` and ``cache``: drafting registry entries, managing the cache."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TextIO

from ..model import ExitCode


def init(skill_dir: str, out: TextIO | None = None) -> ExitCode:
    """A starter anchors.yaml entry for the skill in ``skill_dir``, for a maintainer to complete.

    Names from the skill (its folder, claim ids, quote paths) are untrusted:
    every key and value goes through the YAML serializer, and comments are
    escaped to one line, so no input can add keys to the draft.
    """
    from ..escape import printable
    from ..fix.text import yaml_key
    from ..spec.skill import load_skill

    skill = load_skill(Path(skill_dir), shown_as=skill_dir)
    lines = ["skills:", f"  {yaml_key(skill.name)}:", f"    path: {yaml_key(skill_dir)}", "    claims:"]
    for claim in skill.card.claims if skill.card else ():
        lines.append(f"      {yaml_key(claim.id)}:  # card.yaml: {printable(', '.join(claim.tags), keep='')}")
        lines += ["        quotes: []", "        conditions: []"]
    if not skill.card or not skill.card.claims:
        lines.append("      {}  # card.yaml lists no claims")
    lines.append("# The quotes of SKILL.md, to list under the claims they back:")
    lines += [f"#   - {printable(q.key, keep='')}  # SKILL.md:{q.skill_line}" for q in skill.quotes]
    lines.append("# Conditions: see docs/anchors-yaml.md.")
    (out or sys.stdout).write("\n".join(lines) + "\n")
    return ExitCode.OK


def cache(action: str, cache_dir: str | None = None, out: TextIO | None = None) -> ExitCode:
    """``dir``: print the cache directory; ``clean``: remove anchor-audit's entries from it."""
    from ..source.cache import cache_root, clean_cache

    out = out or sys.stdout
    root = cache_root(cache_dir)
    if action == "dir":
        out.write(f"{root}\n")
    elif root.exists() or root.is_symlink():
        clean_cache(root)
        if root.exists():
            out.write(f"removed anchor-audit's entries from {root}; the other files in it were left\n")
        else:
            out.write(f"removed {root}\n")
    else:
        out.write(f"{root} is already empty\n")
    return ExitCode.OK
