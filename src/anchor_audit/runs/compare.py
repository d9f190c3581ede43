"""Two audits of the same skills at two refs: what changed, and does the new ref break anything?"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..model import (
    AuditReport,
    ChangeKind,
    ExitCode,
    LineRange,
    Outcome,
    PromiseKind,
    PromiseStatus,
    SourceInfo,
    Verdict,
    suggested_lines,
)

_HELD = (Verdict.CODE_VERIFIED, Verdict.DOC_ONLY)


@dataclass(frozen=True)
class Change:
    kind: ChangeKind
    skill: str
    key: str  # PATH:START-END or the claim id
    before: Outcome | None  # None: not there at OLD
    after: Outcome | None  # None: not there at NEW
    suggested: LineRange | None = None  # at NEW, for a moved quote
    detail: str = ""


@dataclass
class Comparison:
    old: SourceInfo
    new: SourceInfo
    changes: list[Change] = field(default_factory=list)
    newly_broken: list[Change] = field(default_factory=list)  # claims and constraints broken at NEW that held at OLD

    @property
    def breaks(self) -> bool:
        return bool(self.newly_broken)

    @property
    def broken_said(self) -> str:
        """What broke, counted: "1 claim", "2 constraints", "1 claim and 1 constraint" ("" for nothing)."""
        constraints = sum(1 for c in self.newly_broken if c.kind is ChangeKind.PROMISE)
        claims = len(self.newly_broken) - constraints
        said = [f"{n} {what}{'s' if n != 1 else ''}" for n, what in ((claims, "claim"), (constraints, "constraint"))
                if n]  # fmt: skip
        return " and ".join(said)

    @property
    def exit_code(self) -> ExitCode:
        """``diff``'s exit (and the one its reports print): drift when a claim that held breaks."""
        return ExitCode.DRIFT if self.breaks else ExitCode.OK


def compare(old: AuditReport, new: AuditReport) -> Comparison:
    """Every quote, claim and promise whose status differs between ``old`` and ``new`` (a claim that held and
    breaks, and a known constraint whose gate held and changed or went, are newly broken: the exit of ``diff``
    and ``bump``)."""
    result = Comparison(old.source, new.source)
    before = _index(old)
    after = _index(new)
    for key in _ordered(before, after):
        was, now = before.get(key), after.get(key)
        if (was[0] if was else None) == (now[0] if now else None):
            continue
        kind, skill, item = key
        change = Change(
            kind, skill, item, was[0] if was else None, now[0] if now else None,
            now[1] if now else None, now[2] if now else "",
        )  # fmt: skip
        result.changes.append(change)
        if kind is ChangeKind.CLAIM and change.after == Verdict.BROKEN and change.before in _HELD:
            result.newly_broken.append(change)
        elif kind is ChangeKind.PROMISE and item.startswith(f"{PromiseKind.CONSTRAINT} ") and (
            change.before == PromiseStatus.HOLDS and change.after in (PromiseStatus.DIFFERS, PromiseStatus.MISSING)
        ):  # a known constraint the code enforced, and no longer does (or otherwise)
            result.newly_broken.append(change)
    return result


_Key = tuple[ChangeKind, str, str]
_Value = tuple[Outcome, LineRange | None, str]


def _index(report: AuditReport) -> dict[_Key, _Value]:
    out: dict[_Key, _Value] = {}
    for skill in report.skills:
        for match in skill.anchors:
            key = (ChangeKind.ANCHOR, skill.name, match.quote.key)
            out[key] = (match.status, suggested_lines(match), match.detail)
        for promise in skill.promises:  # a path, link, command or name of the prose (none in a history's audits)
            key = (ChangeKind.PROMISE, skill.name, f"{promise.kind} {promise.path}")
            out[key] = (promise.status, None, promise.detail)
        for claim in skill.claims:
            failing = "; ".join(f"{e.ref}: {e.status}" for e in claim.evidence if not e.ok)
            out[(ChangeKind.CLAIM, skill.name, claim.id)] = (claim.verdict, None, failing)
    return out


def _ordered(before: dict[_Key, _Value], after: dict[_Key, _Value]) -> list[_Key]:
    """Keys in report order: NEW's order, then what only OLD had."""
    return list(after) + [k for k in before if k not in after]
