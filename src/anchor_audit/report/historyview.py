"""Renderers for ``history``: the timeline of every quote and claim."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any, TextIO

from ..model import AnchorStatus
from ..runs.history import Event, History
from ..text.escape import printable
from .catalogwords import count
from .jsontext import dumps_indented

if TYPE_CHECKING:
    from rich.text import Text


def history_dict(result: History) -> dict[str, Any]:
    def event(e: Event) -> dict[str, Any]:
        c = e.change
        out: dict[str, Any] = {
            "kind": c.kind, "skill": c.skill, "key": c.key, "commit": e.commit.sha, "date": e.commit.date,
            "subject": e.commit.subject, "from": c.before, "to": c.after,
        }  # fmt: skip
        if c.suggested is not None and c.after is AnchorStatus.MOVED:
            out["suggested"] = c.suggested.as_list()
        return out

    return {
        "events": [event(e) for e in result.events],
        "range": {
            "since": result.since,
            "until": result.until,
            "commits_in_range": result.commits_in_range,
            "commits_touching": result.commits_touching,
            "skill_paths": result.skill_paths,
        },
    }


def render_history_json(result: History, stream: TextIO) -> None:
    stream.write(dumps_indented(history_dict(result)) + "\n")


def render_history_terminal(result: History, stream: TextIO, color: str = "auto") -> None:
    # rich only here: a JSON history (what CI asks for) never imports it.
    from rich.table import Table
    from rich.text import Text

    from .terminal import make_console

    console = make_console(stream, color=color)
    span = f"{result.since}..{result.until}" if result.since else f"..{result.until}"
    console.print(
        Text(
            printable(f"history {span}: ")
            + f"{result.commits_in_range} commits, {result.commits_touching} touch the skills "
            "or the code they rely on",
            style="bold",
        )
    )
    if result.skill_paths:
        console.print(Text(printable(f"skill folders over time: {' -> '.join(result.skill_paths)}")))
    events = result.events
    if events:
        # What everything was where the history starts, in one line; the table holds the changes.
        start = events[0].commit
        first = [e for e in events if e.commit == start and e.change.before is None]
        counts = Counter(e.change.after for e in first)
        summary = ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))
        if first:  # none when the skills quote and claim nothing: only citations' changes are listed
            console.print(Text(printable(f"at {start.sha[:10]} {start.date[:10]} {start.subject}: {summary}")))
        events = [e for e in events if e not in first]
    rows = [_row(e) for e in events]
    # The fixed columns are never cut and the subject wraps at spaces, never narrower than its longest word (a
    # piped history was once squeezed to four characters a line); where that does not fit, one event a record.
    widths = [max([len(name), *(len(r[i].plain) for r in rows)]) for i, name in enumerate(_COLUMNS[:-1])]
    longest = max((len(w) for r in rows for w in r[-1].plain.split()), default=7)
    fits = sum(widths) + 3 * len(widths) + min(longest, 40) <= console.width
    if rows and fits:
        table = Table(show_edge=False, pad_edge=False)
        for name in _COLUMNS[:-1]:
            table.add_column(name, no_wrap=True)
        table.add_column(_COLUMNS[-1], overflow="fold", min_width=min(longest, 40))
        for row in rows:
            table.add_row(*row)
        console.print(table)
    for row in [] if fits else rows:
        console.print(Text(" ").join(row[:-1]))
        console.print(Text("    ") + row[-1])
    console.print(Text(f"{count(len(events), 'status change')} after the start"))


_COLUMNS = ("commit", "date", "kind", "quote, claim or citation", "change", "subject")


def _row(e: Event) -> list[Text]:
    from rich.text import Text

    from .terminal import short_path

    c = e.change
    change = f"{c.before or '(new)'} -> {c.after or '(gone)'}"
    if c.suggested is not None and c.after is AnchorStatus.MOVED:
        change += f" (suggest {c.suggested.start}:{c.suggested.end})"
    style = "red" if c.after in ("broken", "changed", "missing") else ""
    cells = [e.commit.sha[:10], e.commit.date[:10], c.kind, short_path(c.key, 44)]
    return [*(Text(printable(c)) for c in cells), Text(change, style=style), Text(printable(e.commit.subject))]
