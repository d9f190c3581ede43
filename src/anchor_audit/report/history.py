"""Renderers for ``history``: the timeline of every quote and claim."""

from __future__ import annotations

import json
from typing import Any, TextIO

from rich.table import Table
from rich.text import Text

from ..history import Event, History
from .terminal import make_console


def history_dict(result: History) -> dict[str, Any]:
    def event(e: Event) -> dict[str, Any]:
        out: dict[str, Any] = {
            "kind": e.kind, "skill": e.skill, "key": e.key, "commit": e.commit.sha, "date": e.commit.date,
            "subject": e.commit.subject, "from": e.before, "to": e.after,
        }  # fmt: skip
        if e.suggested is not None and e.after == "moved":
            out["suggested"] = e.suggested.as_list()
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
    stream.write(json.dumps(history_dict(result), indent=2, sort_keys=True, ensure_ascii=False) + "\n")


def render_history_terminal(result: History, stream: TextIO) -> None:
    console = make_console(stream)
    span = f"{result.since}..{result.until}" if result.since else f"..{result.until}"
    console.print(
        Text(
            f"history {span}: {result.commits_in_range} commits, {result.commits_touching} touch the skills "
            "or the code they rely on",
            style="bold",
        )
    )
    if result.skill_paths:
        console.print(f"skill folders over time: {' -> '.join(result.skill_paths)}")
    table = Table(show_edge=False, pad_edge=False)
    for column in ("commit", "date", "kind", "quote or claim", "change", "subject"):
        table.add_column(column, overflow="fold")
    for e in result.events:
        change = f"{e.before or '(new)'} -> {e.after or '(gone)'}"
        if e.suggested is not None and e.after == "moved":
            change += f" (suggest {e.suggested.start}:{e.suggested.end})"
        style = "red" if e.after in ("broken", "changed", "missing") else ""
        table.add_row(e.commit.sha[:10], e.commit.date[:10], e.kind, e.key, Text(change, style=style), e.commit.subject)
    console.print(table)
    console.print(f"{len(result.events)} status changes")
