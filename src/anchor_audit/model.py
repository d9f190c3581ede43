"""Shared types: every stage speaks in these frozen values.

The data flow is spec -> source tree at a ref -> matches -> verdicts -> report:

* :class:`Quote`, :class:`Condition`, :class:`ClaimSpec`, :class:`Skill`,
  :class:`Spec` describe what a skill promises (``spec/``);
* :class:`QuoteMatch` and :class:`ConditionResult` say what the code at the
  ref shows (``match/``);
* :class:`ClaimVerdict`, :class:`SkillReport` and :class:`AuditReport` are the
  verdicts a renderer turns into text (``audit.py``, ``report/``).

Results are a closed set of values (a status enum per result), never
exceptions.
"""

from __future__ import annotations

import enum
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path


class AnchorStatus(str, enum.Enum):
    """What became of one line-anchored quote at the audited ref."""

    EXACT = "exact"  # span <= [START, END] <= region
    MOVED = "moved"  # found, but the declared range no longer fits it
    RELOCATED = "relocated"  # not in its file any more, but found in another (found_path)
    CHANGED = "changed"  # the file is there, the quoted code is not
    MISSING = "missing"  # the file is not at the ref
    UNVERIFIABLE = "unverifiable"  # the source cannot show this path (e.g. a wheel has no docs/)
    INCOMPLETE = "incomplete"  # checking would pass a bound (file size, nesting): not checked
    ERROR = "error"  # the file could not be read or decoded


class ConditionStatus(str, enum.Enum):
    """What became of one gating condition at the audited ref."""

    HOLDS = "holds"
    DIFFERENT = "different"  # a near match is there, but an expression, branch or statement differs
    ABSENT = "absent"  # the scope, the if or the statement is not there at all
    MISSING = "missing"  # the file is not at the ref
    UNVERIFIABLE = "unverifiable"
    INCOMPLETE = "incomplete"  # checking would pass a bound (file size, nesting)
    ERROR = "error"  # e.g. the file does not parse


class Verdict(str, enum.Enum):
    """The verdict on one claim of a skill."""

    CODE_VERIFIED = "code_verified"  # evidence registered, and all of it holds
    BROKEN = "broken"  # some registered evidence fails
    DOC_ONLY = "doc_only"  # no evidence registered
    UNVERIFIABLE = "unverifiable"  # evidence registered, none fails, some could not be checked


class ExitCode(enum.IntEnum):
    """Process exit codes; CI gates on these."""

    OK = 0  # every claim holds and every quote is exact
    DRIFT = 1  # a quote not exact, a claim broken, unverifiable or contradicting card.yaml
    FATAL = 2  # could not audit: bad input, unknown ref, unreachable source


# Tags whose meaning anchor-audit checks; other tags are kept and reported.
KNOWN_TAGS = frozenset({"code_verified", "doc_only", "measured", "file_exists", "documented", "unclear"})


@dataclass(frozen=True, order=True)
class LineRange:
    """An inclusive range of 1-based line numbers."""

    start: int
    end: int

    def __contains__(self, other: object) -> bool:
        if isinstance(other, LineRange):
            return self.start <= other.start and other.end <= self.end
        if isinstance(other, int):
            return self.start <= other <= self.end
        return NotImplemented

    def __str__(self) -> str:
        return f"{self.start}-{self.end}"

    def as_list(self) -> list[int]:
        return [self.start, self.end]


# ---------------------------------------------------------------- the spec


@dataclass(frozen=True)
class Quote:
    """One line-anchored fence of a SKILL.md: ```START:END:PATH."""

    path: str
    declared: LineRange
    body: tuple[str, ...]  # the fence's lines as written (indentation removed by the author)
    skill_line: int  # 1-based line of the opening fence in SKILL.md

    @property
    def key(self) -> str:
        """How anchors.yaml names this quote: ``PATH:START-END``."""
        return f"{self.path}:{self.declared}"


@dataclass(frozen=True)
class Condition:
    """A structural, line-free promise about the code (see the README's anchors.yaml section).

    Exactly one of three shapes: an ``if`` gate (``if_test`` set), statements
    a scope must contain (``has``), or a module-level name (``defines``).
    Expressions and statements are kept as source text; the matcher parses them.
    """

    path: str
    where: str  # key path in anchors.yaml, for messages: skills.x.claims.y.conditions[0]
    scope: str | None = None  # QUALNAME of a function or method; None: the module
    if_test: str | None = None
    elif_tests: tuple[str, ...] | None = None  # None: not checked; () : no elif allowed
    inside: tuple[str, ...] = ()  # tests of enclosing ifs, outermost first
    then: tuple[str, ...] = ()  # statements under the if branch
    orelse: tuple[str, ...] = ()  # statements under the final else
    each: tuple[str, ...] = ()  # statements in every branch of the chain
    has: tuple[str, ...] = ()  # statements anywhere in the scope
    defines: str | None = None  # a name bound at module level

    def describe(self) -> str:
        """A short human label: what this condition promises."""
        where = self.scope or self.path  # the path is in the evidence's location and detail
        if self.defines is not None:
            return f"{self.path} defines {self.defines}"
        if self.if_test is not None:
            chain = "".join(f" / elif {t}" for t in self.elif_tests or ())
            return f"{where}: if {self.if_test}{chain}"
        return f"{where}: " + "; ".join(self.has)


@dataclass(frozen=True)
class ClaimSpec:
    """The evidence anchors.yaml registers for one claim."""

    id: str
    quotes: tuple[str, ...]  # quote keys, PATH:START-END
    conditions: tuple[Condition, ...]

    @property
    def has_evidence(self) -> bool:
        return bool(self.quotes or self.conditions)


@dataclass(frozen=True)
class SkillSpec:
    """One skill's entry in anchors.yaml."""

    name: str
    path: Path | None  # where the skill directory is, relative paths resolved against anchors.yaml
    claims: tuple[ClaimSpec, ...]


@dataclass(frozen=True)
class ReleaseSpec:
    """How to read a published wheel as if it were the repository."""

    dist: str
    paths: tuple[tuple[str, str], ...]  # (prefix in the wheel, prefix in the repository)


@dataclass(frozen=True)
class SourceSpec:
    repo: str
    ref: str
    release: ReleaseSpec | None = None


@dataclass(frozen=True)
class Spec:
    """A parsed anchors.yaml."""

    path: Path
    source: SourceSpec
    skills: tuple[SkillSpec, ...]
    warnings: tuple[str, ...] = ()

    def skill(self, name: str) -> SkillSpec | None:
        for skill in self.skills:
            if skill.name == name:
                return skill
        return None


@dataclass(frozen=True)
class CardClaim:
    id: str
    tags: tuple[str, ...]
    line: int


@dataclass(frozen=True)
class Card:
    """The parts of card.yaml anchor-audit reads."""

    path: Path
    validated_on: str | None
    claims: tuple[CardClaim, ...]
    evidence: tuple[str, ...]
    evidence_lines: tuple[int, ...] = ()

    def claim(self, claim_id: str) -> CardClaim | None:
        for claim in self.claims:
            if claim.id == claim_id:
                return claim
        return None


@dataclass(frozen=True)
class TestPromise:
    """A verification step promising ``N passed`` for a pytest file."""

    __test__ = False  # not a pytest test class, whatever its name says

    path: str  # the test file, as the command names it
    promised: int
    line: int  # where SKILL.md makes the promise


@dataclass(frozen=True)
class Skill:
    """A skill directory as read from disk: its quotes and its card."""

    name: str
    path: str  # as the user gave it, for stable output
    quotes: tuple[Quote, ...]
    card: Card | None
    references: tuple[tuple[str, int], ...] = ()  # @path references in SKILL.md prose, with their lines
    test_promises: tuple[TestPromise, ...] = ()
    examples: tuple[tuple[str, int], ...] = ()  # Python code blocks (not quotes), with their first line


# ---------------------------------------------------------------- matches


@dataclass(frozen=True)
class QuoteMatch:
    """Where a quote stands at the audited ref.

    ``found`` is the span (first..last matched line), ``region`` the smallest
    statement enclosing it, ``suggested`` a START:END that would be exact.
    For ``changed`` quotes, ``candidate`` and ``diff`` show the closest code.
    """

    quote: Quote
    status: AnchorStatus
    found: LineRange | None = None
    region: LineRange | None = None
    suggested: LineRange | None = None
    candidate: LineRange | None = None
    diff: tuple[str, ...] = ()
    runs: tuple[LineRange, ...] = ()  # the source lines each run between "..." matched
    detail: str = ""
    found_path: str | None = None  # relocated: the file the code is in now


@dataclass(frozen=True)
class ConditionResult:
    condition: Condition
    status: ConditionStatus
    line: int | None = None  # where at the ref it holds, or the nearest miss
    detail: str = ""

    @property
    def location(self) -> str | None:
        return f"{self.condition.path}:{self.line}" if self.line else None


# ---------------------------------------------------------------- verdicts


@dataclass(frozen=True)
class Evidence:
    """One piece of evidence behind a verdict, flattened for reports."""

    kind: str  # "quote" | "condition"
    ref: str  # the quote key, or the condition's description
    ok: bool
    status: str
    detail: str = ""
    location: str | None = None  # PATH:LINE at the ref


@dataclass(frozen=True)
class ClaimVerdict:
    id: str
    declared: tuple[str, ...]  # card.yaml tags, as written
    verdict: Verdict
    evidence: tuple[Evidence, ...]
    mismatch: str | None = None  # how card.yaml contradicts the verdict
    unknown_tags: tuple[str, ...] = ()
    card_line: int | None = None  # the claim's line in card.yaml

    @property
    def holds(self) -> bool:
        return self.verdict in (Verdict.CODE_VERIFIED, Verdict.DOC_ONLY) and self.mismatch is None


@dataclass(frozen=True)
class PromiseResult:
    """What became of a checkable promise that is not a quote: an evidence path, an @path, a test count."""

    kind: str  # "evidence" (card.yaml) | "reference" (@path) | "tests" (N passed) | "symbol" (examples)
    path: str  # the repository path promised
    status: str  # exists | missing | unverifiable | holds | differs | error
    file: str  # the skill file making the promise, as reports show it
    line: int
    detail: str = ""
    promised: int | None = None  # tests: the N of "N passed"
    found: int | None = None  # tests: the test items the file defines at the ref


@dataclass(frozen=True)
class SkillReport:
    name: str
    path: str
    anchors: tuple[QuoteMatch, ...]
    claims: tuple[ClaimVerdict, ...]
    notes: tuple[str, ...] = ()
    card_path: str | None = None  # card.yaml as shown in reports, if the skill has one
    promises: tuple[PromiseResult, ...] = ()


@dataclass(frozen=True)
class SourceInfo:
    """Which code was audited."""

    repo: str
    ref: str
    commit: str | None  # full sha; None for a release wheel
    kind: str = "git"  # "git" | "release" | "installed"
    release: str | None = None  # "megatron-bridge 0.6.0"
    date: str | None = None  # the commit's date, YYYY-MM-DD (committer time zone)

    @property
    def label(self) -> str:
        if self.kind == "release":
            return f"{self.repo} @ {self.ref}: read from release wheel {self.release}, not git"
        if self.kind == "installed":
            return f"read from the installed distribution {self.release}, not git (the registry pins {self.ref})"
        return f"{self.repo} @ {self.ref} ({self.commit})"


@dataclass(frozen=True)
class AuditReport:
    source: SourceInfo
    skills: tuple[SkillReport, ...]
    warnings: tuple[str, ...] = field(default=())
    accepted: frozenset[str] = frozenset()  # finding keys a baseline accepts (see findings.py)

    def anchor_counts(self) -> dict[str, int]:
        counts = Counter(m.status.value for s in self.skills for m in s.anchors)
        return {status.value: counts.get(status.value, 0) for status in AnchorStatus}

    def claim_counts(self) -> dict[str, int]:
        counts = Counter(c.verdict.value for s in self.skills for c in s.claims)
        return {verdict.value: counts.get(verdict.value, 0) for verdict in Verdict}

    def mismatch_count(self) -> int:
        return sum(1 for s in self.skills for c in s.claims if c.mismatch)
