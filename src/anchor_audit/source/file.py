"""One file's text at the audited ref: content, never a path on disk.

Everything derived from the text and shared by the checks of one file
(its lines, their stripped form, where each line occurs) is built once,
when first asked for.  Parsing is :mod:`anchor_audit.parse`'s business.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from ..model import LineRange
from ..textlines import split_lines

PYTHON_SUFFIXES = (".py", ".pyi")


@dataclass
class SourceFile:
    """The text of one file at the audited ref."""

    path: str
    text: str
    blob: str | None = None  # git blob sha: the cache key for everything derived from the text

    @cached_property
    def lines(self) -> list[str]:
        return split_lines(self.text)

    @cached_property
    def stripped(self) -> list[str]:
        return [line.strip() for line in self.lines]

    @cached_property
    def line_index(self) -> dict[str, list[int]]:
        """0-based indices of each stripped line, ascending (built once per file, shared by its quotes)."""
        out: dict[str, list[int]] = {}
        for i, line in enumerate(self.stripped):
            out.setdefault(line, []).append(i)
        return out

    @cached_property
    def skippable(self) -> list[bool]:
        """Blank and comment-only lines, which may sit between the lines of a quoted run."""
        return [not s or s.startswith("#") for s in self.stripped]

    @property
    def is_python(self) -> bool:
        return self.path.endswith(PYTHON_SUFFIXES)

    @property
    def whole(self) -> LineRange:
        return LineRange(1, max(1, len(self.lines)))
