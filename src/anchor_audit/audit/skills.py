"""Spec + skills + a source tree -> verdicts.

This is the one place where checking meets reading: each quote and condition
gets the text of its file from the tree and a matcher judges it.  Nothing
here raises for one claim: a file that cannot be read, or a matcher that
fails, becomes a result for the quotes and claims that needed it.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable, Sequence, TypeVar

from ..checks import CHECKERS
from ..checks.names import expect_names, name_searches
from ..checks.promises import check_promises
from ..checks.prose import check_citations
from ..checks.protocol import Context
from ..checks.reads import reads
from ..checks.validation import with_skill_facts
from ..errors import BoundExceeded
from ..model import (
    KNOWN_TAGS,
    AnchorStatus,
    AuditReport,
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
    Skill,
    SkillReport,
    SkillSpec,
    Spec,
    UnreadableSkill,
    Verdict,
)
from ..source import Progress, SourceTree, no_progress
from .judge import Judge
from .kept import keep, kept_key, recalled
from .parallel import Spread, spreading

R = TypeVar("R")
# Items prepared together (a catalog's skills read, and each tree searched once for them): enough that a
# component's skills share a search, few enough that what a window holds stays small beside a whole catalog.
PREPARED_AT_ONCE = 64
_UNCHECKED_ANCHOR = (AnchorStatus.UNVERIFIABLE, AnchorStatus.INCOMPLETE, AnchorStatus.ERROR)
_UNCHECKED_CONDITION = (ConditionStatus.UNVERIFIABLE, ConditionStatus.INCOMPLETE, ConditionStatus.ERROR)

def audit(
    skills: Sequence[tuple[Skill, SkillSpec | None] | UnreadableSkill],
    tree: SourceTree,
    spec: Spec | None = None,
    judge: Judge | None = None,
    promises: bool = True,
    progress: Progress = no_progress,
    jobs: int = 1,
    facts: bool = True,
) -> AuditReport:
    """Audit each skill (with its registry entry, if any) against ``tree``, over ``jobs`` worker processes.

    ``promises=False`` skips the promises no verdict depends on; ``facts=False``, what is said of a skill as a
    whole (its card's dates contradicted, its folder renamed, who can heal it): a history or an impact compares
    statuses, and reports none of these.
    """
    judge = judge or Judge()
    keys = [None if facts or isinstance(item, UnreadableSkill) else kept_key(*item, tree, promises) for item in skills]
    known = {i: found for i, key in enumerate(keys) if key and (found := recalled(judge, key)) is not None}
    readable = [item[0] for i, item in enumerate(skills) if not isinstance(item, UnreadableSkill) and i not in known]
    presearch(readable, tree, judge)

    def prepare(window: range) -> None:  # in the process that audits them: a fork's workers share no search
        if promises and facts:  # a one-ref run (a history's or an impact's commits find their past indexed)
            expect_names_past([item[0] for i in window if not isinstance(item := skills[i], UnreadableSkill)
                               and i not in known], tree)  # fmt: skip

    def one(i: int) -> SkillReport:
        item, key = skills[i], keys[i]
        if isinstance(item, UnreadableSkill):
            return SkillReport(item.name, item.path, (), (), error=item.error)
        if i in known:
            return known[i]
        report = audit_skill(item[0], item[1], tree, judge, promises, facts)
        if key is not None:
            keep(judge, key, report)
        return report

    def step(i: int) -> str:
        item = skills[i]
        return f"skill {i + 1} of {len(skills)}: {item.name if isinstance(item, UnreadableSkill) else item[0].name}"

    reports = spread(len(skills), one, judge, progress, jobs, step, "skills", prepare)
    progress("", 1.0)
    return AuditReport(tree.info, tuple(reports), spec.warnings if spec else ())


def spread(
    count: int,
    one: Callable[[int], R],
    judge: Judge,
    progress: Progress,
    jobs: int,
    step: Callable[[int], str],
    unit: str,
    prepare: Callable[[range], None] | None = None,
) -> list[R]:
    """``one(i)`` for each of ``count`` items, over ``jobs`` processes (:class:`~anchor_audit.audit.parallel.Spread`),
    in order.  The run's display is the parent's: ``step(i)`` is shown for each item while no worker runs, and
    ``N of COUNT UNIT`` after each part once they do.  Before the fork the judge's results are stored (a
    worker's reads find them) and the display is stopped (its refresh thread would hold locks a worker
    inherits); each process stores what it computed before returning its part.  ``prepare(window)``, where
    given, runs before the items of each window of up to ``PREPARED_AT_ONCE`` items of a part (what they can
    share, such as one search of a tree, gathered while only a window's inputs are held)."""

    def part(span: range) -> list[R]:
        out = []
        for i in span:
            if prepare is not None and (i - span.start) % PREPARED_AT_ONCE == 0:
                prepare(range(i, min(i + PREPARED_AT_ONCE, span.stop)))
            if not spreading():  # the run's own process, no worker running: each item shown
                progress(step(i), i / count)
            out.append(one(i))
        judge.flush()
        return out

    def worker() -> None:
        judge.after_fork()

    def before_fork() -> None:
        judge.before_fork()
        progress("", None)

    done = lambda n: progress(f"{n} of {count} {unit}", n / count)  # noqa: E731
    return Spread(part, worker, before_fork).run(count, jobs, done)


def presearch(skills: list[Skill], tree: SourceTree, judge: Judge) -> None:
    """One search of ``tree`` for the quotes of all ``skills`` that left their files, and one for the bare names
    they cite: each skill's own searches are then answered from these, not a search of the whole tree each."""
    judge.presearch((q for skill in skills for q in skill.quotes), tree)
    _presearch_names(skills, tree)


def expect_names_past(skills: list[Skill], tree: SourceTree) -> None:
    """Tell the trees of the commits that wrote ``skills``' lines citing names defined nowhere now what their
    citations' check will search them for: searched together when the first is asked (one skill: as ever)."""
    if len(skills) > 1:
        for skill in skills:
            if skill.citations:
                expect_names(skill, tree)


def _presearch_names(skills: list[Skill], tree: SourceTree) -> None:
    """One search of ``tree`` for the bare names of all ``skills``: each skill's own search is then answered from
    it (:class:`~anchor_audit.source.gitsearch.TreeSearch`), not a search of the whole tree per skill."""
    texts = sorted({text for skill in skills for text in name_searches(skill)})
    if len(skills) > 1 and texts:
        try:
            tree.search_many(texts, ".py")
        except BoundExceeded:
            pass  # each skill's own search says so, bounded as ever


def audit_skill(
    skill: Skill,
    entry: SkillSpec | None,
    tree: SourceTree,
    judge: Judge | None = None,
    promises: bool = True,
    facts: bool = True,
) -> SkillReport:
    judge = judge or Judge()
    notes: list[str] = []
    # A lean git mirror brings the files this skill names in one fetch (a card comment's file, named by its
    # tail, is found and read later, if no quote covers it: listing a tree and its submodules costs more).
    tree.prefetch(sorted(reads(skill, entry).paths))
    judge.begin_skill()  # after the fetch: the bound is on the skill's own checks
    ctx = Context(skill, entry, tree, judge.listing(tree), judge.remember, judge.quote, judge.condition)
    anchors = tuple(CHECKERS[ReferenceKind.QUOTE].check(q, ctx) for q in skill.quotes)
    ctx = replace(ctx, matches=anchors)
    by_key = {m.quote.key: m for m in anchors}
    spec_claims = {c.id: c for c in entry.claims} if entry else {}
    card_claims = {c.id: c for c in skill.card.claims} if skill.card else {}
    ids = list(card_claims) + [cid for cid in spec_claims if cid not in card_claims]
    claims = []
    linked: set[str] = set()
    for cid in ids:
        card = card_claims.get(cid)
        missing_from_card = skill.card is not None and card is None
        tags = card.tags if card else ()
        if card is not None and card.anchors and not (entry and _registered(entry, cid)):
            # Linked by card.yaml comments; anchors.yaml entries win where both exist.
            evidence, said = CHECKERS[ReferenceKind.CARD_ANCHOR].check(card, ctx)
            notes += said
            verdict = _conclude(cid, tags, evidence, False)
            linked.add(cid)
        else:
            verdict = _verdict(cid, tags, spec_claims.get(cid), by_key, ctx, missing_from_card)
        claims.append(replace(verdict, card_line=card.line) if card else verdict)
    card_path = f"{skill.path.rstrip('/')}/card.yaml" if skill.card else None
    needed = promises or any("file_exists" in c.declared for c in claims)  # file_exists verdicts need them
    kept = check_promises(ctx, evidence_only=not promises) if needed else ()
    if promises and skill.citations:
        judge.budget.check()
        kept += tuple(check_citations(ctx))
    has_entry = entry is not None
    claims = [
        c if c.id in linked or (entry is not None and _registered(entry, c.id)) else _file_claim(c, kept, has_entry)
        for c in claims
    ]
    if entry is None:
        notes.insert(0, _no_entry_note(claims, linked))
    report = SkillReport(skill.name, skill.path, anchors, tuple(claims), tuple(notes), card_path, kept)
    return with_skill_facts(report, skill, entry, tree) if facts else report


def _no_entry_note(claims: list[ClaimVerdict], linked: set[str]) -> str:
    """The note of a skill anchors.yaml does not list, agreeing with its claims (some may have evidence: card.yaml
    comments link them, or its file paths check them)."""
    said = "no entry in anchors.yaml: quotes are checked on their own"
    backed = [c for c in claims if c.id in linked or any(e.kind is EvidenceKind.FILE for e in c.evidence)]
    if not claims:
        return said
    if not backed:
        return said + ", claims have no evidence"
    if len(backed) == len(claims):
        return said + ", claims are checked by card.yaml's own comments and paths"
    return said + f"; {len(backed)} of {len(claims)} claims have evidence from card.yaml, the others none"


def _registered(entry: SkillSpec, cid: str) -> bool:
    return any(c.id == cid and c.has_evidence for c in entry.claims)


def _file_at(promise: PromiseResult) -> Location | None:
    return Location(promise.path) if promise.status.ok else None


def _file_claim(claim: ClaimVerdict, promises: tuple[PromiseResult, ...], has_entry: bool = False) -> ClaimVerdict:
    """A claim the registry does not back: `file_exists` claims are checked by card.yaml's evidence
    paths; a `code_verified` claim of a skill with no registry entry is unverifiable, not broken."""
    if "file_exists" in claim.declared:
        paths = [p for p in promises if p.kind is PromiseKind.EVIDENCE]
        evidence = tuple(
            Evidence(EvidenceKind.FILE, p.path, p.status.ok, p.status, p.detail, _file_at(p)) for p in paths
        )
        if not evidence:
            return claim
        verdict = (
            Verdict.BROKEN if any(p.status is PromiseStatus.MISSING for p in paths)
            else Verdict.UNVERIFIABLE if any(not p.status.ok for p in paths)
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
        found = isinstance(match, Located)
        location = match.location if isinstance(match, Located) else None
        evidence.append(Evidence(EvidenceKind.QUOTE, key, found, match.status, match.detail, location))
    for condition in entry.conditions if entry else ():
        result = CHECKERS[ReferenceKind.CONDITION].check(condition, ctx)
        ok = result.status is ConditionStatus.HOLDS
        evidence.append(
            Evidence(EvidenceKind.CONDITION, condition.describe(), ok, result.status, result.detail, result.location)
        )
    return _conclude(cid, tags, evidence, entry is not None and missing_from_card)


_UNCHECKED = (*_UNCHECKED_ANCHOR, *_UNCHECKED_CONDITION)


def _conclude(cid: str, tags: tuple[str, ...], evidence: list[Evidence], missing_from_card: bool) -> ClaimVerdict:
    """The verdict the evidence gives: all holds, some fails, some could not be checked, or none."""
    unchecked = any(not e.ok and e.status in _UNCHECKED for e in evidence)
    failed = any(not e.ok and e.status not in _UNCHECKED for e in evidence)
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
