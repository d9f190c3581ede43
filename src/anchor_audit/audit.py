"""Spec + skills + a source tree -> verdicts.

This is the one place where checking meets reading: each quote and condition
gets the text of its file from the tree and a matcher judges it.  Nothing
here raises for one claim: a file that cannot be read, or a matcher that
fails, becomes a result for the quotes and claims that needed it.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable, TypeVar

from .errors import BoundExceeded, NotCarried, UnreadableFile
from .match.quote import match_quote, relocate
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
    PromiseResult,
    Quote,
    QuoteMatch,
    Skill,
    SkillReport,
    SkillSpec,
    Spec,
    Verdict,
)
from .promises import check_promises
from .resultcache import (
    ResultStore,
    condition_key,
    dump_condition,
    dump_quote,
    load_condition,
    load_quote,
    promise_key,
    quote_key,
)
from .source import SourceTree

_FOUND = (AnchorStatus.EXACT, AnchorStatus.MOVED, AnchorStatus.RELOCATED)
_UNCHECKED_ANCHOR = (AnchorStatus.UNVERIFIABLE, AnchorStatus.INCOMPLETE, AnchorStatus.ERROR)
_UNCHECKED_CONDITION = (ConditionStatus.UNVERIFIABLE, ConditionStatus.INCOMPLETE, ConditionStatus.ERROR)

R = TypeVar("R")


class Judge:
    """Judges quotes and conditions, sharing work by content.

    A result depends only on the blob and the quote (or condition), so it is
    kept in memory for the run and, with a :class:`ResultStore`, on disk for
    later runs; a hit reads and parses nothing.
    """

    def __init__(self, store: ResultStore | None = None) -> None:
        self.store = store
        self._quotes: dict[str, QuoteMatch] = {}
        self._conditions: dict[str, ConditionResult] = {}
        self._relocations: dict[tuple[int, str, tuple[str, ...]], QuoteMatch | None] = {}
        self._memo: dict[str, dict[str, Any]] = {}
        self.computed = 0  # results a matcher had to compute (cache misses)

    def quote(self, quote: Quote, tree: SourceTree) -> QuoteMatch:
        def unchecked(status: AnchorStatus, detail: str) -> QuoteMatch:
            return QuoteMatch(quote, status, detail=detail)

        return _guarded(
            lambda: self._quote(quote, tree),
            not_carried=lambda msg: unchecked(AnchorStatus.UNVERIFIABLE, msg),
            bounded=lambda msg: unchecked(AnchorStatus.INCOMPLETE, msg),
            failed=lambda msg: unchecked(AnchorStatus.ERROR, msg),
        )

    def condition(self, condition: Condition, tree: SourceTree) -> ConditionResult:
        def unchecked(status: ConditionStatus, detail: str) -> ConditionResult:
            return ConditionResult(condition, status, detail=detail)

        return _guarded(
            lambda: self._condition(condition, tree),
            not_carried=lambda msg: unchecked(ConditionStatus.UNVERIFIABLE, msg),
            bounded=lambda msg: unchecked(ConditionStatus.INCOMPLETE, msg),
            failed=lambda msg: unchecked(ConditionStatus.ERROR, msg),
        )

    def _quote(self, quote: Quote, tree: SourceTree) -> QuoteMatch:
        blob = tree.blob_id(quote.path)
        if blob is None:
            return self._relocated(quote, tree) or match_quote(quote, None)
        key = quote_key(blob, quote)
        hit = self._quotes.get(key)
        if hit is None and self.store is not None:
            data = self.store.get(key)
            hit = load_quote(quote, data) if data is not None else None
        if hit is None:
            self.computed += 1
            hit = match_quote(quote, tree.read(quote.path))
            if self.store is not None:
                self.store.put(key, dump_quote(hit))
        self._quotes[key] = hit
        if hit.status is AnchorStatus.CHANGED:
            return self._relocated(quote, tree) or replace(hit, quote=quote)
        return replace(hit, quote=quote)  # the same content may sit at another line of SKILL.md

    def memo(self, key: str, compute: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        """A promise's result by content key (``tests|<blob>``, ...), from memory, disk, or ``compute``."""
        if key not in self._memo:
            stored_key = promise_key(key)
            found = self.store.get(stored_key) if self.store is not None else None
            if found is None:
                found = compute()
                if self.store is not None:
                    self.store.put(stored_key, found)
            self._memo[key] = found
        return self._memo[key]

    def _relocated(self, quote: Quote, tree: SourceTree) -> QuoteMatch | None:
        """The quote found in another file of the tree, or None (searched once per tree and quote)."""
        key = (id(tree), quote.key, quote.body)
        if key not in self._relocations:
            self._relocations[key] = relocate(quote, tree)
        found = self._relocations[key]
        return replace(found, quote=quote) if found else None

    def _condition(self, condition: Condition, tree: SourceTree) -> ConditionResult:
        blob = tree.blob_id(condition.path)
        key = condition_key(blob, condition) if blob else None
        hit = self._conditions.get(key) if key else None
        if hit is None and key and self.store is not None:
            data = self.store.get(key)
            hit = load_condition(condition, data) if data is not None else None
        if hit is None:
            # libcst is imported here, where a condition is really checked, never on a cache hit.
            from .match.condition import check_condition

            if key is None:
                return check_condition(condition, None)
            self.computed += 1
            hit = check_condition(condition, tree.read(condition.path))
            if self.store is not None:
                self.store.put(key, dump_condition(hit))
        if key is not None:
            self._conditions[key] = hit
        return replace(hit, condition=condition)


def audit(
    skills: list[tuple[Skill, SkillSpec | None]],
    tree: SourceTree,
    spec: Spec | None = None,
    judge: Judge | None = None,
    promises: bool = True,
) -> AuditReport:
    """Audit each skill (with its registry entry, if any) against ``tree``.

    ``promises=False`` skips the promises no verdict depends on (history tracks quotes and claims only).
    """
    judge = judge or Judge()
    reports = tuple(audit_skill(skill, entry, tree, judge, promises) for skill, entry in skills)
    return AuditReport(tree.info, reports, spec.warnings if spec else ())


def audit_skill(
    skill: Skill, entry: SkillSpec | None, tree: SourceTree, judge: Judge | None = None, promises: bool = True
) -> SkillReport:
    judge = judge or Judge()
    notes: list[str] = []
    anchors = tuple(judge.quote(q, tree) for q in skill.quotes)
    if entry is None:
        notes.append("no entry in anchors.yaml: quotes are checked on their own, claims have no evidence")
    by_key = {m.quote.key: m for m in anchors}
    spec_claims = {c.id: c for c in entry.claims} if entry else {}
    card_claims = {c.id: c for c in skill.card.claims} if skill.card else {}
    ids = list(card_claims) + [cid for cid in spec_claims if cid not in card_claims]
    claims = []
    for cid in ids:
        card = card_claims.get(cid)
        missing_from_card = skill.card is not None and card is None
        tags = card.tags if card else ()
        verdict = _verdict(cid, tags, spec_claims.get(cid), by_key, tree, judge, missing_from_card)
        claims.append(replace(verdict, card_line=card.line) if card else verdict)
    card_path = f"{skill.path.rstrip('/')}/card.yaml" if skill.card else None
    needed = promises or any("file_exists" in c.declared for c in claims)  # file_exists verdicts need them
    kept = check_promises(skill, tree, evidence_only=not promises, memo=judge.memo) if needed else ()
    claims = [_file_claim(c, kept) if entry is None or not _registered(entry, c.id) else c for c in claims]
    return SkillReport(skill.name, skill.path, anchors, tuple(claims), tuple(notes), card_path, kept)


def _registered(entry: SkillSpec, cid: str) -> bool:
    return any(c.id == cid and c.has_evidence for c in entry.claims)


def _file_claim(claim: ClaimVerdict, promises: tuple[PromiseResult, ...]) -> ClaimVerdict:
    """A claim the registry does not back: `file_exists` claims are checked by card.yaml's evidence
    paths; a `code_verified` claim of a skill with no registry entry is unverifiable, not broken."""
    if "file_exists" in claim.declared:
        paths = [p for p in promises if p.kind == "evidence"]
        evidence = tuple(
            Evidence("file", p.path, p.status == "exists", p.status, p.detail, p.path if p.status == "exists" else None)
            for p in paths
        )
        if not evidence:
            return claim
        verdict = (
            Verdict.BROKEN if any(p.status == "missing" for p in paths)
            else Verdict.UNVERIFIABLE if any(p.status != "exists" for p in paths)
            else Verdict.CODE_VERIFIED
        )  # fmt: skip
        return replace(claim, verdict=verdict, evidence=evidence, mismatch=None)
    if "code_verified" in claim.declared and claim.verdict is Verdict.DOC_ONLY and claim.mismatch:
        why = "no evidence is registered for this claim (anchor-audit init drafts an anchors.yaml entry)"
        evidence = (Evidence("registry", "anchors.yaml", False, "unverifiable", why),)
        return replace(claim, verdict=Verdict.UNVERIFIABLE, evidence=evidence, mismatch=None)
    return claim


def _guarded(
    run: Callable[[], R],
    not_carried: Callable[[str], R],
    bounded: Callable[[str], R],
    failed: Callable[[str], R],
) -> R:
    """Run one check; whatever goes wrong becomes that check's result."""
    try:
        return run()
    except NotCarried as exc:
        return not_carried(str(exc))
    except BoundExceeded as exc:
        return bounded(str(exc))
    except UnreadableFile as exc:
        return failed(str(exc))
    except RecursionError:
        return bounded("the code is nested too deeply to check")
    except Exception as exc:  # noqa: BLE001 - the boundary where one check may not crash the run
        return failed(f"internal error while checking: {type(exc).__name__}: {exc}")


def _verdict(
    cid: str,
    tags: tuple[str, ...],
    entry: ClaimSpec | None,
    anchors: dict[str, QuoteMatch],
    tree: SourceTree,
    judge: Judge,
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
        result = judge.condition(condition, tree)
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
