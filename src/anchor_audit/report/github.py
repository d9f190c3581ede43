"""GitHub Actions workflow commands: annotations on the skill's lines."""

from __future__ import annotations

from collections import Counter
from typing import TextIO

from ..findings import findings
from ..findings.severity import NAMED_CLASSES, OTHER, SEVERITY, severity, worst_first
from ..model import AuditReport
from ..text.escape import printable

_COMMAND = {"error": "error", "warning": "warning", "note": "notice"}


def _data(text: str) -> str:
    # Workflow commands end at a line break; the log viewer also acts on ANSI sequences.
    escaped = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return printable(escaped, keep="")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


# GitHub shows about ten annotations of each level per step; past that, one line says how many more there are,
# and names, a line each, every claim broken and every quote or line citation changed the cap left out
# (severity.NAMED_CLASSES; a catalog's thousands of links are only counted).
CAP = 10
MAX_NAMED = 500


def render_github(report: AuditReport, stream: TextIO) -> None:
    shown: Counter[str] = Counter()
    left: dict[str, Counter[str]] = {}  # per command, the classes of what the cap left out
    named: dict[str, list[str]] = {}  # per command, the claims and quotes the cap left out, each still named
    for file, line, text in report.policy.notes:  # a settings file that relaxes the gate is never silent
        shown["warning"] += 1
        stream.write(f"::warning file={_property(file)},line={line},title=anchor-audit settings::{_data(text)}\n")
    for f in worst_first(findings(report), lambda f: f.code):  # what a cut leaves out is the least
        if f.key in report.accepted:
            continue
        command = _COMMAND[f.rule.level]
        if shown[command] >= CAP:
            left.setdefault(command, Counter())[_class_of(f.code)] += 1
            if severity(f.code) < NAMED_CLASSES:
                named.setdefault(command, []).append(f"{f.file}:{f.line}: {f.code} {f.subject}")
            continue
        shown[command] += 1
        title = f"{f.code} {f.rule.name}"
        message = f.message + (f" (who can heal it: {f.owners})" if f.owners else "")
        stream.write(f"::{command} file={_property(f.file)},line={f.line},title={_property(title)}::{_data(message)}\n")
    for command, classes in left.items():
        n = sum(classes.values())
        said = ", ".join(f"{k} {name}" for name, k in classes.items())
        more = (f"{n} more {command}{'s' if n != 1 else ''} not shown ({said}): see the full report (--format sarif "
                "or markdown)")  # fmt: skip
        items = named.get(command, [])
        if len(items) > MAX_NAMED:
            items = [*items[:MAX_NAMED], f"and {len(items) - MAX_NAMED} more claims and quotes"]
        stream.write(f"::{command} title=anchor-audit::{'%0A'.join(_data(t) for t in [more, *items])}\n")


def _class_of(code: str) -> str:
    """The severity class a finding code is of, as a cut names it (``claims broken``, ``links broken``)."""
    i = severity(code)
    return SEVERITY[i][0] if i < len(SEVERITY) else OTHER
