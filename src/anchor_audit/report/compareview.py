"""Renderers for ``diff`` and ``bump``: a :class:`~anchor_audit.runs.compare.Comparison` -> text."""

from __future__ import annotations

from typing import Any, TextIO

from rich.table import Table
from rich.text import Text

from ..model import ChangeKind, SourceInfo, SourceKind
from ..runs.compare import Change, Comparison
from ..text.escape import md_code, md_text, printable
from .json import source_dict
from .jsontext import dumps_indented
from .terminal import make_console


def _label(info: SourceInfo) -> str:
    return info.ref


def _range(change: Change) -> str:
    return f"{change.suggested.start}:{change.suggested.end}" if change.suggested else ""


def comparison_dict(comparison: Comparison) -> dict[str, Any]:
    def change(c: Change) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": c.kind, "skill": c.skill, "key": c.key, "from": c.before, "to": c.after}
        if c.suggested:
            out["suggested"] = c.suggested.as_list()
        if c.detail:
            out["detail"] = c.detail
        return out

    return {
        "old": source_dict(comparison.old),
        "new": source_dict(comparison.new),
        "changes": [change(c) for c in comparison.changes],
        "breaks": [{"skill": c.skill, "claim": c.key} if c.kind is not ChangeKind.PROMISE
                   else {"skill": c.skill, "constraint": c.key.split(" ", 1)[1]} for c in comparison.newly_broken],
        "exit_code": int(comparison.exit_code),
    }


def render_comparison_json(comparison: Comparison, stream: TextIO) -> None:
    stream.write(dumps_indented(comparison_dict(comparison)) + "\n")


def render_comparison_markdown(comparison: Comparison, stream: TextIO) -> None:
    """A comment ready to paste into a pull request (every input-derived value escaped)."""
    old, new = _label(comparison.old), _label(comparison.new)
    w = stream.write
    w(f"### anchor-audit: {md_code(old)} → {md_code(new)}\n\n")
    w(
        f"Source: {md_text(comparison.new.repo)} — "
        f"{md_text(_where(comparison.old))} → {md_text(_where(comparison.new))}\n\n"
    )
    if not comparison.changes:
        w("No quote or claim changes status.\n")
    else:
        w(
            f"| skill | quote or claim | {md_text(old)} | {md_text(new)} | suggested range |\n"
            "| --- | --- | --- | --- | --- |\n"
        )
        for c in comparison.changes:
            item = md_code(c.key) if c.kind is ChangeKind.ANCHOR else f"{c.kind} {md_code(c.key)}"
            after = c.after or "(gone)"  # statuses and verdicts: anchor-audit's own words
            if c in comparison.newly_broken:
                after = f"**{after}**"
            suggested = md_code(_range(c)) if c.suggested else ""
            w(f"| {md_text(c.skill)} | {item} | {c.before or '(new)'} | {after} | {suggested} |\n")
    w("\n")
    if comparison.newly_broken:
        n = len(comparison.newly_broken)
        w(f"**{comparison.broken_said} break{'s' if n == 1 else ''} at {md_code(new)}:**\n\n")
        for c in comparison.newly_broken:
            detail = f": {md_text(c.detail)}" if c.detail else ""
            w(f"- {md_code(c.key)} ({md_text(c.skill)}){detail}\n")
    else:
        w(f"No claim that held at {md_code(old)} breaks at {md_code(new)}.\n")


def render_comparison_terminal(comparison: Comparison, stream: TextIO, color: str = "auto") -> None:
    console = make_console(stream, color=color)
    old, new = _label(comparison.old), _label(comparison.new)
    console.print(Text(printable(f"diff: {_where(comparison.old)} -> {_where(comparison.new)}"), style="bold"))
    if comparison.changes:
        several = len({c.skill for c in comparison.changes}) > 1
        table = Table(show_edge=False, pad_edge=False)
        for column in ("kind", "skill", "quote or claim", old, new, "suggested")[0 if several else 0 :]:
            if column != "skill" or several:
                table.add_column(printable(column), overflow="fold")
        for c in comparison.changes:
            style = "bold red" if c in comparison.newly_broken else ""
            cells = [c.kind] + ([c.skill] if several else []) + [c.key, c.before or "-"]
            table.add_row(*(Text(printable(x)) for x in cells), Text(c.after or "-", style=style), Text(_range(c)))
        console.print(table)
    n = len(comparison.newly_broken)
    # "1 claim held at v0.3.0 and breaks at v0.6.0", "2 claims held ... and break ..."
    verb = "breaks" if n == 1 else "break"
    verdict = f"{comparison.broken_said} held at {old} and {verb} at {new}" if n else "no claim breaks"
    console.print(Text(printable(f"{len(comparison.changes)} changes · {verdict} · exit {int(comparison.exit_code)}")))


def _where(info: SourceInfo) -> str:
    if info.kind is SourceKind.RELEASE:
        return f"release {info.release}"
    return f"{info.ref} ({(info.commit or '')[:12]})"
