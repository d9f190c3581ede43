"""``anchor-audit explain [CODE]``: what a finding code means, why it matters and what to do (like ``ruff rule``)."""

from __future__ import annotations

import sys
import textwrap
from typing import TextIO

from ..errors import UsageError
from ..findings.rules import RULES, Rule
from ..model import ExitCode

WIDTH = 100


def explain(code: str | None, out: TextIO | None = None) -> ExitCode:
    """One rule in full (by its code, ``AA406``, or its name, ``path-missing``), or every rule in one line each."""
    out = out or sys.stdout
    if code is None:
        for rule in RULES.values():
            out.write(f"{rule.code}  {rule.name:<22} {rule.level:<8} {rule.summary}\n")
        out.write(f"{len(RULES)} rules; anchor-audit explain CODE tells one in full\n")
        return ExitCode.OK
    out.write(describe(find_rule(code)))
    return ExitCode.OK


def find_rule(code: str) -> Rule:
    wanted = code.strip()
    for rule in RULES.values():
        if wanted.upper() == rule.code or wanted.lower() == rule.name:
            return rule
    raise UsageError(f"explain: no rule {wanted!r} (anchor-audit explain lists them)")


def describe(rule: Rule) -> str:
    """The rule's full text, as ``explain CODE`` prints it."""
    counts = "counts as drift: exit 1" if rule.drift else "never fails a run"
    parts = [f"{rule.code} {rule.name} ({rule.level}, {counts})", rule.summary]
    parts += [f"Why it matters: {rule.why}", f"What to do: {rule.act}"]
    return "\n\n".join(textwrap.fill(p, WIDTH, break_long_words=False, break_on_hyphens=False) for p in parts) + "\n"
