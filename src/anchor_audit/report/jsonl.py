"""``--format jsonl``: one finding a line, as a log pipeline or ``jq -c`` reads it.

Each line is a JSON object: ``skill``, ``code``, ``rule``, ``level``, ``fingerprint`` (SARIF's and the
baseline's key), ``file``, ``line``, ``message``, ``drift`` (counts toward exit 1), and ``accepted`` when the
baseline accepts it.  Nothing else: the whole report is ``--format json``.
"""

from __future__ import annotations

from typing import TextIO

from ..findings import counts_as_drift, findings
from ..model import AuditReport
from .jsontext import dumps_line


def render_jsonl(report: AuditReport, stream: TextIO) -> None:
    for f in findings(report):
        line = {
            "skill": f.skill, "code": f.code, "rule": f.rule.name, "level": f.rule.level, "fingerprint": f.key,
            "file": f.file, "line": f.line, "message": f.message, "drift": counts_as_drift(f, report),
        }  # fmt: skip
        if f.owners:
            line["owners"] = f.owners
        if f.key in report.accepted:
            line["accepted"] = True
        stream.write(dumps_line(line) + "\n")
