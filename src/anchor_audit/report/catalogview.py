"""The terminal report of many skills, for a maintainer's minute: counts first, then only what drifts, grouped.

In order: one line of totals; a catalog's components (repository @ ref, its
commit and date, skills audited, in sync and drifting); each cause of a
skip, once; one line per skill with drift saying why in words (a skill whose
only drift is its copy's sync is counted in one line per component); then
the findings by class with a few examples; then notes once per cause.
A catalog's ``--verbose`` shows the same view with nothing cut; a run of many skills that is not a catalog
shows every skill in full.  No column is narrower than
its longest word: where a table does not fit, it becomes one record a line.
"""

from __future__ import annotations

from collections import Counter

from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..findings import Finding, counts_as_drift, findings
from ..findings.severity import NAMED_CLASSES, left_out, rank, severity
from ..model import AuditReport, PromiseStatus, SkillReport
from ..text.escape import printable
from .catalogwords import (
    ComponentCounts,
    by_layout,
    component_counts,
    count,
    drift_by_skill,
    layout_only,
    repo_name,
    sync_only,
    why,
)

CATALOG_AT = 6  # from this many skills on, the terminal shows the catalog view
MAX_SKILL_LINES = 90  # skills with drift listed one a line; the rest are counted (--verbose, JSON list them)
EXAMPLES = 2  # findings shown for each class past the named ones (severity.NAMED_CLASSES: all of those)
EXAMPLE_CHARS = 160  # an example is cut after a word within this (or the width): JSON and --verbose have it whole
MAX_NOTES = 8  # distinct notes shown, most frequent first


def render_catalog(console: Console, report: AuditReport, whole: bool = False) -> None:
    """The catalog view; ``whole`` (a catalog's ``--verbose``): nothing cut, every skill with drift and every
    finding of each class, each whole."""
    drift = drift_by_skill(report)
    checked = [s for s in report.skills if s.checked]
    skipped = sum(1 for s in report.skills if s.skipped is not None)
    unreadable = sum(1 for s in report.skills if s.error is not None)
    where = f" in {count(len(report.components), 'component')}" if report.components else ""
    unlisted = f"; {count(len(report.unlisted), 'folder')} no component names" if report.unlisted else ""
    console.print(Text(
        f"{count(len(report.skills), 'skill')}{where}: {len(checked)} audited, {skipped} skipped, "
        f"{unreadable} unreadable; {sum(1 for s in checked if s.name in drift)} with drift{unlisted}"
    ))  # fmt: skip
    rows = component_counts(report, drift)
    if rows:
        _components(console, rows)
    _skips(console, report)
    _drifting(console, report, drift, rows, whole)
    _classes(console, report, whole)
    notes = Counter(note for s in report.skills for note in s.notes)
    for note, n in notes.most_common(None if whole else MAX_NOTES):
        console.print(Text(printable(f"note: {count(n, 'skill')}: {note}"), style="dim"))
    if len(notes) > MAX_NOTES and not whole:
        console.print(Text(f"note: {len(notes) - MAX_NOTES} other notes (--verbose shows each skill's)", style="dim"))


def _components(console: Console, rows: list[ComponentCounts]) -> None:
    """The component table; the repository column wraps at its spaces (``OWNER/NAME`` / ``@ ref``), no other."""
    console.print()
    names = [printable(f"{repo_name(r.info.repo) or r.info.file} @ {r.info.ref}") for r in rows]
    cells = []
    for name, r in zip(names, rows, strict=True):
        commit = Text("skipped", style="magenta") if r.info.skipped else Text((r.info.commit or "-")[:9])
        numbers = (len(r.info.skills), r.audited, r.in_sync, r.drifting)
        cells.append([Text(name), commit, Text(r.info.date or "-"), *(Text(str(n)) for n in numbers)])
    fixed = [max(len(c[i].plain) for c in [[Text(x) for x in _HEADERS], *cells]) for i in range(1, len(_HEADERS))]
    longest = max(len(word) for name in names for word in name.split())
    if sum(fixed) + longest + 3 * len(fixed) <= console.width:
        table = Table(title="components", title_justify="left", show_edge=False, pad_edge=False)
        table.add_column(_HEADERS[0], min_width=longest)
        for column in _HEADERS[1:]:
            table.add_column(column, no_wrap=True, justify="left" if column in ("commit", "date") else "right")
        for row in cells:
            table.add_row(*row)
        console.print(table)
        return
    console.print(Text("components", style="italic"))
    for name, r in zip(names, rows, strict=True):  # too narrow for the table: one component a record, in words
        at = "skipped" if r.info.skipped else f"{(r.info.commit or '-')[:9]} {r.info.date or '-'}"
        said = f"{count(len(r.info.skills), 'skill')}, {r.audited} audited, {r.in_sync} in sync, {r.drifting} drift"
        console.print(Text(f"{name}  {at}: {said}"))


_HEADERS = ("repository @ ref", "commit", "date", "skills", "audited", "in sync", "drift")


def _skips(console: Console, report: AuditReport) -> None:
    """Each cause of a skip once: a host that did not resolve once for all its components."""
    causes: dict[str, list[str]] = {}
    for info in report.components:
        if info.cause is not None:
            causes.setdefault(info.cause, []).extend(info.skills)
    for cause, names in sorted(causes.items(), key=lambda item: -len(item[1])):
        console.print(Text(printable(f"skipped {count(len(names), 'skill')}: {cause}"), style="magenta"))
    by_file = Counter(u.listed_in or "no exception file" for u in report.unlisted)
    if by_file:
        files = ", ".join(f"{n} listed in {where}" if where != "no exception file" else f"{n} in none"
                          for where, n in by_file.most_common())  # fmt: skip
        folders = ", ".join(u.name for u in report.unlisted)
        broken = sum(1 for u in report.unlisted for p in u.promises if p.status is PromiseStatus.MISSING)
        links = f"; the checks that need no code ran on them: {count(broken, 'link')} broken" if broken else ""
        console.print(Text(printable(f"not audited, no component names them ({files}): {folders}{links}"), style="dim"))


def _drifting(
    console: Console, report: AuditReport, drift: dict[str, list[Finding]], rows: list[ComponentCounts],
    whole: bool = False,
) -> None:
    skills = [s for s in report.skills if s.checked and s.name in drift]
    listed = sorted((s for s in skills if not sync_only(drift[s.name]) and not layout_only(drift[s.name])),
                    key=lambda s: rank([f.code for f in drift[s.name]]))  # worst first  # fmt: skip
    if not skills:
        return
    console.print()
    console.print(Text(f"skills with drift ({len(skills)}), worst first", style="bold"))
    shown = len(listed) if whole else MAX_SKILL_LINES
    _drift_lines(console, [(s.name, why(s, drift[s.name])) for s in listed[:shown]])
    if len(listed) > shown:
        cut = left_out([[f.code for f in drift[s.name]] for s in listed[MAX_SKILL_LINES:]])
        console.print(Text(f"and {len(listed) - MAX_SKILL_LINES} more skills with drift: {cut} (--verbose lists each)"))
    _one_cause(console, rows, [s for s in skills if s not in listed], drift)


def _one_cause(console: Console, rows: list[ComponentCounts], mine_all: list[SkillReport],
               drift: dict[str, list[Finding]]) -> None:  # fmt: skip
    """The skills whose only drift is one cause (links the catalog's layout breaks, the copy's sync): counted per
    component, not listed."""
    for r in rows:
        mine = [s for s in mine_all if s.name in r.info.skills]
        laid = [s for s in mine if layout_only(drift[s.name])]
        if laid:
            links = sum(1 for s in laid for f in drift[s.name] if by_layout(f))
            console.print(Text(printable(f"{repo_name(r.info.repo)}: {count(len(laid), 'skill')} whose only drift is "
                                         f"{count(links, 'link')} broken by the catalog's layout (they hold in the "
                                         "repository): one cause, the catalog's to heal")))  # fmt: skip
        mine = [s for s in mine if s not in laid]
        if mine:
            console.print(Text(printable(_only_sync(repo_name(r.info.repo), mine))))


def _drift_lines(console: Console, said: list[tuple[str, str]]) -> None:
    """Each skill and why it drifts: a table where the reasons fit on one line, else one skill a line."""
    cells = [[Text(printable(name)), Text(printable(words))] for name, words in said]
    name_width = max((len(c[0].plain) for c in cells), default=0)
    if cells and name_width + 3 + max(len(c[1].plain) for c in cells) <= console.width:
        table = Table(show_edge=False, pad_edge=False, show_header=False)
        table.add_column("skill", no_wrap=True)
        table.add_column("why", no_wrap=True)
        for row in cells:
            table.add_row(*row)
        console.print(table)
    else:  # a table would wrap the reasons: one skill a line, whatever its length
        for name, words in cells:
            console.print(Text.assemble(name, ": ", words))


def _only_sync(repo: str, mine: list[SkillReport]) -> str:
    """A component's skills whose only drift is the copy's sync, counted, and how they stand to upstream."""
    behind = sum(1 for s in mine if s.sync is not None and s.sync.matches is not None)
    absent = sum(1 for s in mine if s.sync is not None and s.sync.absent)
    split = ", ".join(f"{n} {what}" for n, what in ((behind, "behind upstream"), (absent, "absent upstream"),
                      (len(mine) - behind - absent, "ahead or diverged")) if n)  # fmt: skip
    return f"{repo}: {count(len(mine), 'skill')} out of sync and nothing else ({split})"


def _classes(console: Console, report: AuditReport, whole: bool = False) -> None:
    """The drifting findings by code, with a few examples each (``whole``: every one, each whole); the notes (not
    drift) counted in one line."""
    by_code: dict[str, list[Finding]] = {}
    notes: Counter[str] = Counter()
    for f in findings(report):
        if counts_as_drift(f, report):
            by_code.setdefault(f.code, []).append(f)
        elif f.key not in report.accepted:
            notes[f"{f.code} {f.rule.name}"] += 1
    if by_code:
        console.print()
        console.print(Text("findings by class (anchor-audit explain CODE says what each means)", style="bold"))
    for code, found in sorted(by_code.items(), key=lambda item: (severity(item[0]), item[0])):
        skills = len({f.skill for f in found})
        console.print(Text(f"{code} {found[0].rule.name}: {len(found)} in {count(skills, 'skill')}", style="bold"))
        own = [f for f in found if not by_layout(f)] or found  # the layout's links are one cause, said as one
        every = whole or severity(code) < NAMED_CLASSES  # each claim broken and quote changed, a line each
        for f in (own if every else own[:EXAMPLES]) if code != "AA302" else ():  # a skip's causes: above
            line = f"  {f.skill}: {f.message}"
            console.print(Text(printable(line if whole else _clip(line, max(console.width, EXAMPLE_CHARS)))))
        if whole and len(own) < len(found):
            console.print(Text(f"  and {len(found) - len(own)} broken by the catalog's layout (one cause; the JSON "
                               "report lists each)"))  # fmt: skip
    if notes:
        console.print(Text("not drift: " + ", ".join(f"{n} {what}" for what, n in sorted(notes.items())), style="dim"))


def _clip(line: str, width: int) -> str:
    """``line`` in at most ``width`` characters, cut after a whole word (an example, not the finding: JSON has it)."""
    if len(line) <= width:
        return line
    cut = line[: width - 1].rsplit(" ", 1)[0]
    return (cut if len(cut) > width // 2 else line[: width - 1]) + "…"
