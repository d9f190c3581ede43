"""What a skill promises: line ranges, quotes, conditions, claims, cards, the registry (``spec/`` builds these)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, NamedTuple

from .references import Citation, Tail


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
    caption: str = field(default="", compare=False)  # the heading and the lead-in sentence above the fence

    @property
    def key(self) -> str:
        """How anchors.yaml names this quote: ``PATH:START-END``."""
        return f"{self.path}:{self.declared}"


@dataclass(frozen=True)
class Condition:
    """A structural, line-free promise about the code (docs/anchors-yaml.md).

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
    card_prefixes: tuple[tuple[str, str], ...] = ()  # the registry's card_prefixes (the defaults are added)


@dataclass(frozen=True)
class ReleaseSpec:
    """How to read a published wheel as if it were the repository."""

    dist: str
    paths: tuple[tuple[str, str], ...]  # (prefix in the wheel, prefix in the repository)


@dataclass(frozen=True)
class SourceSpec:
    repo: str  # "" when the source is a catalog
    ref: str
    release: ReleaseSpec | None = None
    catalog: Path | None = None  # a skills catalog: each skill is read against its own component's repository


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
    anchors: tuple["CardAnchor", ...] = ()  # ranges its tags' comments name (``# config.py:1524-1531``)


# A word before a card comment's file name that says where the file lies (``# MCore config.py:10``):
# the Megatron-Core sources of the Megatron-LM submodule. A registry's ``card_prefixes`` add to these.
DEFAULT_CARD_PREFIXES: tuple[tuple[str, str], ...] = (("MCore", "megatron/core/"),)


@dataclass(frozen=True)
class CardAnchor:
    """Code a card.yaml comment ties a claim to: ``- code_verified  # MCore transformer_config.py:10-12, 40-44``."""

    file: str  # as written: a file name or a path
    ranges: tuple[LineRange, ...]
    prefix: str = ""  # the word written before the file ("MCore"): where it lies, as card_prefixes say
    line: int = 0  # the comment's line in card.yaml

    def tail(self, prefixes: tuple[tuple[str, str], ...] = ()) -> Tail:
        """The files it names: its prefix word resolved by the built-in prefixes and ``prefixes`` (a registry's)."""
        return Tail(self.file, dict(DEFAULT_CARD_PREFIXES + prefixes).get(self.prefix, ""))


@dataclass(frozen=True)
class VersionRange:
    """What a card's ``validated_versions`` says: the releases a claim holds for (``claim`` None: every claim).

    ``specifiers``: any one holding is enough (``>=0.1.0,<0.3.0`` or ``>=0.3.1``); none: no release."""

    claim: str | None
    specifiers: tuple[str, ...]
    line: int


@dataclass(frozen=True)
class Card:
    """The parts of card.yaml anchor-audit reads."""

    path: Path
    validated_on: str | None
    claims: tuple[CardClaim, ...]
    evidence: tuple[str, ...]
    evidence_lines: tuple[int, ...] = ()
    validated_versions: tuple[VersionRange, ...] = ()
    constraints: tuple[tuple[str, int], ...] = ()  # known_constraints and interactions: each sentence, its line
    title: str = ""  # what the card is about (``expert_parallel_overlap``)
    # What the card's own words stand for (its ``feature_meaning`` and ``summary``): ("TE", ("transformer_engine",))
    aliases: tuple[tuple[str, tuple[str, ...]], ...] = ()

    def versions_for(self, claim_id: str) -> VersionRange | None:
        """The range the card gives ``claim_id``: its own entry, else the skill's (None: the card gives none)."""
        own = [r for r in self.validated_versions if r.claim == claim_id]
        every = [r for r in self.validated_versions if r.claim is None]
        return (own + every)[0] if own or every else None

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


class Example(NamedTuple):
    """A plain Python code block of a SKILL.md (not a quote)."""

    code: str
    line: int  # 1-based line of its first code line in SKILL.md
    caption: str = ""  # the heading and the lead-in sentence above the fence, as a quote's


@dataclass(frozen=True)
class Skill:
    """A skill directory as read from disk: its quotes and its card."""

    name: str
    path: str  # as the user gave it, for stable output
    quotes: tuple[Quote, ...]
    card: Card | None
    references: tuple[tuple[str, int], ...] = ()  # @path references in SKILL.md prose, with their lines
    test_promises: tuple[TestPromise, ...] = ()
    examples: tuple[Example, ...] = ()  # Python code blocks (not quotes)
    prose_settings: tuple[Example, ...] = ()  # settings its sentences write as code (`mode = "partial"`)
    citations: tuple[Citation, ...] = ()  # paths, links and version pins of the prose
    disk: str | None = None  # the folder on disk, when read from disk (links inside it are checked there)
    disk_root: str | None = None  # how far up a relative link is followed on disk (a catalog's root)
    repo_folder: str | None = None  # where the folder lies in the repository, when known (--in-repo, a catalog)
    citations_cut: bool = False  # its prose cites more than anchor-audit reads (a generated page): the rest unread
    clones: tuple[str, ...] = ()  # the repositories its shell blocks clone (`git clone URL`): it works in them too
    schema_defaults: tuple[tuple[str, str, str], ...] = ()  # (key, file, JSON value) its *.schema.json files give
    schema_keys: tuple[tuple[str, str], ...] = ()  # (dotted key, file) of every property its *.schema.json files name
    tree_pages: tuple[tuple[str, Callable[[], str]], ...] = ()  # read from a tree: its Markdown pages, read if asked
    pages_cut: tuple[str, ...] = ()  # its pages that cite more than anchor-audit reads: the rest unread


@dataclass(frozen=True)
class UnreadableSkill:
    """A skill that could not be read (a bad fence, a bad card.yaml, a link): its result is this error."""

    name: str
    path: str  # as reports show it
    error: str  # one line: FILE:LINE: what is wrong
