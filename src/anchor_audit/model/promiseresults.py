"""What became of a skill's promises that are not quotes, and of a catalog's folders no component names."""

from __future__ import annotations

from dataclasses import dataclass

from .status import PromiseKind, PromiseStatus


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
    heal: str | None = None  # a missing path: the one path that stands in its place, which fix writes
    renamed: tuple[str, str] | None = None  # the skill's name as the path has it, and the form the code has
    now: str | None = None  # a missing path: where its file is at the ref (moved, or written with the skill's name)
    landed: tuple[str, str] | None = None  # a path not yet there: (commit, day) the default branch adds it later


@dataclass(frozen=True)
class UnlistedFolder:
    """A folder of the catalog's skills/ that no component names: not audited, and why; the checks that need no
    code still run on it (its links, followed in the catalog; its pages no link reaches)."""

    name: str
    listed_in: str | None = None  # the exception file that names it (catalog-exceptions.yml), if any
    reason: str | None = None  # the reason that file gives, if any
    promises: tuple[PromiseResult, ...] = ()
