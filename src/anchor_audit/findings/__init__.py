"""Findings: everything a report flags, each with a stable code, a place in the skill, and a key.

The code (``AA102``) names the kind of finding and is the SARIF ``ruleId``;
the key (``skill:AA102:PATH:START-END``) names this finding, stays the same
from run to run while the finding does, and is what a baseline accepts.
Findings sit on the skill's own files, SKILL.md (quotes) and card.yaml
(claims), so code scanning annotates the skill, not the code.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import assert_never

from ..model import (
    AnchorStatus,
    AuditReport,
    ClaimVerdict,
    EvidenceKind,
    ExitCode,
    Moved,
    PromiseKind,
    PromiseResult,
    PromiseStatus,
    QuoteMatch,
    Relocated,
    SkillReport,
    UnlistedFolder,
    Verdict,
    contradiction_lines,
)
from .rules import RULES, Family, Rule

_ANCHOR_RULE = {
    AnchorStatus.MOVED: "AA101",
    AnchorStatus.CHANGED: "AA102",
    AnchorStatus.MISSING: "AA103",
    AnchorStatus.UNVERIFIABLE: "AA104",
    AnchorStatus.INCOMPLETE: "AA105",
    AnchorStatus.ERROR: "AA106",
    AnchorStatus.RELOCATED: "AA107",
}
def _promise_code(kind: PromiseKind, status: PromiseStatus) -> str | None:
    """The code of a promise's finding by its status and kind; None where it holds.  Both matches are exhaustive:
    a new status or kind is a type error here until it is given its code (never a finding silently dropped)."""
    match status:
        case PromiseStatus.EXISTS | PromiseStatus.HOLDS | PromiseStatus.EXTERNAL:
            return None
        case PromiseStatus.UNVERIFIABLE | PromiseStatus.ERROR:
            return "AA404"
        case PromiseStatus.UNREACHED:
            return "AA413"
        case PromiseStatus.MISSING | PromiseStatus.DIFFERS | PromiseStatus.PRIVATE:
            if kind is PromiseKind.TESTS and status is PromiseStatus.MISSING:
                return "AA402"  # the pytest file itself is gone: a reference that is missing
            return _kind_code(kind)
        case _:
            assert_never(status)


def _kind_code(kind: PromiseKind) -> str:
    match kind:
        case PromiseKind.EVIDENCE:
            return "AA401"
        case PromiseKind.REFERENCE:
            return "AA402"
        case PromiseKind.TESTS:
            return "AA403"
        case PromiseKind.SYMBOL:
            return "AA405"
        case PromiseKind.PATH:
            return "AA406"
        case PromiseKind.LINK:
            return "AA407"
        case PromiseKind.VERSION:
            return "AA408"
        case PromiseKind.COMMAND:
            return "AA409"
        case PromiseKind.CONSTRAINT:
            return "AA411"
        case PromiseKind.LINES:
            return "AA412"
        case PromiseKind.PAGE:
            return "AA413"
        case _:
            assert_never(kind)


@dataclass(frozen=True)
class Finding:
    code: str
    skill: str
    subject: str  # the quote key (PATH:START-END) or the claim id
    message: str
    file: str  # the skill file it sits on, as reports show paths
    line: int
    owners: str = ""  # who can heal it at its source, in words (the skill's Owners), "" when unknown

    @property
    def rule(self) -> Rule:
        return RULES[self.code]

    @property
    def drift(self) -> bool:
        return self.rule.drift

    @property
    def family(self) -> Family:
        return self.rule.family

    @property
    def key(self) -> str:
        """Stable across runs while the finding stays: what a baseline accepts."""
        return f"{self.skill}:{self.code}:{self.subject}"


def findings(report: AuditReport) -> list[Finding]:
    """Every finding of ``report`` its policy selects (``--select``, ``--ignore``), in report order."""
    return [f for f in _all_findings(report) if report.policy.selects(f.code)]


def skill_findings(skill: SkillReport) -> list[Finding]:
    """Every finding of one skill, unfiltered by any policy, in report order."""
    out: list[Finding] = []
    if skill.error is not None:
        out.append(Finding("AA301", skill.name, "skill", skill.error, _skill_md(skill), _line_of(skill.error)))
    if skill.skipped is not None:
        out.append(Finding("AA302", skill.name, "source", f"not audited: {skill.skipped}", _skill_md(skill), 1))
    if skill.sync is not None and skill.sync.differs:
        words = skill.sync.summary(skill.source)
        files = f"; the files: {', '.join(skill.out_of_sync)}" if skill.out_of_sync else ""
        message = f"the catalog's copy is out of sync with the repository's: {words}{files}"
        out.append(Finding("AA303", skill.name, "sync", message, _skill_md(skill), 1))
    if skill.contradicted:  # one finding for the card's date, however many paths contradict it
        said = "; ".join(contradiction_lines(skill.contradicted))
        out.append(Finding("AA206", skill.name, "validated_on", said, skill.card_path or _skill_md(skill), 1))
    for v in skill.versions_contradicted:  # one per claim: each is its own range on the card
        out.append(Finding("AA207", skill.name, f"validated_versions:{v.claim}", v.said,
                           skill.card_path or _skill_md(skill), v.line))  # fmt: skip
    out += [f for m in skill.anchors if (f := _anchor_finding(skill, m)) is not None]
    quoted = frozenset(m.quote.key for m in skill.anchors)  # SKILL.md's quotes, once for all the claims
    for claim in skill.claims:
        out += _claim_findings(skill, claim, quoted)
    if skill.folder_rename is not None:  # one finding for the slip, not one per path it rewrote
        out.append(Finding("AA410", skill.name, "folder-rename", skill.folder_rename.said, _skill_md(skill), 1))
    for promise in skill.promises:
        if promise.renamed is not None and skill.folder_rename is not None:
            continue  # said once, by the folder rename's finding
        out += _promise_finding(skill.name, promise)
    if skill.owners is not None:  # every format that shows a finding can say whom to ask
        out = [replace(f, owners=skill.owners.said) for f in out]
    return out


def _promise_finding(skill: str, promise: PromiseResult) -> list[Finding]:
    """A promise's finding, if it fails or cannot be checked (its code by kind and status)."""
    code = _promise_code(promise.kind, promise.status)
    if code is None:
        return []
    if promise.kind is PromiseKind.TESTS and promise.found is not None:
        message = f"{promise.path} defines {promise.found} tests; SKILL.md promises {promise.promised} passed"
    else:
        verb = "differs" if promise.status is PromiseStatus.DIFFERS else f"is {promise.status}"
        message = f"{promise.kind} {promise.path} {verb}" + (f": {promise.detail}" if promise.detail else "")
    return [Finding(code, skill, f"{promise.kind}:{promise.path}", message, promise.file, promise.line)]


def _all_findings(report: AuditReport) -> list[Finding]:
    out: list[Finding] = []
    for skill in report.skills:
        out += skill_findings(skill)
    for folder in report.unlisted:
        message = f"not audited: {unlisted_words(folder)}"
        out.append(Finding("AA304", folder.name, "unlisted", message, f"skills/{folder.name}/SKILL.md", 1))
        out += [f for promise in folder.promises for f in _promise_finding(folder.name, promise)]
    return out


def unlisted_words(folder: UnlistedFolder) -> str:
    """Why a catalog's folder is not audited, and which checks ran on it all the same."""
    listed = f"; listed in {folder.listed_in}" + (f": {folder.reason}" if folder.reason else "")
    ran = "; only the checks that need no code ran" if folder.promises else ""
    return f"no components.d entry names it{listed if folder.listed_in else ''}{ran}"


def _line_of(message: str) -> int:
    """The line a one-line error names (``FILE:LINE: what``), else 1."""
    match = re.match(r"^[^:\s]+:(\d{1,9}):", message)
    return int(match.group(1)) if match else 1


def _skill_md(skill: SkillReport) -> str:
    return f"{skill.path.rstrip('/')}/SKILL.md"


def _anchor_finding(skill: SkillReport, match: QuoteMatch) -> Finding | None:
    code = _ANCHOR_RULE.get(match.status)
    if code is None:
        return None
    declared = f"{match.quote.declared.start}:{match.quote.declared.end}"
    if isinstance(match, Relocated):
        message = f"quote {match.quote.path} {declared}: the code is now in {match.found_path} at lines {match.found}"
    elif isinstance(match, Moved):
        message = (
            f"quote {match.quote.path} {declared} moved: the code is at lines {match.found}; "
            f"use {match.suggested.start}:{match.suggested.end}"
        )
    else:
        message = f"quote {match.quote.path} {declared} is {match.status.value}: {match.detail}".rstrip(": ")
    return Finding(code, skill.name, match.quote.key, message, _skill_md(skill), match.quote.skill_line)


def _claim_findings(skill: SkillReport, claim: ClaimVerdict, quoted: frozenset[str]) -> list[Finding]:
    file = skill.card_path or _skill_md(skill)
    line = claim.card_line or 1
    out: list[Finding] = []
    failing = "; ".join(
        f"{e.kind} {e.ref}: {e.status}" + (f" ({e.detail})" if e.detail else "") for e in claim.evidence if not e.ok
    )
    if claim.verdict is Verdict.BROKEN:
        out.append(Finding("AA201", skill.name, claim.id, f"claim {claim.id} is broken: {failing}", file, line))
    elif claim.verdict is Verdict.UNVERIFIABLE:
        message = f"claim {claim.id} could not be verified: {failing}"
        out.append(Finding("AA202", skill.name, claim.id, message, file, line))
    elif claim.verdict is Verdict.UNLINKED:
        message = f"claim {claim.id} is tagged code_verified, but no evidence is registered for it"
        out.append(Finding("AA205", skill.name, claim.id, message, file, line))
    if claim.mismatch:
        out.append(Finding("AA203", skill.name, claim.id, f"claim {claim.id}: {claim.mismatch}", file, line))
    for item in claim.evidence:  # a card comment's own range (no SKILL.md quote covers it) whose code moved
        if item.kind is EvidenceKind.QUOTE and item.status is AnchorStatus.MOVED and item.ref not in quoted:
            message = (f"claim {claim.id}: card.yaml cites {item.ref}; the code it cited on the validation day is at "
                       f"{item.location} now")  # fmt: skip
            out.append(Finding("AA412", skill.name, f"{claim.id}:{item.ref}", message, file, line))
    for item in claim.evidence:
        if item.stale:
            message = f"claim {claim.id}: {item.stale}: the anchor was stale on its own validation day"
            out.append(Finding("AA208", skill.name, f"{claim.id}:{item.ref}", message, file, line))
    for tag in claim.unknown_tags:
        message = f"claim {claim.id}: unknown tag {tag!r}, kept"
        out.append(Finding("AA204", skill.name, f"{claim.id}:{tag}", message, file, line))
    return out


# Notes that count as drift only with ``check --strict``: a catalog must be able to go green without them.
STRICT = frozenset({"AA205"})


# --fail-on LEVEL (and fail-on-codes' levels): the SARIF levels of drift that fail the run
FAIL_LEVELS = {"error": ("error",), "warning": ("error", "warning")}


def counts_as_drift(finding: Finding, report: AuditReport) -> bool:
    """Whether ``finding`` fails the run: drift by its rule (or --strict), of a level ``--fail-on`` counts, and
    not accepted by the baseline."""
    policy = report.policy
    drift = finding.drift or (policy.strict and finding.code in STRICT)
    level = policy.fail_level(finding.code)
    if level == "never" or (level is not None and finding.rule.level not in FAIL_LEVELS[level]):
        return False
    return drift and finding.key not in report.accepted


def exit_code(report: AuditReport) -> ExitCode:
    """The policy CI gates on: DRIFT when any finding counts as drift (see :func:`counts_as_drift`), unless
    ``--exit-zero``."""
    if report.policy.exit_zero or not any(counts_as_drift(f, report) for f in findings(report)):
        return ExitCode.OK
    return ExitCode.DRIFT


def exit_words(report: AuditReport, code: ExitCode) -> str:
    """What the exit code means for this report: never "all hold" about what was not checked."""
    if code is ExitCode.DRIFT:
        return "drift"
    found = findings(report)
    if report.policy.exit_zero and any(counts_as_drift(f, report) for f in found):
        return "drift, but --exit-zero"
    if report.policy.fail_on_codes and any(f.drift and f.key not in report.accepted for f in found):
        return "no drift that fail-on-codes fails on"
    if report.policy.fail_on and any(f.drift and f.key not in report.accepted for f in found):
        return f"no drift of level {report.policy.fail_on} or worse"
    if any(f.key in report.accepted and f.drift for f in found):
        return "no drift but what the baseline accepts"
    if not any(s.anchors or s.claims or s.promises for s in report.skills):
        return "nothing to check"
    if report.claim_counts().get(Verdict.UNLINKED.value):
        return "all linked evidence holds"
    return "all hold"
