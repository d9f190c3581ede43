"""The closed sets: statuses, verdicts, kinds and reasons, each an enum written as its value."""

from __future__ import annotations

import enum
from typing import NoReturn


class TextEnum(str, enum.Enum):
    """A closed set of words: compared as members, written as their value (``f"{x}"``, ``str(x)``, JSON)."""

    def __str__(self) -> str:
        return str(self.value)

    def __format__(self, spec: str) -> str:
        return format(str(self.value), spec)


class AnchorStatus(TextEnum):
    """What became of one line-anchored quote at the audited ref."""

    EXACT = "exact"  # span <= [START, END] <= region
    MOVED = "moved"  # found, but the declared range no longer fits it
    RELOCATED = "relocated"  # not in its file any more, but found in another (found_path)
    CHANGED = "changed"  # the file is there, the quoted code is not
    MISSING = "missing"  # the file is not at the ref
    UNVERIFIABLE = "unverifiable"  # the source cannot show this path (e.g. a wheel has no docs/)
    INCOMPLETE = "incomplete"  # checking would pass a bound (file size, nesting): not checked
    ERROR = "error"  # the file could not be read or decoded


class UncheckedReason(TextEnum):
    """Why a quote or condition was not checked: the status it is reported under."""

    UNVERIFIABLE = "unverifiable"  # the source cannot show the path
    INCOMPLETE = "incomplete"  # checking would pass a bound
    ERROR = "error"  # the file could not be read, decoded or parsed


class QuoteColumn(TextEnum):
    """The column of a summary table a quote is counted in: one table for every renderer."""

    EXACT = "exact"
    MOVED = "moved"  # healable by fix: moved in its file, or relocated to another
    CHANGED = "changed"
    MISSING = "missing"
    NOT_CHECKED = "not checked"


def assert_never(value: NoReturn) -> NoReturn:
    """The branch a ``match`` over a closed enum never reaches: mypy makes a new member a type error here."""
    raise AssertionError(f"unhandled value: {value!r}")


def quote_column(status: AnchorStatus) -> QuoteColumn:
    """The summary column a quote of this status counts in."""
    match status:
        case AnchorStatus.EXACT:
            return QuoteColumn.EXACT
        case AnchorStatus.MOVED | AnchorStatus.RELOCATED:
            return QuoteColumn.MOVED
        case AnchorStatus.CHANGED:
            return QuoteColumn.CHANGED
        case AnchorStatus.MISSING:
            return QuoteColumn.MISSING
        case AnchorStatus.UNVERIFIABLE | AnchorStatus.INCOMPLETE | AnchorStatus.ERROR:
            return QuoteColumn.NOT_CHECKED
        case _:
            assert_never(status)


class ConditionStatus(TextEnum):
    """What became of one gating condition at the audited ref."""

    HOLDS = "holds"
    DIFFERENT = "different"  # a near match is there, but an expression, branch or statement differs
    ABSENT = "absent"  # the scope, the if or the statement is not there at all
    MISSING = "missing"  # the file is not at the ref
    UNVERIFIABLE = "unverifiable"
    INCOMPLETE = "incomplete"  # checking would pass a bound (file size, nesting)
    ERROR = "error"  # e.g. the file does not parse


class Verdict(TextEnum):
    """The verdict on one claim of a skill."""

    CODE_VERIFIED = "code_verified"  # evidence registered, and all of it holds
    BROKEN = "broken"  # some registered evidence fails
    DOC_ONLY = "doc_only"  # no evidence registered
    UNVERIFIABLE = "unverifiable"  # evidence registered, none fails, some could not be checked
    UNLINKED = "unlinked"  # card.yaml says code_verified, but no evidence is registered for it


class PromiseKind(TextEnum):
    """What a checkable promise that is not a quote is about."""

    EVIDENCE = "evidence"  # a card.yaml evidence path
    REFERENCE = "reference"  # an @path in SKILL.md's prose
    TESTS = "tests"  # "N passed" for a pytest file
    SYMBOL = "symbol"  # a name or field a Python example of SKILL.md uses
    PATH = "path"  # a repository path SKILL.md's prose names
    LINK = "link"  # a relative Markdown link or image, its #anchor, or a link to the repository on GitHub
    VERSION = "version"  # a Python version the prose says the code needs
    COMMAND = "command"  # a command a shell block runs, or one of its flags
    CONSTRAINT = "constraint"  # a sentence of card.yaml's known_constraints or interactions
    LINES = "lines"  # `file.py:10-20` in the prose: a file, and the lines it had on the card's validation day
    PAGE = "page"  # a Markdown page of the skill's folder that no chain of links from SKILL.md reaches


class PromiseStatus(TextEnum):
    EXISTS = "exists"
    MISSING = "missing"
    HOLDS = "holds"  # tests: the count is as promised
    DIFFERS = "differs"  # tests: another count
    UNVERIFIABLE = "unverifiable"
    ERROR = "error"
    EXTERNAL = "external"  # not this repository's: the standard library, a third-party package or tool
    PRIVATE = "private"  # the name is gone, but a private one of the same name (_name) is there
    UNREACHED = "unreached"  # a page of the skill's folder no link from SKILL.md leads to

    @property
    def ok(self) -> bool:
        return self in (PromiseStatus.EXISTS, PromiseStatus.HOLDS, PromiseStatus.EXTERNAL)


class EvidenceKind(TextEnum):
    QUOTE = "quote"
    CONDITION = "condition"
    FILE = "file"  # a file_exists claim, checked by card.yaml's evidence paths
    NAMED = "named"  # the file or definition a claim's id names
    EXAMPLE = "example"  # what the SKILL.md example a claim's caption names sets and calls
    REGISTRY = "registry"  # no evidence registered where some was promised


class RegistryStatus(TextEnum):
    """The status of evidence the registry names but cannot give."""

    UNRESOLVED = "unresolved"  # anchors.yaml names a quote SKILL.md does not have
    NO_ENTRY = "unverifiable"  # a code_verified claim with no anchors.yaml entry: unverifiable, as its verdict


class Mismatch(TextEnum):
    """How card.yaml contradicts a claim's verdict."""

    NOT_ON_CARD = "card.yaml does not list this claim"
    NO_EVIDENCE = "card.yaml says code_verified, but anchors.yaml registers no evidence"
    EVIDENCE_FAILS = "card.yaml says code_verified, but its evidence fails"
    EVIDENCE_HOLDS = "card.yaml says doc_only, but the registered evidence holds"
    FILES_MISSING = "card.yaml says file_exists, but a path it names is missing"


class SourceKind(TextEnum):
    GIT = "git"
    RELEASE = "release"  # a published wheel
    INSTALLED = "installed"  # the distribution installed in this Python
    CATALOG = "catalog"  # a skills catalog: each skill carries its component's own source
    WORKTREE = "worktree"  # the files of a git working tree, uncommitted changes included (--worktree)


class ChangeKind(TextEnum):
    """What changed status between two audits (``diff``, ``history``, ``impact``)."""

    ANCHOR = "anchor"  # a quote's anchor status
    CONDITION = "condition"  # a condition's status (impact)
    CLAIM = "claim"  # a claim's verdict
    PROMISE = "promise"  # a path, link, command or other promise the prose makes (impact)


Outcome = AnchorStatus | ConditionStatus | Verdict | PromiseStatus  # what a change is from and to


def holds(outcome: Outcome | None) -> bool:
    """Whether a status is one that holds (an exact quote, a condition that holds, a verified claim, a kept
    promise): a change to it mends; a change to any other (or to nothing: gone) is for the worse."""
    if isinstance(outcome, PromiseStatus):
        return outcome.ok
    return outcome in (AnchorStatus.EXACT, ConditionStatus.HOLDS, Verdict.CODE_VERIFIED)


class ExitCode(enum.IntEnum):
    """Process exit codes; CI gates on these."""

    OK = 0  # every claim holds and every quote is exact
    DRIFT = 1  # a quote not exact, a claim broken, unverifiable or contradicting card.yaml
    FATAL = 2  # could not audit: bad input, unknown ref, unreachable source


# Tags whose meaning anchor-audit checks; other tags are kept and reported.
KNOWN_TAGS = frozenset({"code_verified", "doc_only", "measured", "file_exists", "documented", "unclear"})
