"""The report for a person: rich tables per skill and a one-line summary."""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass
from typing import TextIO, cast

from rich.console import Console
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from ..findings import counts_as_drift, exit_code, exit_words, findings, unlisted_words
from ..model import (
    AnchorStatus,
    AuditReport,
    Changed,
    Evidence,
    PromiseStatus,
    SkillReport,
    Verdict,
    found_lines,
    suggested_lines,
)
from ..text.escape import printable
from .catalogview import CATALOG_AT, render_catalog
from .ownerview import render_by_owner
from .referencecounts import references_said

STYLE = {
    AnchorStatus.EXACT: "green",
    AnchorStatus.MOVED: "yellow",
    AnchorStatus.RELOCATED: "yellow",
    AnchorStatus.CHANGED: "bold red",
    AnchorStatus.MISSING: "bold red",
    AnchorStatus.UNVERIFIABLE: "magenta",
    AnchorStatus.INCOMPLETE: "magenta",
    AnchorStatus.ERROR: "magenta",
    Verdict.CODE_VERIFIED: "green",
    Verdict.BROKEN: "bold red",
    Verdict.DOC_ONLY: "cyan",
    Verdict.UNVERIFIABLE: "magenta",
    Verdict.UNLINKED: "yellow",
}


def make_console(stream: TextIO, width: int | None = None, color: str = "auto") -> Console:
    """A console on ``stream``; off a terminal, ``COLUMNS`` columns when it is set (20 to 1000), else 100.

    Colour: ``always``, ``never``, or ``auto``: on a terminal unless ``NO_COLOR`` is set (not empty), and off
    one too when ``FORCE_COLOR`` is (NO_COLOR wins over FORCE_COLOR; ``--color`` over both).
    """
    is_tty = hasattr(stream, "isatty") and stream.isatty()
    if color == "auto":
        colored = not os.environ.get("NO_COLOR") and (is_tty or bool(os.environ.get("FORCE_COLOR")))
    else:
        colored = color == "always"
    plain = is_tty and color == "never"  # no escape at all, not even bold: as if written to a file, terminal-wide
    return Console(
        file=stream if is_tty else cast(TextIO, TrimmedLines(stream)),
        width=width or (shutil.get_terminal_size().columns if plain else None if is_tty else piped_width()),
        # Off a terminal rich reads FORCE_COLOR itself: the choice made here is said to it either way.
        force_terminal=False if plain else colored if not is_tty else None,
        no_color=not colored,
        highlight=False,
        emoji=False,
        # In a file or a CI log lines stay whole (grep-able); on a terminal they wrap at word boundaries.
        soft_wrap=not is_tty,
    )


class TrimmedLines:
    """A stream off a terminal that drops the spaces a table pads each line's end with (before any colour reset):
    a piped or saved report greps and diffs without them."""

    _PADDED = re.compile(r" +((?:\x1b\[[0-9;]*m)*)\n")

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._pending = ""  # the last line, not yet ended

    def write(self, text: str) -> int:
        whole, ended, self._pending = (self._pending + text).rpartition("\n")
        if ended:
            self._stream.write(self._PADDED.sub(r"\1\n", whole + ended))
        return len(text)

    def flush(self) -> None:
        if self._pending:
            self._stream.write(self._pending)
            self._pending = ""
        self._stream.flush()

    def isatty(self) -> bool:
        return False

    def __getattr__(self, name: str) -> object:
        return getattr(self._stream, name)


def piped_width() -> int:
    """The width of output that is not a terminal: ``COLUMNS`` as the shell exports it, else 100."""
    columns = os.environ.get("COLUMNS", "")
    return int(columns) if columns.isdigit() and 20 <= int(columns) <= 1000 else 100


@dataclass
class TerminalRenderer:
    verbose: bool = False
    width: int | None = None
    color: str = "auto"  # auto, always, never
    group_by: str | None = None  # "owner": one section per owner of drifting skills

    def __call__(self, report: AuditReport, stream: TextIO) -> None:
        console = make_console(stream, self.width, self.color)
        console.print(Text(f"source: {printable(report.source.label)}", style="bold"))
        if self.group_by == "owner":
            render_by_owner(console, report)
        elif report.components and self.verbose:  # a catalog, nothing cut: its skills in full are the JSON's
            render_catalog(console, report, whole=True)
        elif len(report.skills) >= CATALOG_AT and not self.verbose:
            render_catalog(console, report)
        else:
            for skill in report.skills:
                self._skill(console, skill)
            for folder in (u for u in report.unlisted if u.promises):  # shown as a skipped skill is
                said = SkillReport(folder.name, f"skills/{folder.name}", (), (), promises=folder.promises,
                                   skipped=unlisted_words(folder))  # fmt: skip
                self._skill(console, said)
        for f in findings(report):
            if f.key in report.accepted:  # counted apart: drift that a person accepted, with their reason
                reason = dict(report.reasons).get(f.key, "")
                console.print(Text(printable(f"accepted: {f.skill}: {f.message} (baseline: {reason})"), style="dim"))
        console.print(Text(summary_line(report)))

    def _skill(self, console: Console, skill: SkillReport) -> None:
        console.print()
        console.print(Text.assemble((printable(skill.name), "bold"), f"  {printable(skill.path)}"))
        _said_of_the_skill(console, skill)
        narrow = console.width < NARROW
        if skill.anchors:
            console.print(_quotes_list(skill, console.width) if narrow else _quotes_table(skill, console.width))
        _quote_details(console, skill)
        if skill.claims:
            console.print(_claims_list(skill) if narrow else _claims_table(skill))
        self._promises(console, skill)
        self._evidence(console, skill)

    def _promises(self, console: Console, skill: SkillReport) -> None:
        """The promises that do not hold (every one with --verbose); those that cannot be checked, counted."""
        hidden = 0
        for promise in skill.promises:
            if promise.status.ok and not self.verbose:
                continue
            if promise.status is PromiseStatus.UNVERIFIABLE and not self.verbose:
                hidden += 1  # a note, not drift: counted here, listed with --verbose
                continue
            counts = f" ({promise.found} tests found, {promise.promised} promised)" if promise.found is not None else ""
            detail = f": {promise.detail}" if promise.detail else ""
            ok = promise.status.ok
            style = "" if ok else "magenta" if promise.status is PromiseStatus.UNVERIFIABLE else "red"
            text = f"{promise.kind} {promise.path} ({promise.file}:{promise.line}): {promise.status}{counts}{detail}"
            _hanging(console, 2, text, style)
        if hidden:
            said = f"{hidden} promise{'s' if hidden != 1 else ''} cannot be checked"
            console.print(Text(f"  {said} from this source (--verbose lists them)"))

    def _evidence(self, console: Console, skill: SkillReport) -> None:
        """Each claim's failing evidence and its card comments' moved ranges (all of it with --verbose); evidence
        several claims share said once,
        naming the claims (six missing files under each of seventeen claims were once 102 lines)."""
        lines: dict[str, list[str]] = {}  # the evidence line -> the claims it is under
        failing: set[str] = set()
        quoted = frozenset(m.quote.key for m in skill.anchors)  # a quote's move is said in the quotes' table
        for claim in skill.claims:
            for item in [e for e in claim.evidence if self.verbose or _said(e, quoted)]:
                where = f" at {item.location}" if item.location else ""
                detail = f": {item.detail}" if item.detail else ""
                line = f"{item.status}: {item.kind} {item.ref}{where}{detail}"
                lines.setdefault(line, []).append(claim.id)
                failing |= set() if item.ok else {line}
        shared = {line for line, ids in lines.items() if len(ids) > 1}
        for claim in skill.claims:
            own = [line for line, ids in lines.items() if claim.id in ids and line not in shared]
            if own or claim.unknown_tags:
                console.print(Text.assemble(f"  {printable(claim.id)}: ", (claim.verdict.value, STYLE[claim.verdict])))
            for line in own:
                _hanging(console, 4, line, "red" if line in failing else "")
            if claim.unknown_tags:
                console.print(
                    Text(printable(f"    unknown tags kept: {', '.join(claim.unknown_tags)}"), style="yellow")
                )
        by_claims: dict[tuple[str, ...], list[str]] = {}
        for line in sorted(shared, key=list(lines).index):
            by_claims.setdefault(tuple(lines[line]), []).append(line)
        for ids, group in by_claims.items():
            console.print(Text(printable(f"  under {len(ids)} claims ({', '.join(ids)}):"), style="bold"))
            for line in group:
                _hanging(console, 4, line, "red" if line in failing else "")


def _said_of_the_skill(console: Console, skill: SkillReport) -> None:
    """What is said of the skill as a whole: its own source, an error or a skip, its sync, its card's dates, a
    folder rename, who can heal it, the audit's notes."""
    if skill.source is not None:
        console.print(Text(f"source: {printable(skill.source.label)}", style="dim"))
    if skill.error is not None:
        console.print(Text(f"error: {printable(skill.error)} (nothing of this skill was checked)", style="magenta"))
    if skill.skipped is not None:
        console.print(Text(f"skipped: {printable(skill.skipped)}", style="magenta"))
    if skill.sync is not None and skill.sync.differs:
        files = f"; the files: {', '.join(skill.out_of_sync)}" if skill.out_of_sync else ""
        text = f"out of sync with its repository: {skill.sync.summary(skill.source)}{files}"
        console.print(Text(printable(text), style="yellow"))
    if skill.validation is not None:
        console.print(Text(printable(f"card.yaml: {skill.validation.said}"), style="dim"))
    for said in skill.card_contradicted:
        console.print(Text(printable(f"card.yaml: {said}"), style="red"))
    if skill.folder_rename is not None:
        console.print(Text(printable(skill.folder_rename.said), style="red"))
    if skill.owners is not None:
        console.print(Text(printable(f"who can heal it: {skill.owners.said}"), style="dim"))
    for note in skill.notes:
        console.print(Text(f"note: {printable(note)}", style="dim"))


def _said(item: Evidence, quoted: frozenset[str]) -> bool:
    """Whether a claim's evidence is said under it: it fails, or it is a card comment's range whose code moved
    (drift, AA412, though the claim holds)."""
    return not item.ok or (item.status is AnchorStatus.MOVED and item.ref not in quoted)


def _hanging(console: Console, indent: int, text: str, style: str = "") -> None:
    """A detail line, indented: on a terminal that wraps it, its wrapped lines keep the indent; in a file or a
    log it stays one line, as every line does there."""
    shown = Text(printable(text), style=style)
    if console.soft_wrap:
        console.print(Text(" " * indent) + shown)
    else:
        console.print(Padding(shown, (0, 0, 0, indent)))


def _quote_details(console: Console, skill: SkillReport) -> None:
    """Why each quote that is not exact is as it is, and its diff."""
    for match in skill.anchors:
        diff = match.diff if isinstance(match, Changed) else ()
        if match.status is not AnchorStatus.EXACT and (match.detail or diff):
            _hanging(console, 2, f"{match.quote.key}: {match.detail}")
            for line in diff:
                console.print(Text("    " + printable(line), style=_diff_style(line)))


NARROW = 100  # below this many columns, quotes and claims are lists, not tables


def short_path(path: str, width: int) -> str:
    """``path`` in at most ``width`` characters, keeping its file name: ``src/…/training/comm_overlap.py``."""
    if len(path) <= width:
        return path
    parts = path.split("/")
    head, tail = parts[0], parts[-1]
    middle = parts[1:-1]
    while middle and len("/".join([head, "…", *middle, tail])) > width:
        middle.pop(0)
    short = "/".join([head, "…", *middle, tail])
    return short if len(short) <= width else "…" + tail[-(width - 1) :]


def _quotes_list(skill: SkillReport, width: int) -> Text:
    lines = Text("quotes\n")
    for m in skill.anchors:
        lines.append(f"  {m.status.value:<12}", style=STYLE[m.status])
        # The path keeps its first folder and its file name however narrow (src/…/comm_overlap.py); a moved
        # quote says its declared range once, with where it goes (declared 41:47 -> 42:48).
        place = f"{short_path(printable(m.quote.path), max(28, width - 40))}  line {m.quote.skill_line}"
        healed = suggested_lines(m)
        moved = f" -> {_range(healed)}" if healed else ""
        lines.append(f"{place}  declared {_range(m.quote.declared)}{moved}\n")
    return lines


def _claims_list(skill: SkillReport) -> Text:
    lines = Text("claims\n")
    for claim in skill.claims:
        held = sum(1 for e in claim.evidence if e.ok)
        registered = claim.evidence and claim.verdict is not Verdict.UNLINKED  # unlinked: nothing to hold
        evidence = f"{held}/{len(claim.evidence)} hold" if registered else "none registered"
        lines.append(f"  {printable(claim.id)}: ")
        lines.append(claim.verdict.value, style=STYLE[claim.verdict])
        card = printable(", ".join(claim.declared) or "-")
        lines.append(
            f" ({evidence}; card.yaml: {card}" + (f"; {printable(claim.mismatch)}" if claim.mismatch else "") + ")\n"
        )
    return lines


def _quotes_table(skill: SkillReport, width: int = 120) -> Table:
    table = Table(title="quotes", title_justify="left", show_edge=False, pad_edge=False)
    for column in ("status", "quote", "line", "declared", "found", "suggested"):
        table.add_column(column, no_wrap=True)
    room = max(20, width - 60)  # what the other columns leave the path
    for match in skill.anchors:
        table.add_row(
            Text(match.status.value, style=STYLE[match.status]),
            Text(short_path(printable(match.quote.path), room)),
            str(match.quote.skill_line),
            _range(match.quote.declared),
            _range(found_lines(match), "-"),
            _range(suggested_lines(match)),
        )
    return table


def _claims_table(skill: SkillReport) -> Table:
    table = Table(title="claims", title_justify="left", show_edge=False, pad_edge=False)
    for column in ("claim", "declared", "verdict", "evidence", "card.yaml"):
        table.add_column(column, no_wrap=column != "card.yaml")
    for claim in skill.claims:
        held = sum(1 for e in claim.evidence if e.ok)
        table.add_row(
            Text(printable(claim.id)),
            Text(printable(", ".join(claim.declared) or "-")),
            Text(claim.verdict.value, style=STYLE[claim.verdict]),
            f"{held}/{len(claim.evidence)} hold" if claim.evidence and claim.verdict is not Verdict.UNLINKED
            else "none registered",
            Text(printable(claim.mismatch or "agrees"), style="bold red" if claim.mismatch else ""),
        )
    return table


def summary_line(report: AuditReport) -> str:
    """``4 quotes: 3 moved, 1 changed · 5 claims: ... · 12 references (12 paths): 11 hold, 1 missing · exit 1``: a
    kind a run has none of is left out (but quotes and claims, where it has nothing at all)."""
    anchors = report.anchor_counts()
    claims = report.claim_counts()
    references = references_said(report)
    code = exit_code(report)
    parts = []
    for total, said, one in ((sum(anchors.values()), anchors, "quote"), (sum(claims.values()), claims, "claim")):
        if total or not references:
            parts.append(f"{_count(total, one)}: {', '.join(f'{n} {k}' for k, n in said.items() if n) or 'none'}")
    if references:
        parts.append(references)
    if report.mismatch_count():
        parts.append(_count(report.mismatch_count(), "card mismatch", "card mismatches"))
    found = findings(report)
    for rule, what in (("AA303", "skill out of sync"), ("AA302", "skill skipped"), ("AA301", "skill unreadable")):
        n = sum(1 for f in found if f.code == rule and counts_as_drift(f, report))
        if n:
            parts.append(_count(n, what, what.replace("skill", "skills")))
    accepted = sum(1 for f in found if f.key in report.accepted)
    if accepted:
        parts.append(f"{_count(accepted, 'finding')} accepted by the baseline")
    parts.append(f"exit {int(code)} ({exit_words(report, code)})")
    return " · ".join(parts)


def _count(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else many or one + 's'}"


def _range(rng: object, sep: str = ":") -> str:
    """Declared and suggested ranges read as START:END; a found span as first-last."""
    return "-" if rng is None else str(rng).replace("-", sep)


def _diff_style(line: str) -> str:
    if line.startswith("+") and not line.startswith("+++"):
        return "green"
    if line.startswith("-") and not line.startswith("---"):
        return "red"
    return "dim"
