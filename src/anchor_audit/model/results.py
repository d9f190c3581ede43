"""What the code at the ref shows (matches) and what anchor-audit concludes (verdicts, reports)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from .spec import Condition, LineRange, Quote
from .status import (
    AnchorStatus,
    ConditionStatus,
    EvidenceKind,
    Mismatch,
    PromiseKind,
    PromiseStatus,
    RegistryStatus,
    SourceKind,
    Verdict,
)

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

    def __post_init__(self) -> None:
        """Each status carries exactly the data it has: a wrong combination is a bug, caught where it is made."""
        have = {name for name in ("found", "region", "suggested", "candidate", "found_path") if getattr(self, name)}
        needs, allowed = _QUOTE_MATCH_FIELDS[self.status]
        if not needs <= have or not have <= needs | allowed:
            raise ValueError(
                f"a {self.status} quote match needs {sorted(needs)}, may have {sorted(allowed)}, got {sorted(have)}"
            )

    @property
    def heal_to(self) -> LineRange:
        """The START:END ``fix`` writes for a moved or relocated quote."""
        if self.status not in (AnchorStatus.MOVED, AnchorStatus.RELOCATED) or self.suggested is None:
            raise ValueError(f"a {self.status} quote is not healed")
        return self.suggested


# status -> (fields it must have, fields it may have)
_QUOTE_MATCH_FIELDS: dict[AnchorStatus, tuple[set[str], set[str]]] = {
    AnchorStatus.EXACT: ({"found", "region"}, set()),
    AnchorStatus.MOVED: ({"found", "suggested"}, {"region"}),
    AnchorStatus.RELOCATED: ({"found", "suggested", "found_path"}, {"region"}),
    AnchorStatus.CHANGED: (set(), {"candidate"}),
    AnchorStatus.MISSING: (set(), set()),
    AnchorStatus.UNVERIFIABLE: (set(), set()),
    AnchorStatus.INCOMPLETE: (set(), set()),
    AnchorStatus.ERROR: (set(), set()),
}


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

    kind: EvidenceKind
    ref: str  # the quote key, the condition's description, or the path
    ok: bool
    status: "AnchorStatus | ConditionStatus | PromiseStatus | RegistryStatus"
    detail: str = ""
    location: str | None = None  # PATH:LINE at the ref


@dataclass(frozen=True)
class ClaimVerdict:
    id: str
    declared: tuple[str, ...]  # card.yaml tags, as written
    verdict: Verdict
    evidence: tuple[Evidence, ...]
    mismatch: Mismatch | None = None  # how card.yaml contradicts the verdict
    unknown_tags: tuple[str, ...] = ()
    card_line: int | None = None  # the claim's line in card.yaml

    @property
    def holds(self) -> bool:
        return self.verdict in (Verdict.CODE_VERIFIED, Verdict.DOC_ONLY) and self.mismatch is None


@dataclass(frozen=True)
class PromiseResult:
    """What became of a checkable promise that is not a quote: an evidence path, an @path, a test count."""

    kind: PromiseKind
    path: str  # the repository path promised
    status: PromiseStatus
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
    error: str | None = None  # the skill could not be read (one line); nothing else was checked
    source: SourceInfo | None = None  # where this skill's code came from, when not the report's (a catalog)
    skipped: str | None = None  # its code could not be had (a component's repository unreachable)
    out_of_sync: tuple[str, ...] = ()  # catalog: files whose copy differs from the component repository's

    @property
    def checked(self) -> bool:
        """Whether anything of this skill was checked (not unreadable, not skipped)."""
        return self.error is None and self.skipped is None


@dataclass(frozen=True)
class SourceInfo:
    """Which code was audited."""

    repo: str
    ref: str
    commit: str | None  # full sha; None for a release wheel
    kind: SourceKind = SourceKind.GIT
    release: str | None = None  # "megatron-bridge 0.6.0"
    date: str | None = None  # the commit's date, YYYY-MM-DD (committer time zone)

    @property
    def label(self) -> str:
        if self.kind is SourceKind.RELEASE:
            return f"{self.repo} @ {self.ref}: read from release wheel {self.release}, not git"
        if self.kind is SourceKind.CATALOG:
            return f"catalog {self.repo}: each skill against its own component's repository"
        if self.kind is SourceKind.INSTALLED:
            return f"read from the installed distribution {self.release}, not git (the registry pins {self.ref})"
        return f"{self.repo} @ {self.ref} ({self.commit})"


@dataclass(frozen=True)
class AuditReport:
    source: SourceInfo
    skills: tuple[SkillReport, ...]
    warnings: tuple[str, ...] = field(default=())
    accepted: frozenset[str] = frozenset()  # finding keys a baseline accepts (see findings.py)
    strict: bool = False  # unlinked claims count as drift (check --strict)
    reasons: tuple[tuple[str, str], ...] = ()  # (finding key, why the baseline accepts it)

    def anchor_counts(self) -> dict[str, int]:
        counts = Counter(m.status.value for s in self.skills for m in s.anchors)
        return {status.value: counts.get(status.value, 0) for status in AnchorStatus}

    def claim_counts(self) -> dict[str, int]:
        counts = Counter(c.verdict.value for s in self.skills for c in s.claims)
        return {verdict.value: counts.get(verdict.value, 0) for verdict in Verdict}

    def mismatch_count(self) -> int:
        return sum(1 for s in self.skills for c in s.claims if c.mismatch)
