"""The terminal report of many skills: one row per skill, then only the problems.

A note every skill would repeat (no registry entry, a component that could
not be reached) is said once with a count; ``--verbose`` shows every skill
in full instead.
"""

from __future__ import annotations

from collections import Counter
from typing import Callable

from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..escape import printable
from ..findings import counts_as_drift, findings
from ..model import AuditReport, SkillReport

CATALOG_AT = 6  # from this many skills on, the terminal shows the catalog view


def render_catalog(console: Console, report: AuditReport, skill: Callable[[Console, SkillReport], None]) -> None:
    """Summary rows, repeated notes once, then ``skill(console, s)`` for every skill with drift."""
    drifting = {f.skill for f in findings(report) if counts_as_drift(f, report)}
    checked = [s for s in report.skills if s.skipped is None]
    skipped = [s for s in report.skills if s.skipped is not None]
    console.print(
        Text(
            f"{len(report.skills)} skills: {len(checked)} audited, {len(skipped)} skipped; "
            f"{len([s for s in checked if s.name in drifting])} with drift"
        )  # fmt: skip
    )
    table = Table(show_edge=False, pad_edge=False)
    for column in ("skill", "quotes", "claims", "state"):
        table.add_column(column, overflow="fold")
    for s in checked:
        quotes = Counter(m.status.value for m in s.anchors)
        claims = Counter(c.verdict.value for c in s.claims)
        state = "error" if s.error else "drift" if s.name in drifting else "holds" if s.anchors or s.claims else "-"
        table.add_row(
            Text(printable(s.name)),
            Text(", ".join(f"{n} {k}" for k, n in sorted(quotes.items())) or "-"),
            Text(", ".join(f"{n} {k}" for k, n in sorted(claims.items())) or "-"),
            Text(state, style="bold red" if state in ("drift", "error") else "green" if state == "holds" else ""),
        )
    if checked:
        console.print(table)
    for reason, n in Counter(s.skipped for s in skipped).most_common():
        console.print(Text(printable(f"skipped {n} skill{'s' if n != 1 else ''}: {reason}"), style="magenta"))
    for note, n in Counter(note for s in report.skills for note in s.notes).most_common():
        console.print(Text(printable(f"note: {n} skill{'s' if n != 1 else ''}: {note}"), style="dim"))
    problems = [s for s in checked if s.name in drifting]
    if problems:
        console.print()
        console.print(Text("problems (--verbose shows every skill):", style="bold"))
    for s in problems:
        skill(console, s)
