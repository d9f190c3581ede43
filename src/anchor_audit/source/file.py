"""One file's text at the audited ref: content, never a path on disk.

Everything derived from the text and shared by the checks of one file
(its lines, their stripped form, where each line occurs) is built once,
when first asked for.  Parsing is :mod:`anchor_audit.parse`'s business.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from ..model import LineRange
from ..store.recent import Recent
from ..text.lines import split_lines

PYTHON_SUFFIXES = (".py", ".pyi")
MARKDOWN_SUFFIXES = (".md", ".markdown")
# Languages whose comments run from "#" to the end of the line: a trailing comment never matters there.
HASH_COMMENT_SUFFIXES = (".yaml", ".yml", ".toml", ".sh", ".bash", ".zsh", ".cfg", ".conf", ".ini", ".mk", ".r")
HASH_COMMENT_NAMES = ("Dockerfile", "Makefile", "Containerfile", ".gitignore", ".env")
_FENCE = ("```", "~~~")


def strip_hash_comment(line: str) -> str:
    """``line`` without a trailing ``# comment`` (a ``#`` inside quotes, or not after a space, stays)."""
    quote = ""
    for i, char in enumerate(line):
        if quote:
            if char == quote:
                quote = ""
        elif char in "\"'":
            quote = char
        elif char == "#" and (i == 0 or line[i - 1] in " \t"):
            return line[:i].rstrip()
    return line


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

    def comparable(self, line: str) -> str:
        """A stripped line as quotes of this file are compared: without a trailing comment where ``#`` starts one."""
        return strip_hash_comment(line) if self.hash_comments else line

    @cached_property
    def compared(self) -> list[str]:
        """Every line in its compared form (see :meth:`comparable`)."""
        return [self.comparable(s) for s in self.stripped] if self.hash_comments else self.stripped

    @cached_property
    def line_index(self) -> dict[str, list[int]]:
        """0-based indices of each compared line, ascending (built once per file, shared by its quotes)."""
        out: dict[str, list[int]] = {}
        for i, line in enumerate(self.compared):
            out.setdefault(line, []).append(i)
        return out

    @cached_property
    def skippable(self) -> list[bool]:
        """Lines that may sit between the lines of a quoted run: blank and comment-only lines, and in
        Markdown the fence lines of a code block (a quote of the code may leave them out)."""
        fences = self.is_markdown
        return [not s or s.startswith("#") or (fences and s.startswith(_FENCE)) for s in self.stripped]

    @property
    def is_markdown(self) -> bool:
        return self.path.lower().endswith(MARKDOWN_SUFFIXES)

    @property
    def hash_comments(self) -> bool:
        name = self.path.rsplit("/", 1)[-1]
        return name.lower().endswith(HASH_COMMENT_SUFFIXES) or name in HASH_COMMENT_NAMES

    @property
    def is_python(self) -> bool:
        return self.path.endswith(PYTHON_SUFFIXES)

    @property
    def whole(self) -> LineRange:
        return LineRange(1, max(1, len(self.lines)))


class SourceFiles:
    """Files read, by blob sha, the most recently used only, at most ``max_chars`` of their text (each keeps its
    lines and their stripped form besides): a file asked again once let go is read again from git."""

    def __init__(self, max_chars: int = 4 * 1024 * 1024) -> None:
        self._recent: Recent[SourceFile] = Recent(size=1 << 30, max_chars=max_chars)

    def get(self, sha: str) -> SourceFile | None:
        return self._recent.get(sha)

    def __setitem__(self, sha: str, source: SourceFile) -> None:
        self._recent.put(sha, source, len(source.text))
