"""What a skill cites, one typed value per citation: where it is written and what it reads at a ref.

Every checkable thing a skill says is a :class:`Reference`: a fence quote, a
condition, a card-comment anchor, a card ``evidence`` path, an ``@``-reference,
a test-count promise, an imported symbol. ``reads.references`` lists them once;
what a skill depends on (prefetch, ``impact``'s skills, ``history``'s commits,
the result cache's keys) is their union, so a new kind is added in one place.
"""

from __future__ import annotations

from dataclasses import dataclass

from .status import TextEnum


class ReferenceKind(TextEnum):
    QUOTE = "quote"  # a line-anchored fence of SKILL.md
    CONDITION = "condition"  # a gating condition anchors.yaml registers for a claim
    CARD_ANCHOR = "card anchor"  # a card.yaml comment naming a file and lines
    EVIDENCE = "evidence"  # a card.yaml evidence path
    AT_PATH = "@path"  # an @path in SKILL.md's prose
    TESTS = "tests"  # "N passed" for a pytest file
    SYMBOL = "symbol"  # a name a Python example of SKILL.md imports from the repository
    PATH = "path"  # a repository path in prose, a code span or a shell command
    LINK = "link"  # a relative Markdown link or image (and its #anchor)
    REPO_LINK = "repo link"  # a github.com/OWNER/REPO/blob|tree/REF/PATH link to the audited repository
    PIN = "pin"  # a Python version the prose says the code needs ("Python 3.10+")
    NAME = "name"  # a dotted name or a call in a prose code span, or a YAML example's _target_
    LINES = "lines"  # an inline line anchor of the prose: `file.py:10-20` (the range in fragment)
    COMMAND = "command"  # a command a shell block runs: python -m MOD, python SCRIPT, a console script; its flags
    DEFAULT = "default"  # a default the prose states for a flag: `--steps` (default: 100), or a table's Default column
    CONSTRAINT = "constraint"  # a sentence of card.yaml's known_constraints or interactions, decided by a gate
    PAGE = "page"  # a Markdown page of the skill's folder, reached from SKILL.md by links (or not)


@dataclass(frozen=True)
class Tail:
    """A file named by the end of its path (``other.py``), optionally under a folder (``megatron/core/``)."""

    file: str
    within: str = ""

    def matches(self, path: str) -> bool:
        name = self.file.strip("/")
        fits = path == name or path.endswith("/" + name)
        return fits and (not self.within or self.within in path)


@dataclass(frozen=True)
class Citation:
    """A citation of SKILL.md's prose, as parsed: what is written, what it names, where."""

    kind: ReferenceKind  # PATH, LINK, REPO_LINK, PIN or COMMAND
    text: str  # as written
    target: str  # the path it names (relative to SKILL.md for a LINK), "python>=3.10" for a PIN; for a
    # COMMAND "module:PKG.MOD", "script:PATH" or "program:NAME" (a console script, if the repository declares it)
    line: int
    fragment: str = ""  # a link's #anchor, without the "#"; a DEFAULT's stated value
    repo: str = ""  # REPO_LINK: OWNER/NAME@REF as the URL says
    flags: tuple[str, ...] = ()  # COMMAND: the --flags it passes, as written
    positionals: tuple[str, ...] = ()  # COMMAND: the words after the program, before its first flag
    file: str = "SKILL.md"  # the skill's file it is written in (a LINK's target is then a path in the folder)
    names: tuple[str, ...] = ()  # LINES on a page: the names its line gives beside it (its other code spans)


@dataclass(frozen=True)
class Reference:
    """One citation: its kind, where it is written (the skill's file and line, the text as written),
    and what it reads at a ref: exact ``paths``, or the files a ``tail`` matches."""

    kind: ReferenceKind
    file: str  # "SKILL.md", "card.yaml" or "anchors.yaml"
    line: int
    text: str
    paths: frozenset[str] = frozenset()
    tail: Tail | None = None
