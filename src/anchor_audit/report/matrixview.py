"""``anchor-audit matrix``: claims (and quotes) by release, as a terminal grid, JSON, Markdown or CSV.

A cell is one letter, so the grid reads without colour: for claims ``V`` code_verified, ``D`` doc_only,
``B`` broken, ``U`` unverifiable, ``L`` unlinked; for conditions, quotes and references ``=`` holds (exact,
exists), ``m`` moved, ``r`` relocated, ``c`` changed (a condition that differs), ``a`` absent, ``x`` missing,
``e`` external, ``p`` private, ``?`` not checked; ``.`` not there at that release.  Wider than the terminal,
the releases are folded into several grids, each with the claims' names again.
"""

from __future__ import annotations

import csv
from typing import Any, Callable, TextIO, Union

from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..runs.matrix import ABSENT, CatalogMatrix, Matrix, Row
from ..text.escape import md_code, md_text, printable
from .jsontext import dumps_indented
from .terminal import make_console

CLAIM_LETTERS = {"code_verified": "V", "doc_only": "D", "broken": "B", "unverifiable": "U", "unlinked": "L"}
LETTERS = {"exact": "=", "holds": "=", "exists": "=", "moved": "m", "relocated": "r", "changed": "c",
           "different": "c", "differs": "c", "absent": "a", "missing": "x", "external": "e", "private": "p",
           ABSENT: "."}  # fmt: skip
STYLES = {"V": "green", "D": "cyan", "B": "red bold", "U": "magenta", "L": "yellow", "c": "red", "x": "red"}
LEGEND = ("V code_verified · D doc_only · B broken · U unverifiable · L unlinked · conditions, quotes, "
          "references: = holds · m moved · r relocated · c changed · a absent · x missing · e external · "
          "p private · ? not checked · . not there")  # fmt: skip


_MEANS = [("V", "code_verified"), ("D", "doc_only"), ("B", "broken"), ("U", "unverifiable"), ("L", "unlinked"),
          ("=", "holds"), ("m", "moved"), ("r", "relocated"), ("c", "changed"), ("a", "absent"), ("x", "missing"),
          ("e", "external"), ("p", "private"), ("?", "not checked"), (".", "not there")]


def legend(rows: list[Row]) -> str:
    """What the letters a grid of ``rows`` shows mean: only those it shows."""
    shown = {letter(c, "claim" if r.kind == "claim" else r.kind) for r in rows for c in r.cells}
    return " · ".join(f"{mark} {means}" for mark, means in _MEANS if mark in shown)


def letter(cell: str, kind: str = "claim") -> str:
    """The one letter a cell is drawn with (the same in the grid, Markdown, SVG and HTML)."""
    if kind == "claim" and cell in CLAIM_LETTERS:
        return CLAIM_LETTERS[cell]
    return LETTERS.get(cell, "?")


Shown = Union[Matrix, CatalogMatrix]


def each(shown: Shown) -> list[Matrix]:
    """The matrices a report shows: one, or a catalog's, one per component."""
    return shown.matrices if isinstance(shown, CatalogMatrix) else [shown]


def render_matrix_terminal(shown: Shown, stream: TextIO, color: str = "auto", verbose: bool = False) -> None:
    """The grid of each matrix: its claims and decided constraints; with ``verbose``, every row."""
    console = make_console(stream, color=color)
    for i, matrix in enumerate(each(shown)):
        if i:
            console.print()
        _terminal(matrix, console, verbose)


def _terminal(matrix: Matrix, console: Console, verbose: bool = False) -> None:
    tags = [r.tag for r in matrix.releases]
    skills = sorted({r.skill for r in matrix.rows})
    what = f"{', '.join(skills[:3])}{' and more' if len(skills) > 3 else ''} at " if skills else ""
    head = f"matrix {what}{matrix.repo}: {len(tags)} releases, {tags[0]} .. {tags[-1]}" if tags else "no release tags"
    console.print(Text(printable(head if tags else f"matrix {matrix.repo}: {head}"), style="bold"))
    if not tags or not matrix.rows:
        return
    one_skill = len({r.skill for r in matrix.rows}) == 1  # then a claim is named by its id alone
    # A decided constraint is numbered (sentences often begin alike): "constraint 2" in the grid, whole below it.
    number = {id(r): n for n, r in enumerate((r for r in _claims(matrix) if r.kind != "claim"), 1)}

    def short(row: Row) -> str:
        own = f"constraint {number[id(row)]}" if id(row) in number else row.key
        return own if one_skill else f"{row.skill} {own}"

    def name(row: Row) -> str:
        return f"{short(row)}: {row.key.removeprefix('constraint ')}" if id(row) in number else short(row)

    # The claims' names set the column's width; anything longer is cut to it.
    rows = matrix.rows if verbose else _claims(matrix)
    named = {id(r) for r in _claims(matrix)}  # a claim, or a constraint (its number says so)
    label = {id(r): short(r) if id(r) in named else f"{r.kind} {name(r)}" for r in rows}
    width_of = rows if verbose else _claims(matrix)
    name_width = min(max((len(label[id(r)]) for r in width_of), default=24), 48)
    per_grid = max(1, (console.width - name_width - 4) // (max(len(t) for t in tags) + 3))
    for start in range(0, len(tags), per_grid):
        table = Table(show_edge=False, pad_edge=False, header_style="bold")
        table.add_column("claim", no_wrap=True, max_width=name_width)
        for tag in tags[start : start + per_grid]:
            table.add_column(printable(tag), justify="center", no_wrap=True)
        for row in rows:
            shown = [letter(c, row.kind) for c in row.cells[start : start + per_grid]]
            table.add_row(Text(printable(label[id(row)])), *(Text(c, style=STYLES.get(c, "")) for c in shown))
        console.print(table)
    _ranges(matrix, console, name)
    console.print(Text(legend(rows), style="dim"))


def _ranges(matrix: Matrix, console: Console, name: Callable[[Row], str]) -> None:
    """Below the grid: the releases each claim (and decided constraint) holds for, and its first break."""
    for row in _claims(matrix):
        if row.kind == "claim" and row.unlinked:
            console.print(Text(printable(f"  {name(row)}: unlinked at every release (no evidence checked it)")))
            continue
        ranges = " or ".join(row.holds_for(matrix.releases)) or "no release"
        broke = row.first_break(matrix.releases)
        said = f"  {name(row)}: holds for {ranges}" + (f"; broken from {broke}" if broke else "")
        console.print(Text(printable(said)))


def _claims(matrix: Matrix) -> list[Row]:
    """The rows the grid shows: each claim, then each known constraint a gate decides at some release (a sentence
    of the card; advice no gate decides says nothing here)."""
    return [r for r in matrix.rows if r.kind == "claim"] + [r for r in matrix.rows if _decided_constraint(r)]


def _decided_constraint(row: Row) -> bool:
    return (row.kind == "reference" and row.key.startswith("constraint ")
            and any(c in ("holds", "differs", "missing") for c in row.cells))  # fmt: skip


def matrix_dict(matrix: Matrix) -> dict[str, Any]:
    """One repository's matrix as ``--format json`` writes it (matrix.schema.json, ``$defs/matrix``)."""
    return {
        "repo": matrix.repo,
        "releases": [{"tag": r.tag, "commit": r.commit, "pre": r.pre} for r in matrix.releases],
        "rows": [
            {"skill": row.skill, "kind": row.kind, "key": row.key,
             "cells": dict(zip((r.tag for r in matrix.releases), row.cells, strict=True)),
             **({"holds_for": row.holds_for(matrix.releases), "first_break": row.first_break(matrix.releases)}
                if row.kind == "claim" else {})}
            for row in matrix.rows
        ],
    }  # fmt: skip


def render_matrix_json(shown: Shown, stream: TextIO, color: str = "auto") -> None:
    data = {"version": 1, **matrix_dict(shown)} if isinstance(shown, Matrix) else {
        "version": 1, "catalog": shown.catalog, "components": [matrix_dict(m) for m in shown.matrices],
        "skipped": shown.skipped,
    }  # fmt: skip
    stream.write(dumps_indented(data) + "\n")


def render_matrix_csv(shown: Shown, stream: TextIO, color: str = "auto") -> None:
    """One row per claim, condition, quote or reference: skill, kind, key, a column per release, then where a
    claim holds.  A catalog's repositories release apart: there, one row per cell, with its repository."""
    writer = csv.writer(stream, lineterminator="\n")
    if isinstance(shown, CatalogMatrix):
        writer.writerow(["repo", "skill", "kind", "key", "release", "status", "holds_for", "first_break"])
        for m in shown.matrices:
            for row in m.rows:
                held, broke = _claim_columns(row, m)
                for release, cell in zip(m.releases, row.cells, strict=True):
                    writer.writerow([_cell(m.repo), _cell(row.skill), row.kind, _cell(row.key), _cell(release.tag),
                                     cell, held, broke])  # fmt: skip
        return
    matrix = shown
    writer.writerow(["skill", "kind", "key", *(r.tag for r in matrix.releases), "holds_for", "first_break"])
    for row in matrix.rows:
        writer.writerow([_cell(row.skill), row.kind, _cell(row.key), *row.cells, *_claim_columns(row, matrix)])


def _claim_columns(row: Row, matrix: Matrix) -> tuple[str, str]:
    """A claim's ranges and first break, as the CSV writes them ("" for the other kinds)."""
    if row.kind != "claim":
        return "", ""
    return " or ".join(row.holds_for(matrix.releases)), row.first_break(matrix.releases) or ""


def _cell(text: str) -> str:
    """A value a spreadsheet reads as one plain cell: control characters escaped (a lone CR, which the CSV writer
    does not quote, would start a record of its own), and one that would read as a formula quoted (CSV
    injection)."""
    text = printable(text, keep="")
    return "'" + text if text[:1] in ("=", "+", "-", "@") else text


def render_matrix_markdown(shown: Shown, stream: TextIO, color: str = "auto") -> None:
    if isinstance(shown, Matrix):
        stream.write(f"# anchor-audit matrix: {md_text(shown.repo)}\n\n")
        _markdown(shown, stream)
        return
    stream.write(f"# anchor-audit matrix: the catalog {md_code(shown.catalog)}\n")
    for matrix in shown.matrices:
        stream.write(f"\n## {md_text(matrix.repo)}\n\n")
        _markdown(matrix, stream)


def _markdown(matrix: Matrix, stream: TextIO) -> None:
    tags = [r.tag for r in matrix.releases]
    if not tags:
        stream.write("No release tags.\n")
        return
    stream.write("| claim | " + " | ".join(md_code(t) for t in tags) + " | holds for |\n")
    stream.write("| --- |" + " :-: |" * len(tags) + " --- |\n")
    for row in _claims(matrix):
        ranges = " or ".join(md_code(r) for r in row.holds_for(matrix.releases)) or "no release"
        ranges = "unlinked: no evidence checked it" if row.kind == "claim" and row.unlinked else ranges
        cells = " | ".join(md_text(letter(c)) for c in row.cells)
        stream.write(f"| {md_code(row.skill)} {md_code(row.key)} | {cells} | {ranges} |\n")
    stream.write(f"\n{md_text(legend(_claims(matrix)))}\n")
