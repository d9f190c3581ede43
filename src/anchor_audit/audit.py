"""Spec + skills + a source tree -> verdicts.

This is the one place where checking meets reading: each quote and condition
gets the text of its file from the tree and a matcher judges it.  Nothing
here raises for one claim: a file that cannot be read, or a matcher that
fails, becomes a result for the quotes and claims that needed it.
"""

from __future__ import annotations

from typing import Callable, TypeVar

from .errors import NotCarried, UnreadableFile
from .match.condition import check_condition
from .match.quote import match_quote
from .model import (
    KNOWN_TAGS,
    AnchorStatus,
    AuditReport,
    ClaimSpec,
    ClaimVerdict,
    Condition,
    ConditionResult,
    ConditionStatus,
    Evidence,
    Quote,
    QuoteMatch,
    Skill,
    SkillReport,
    SkillSpec,
    Spec,
    Verdict,
)
from .source import SourceTree

_FOUND = (AnchorStatus.EXACT, AnchorStatus.MOVED)
_UNCHECKED_ANCHOR = (AnchorStatus.UNVERIFIABLE, AnchorStatus.ERROR)
_UNCHECKED_CONDITION = (ConditionStatus.UNVERIFIABLE, ConditionStatus.ERROR)

R = TypeVar("R")


def audit(skills: list[tuple[Skill, SkillSpec | None]], tree: SourceTree, spec: Spec | None = None) -> AuditReport:
    """Audit each skill (with its registry entry, if any) against ``tree``."""
    reports = tuple(audit_skill(skill, entry, tree) for skill, entry in skills)
    return AuditReport(tree.info, reports, spec.warnings if spec else ())


def audit_skill(skill: Skill, entry: SkillSpec | None, tree: SourceTree) -> SkillReport:
    notes: list[str] = []
    anchors = tuple(_judge_quote(q, tree) for q in skill.quotes)
    if entry is None:
        notes.append("no entry in anchors.yaml: quotes are checked on their own, claims have no evidence")
    by_key = {m.quote.key: m for m in anchors}
    spec_claims = {c.id: c for c in entry.claims} if entry else {}
    card_claims = {c.id: c for c in skill.card.claims} if skill.card else {}
    ids = list(card_claims) + [cid for cid in spec_claims if cid not in card_claims]
    claims = []
    for cid in ids:
        card = card_claims.get(cid)
        claims.append(
            _verdict(
                cid,
                card.tags if card else (),
                spec_claims.get(cid),
                by_key,
                tree,
                skill.card is not None and card is None,
            )
        )
    return SkillReport(skill.name, skill.path, anchors, tuple(claims), tuple(notes))


def _judge_quote(quote: Quote, tree: SourceTree) -> QuoteMatch:
    def unchecked(status: AnchorStatus, detail: str) -> QuoteMatch:
        return QuoteMatch(quote, status, detail=detail)

    return _guarded(
        lambda: match_quote(quote, tree.read(quote.path)),
        not_carried=lambda msg: unchecked(AnchorStatus.UNVERIFIABLE, msg),
        failed=lambda msg: unchecked(AnchorStatus.ERROR, msg),
    )


def _judge_condition(condition: Condition, tree: SourceTree) -> ConditionResult:
    def unchecked(status: ConditionStatus, detail: str) -> ConditionResult:
        return ConditionResult(condition, status, detail=detail)

    return _guarded(
        lambda: check_condition(condition, tree.read(condition.path)),
        not_carried=lambda msg: unchecked(ConditionStatus.UNVERIFIABLE, msg),
        failed=lambda msg: unchecked(ConditionStatus.ERROR, msg),
    )


def _guarded(run: Callable[[], R], not_carried: Callable[[str], R], failed: Callable[[str], R]) -> R:
    """Run one check; whatever goes wrong becomes that check's result."""
    try:
        return run()
    except NotCarried as exc:
        return not_carried(str(exc))
    except UnreadableFile as exc:
        return failed(str(exc))
    except RecursionError:
        return failed("the code is nested too deeply to check")
    except Exception as exc:  # noqa: BLE001 - the boundary where one check may not crash the run
        return failed(f"internal error while checking: {type(exc).__name__}: {exc}")


def _verdict(
    cid: str,
    tags: tuple[str, ...],
    entry: ClaimSpec | None,
    anchors: dict[str, QuoteMatch],
    tree: SourceTree,
    missing_from_card: bool,
) -> ClaimVerdict:
    evidence: list[Evidence] = []
    unchecked = failed = False
    for key in entry.quotes if entry else ():
        match = anchors.get(key)
        if match is None:
            evidence.append(Evidence("quote", key, False, "unresolved", "SKILL.md has no quote with this range"))
            failed = True
            continue
        ok = match.status in _FOUND
        unchecked |= match.status in _UNCHECKED_ANCHOR
        failed |= not ok and match.status not in _UNCHECKED_ANCHOR
        location = f"{match.quote.path}:{match.found}" if match.found else None
        evidence.append(Evidence("quote", key, ok, match.status.value, match.detail, location))
    for condition in entry.conditions if entry else ():
        result = _judge_condition(condition, tree)
        ok = result.status is ConditionStatus.HOLDS
        unchecked |= result.status in _UNCHECKED_CONDITION
        failed |= not ok and result.status not in _UNCHECKED_CONDITION
        evidence.append(
            Evidence("condition", condition.describe(), ok, result.status.value, result.detail, result.location)
        )

    if not evidence:
        verdict = Verdict.DOC_ONLY
    elif failed:
        verdict = Verdict.BROKEN
    elif unchecked:
        verdict = Verdict.UNVERIFIABLE
    else:
        verdict = Verdict.CODE_VERIFIED
    return ClaimVerdict(
        id=cid,
        declared=tags,
        verdict=verdict,
        evidence=tuple(evidence),
        mismatch=_mismatch(tags, verdict, entry is not None and missing_from_card),
        unknown_tags=tuple(t for t in tags if t not in KNOWN_TAGS),
    )


def _mismatch(tags: tuple[str, ...], verdict: Verdict, missing_from_card: bool) -> str | None:
    """How card.yaml contradicts the verdict, if it does."""
    if missing_from_card:
        return "card.yaml does not list this claim"
    if "code_verified" in tags:
        if verdict is Verdict.DOC_ONLY:
            return "card.yaml says code_verified, but anchors.yaml registers no evidence"
        if verdict is Verdict.BROKEN:
            return "card.yaml says code_verified, but its evidence fails"
    if "doc_only" in tags and verdict is Verdict.CODE_VERIFIED:
        return "card.yaml says doc_only, but the registered evidence holds"
    return None
