"""Who can heal a skill at its source: the CODEOWNERS rule for its folder, else who last changed the folder.

GitHub reads the first of ``.github/CODEOWNERS``, ``CODEOWNERS`` and ``docs/CODEOWNERS`` at the ref; its
patterns are gitignore's, less negation and character ranges, and the **last** matching line wins (a line
with a pattern and no owners leaves the path unowned).  The skill's folder is owned as its ``SKILL.md`` is.
Without a rule, the people who most recently committed to the folder are asked, by the names git records.
E-mail addresses are never shown: an owner written as one is left out, and a commit's author is named,
not mailed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from ..model import Owners
from ..source import SourceTree

CODEOWNERS_FILES = (".github/CODEOWNERS", "CODEOWNERS", "docs/CODEOWNERS")
MAX_RULES = 10_000  # lines of a CODEOWNERS file read (GitHub refuses files over 3 MB)
RECENT_AUTHORS = 3  # people named when no rule owns the folder
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
# An automation's name, not a person's: ``pre-commit-ci[bot]``, ``github-actions``, ``Catalog Sync Bot``.
_BOT = re.compile(r"\[bot\]$|(?:^|[\s_-])bot$|^(?:github-actions|dependabot|renovate|mergify|copybara)\b", re.I)


@dataclass(frozen=True)
class Rule:
    pattern: str
    owners: tuple[str, ...]
    line: int


def parse_codeowners(text: str) -> list[Rule]:
    """The rules of a CODEOWNERS file, in file order (comments, blank lines and e-mail owners left out)."""
    rules = []
    for number, raw in enumerate(text.split("\n")[:MAX_RULES], start=1):
        line = re.sub(r"(?<!\\)#.*$", "", raw).strip()
        if not line:
            continue
        pattern, *owners = line.split()
        kept = tuple(o for o in owners if o.startswith("@") and not _EMAIL.match(o))
        rules.append(Rule(pattern.replace("\\#", "#"), kept, number))
    return rules


@lru_cache(maxsize=32)
def _rules(text: str) -> list[Rule]:
    """A repository's CODEOWNERS parsed once for all its skills (a catalog component has dozens)."""
    return parse_codeowners(text)


def owning_rule(rules: list[Rule], path: str) -> Rule | None:
    """The rule that owns ``path`` (the last that matches), or None when no line matches it."""
    for rule in reversed(rules):
        if _compiled(rule.pattern).match(path):
            return rule
    return None


@lru_cache(maxsize=4096)
def _compiled(pattern: str) -> re.Pattern[str]:
    """A CODEOWNERS pattern as a regular expression over repository paths."""
    anchored = pattern.startswith("/") or "/" in pattern.rstrip("/")
    body = pattern.strip("/")
    out, i = "", 0
    while i < len(body):
        if body.startswith("**/", i):
            out, i = out + "(?:.*/)?", i + 3
        elif body.startswith("**", i):
            out, i = out + ".*", i + 2
        elif body[i] == "*":
            out, i = out + "[^/]*", i + 1
        elif body[i] == "?":
            out, i = out + "[^/]", i + 1
        else:
            out, i = out + re.escape(body[i]), i + 1
    # `docs/*` owns the files right in docs/, not deeper ones; any other pattern owns what lies under it too.
    under = "" if pattern.endswith("/*") else "(?:/.*)?"
    return re.compile(("^" if anchored else "^(?:.*/)?") + out + under + "$")


def owners_of(folder: str, tree: SourceTree) -> Owners | None:
    """Who to ask about the skill in ``folder`` of ``tree``: its CODEOWNERS rule, else its recent committers."""
    for name in CODEOWNERS_FILES:
        source = tree.read(name)
        if source is None:
            continue
        rule = owning_rule(_rules(source.text), f"{folder.strip('/')}/SKILL.md")
        if rule is not None and rule.owners:
            return Owners(rule.owners, f"{name}:{rule.line}")
        break  # GitHub reads the first file it finds; an unowned path there is unowned
    recent = tree.authors(folder.strip("/"), 4 * RECENT_AUTHORS)  # room for the bots among them
    authors = [a for a in recent if not _EMAIL.match(a) and not _BOT.search(a)][:RECENT_AUTHORS]
    return Owners(tuple(authors), f"recent commits to {folder.strip('/')}") if authors else None
