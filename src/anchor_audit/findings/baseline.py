"""Baselines: known findings, each accepted with a written reason, so CI reports only new ones."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

import yaml

from ..errors import SpecError
from ..model import AuditReport
from ..spec.yamldoc import load_yaml
from ..text.fsutil import read_input
from . import findings

MAX_BASELINE_BYTES = 5 * 1024 * 1024
PLACEHOLDER = "TODO: say why this finding is acceptable"


@dataclass(frozen=True)
class Baseline:
    path: Path
    reasons: dict[str, str]  # finding key -> why it is accepted

    @property
    def keys(self) -> frozenset[str]:
        return frozenset(self.reasons)

    def stale(self, report: AuditReport) -> list[str]:
        """Accepted keys no finding of ``report`` has any more (fixed, or the skill changed)."""
        present = {f.key for f in findings(report)}
        return sorted(k for k in self.reasons if k not in present)


def load_baseline(path: Path) -> Baseline:
    raw = read_input(path, MAX_BASELINE_BYTES, "a baseline")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise SpecError(f"{path}:{line}: not UTF-8 (byte {exc.start}); a baseline is UTF-8 YAML") from None
    doc = load_yaml(text, str(path))
    data = doc.data or {}
    if not isinstance(data, dict) or not isinstance(data.get("accepted", []), list):
        raise SpecError(f"{path}:1: a baseline is a mapping with a list 'accepted'")
    reasons: dict[str, str] = {}
    unexplained: list[int] = []
    for i, entry in enumerate(data.get("accepted", [])):
        where = ("accepted", i)
        if not isinstance(entry, dict) or not isinstance(entry.get("key"), str):
            raise SpecError(f"{doc.where(where)}: each entry needs a 'key' (a finding key, as --write-baseline writes)")
        reason = entry.get("reason")
        if not isinstance(reason, str) or not reason.strip() or reason.strip().startswith("TODO"):
            unexplained.append(doc.line(where + ("reason",)))
            continue
        reasons[entry["key"]] = reason.strip()
    if unexplained:  # every entry that lacks a reason, in one line
        lines = ", ".join(str(n) for n in unexplained)
        n = len(unexplained)
        raise SpecError(
            f"{path}:{unexplained[0]}: write why each finding is accepted; {n} entr{'y' if n == 1 else 'ies'} "
            f"{'has' if n == 1 else 'have'} no reason (line{'' if n == 1 else 's'} {lines})"
        )
    return Baseline(path, reasons)


def render_baseline(report: AuditReport, stream: TextIO, reason: str | None = None) -> tuple[int, int]:
    """Every drift finding of ``report`` as a baseline entry, written to ``stream``; how many, and how many await
    a reason.  A finding the baseline in use accepts keeps its reason; a new one gets ``reason`` (``--reason``),
    else awaits one."""
    kept = dict(report.reasons)
    entries = [
        {"key": f.key, "code": f.code, "message": f.message, "reason": kept.get(f.key) or reason or PLACEHOLDER}
        for f in findings(report)
        if f.drift
    ]
    waiting = sum(1 for e in entries if e["reason"] == PLACEHOLDER)
    header = "# anchor-audit baseline: findings CI accepts, each with the reason it is acceptable.\n"
    if waiting:
        header += "# Replace each TODO with that reason: anchor-audit refuses an entry that has none.\n"
    body = yaml.safe_dump({"version": 1, "accepted": entries}, sort_keys=False, allow_unicode=True, width=1000)
    stream.write(header + body)
    return len(entries), waiting
