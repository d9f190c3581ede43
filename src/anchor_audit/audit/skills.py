"""Spec + skills + a source tree -> verdicts.

This is the one place where checking meets reading: each quote and condition
gets the text of its file from the tree and a matcher judges it.  Nothing
here raises for one claim: a file that cannot be read, or a matcher that
fails, becomes a result for the quotes and claims that needed it.
"""

from __future__ import annotations

import functools
from dataclasses import replace
from typing import Callable, Sequence, TypeVar

from ..checks import CHECKERS
from ..checks.barenames import search_all
from ..checks.diskreads import witnessing
from ..checks.names import expect_names, name_searches
from ..checks.promises import check_promises
from ..checks.prose import check_citations
from ..checks.protocol import Context
from ..checks.reads import reads
from ..checks.settingfields import skill_settings, where_annotated
from ..checks.validation import with_skill_facts
from ..errors import BoundExceeded, NotCarried, UnreadableFile
from ..model import (
    AuditReport,
    ReferenceKind,
    Skill,
    SkillReport,
    SkillSpec,
    Spec,
    UnreadableSkill,
    ValidationDay,
)
from ..source import Progress, SourceTree, no_progress
from ..spec.citations import MAX_CITATIONS
from .judge import Judge
from .kept import keep, kept_key, recalled
from .parallel import Spread, spreading
from .verdicts import claim_verdicts, with_file_claims

R = TypeVar("R")
# Items prepared together (a catalog's skills read, and each tree searched once for them): enough that a
# component's skills share a search, few enough that what a window holds stays small beside a whole catalog.
PREPARED_AT_ONCE = 64


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
    keys = [None if isinstance(item, UnreadableSkill) else kept_key(*item, tree, promises, facts) for item in skills]
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
        return known[i] if i in known else audited(item[0], item[1], tree, judge, promises, facts, key)

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
    weights: Sequence[float] | None = None,
) -> list[R]:
    """``one(i)`` for each of ``count`` items (each expected to cost its ``weights``, where given), over ``jobs``
    processes (:class:`~anchor_audit.audit.parallel.Spread`), in order.  The run's display is the parent's:
    ``step(i)`` is shown for each item while no worker runs, and ``N of COUNT UNIT`` after each part once they
    do.  Before the fork the judge's results are stored (a worker's reads find them) and the display is stopped
    (its refresh thread would hold locks a worker inherits); each process stores what it computed before
    returning its part.  ``prepare(window)``, where given, runs before the items of each window of up to
    ``PREPARED_AT_ONCE`` items of a part (what they can share, such as one search of a tree, gathered while only
    a window's inputs are held)."""

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
    return Spread(part, worker, before_fork).run(count, jobs, done, weights)


def presearch(skills: list[Skill], tree: SourceTree, judge: Judge) -> None:
    """One search of ``tree`` for the quotes of all ``skills`` that left their files, and one for the bare names
    they cite: each skill's own searches are then answered from these, not a search of the whole tree each."""
    judge.presearch(((budget_key(skill, tree), skill.quotes) for skill in skills), tree)
    _presearch_names(skills, tree, judge)


def budget_key(skill: Skill, tree: SourceTree) -> tuple[str, str, str | None]:
    """What names one skill's checks against one tree, from the presearch of its quotes to its audit."""
    return skill.path, skill.name, tree.info.commit


def expect_names_past(skills: list[Skill], tree: SourceTree) -> None:
    """Tell the trees of the commits that wrote ``skills``' lines citing names defined nowhere now what their
    citations' check will search them for: searched together when the first is asked (one skill: as ever)."""
    if len(skills) > 1:
        for skill in skills:
            if skill.citations:
                expect_names(skill, tree)


def _presearch_names(skills: list[Skill], tree: SourceTree, judge: Judge) -> None:
    """One search of ``tree`` for the bare names of all ``skills``: each skill's own search is then answered from
    it (:class:`~anchor_audit.source.gitsearch.TreeSearch`), not a search of the whole tree per skill."""
    if len(skills) < 2:
        return
    settings = sorted({setting for skill in skills for setting in skill_settings(skill)})
    if settings:  # one search of it and of each submodule for the settings they write
        where_annotated(tree, settings, judge.memo.remember)
    texts = sorted({text for skill in skills for text in name_searches(skill)})
    if texts:
        try:
            search_all(tree, texts)
        except BoundExceeded:
            pass  # each skill's own search says so, bounded as ever


def audit_or_recall(skill: Skill, entry: SkillSpec | None, tree: SourceTree, judge: Judge) -> SkillReport:
    """The skill's one-ref audit (:func:`audit_skill`, with its facts) as kept, if it is (:mod:`.kept`), else
    audited and kept."""
    key = kept_key(skill, entry, tree, True, True)
    found = recalled(judge, key) if key is not None else None
    return found if found is not None else audited(skill, entry, tree, judge, True, True, key)


def audited(skill: Skill, entry: SkillSpec | None, tree: SourceTree, judge: Judge, promises: bool, facts: bool,
            key: str | None) -> SkillReport:  # fmt: skip
    """:func:`audit_skill`, kept under ``key`` (if any) with what it read of the disk."""
    with witnessing() as reads:
        report = audit_skill(skill, entry, tree, judge, promises, facts)
    if key is not None:
        keep(judge, key, report, reads)
    return report


def audit_skill(
    skill: Skill,
    entry: SkillSpec | None,
    tree: SourceTree,
    judge: Judge | None = None,
    promises: bool = True,
    facts: bool = True,
) -> SkillReport:
    judge = judge or Judge()
    # A lean git mirror brings the files this skill names in one fetch (a card comment's file, named by its
    # tail, is found and read later, if no quote covers it: listing a tree and its submodules costs more).
    tree.prefetch(sorted(reads(skill, entry).paths))
    judge.begin_skill(budget_key(skill, tree))  # after the fetch: the bound is on the skill's own checks
    ctx = Context(skill, entry, tree, judge.listing(tree), judge.memo.remember, judge.quote, judge.condition,
                  validated=_validation_day(skill, tree), bound=judge.budget.check)  # fmt: skip
    anchors = tuple(CHECKERS[ReferenceKind.QUOTE].check(q, ctx) for q in skill.quotes)
    ctx = replace(ctx, matches=anchors)
    claims, linked, notes = claim_verdicts(ctx, anchors)
    card_path = f"{skill.path.rstrip('/')}/card.yaml" if skill.card else None
    needed = promises or any("file_exists" in c.declared for c in claims)  # file_exists verdicts need them
    kept = check_promises(ctx, evidence_only=not promises) if needed else ()
    if promises and skill.citations:
        judge.budget.check()
        kept += tuple(check_citations(ctx))
    if promises:
        cut = ("SKILL.md",) * skill.citations_cut + skill.pages_cut
        notes = [*notes, *(f"{name} cites more than {MAX_CITATIONS:,} paths, links and names: those past the "
                           f"first {MAX_CITATIONS:,} were not read (a generated page, not prose?)" for name in cut)]
    claims, notes = with_file_claims(claims, linked, notes, kept, entry, quoted=bool(skill.quotes))
    report = SkillReport(skill.name, skill.path, anchors, tuple(claims), tuple(notes), card_path, kept,
                         validation=_resolved(skill, ctx))  # fmt: skip
    return with_skill_facts(report, skill, entry, tree) if facts else report


def _resolved(skill: Skill, ctx: Context) -> ValidationDay | None:
    """The commit the card's validated_on resolved to (None: no card, or no day on it)."""
    day = skill.card.validated_on if skill.card else None
    if not day:
        return None
    then = ctx.validated()
    commit = then.info.commit if then is not None else None
    return ValidationDay(str(day), commit, then.info.date if then is not None else None)


def _validation_day(skill: Skill, tree: SourceTree) -> Callable[[], SourceTree | None]:
    """The tree of the day the skill's card says it was validated, worked out when first asked (None: the card
    gives no day, or this kind of tree cannot know its history)."""
    day = skill.card.validated_on if skill.card else None

    @functools.cache
    def validated() -> SourceTree | None:
        try:
            return tree.validated_on(day) if day else None
        except (NotCarried, UnreadableFile):
            return None

    return validated
