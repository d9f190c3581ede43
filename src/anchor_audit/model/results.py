"""What the code at the ref shows (matches) and what anchor-audit concludes (verdicts, reports)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import ClassVar, Iterator

from .facts import (
    ComponentInfo,
    Contradiction,
    FolderRename,
    Owners,
    ValidationDay,
    VersionContradiction,
    contradiction_lines,
)
from .promiseresults import PromiseResult, UnlistedFolder
from .spec import Condition, LineRange, Quote
from .status import (
    AnchorStatus,
    ConditionStatus,
    EvidenceKind,
    Mismatch,
    PromiseStatus,
    RegistryStatus,
    SourceKind,
    UncheckedReason,
    Verdict,
    assert_never,
)

# ---------------------------------------------------------------- matches


@dataclass(frozen=True)
class Location:
    """A place in the code at the audited ref: a file, one line of it, or lines START-END."""

    path: str
    start: int | None = None
    end: int | None = None  # None: one line (or, with no start, the whole file)

    @classmethod
    def of(cls, path: str, lines: LineRange) -> Location:
        return cls(path, lines.start, lines.end)

    @property
    def lines(self) -> LineRange | None:
        if self.start is None:
            return None
        return LineRange(self.start, self.start if self.end is None else self.end)

    def __str__(self) -> str:
        if self.start is None:
            return self.path
        return f"{self.path}:{self.start}" if self.end is None else f"{self.path}:{self.start}-{self.end}"


# A quote's result is one of six frozen types, each with exactly its status's data; renderers
# ``match`` on them and end in ``assert_never``, so a seventh is a type error until each handles it.
# ``runs`` are the source lines each run between "..." matched; ``region`` the smallest statement
# enclosing the span; ``suggested`` the START:END that would be exact.


@dataclass(frozen=True)
class Exact:
    """The quoted code is in its file, and the declared range fits it."""

    quote: Quote
    found: LineRange
    region: LineRange
    runs: tuple[LineRange, ...] = ()
    detail: str = ""
    status: ClassVar[AnchorStatus] = AnchorStatus.EXACT

    @property
    def location(self) -> Location:
        return Location.of(self.quote.path, self.found)


@dataclass(frozen=True)
class _Found:
    """What a quote ``fix`` heals carries: where the code is found, and the START:END to write."""

    quote: Quote
    found: LineRange
    suggested: LineRange
    region: LineRange | None = None
    runs: tuple[LineRange, ...] = ()
    detail: str = ""

    @property
    def path_now(self) -> str:
        return self.quote.path

    @property
    def location(self) -> Location:
        return Location.of(self.path_now, self.found)


@dataclass(frozen=True)
class Moved(_Found):
    """The quoted code is in its file, at other lines: ``fix`` writes ``suggested``."""

    status: ClassVar[AnchorStatus] = AnchorStatus.MOVED


@dataclass(frozen=True)
class Relocated(_Found):
    """The quoted code is no longer in its file but in ``found_path``: ``fix`` names that file."""

    found_path: str = field(kw_only=True)
    status: ClassVar[AnchorStatus] = AnchorStatus.RELOCATED

    @property
    def path_now(self) -> str:
        return self.found_path


@dataclass(frozen=True)
class Changed:
    """The file is there, the quoted code is not; ``candidate`` and ``diff`` show the closest code."""

    quote: Quote
    candidate: LineRange | None = None
    diff: tuple[str, ...] = ()
    detail: str = ""
    status: ClassVar[AnchorStatus] = AnchorStatus.CHANGED


@dataclass(frozen=True)
class Missing:
    """The quoted file is not at the ref."""

    quote: Quote
    detail: str = ""
    status: ClassVar[AnchorStatus] = AnchorStatus.MISSING


@dataclass(frozen=True)
class Unchecked:
    """The quote could not be checked: the source cannot show it, a bound was reached, or reading failed."""

    quote: Quote
    reason: UncheckedReason
    detail: str = ""

    @property
    def status(self) -> AnchorStatus:
        return AnchorStatus(self.reason.value)


QuoteMatch = Exact | Moved | Relocated | Changed | Missing | Unchecked
Healable = Moved | Relocated  # what ``fix`` heals without a person
Located = Exact | Moved | Relocated  # the quoted code was found; evidence that holds
QUOTE_TYPES: tuple[type[QuoteMatch], ...] = (Exact, Moved, Relocated, Changed, Missing, Unchecked)


def found_lines(match: QuoteMatch) -> LineRange | None:
    """The lines the quoted code was found at (in ``path_now`` for a relocated quote), for a report's column."""
    return match.found if isinstance(match, (Exact, Moved, Relocated)) else None


def suggested_lines(match: QuoteMatch) -> LineRange | None:
    """The START:END ``fix`` writes, for a quote it heals."""
    return match.suggested if isinstance(match, (Moved, Relocated)) else None


def pointed_at(match: QuoteMatch) -> Location | None:
    """Where at the ref a report points for a quote: the range ``fix`` writes, the span found, or the closest code."""
    match match:
        case Moved() | Relocated():
            return Location.of(match.path_now, match.suggested)
        case Exact():
            return match.location
        case Changed():
            return Location.of(match.quote.path, match.candidate) if match.candidate else None
        case Missing() | Unchecked():
            return None
        case _:
            assert_never(match)


@dataclass(frozen=True)
class ConditionResult:
    condition: Condition
    status: ConditionStatus
    line: int | None = None  # where at the ref it holds, or the nearest miss
    detail: str = ""

    @property
    def location(self) -> Location | None:
        return Location(self.condition.path, self.line) if self.line else None


# ---------------------------------------------------------------- verdicts


@dataclass(frozen=True)
class Evidence:
    """One piece of evidence behind a verdict, flattened for reports."""

    kind: EvidenceKind
    ref: str  # the quote key, the condition's description, or the path
    ok: bool
    status: "AnchorStatus | ConditionStatus | PromiseStatus | RegistryStatus"
    detail: str = ""
    location: Location | None = None  # where at the ref the evidence is
    stale: str = ""  # what the code was on the card's own validation day, where it did not say what was cited


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
    sync: SyncFacts | None = None  # catalog: how the copy stands to the component repository's
    contradicted: tuple[Contradiction, ...] = ()  # evidence the code had removed by the card's validated_on day
    owners: Owners | None = None  # who can heal it at its source (a skill with drift whose folder is known)
    folder_rename: FolderRename | None = None  # its paths rewritten with its folder's new name, as one fact
    versions_contradicted: tuple[VersionContradiction, ...] = ()  # claims its card's validated_versions overstates
    validation: ValidationDay | None = None  # the commit its card's validated_on resolved to

    @property
    def checked(self) -> bool:
        """Whether anything of this skill was checked (not unreadable, not skipped)."""
        return self.error is None and self.skipped is None

    @property
    def card_contradicted(self) -> list[str]:
        """What the code contradicts of the card's own dates and ranges, in words (``validated_on``, then
        ``validated_versions``)."""
        return contradiction_lines(self.contradicted) + [v.said for v in self.versions_contradicted]

    @property
    def out_of_sync(self) -> tuple[str, ...]:
        """The files whose catalog copy differs from the repository's (``SKILL.md (differs)``)."""
        return self.sync.files if self.sync is not None else ()


@dataclass(frozen=True)
class SyncFacts:
    """How a catalog's copy of a skill stands to the repository's copy at the component's ref.

    ``absent``: the repository has no such folder at the ref (one fact, not one line per file).  A copy that
    differs is *behind* when an earlier upstream commit's folder equals it (``matches``, ``behind`` commits to
    the folder ago); when none of the ``searched`` commits does, it is ahead of upstream or diverged from it.
    """

    files: tuple[str, ...] = ()  # "SKILL.md (differs)", "x (only in the catalog)", "y (only in the repository)"
    absent: bool = False
    matches: str | None = None  # the upstream commit whose folder is the catalog's copy
    matches_date: str | None = None
    behind: int = 0  # upstream commits to the folder since ``matches``
    searched: int = 0  # upstream commits to the folder compared with the copy, when none matched
    catalog_date: str | None = None  # the catalog's last commit to the copy (its git history), when known

    @property
    def differs(self) -> bool:
        return self.absent or bool(self.files)

    def summary(self, upstream: SourceInfo | None = None) -> str:
        """In words: ``3 files differ; the copy is upstream's of 3f2a1c9bd (2026-06-02), 14 commits behind``."""
        if self.absent:
            at = f" at {upstream.ref} ({(upstream.commit or '')[:9]}, {upstream.date})" if upstream else ""
            return f"folder absent upstream{at}"
        if not self.files:
            return "in sync"
        n = len(self.files)
        files = f"{n} file{'s differ' if n != 1 else ' differs'}"
        if self.matches is not None:
            commits = f"{self.behind} commit{'s' if self.behind != 1 else ''} to the folder behind"
            return f"{files}; the copy is upstream's of {self.matches[:9]} ({self.matches_date}), {commits}"
        if self.searched:
            compared = f"({self.searched} compared)"
            return f"{files}; the copy is no upstream version of the folder {compared}: ahead, or diverged"
        return files


@dataclass(frozen=True)
class Policy:
    """Which findings a run reports and which fail it (the command line over ``[tool.anchor-audit]``)."""

    strict: bool = False  # unlinked claims count as drift (--strict)
    select: tuple[str, ...] = ()  # codes or prefixes (AA1, AA40) reported; none: every code
    ignore: tuple[str, ...] = ()  # codes or prefixes never reported
    fail_on: str | None = None  # "error" or "warning": only drift of that SARIF level or worse fails the run
    exit_zero: bool = False  # exit 0 even with drift (2 still means the run could not audit)
    fail_on_codes: tuple[tuple[str, str], ...] = ()  # (code or prefix, error | warning | never): per class of finding
    notes: tuple[tuple[str, int, str], ...] = ()  # (settings file, line, what it relaxes of the gate), for CI's view

    def fail_level(self, code: str) -> str | None:
        """The level from which findings of ``code`` fail the run: the longest prefix of fail-on-codes that
        matches, else ``fail_on`` (None: any drift)."""
        found = max((p for p, _ in self.fail_on_codes if code.startswith(p)), key=len, default=None)
        return dict(self.fail_on_codes)[found] if found is not None else self.fail_on

    def selects(self, code: str) -> bool:
        """Whether findings of ``code`` are reported: the longest matching prefix decides, as in ruff."""
        chosen = max((p for p in self.select if code.startswith(p)), key=len, default="" if not self.select else None)
        dropped = max((p for p in self.ignore if code.startswith(p)), key=len, default=None)
        return chosen is not None and (dropped is None or len(chosen) > len(dropped))


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
        if self.kind is SourceKind.WORKTREE:
            return f"{self.repo}: the working tree, uncommitted changes included ({(self.commit or '')[:12]})"
        if self.kind is SourceKind.INSTALLED:
            return f"read from the installed distribution {self.release}, not git (the registry pins {self.ref})"
        return f"{self.repo} @ {self.ref}" + (f" ({self.commit})" if self.commit else "")


@dataclass(frozen=True)
class AuditReport:
    source: SourceInfo
    skills: tuple[SkillReport, ...]
    warnings: tuple[str, ...] = field(default=())
    accepted: frozenset[str] = frozenset()  # finding keys a baseline accepts (see findings/)
    policy: Policy = field(default_factory=lambda: Policy())  # which findings count, and what fails the run
    reasons: tuple[tuple[str, str], ...] = ()  # (finding key, why the baseline accepts it)
    components: tuple[ComponentInfo, ...] = ()  # a catalog's components (none for one repository)
    unlisted: tuple[UnlistedFolder, ...] = ()  # a catalog's folders no component names

    def every_promise(self) -> Iterator[PromiseResult]:
        """The promises of every skill, then those of the catalog's folders no component names."""
        for skill in self.skills:
            yield from skill.promises
        for folder in self.unlisted:
            yield from folder.promises

    def anchor_counts(self) -> dict[str, int]:
        counts = Counter(m.status.value for s in self.skills for m in s.anchors)
        return {status.value: counts.get(status.value, 0) for status in AnchorStatus}

    def claim_counts(self) -> dict[str, int]:
        counts = Counter(c.verdict.value for s in self.skills for c in s.claims)
        return {verdict.value: counts.get(verdict.value, 0) for verdict in Verdict}

    def mismatch_count(self) -> int:
        return sum(1 for s in self.skills for c in s.claims if c.mismatch)
