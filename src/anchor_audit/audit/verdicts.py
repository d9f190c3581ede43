"""A skill's claims given verdicts by their evidence: the quotes and conditions anchors.yaml registers, else the
quotes and lines card.yaml's comments link, else (``code_verified``) the quotes SKILL.md captions with the claim's
words (:mod:`anchor_audit.checks.captions`), else the validations the claim's id names
(:mod:`anchor_audit.checks.claimgates`), else the file or definition it names
(:mod:`anchor_audit.checks.claimnames`) or the tests it names (:mod:`anchor_audit.checks.claimtests`), else
the quotes whose code names it (:mod:`anchor_audit.checks.claimquotes`) or, where only their comments do, the
examples its words caption (:mod:`anchor_audit.checks.claimexamples`), else (``file_exists``) the card's
evidence paths.

The verdict is what the evidence says: all holds (``code_verified``), some fails (``broken``), some could not
be checked (``unverifiable``), or there is none (``doc_only``); and how card.yaml's own tags contradict it.
"""

from __future__ import annotations

import contextlib
from dataclasses import replace

from ..checks import CHECKERS
from ..checks.behaviour import quote_evidence
from ..checks.captions import captioned
from ..checks.claimexamples import example_evidence
from ..checks.claimgates import gate_evidence, value_evidence
from ..checks.claimnames import named_evidence, paths_named
from ..checks.claimquotes import named_by_code, named_by_comments_only
from ..checks.claimtests import tests_evidence
from ..checks.fencecomments import elided
from ..checks.protocol import Context
from ..errors import NotCarried, UnreadableFile
from ..model import (
    KNOWN_TAGS,
    AnchorStatus,
    CardClaim,
    ClaimSpec,
    ClaimVerdict,
    ConditionStatus,
    Evidence,
    EvidenceKind,
    Located,
    Location,
    Mismatch,
    PromiseKind,
    PromiseResult,
    PromiseStatus,
    QuoteMatch,
    ReferenceKind,
    RegistryStatus,
    SkillSpec,
    Verdict,
)

_UNCHECKED_ANCHOR = (AnchorStatus.UNVERIFIABLE, AnchorStatus.INCOMPLETE, AnchorStatus.ERROR)
_UNCHECKED_CONDITION = (ConditionStatus.UNVERIFIABLE, ConditionStatus.INCOMPLETE, ConditionStatus.ERROR)


def claim_verdicts(ctx: Context, anchors: tuple[QuoteMatch, ...]) -> tuple[list[ClaimVerdict], set[str], list[str]]:
    """Each claim of the card (then each the registry adds) with the verdict of its evidence; the claims card.yaml's
    comments link; notes (a comment's name that fits several files)."""
    skill, entry = ctx.skill, ctx.entry
    by_key = {m.quote.key: m for m in anchors}
    spec_claims = {c.id: c for c in entry.claims} if entry else {}
    card_claims = {c.id: c for c in skill.card.claims} if skill.card else {}
    ids = list(card_claims) + [cid for cid in spec_claims if cid not in card_claims]
    claims, notes = [], []
    linked: set[str] = set()
    for cid in ids:
        card = card_claims.get(cid)
        missing_from_card = skill.card is not None and card is None
        tags = card.tags if card else ()
        own = None if entry and _registered(entry, cid) else _own_evidence(card, by_key, ctx)  # the registry wins
        if own is not None:
            evidence, said = own
            notes += said
            verdict = _conclude(cid, tags, evidence, False)
            linked.add(cid)
        else:
            verdict = _verdict(cid, tags, spec_claims.get(cid), by_key, ctx, missing_from_card)
        claims.append(replace(verdict, card_line=card.line) if card else verdict)
    return claims, linked, notes


def _own_evidence(
    card: CardClaim | None, by_key: dict[str, QuoteMatch], ctx: Context
) -> tuple[list[Evidence], list[str]] | None:
    """The evidence the skill's own files give a claim, and notes: its card.yaml comments, else (``code_verified``)
    the quotes its words caption, else the validations its id names; None where none links it."""
    if card is None:
        return None
    if card.anchors:
        evidence, notes = CHECKERS[ReferenceKind.CARD_ANCHOR].check(card, ctx)
        return [*evidence, *_past_stale(card, evidence, ctx)], notes
    if "code_verified" not in card.tags:
        return None
    quotes = captioned(card.id, ctx.skill.quotes)
    if quotes:
        return [_linked(by_key[q.key], ctx, f"by the caption {q.caption!r}") for q in quotes if q.key in by_key], []
    found = gate_evidence(card.id, ctx) or named_evidence(card.id, ctx) or tests_evidence(card.id, ctx)
    if not found:
        coded = [by_key[q.key] for q in named_by_code(card.id, ctx.skill.quotes) if q.key in by_key]
        found = [_by_code(card.id, match, ctx) for match in coded]
        if all(named_by_comments_only(card.id, match.quote) for match in coded):  # no quote's code says it: the
            found = example_evidence(card.id, ctx) or found  # example whose caption names the claim says more
    found = found or value_evidence(card.id, ctx)  # its words the values a setting's validations compare it with
    return (found, []) if found else None


def _past_stale(card: CardClaim, evidence: list[Evidence], ctx: Context) -> list[Evidence]:
    """Where every card comment of a ``code_verified`` claim was stale on its own day (no evidence), the
    validations its id names in the files they point into or the card's own (:mod:`..checks.claimgates`)."""
    if not evidence or not all(e.stale for e in evidence) or "code_verified" not in card.tags:
        return []
    files = tuple(dict.fromkeys(e.ref.rsplit(":", 1)[0] for e in evidence))
    return gate_evidence(card.id, ctx, files) or value_evidence(card.id, ctx, files)


def _by_code(claim_id: str, match: QuoteMatch, ctx: Context) -> Evidence:
    """A quote linked by what its code names: where it is judged by its facts (its text drifted), the words of the
    claim that only its comments say are no fact of it, so it cannot hold the claim."""
    found = _linked(match, ctx, "by what its code names")
    judged = found.ok and not isinstance(match, Located)
    unsaid = named_by_comments_only(claim_id, match.quote) if judged else frozenset()
    then = ctx.validated() if unsaid else None
    if then is not None:  # words of a comment whose elided validations the quote's facts are, are said by them
        with contextlib.suppress(NotCarried, UnreadableFile):  # a file out of reach elides nothing said
            unsaid = unsaid - elided(match.quote, then)[1]
    if not unsaid:
        return found
    words = " and ".join(sorted(unsaid))
    return replace(found, ok=False, status=AnchorStatus.UNVERIFIABLE, detail=(
        f"linked by what its code names ({words} only in its comments, which say what it elides): {found.detail}; "
        f"but no fact of the quote is about {words}: re-verify"))


def _linked(match: QuoteMatch, ctx: Context, how: str) -> Evidence:
    """A quote a claim is linked to by its caption or by what its code names: its evidence, saying how it was
    linked where it fails."""
    found = quote_evidence(match, ctx)
    if found.ok:
        return found
    return replace(found, detail=f"linked {how}: {found.detail}")


def with_file_claims(
    claims: list[ClaimVerdict],
    linked: set[str],
    notes: list[str],
    promises: tuple[PromiseResult, ...],
    entry: SkillSpec | None,
    quoted: bool = True,
) -> tuple[list[ClaimVerdict], list[str]]:
    """The claims no evidence backs, given what card.yaml's evidence paths say (``file_exists``) or said to have
    none; and the notes, with the one of a skill the registry does not list first (none for a skill with no quote
    and no claim: there is nothing the registry would say of it)."""
    has_entry = entry is not None
    claims = [
        c if c.id in linked or (entry is not None and _registered(entry, c.id)) else _file_claim(c, promises, has_entry)
        for c in claims
    ]
    if entry is not None or (not quoted and not claims):
        return claims, notes
    return claims, [_no_entry_note(claims, linked, quoted), *notes]


def _no_entry_note(claims: list[ClaimVerdict], linked: set[str], quoted: bool = True) -> str:
    """The note of a skill anchors.yaml does not list, agreeing with its claims (some may have evidence: card.yaml
    comments link them, or its file paths check them)."""
    said = "no entry in anchors.yaml: quotes are checked on their own" if quoted else "no entry in anchors.yaml"
    backed = [c for c in claims if c.id in linked or any(e.kind is EvidenceKind.FILE for e in c.evidence)]
    if not claims:
        return said
    if not backed:
        return said + ", claims have no evidence"
    if len(backed) == len(claims):
        return said + ", claims are checked by card.yaml's own comments and paths and SKILL.md's captions"
    return said + f"; {len(backed)} of {len(claims)} claims have evidence from the skill's own files, the others none"


def _registered(entry: SkillSpec, cid: str) -> bool:
    return any(c.id == cid and c.has_evidence for c in entry.claims)


def _file_at(promise: PromiseResult) -> Location | None:
    return Location(promise.path) if promise.status.ok else None


def _file_claim(claim: ClaimVerdict, promises: tuple[PromiseResult, ...], has_entry: bool = False) -> ClaimVerdict:
    """A claim the registry does not back: `file_exists` claims are checked by card.yaml's evidence
    paths; a `code_verified` claim of a skill with no registry entry is unverifiable, not broken."""
    if "file_exists" in claim.declared:
        evidence = _file_evidence(claim.id, [p for p in promises if p.kind is PromiseKind.EVIDENCE])
        if not evidence:
            return claim
        verdict = (
            Verdict.BROKEN if any(e.status is PromiseStatus.MISSING for e in evidence)
            else Verdict.UNVERIFIABLE if any(not e.ok for e in evidence)
            else Verdict.CODE_VERIFIED
        )  # fmt: skip
        # The card's file_exists is a claim too: a path it names that is gone contradicts it.
        mismatch = Mismatch.FILES_MISSING if verdict is Verdict.BROKEN else None
        return replace(claim, verdict=verdict, evidence=evidence, mismatch=mismatch)
    if "code_verified" in claim.declared and claim.verdict is Verdict.DOC_ONLY and claim.mismatch:
        why = (
            "anchors.yaml's entry registers no evidence for this claim (add its quotes or conditions there)"
            if has_entry
            else "no evidence is registered for this claim (anchor-audit init drafts an anchors.yaml entry)"
        )
        evidence = (Evidence(EvidenceKind.REGISTRY, "anchors.yaml", False, RegistryStatus.NO_ENTRY, why),)
        return replace(claim, verdict=Verdict.UNLINKED, evidence=evidence, mismatch=None)
    return claim


def _file_evidence(cid: str, paths: list[PromiseResult]) -> tuple[Evidence, ...]:
    """A ``file_exists`` claim's evidence: the card's evidence paths its words name (all, where they name none),
    each there, or there under another path (moved, or written with the skill's new folder name: the card's path
    drifted, a finding of its own that fix heals; the file the claim rests on is there), not yet there (the
    default branch adds it after this commit: unverifiable, the card describes newer code), or gone."""
    named = set(paths_named(cid, [p.path for p in paths]))
    out = []
    for p in (p for p in paths if p.path in named):
        if p.status is PromiseStatus.MISSING and p.now is not None:
            why = f"there as {p.now}: {p.detail}; the card's path is stale"
            out.append(Evidence(EvidenceKind.FILE, p.path, True, PromiseStatus.EXISTS, why, Location(p.now)))
        elif p.status is PromiseStatus.MISSING and p.landed is not None:  # says nothing of the claim that day
            why = f"{p.detail}: the card describes code that landed after this commit; re-verify the claim"
            out.append(Evidence(EvidenceKind.FILE, p.path, False, PromiseStatus.UNVERIFIABLE, why))
        else:
            out.append(Evidence(EvidenceKind.FILE, p.path, p.status.ok, p.status, p.detail, _file_at(p)))
    return tuple(out)


def _verdict(
    cid: str,
    tags: tuple[str, ...],
    entry: ClaimSpec | None,
    anchors: dict[str, QuoteMatch],
    ctx: Context,
    missing_from_card: bool,
) -> ClaimVerdict:
    """The verdict from the evidence anchors.yaml registers for the claim."""
    evidence: list[Evidence] = []
    for key in entry.quotes if entry else ():
        match = anchors.get(key)
        if match is None:
            why = "SKILL.md has no quote with this range"
            evidence.append(Evidence(EvidenceKind.QUOTE, key, False, RegistryStatus.UNRESOLVED, why))
            continue
        evidence.append(quote_evidence(match, ctx, key))
    for condition in entry.conditions if entry else ():
        result = CHECKERS[ReferenceKind.CONDITION].check(condition, ctx)
        ok = result.status is ConditionStatus.HOLDS
        evidence.append(
            Evidence(EvidenceKind.CONDITION, condition.describe(), ok, result.status, result.detail, result.location)
        )
    return _conclude(cid, tags, evidence, entry is not None and missing_from_card)


_UNCHECKED = (*_UNCHECKED_ANCHOR, *_UNCHECKED_CONDITION, PromiseStatus.UNVERIFIABLE, PromiseStatus.ERROR)


def _conclude(cid: str, tags: tuple[str, ...], evidence: list[Evidence], missing_from_card: bool) -> ClaimVerdict:
    """The verdict the evidence gives: all holds, some fails, some could not be checked, or none.  An anchor that
    was stale on its own validation day is no evidence where there is other (it is reported all the same)."""
    counted = [e for e in evidence if not e.stale] or evidence
    unchecked = any(not e.ok and e.status in _UNCHECKED for e in counted)
    failed = any(not e.ok and e.status not in _UNCHECKED for e in counted)
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
        mismatch=_mismatch(tags, verdict, missing_from_card),
        unknown_tags=tuple(t for t in tags if t not in KNOWN_TAGS),
    )


def _mismatch(tags: tuple[str, ...], verdict: Verdict, missing_from_card: bool) -> Mismatch | None:
    """How card.yaml contradicts the verdict, if it does."""
    if missing_from_card:
        return Mismatch.NOT_ON_CARD
    if "code_verified" in tags:
        if verdict is Verdict.DOC_ONLY:
            return Mismatch.NO_EVIDENCE
        if verdict is Verdict.BROKEN:
            return Mismatch.EVIDENCE_FAILS
    if "doc_only" in tags and verdict is Verdict.CODE_VERIFIED:
        return Mismatch.EVIDENCE_HOLDS
    return None
