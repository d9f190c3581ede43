"""GitHub Actions workflow commands: annotations on the skill's lines."""

from __future__ import annotations

from typing import TextIO

from ..escape import printable
from ..findings import findings
from ..model import AuditReport

_COMMAND = {"error": "error", "warning": "warning", "note": "notice"}


def _data(text: str) -> str:
    # Workflow commands end at a line break; the log viewer also acts on ANSI sequences.
    escaped = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return printable(escaped, keep="")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def render_github(report: AuditReport, stream: TextIO) -> None:
    for f in findings(report):
        if f.key in report.accepted:
            continue
        title = f"{f.code} {f.rule.name}"
        stream.write(
            f"::{_COMMAND[f.rule.level]} file={_property(f.file)},line={f.line},title={_property(title)}::"
            f"{_data(f.message)}\n"
        )
