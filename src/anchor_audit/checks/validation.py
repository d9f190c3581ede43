"""What the history and the repository say of a skill as a whole, beside its quotes, claims and citations.

The day its card says it was validated, which the history may contradict (a path it relies on removed by
then, a quote the code of that day no longer had); a rename of its folder written into its paths; and, for a
skill with drift whose folder in the repository is known, who can heal it there.  And the releases its card
says each claim holds for (``validated_versions``, written by ``matrix --write-card``): a claim broken at a
release its range takes in is drift.

A card's ``validated_on`` is a claim too: that on that day what the skill relies on held.  When a path it
relies on (an evidence path, a quoted or conditioned file, a path in its prose) is not at the audited ref
and the commit that removed it was made on or before that day, the code contradicts the date: the skill
was validated against code that was already gone.  The history is asked once for all the skill's missing
paths (the same walk of deletions that says where a missing path went).
"""

from __future__ import annotations

import re
from dataclasses import replace

from ..errors import AuditError
from ..findings import skill_findings
from ..match.quote import quote_holds
from ..model import (
    AnchorStatus,
    ClaimVerdict,
    Contradiction,
    EvidenceKind,
    PromiseKind,
    PromiseResult,
    PromiseStatus,
    QuoteMatch,
    Skill,
    SkillReport,
    SkillSpec,
    SourceInfo,
    Verdict,
    VersionContradiction,
)
from ..model.versionspec import contains, version_key
from ..source import SourceTree
from .owners import owners_of
from .pathcandidates import folder_rename

_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_KINDS = (PromiseKind.EVIDENCE, PromiseKind.PATH, PromiseKind.REFERENCE)


def with_skill_facts(report: SkillReport, skill: Skill, entry: SkillSpec | None, tree: SourceTree) -> SkillReport:
    """``report`` with the skill's contradicted validation date, its folder rename in paths, and its owners."""
    conditioned = {cond.path for c in entry.claims for cond in c.conditions} if entry else set()
    contradicted = contradictions(skill, report.anchors, list(report.claims), report.promises, conditioned, tree)
    report = replace(report, contradicted=contradicted, folder_rename=folder_rename(skill, report.promises, tree),
                     versions_contradicted=versions_contradicted(skill, report.claims, tree.info))  # fmt: skip
    if skill.repo_folder is not None and any(f.drift for f in skill_findings(report)):
        # Healed at its source: who owns the skill's folder there (an in-repo skill, a catalog copy's upstream).
        report = replace(report, owners=owners_of(skill.repo_folder, tree))
    return report


def versions_contradicted(
    skill: Skill, claims: tuple[ClaimVerdict, ...], info: SourceInfo
) -> tuple[VersionContradiction, ...]:
    """The claims the card's ``validated_versions`` says hold for the audited release, broken there.

    Decided only where the ref audited is a version (a release tag, or a release wheel's version)."""
    if skill.card is None or not skill.card.validated_versions:
        return ()
    release = info.ref if version_key(info.ref) else (info.release or "").rpartition(" ")[2]
    key = version_key(release)
    if key is None:
        return ()
    out = []
    for claim in claims:
        said = skill.card.versions_for(claim.id)
        if said is None or claim.verdict is not Verdict.BROKEN:
            continue
        if any(contains(spec, key) for spec in said.specifiers):
            out.append(VersionContradiction(claim.id, said.specifiers, release, claim.verdict.value, said.line))
    return tuple(out)


def validation_day(skill: Skill) -> str | None:
    """The day (YYYY-MM-DD) the skill's card says it was validated; None when it gives none in that form."""
    day = skill.card.validated_on if skill.card else None
    return day if day is not None and _DAY.match(day) else None


def contradictions(
    skill: Skill,
    anchors: tuple[QuoteMatch, ...],
    claims: list[ClaimVerdict],
    promises: tuple[PromiseResult, ...],
    conditioned: set[str],
    tree: SourceTree,
) -> tuple[Contradiction, ...]:
    """The paths the skill relies on (``conditioned``: the files its registered conditions read) that were
    removed on or before its card's ``validated_on`` day."""
    day = validation_day(skill)
    if day is None:
        return ()
    missing = {m.quote.path for m in anchors if m.status is AnchorStatus.MISSING}
    missing |= {e.ref for c in claims for e in c.evidence if e.kind is EvidenceKind.FILE and not e.ok}
    missing |= {path for path in conditioned if tree.blob_id(path) is None}
    missing |= {p.path for p in promises if p.kind in _KINDS and p.status is PromiseStatus.MISSING}
    removed = tree.removals(sorted(missing)) if missing else {}
    found = [
        Contradiction(path, r.commit, r.day, day)
        for path, r in sorted(removed.items())
        if r.day is not None and r.day <= day and r.was == path
    ]
    return tuple(found) + _changed_by_then(anchors, tree, day)


def _changed_by_then(anchors: tuple[QuoteMatch, ...], tree: SourceTree, day: str) -> tuple[Contradiction, ...]:
    """The changed quotes that did not hold at the commit of the validation day either (the code of that day, as
    ``check --ref validated`` reads it): validated against code that had already changed."""
    changed = [m.quote for m in anchors if m.status is AnchorStatus.CHANGED]
    then = tree.validated_on(day) if changed else None
    if then is None or then.info.commit is None:
        return ()
    same = then.info.commit == tree.info.commit  # the day's commit is the audited one: changed there, as found
    out = []
    for quote in changed:
        try:
            source = then.read(quote.path)
            # Only whether it held: no search for the closest code of a quote that did not (its status is the same)
            held = source is not None and not same and quote_holds(quote, source)
        except AuditError:
            continue  # unreadable then: nothing said
        if source is not None and not held:
            out.append(Contradiction(quote.key, then.info.commit, then.info.date or day, day, changed=True))
    return tuple(out)
