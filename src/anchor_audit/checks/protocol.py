"""What every checker is: a reference kind, what of a skill is of that kind, what each reads, and its check.

A :class:`Checker` takes content and returns values: the things of its kind a skill writes (``written``), for
each where it is written and what it reads at a ref (``reads``: the one answer to "which files can change this
skill's audit?"), and its result at the ref (``check``), given a :class:`Context`: the skill, the tree, the
tree's listing, the run's memo, and the judge's two content-keyed checks.  The table from kind to checker is
:data:`anchor_audit.checks.CHECKERS`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Generic, Iterable, Sequence, TypeVar

from ..model import (
    Citation,
    Condition,
    ConditionResult,
    PromiseKind,
    PromiseResult,
    PromiseStatus,
    Quote,
    QuoteMatch,
    Reference,
    ReferenceKind,
    Skill,
    SkillSpec,
)
from ..source import SourceTree
from ..source.listing import Listing
from ..store.memo import Memo, no_memo

Item = TypeVar("Item")
Result = TypeVar("Result")


def _unjudged_quote(quote: Quote, tree: SourceTree) -> QuoteMatch:
    raise NotImplementedError("a context for quotes is given the judge's")


def _unjudged_condition(condition: Condition, tree: SourceTree) -> ConditionResult:
    raise NotImplementedError("a context for conditions is given the judge's")


@dataclass(frozen=True)
class Context:
    """What a check of one skill is given.  The prose's checks also share what is worked out once for all of a
    skill's citations (set by :func:`anchor_audit.checks.prose.check_citations`)."""

    skill: Skill
    entry: SkillSpec | None
    tree: SourceTree
    listing: Listing
    memo: Memo = no_memo
    quote: Callable[[Quote, SourceTree], QuoteMatch] = _unjudged_quote  # the judge's, by content
    condition: Callable[[Condition, SourceTree], ConditionResult] = _unjudged_condition
    matches: tuple[QuoteMatch, ...] = ()  # the skill's quotes as judged (a card comment links claims to them)
    searched: dict[str, list[str]] | None = None  # where the package defines each bare name the prose cites
    gone: dict[Citation, tuple[PromiseStatus, str]] = field(default_factory=dict)  # names gone since written
    commands: tuple[Citation, ...] = ()  # the commands of the prose (where a stated default is looked up)
    validated: Callable[[], SourceTree | None] = lambda: None  # the tree of the card's validation day, if known
    judged: dict[tuple[Any, str], Any] = field(default_factory=dict)  # a quote judged as a claim's evidence, by key
    bound: Callable[[], None] = lambda: None  # raises BoundExceeded past the skill's budget (a check of many items)

    @property
    def skill_md(self) -> str:
        return self.file("SKILL.md")

    @property
    def card_yaml(self) -> str:
        return self.file("card.yaml")

    def file(self, name: str) -> str:
        """A file of the skill, as reports name it."""
        return f"{self.skill.path.rstrip('/')}/{name}"


@dataclass(frozen=True)
class Heal:
    """A pass over a skill's results of some kinds, once all are checked: what became of each one that failed
    (asked of the history once for all).  ``wants`` picks the results it looks at."""

    wants: Callable[[Citation, PromiseResult, Skill], bool]
    apply: Callable[[list[PromiseResult], list[tuple[int, Citation]], Context], list[PromiseResult]]


@dataclass(frozen=True)
class Checker(Generic[Item, Result]):
    """One reference kind: what of a skill is of that kind, what each reads, and its check at the ref.

    ``reported_as``: the kind of promise its results are (None: its own result type, a quote's or a
    condition's, or evidence of a claim).  For the prose's citations: ``heal``, the pass that says what became
    of a failed one; ``subject``, what a result names (the path it reads, or the citation as written);
    ``unreadable_is_there``, whether a file it reads that cannot be read (too large, not text) is there
    (``exists``), or the check's failure is its result (``error``)."""

    kind: ReferenceKind
    written: Callable[[Skill, SkillSpec | None], Sequence[Item]]
    reads: Callable[[Item, Skill, SkillSpec | None], Iterable[Reference]]
    check: Callable[[Item, Context], Result]
    reported_as: PromiseKind | None = None
    heal: Heal | None = None
    written_in: str = "SKILL.md"  # or "card.yaml": the file of the skill its results are on
    subject: Callable[[Citation], str] = lambda c: c.target
    unreadable_is_there: bool = True


def judged(kind: PromiseKind, c: Citation, ctx: Context, status: PromiseStatus, path: str, detail: str = ""
           ) -> list[PromiseResult]:  # fmt: skip
    """The one result of a citation of the prose, on its own file's line."""
    return [PromiseResult(kind, path, status, ctx.file(c.file), c.line, detail)]


def citations_of(kind: ReferenceKind) -> Callable[[Skill, SkillSpec | None], Sequence[Citation]]:
    """``written`` for a kind of the prose's citations: the skill's citations of that kind, in order."""

    def written(skill: Skill, entry: SkillSpec | None) -> Sequence[Citation]:
        return [c for c in skill.citations if c.kind is kind]

    return written


def context(skill: Skill, tree: SourceTree, entry: SkillSpec | None = None, memo: Memo = no_memo) -> Context:
    """A context for checking ``skill`` against ``tree`` on its own (no judge: for the checks that need none)."""
    return Context(skill, entry, tree, Listing(tree, memo), memo)
