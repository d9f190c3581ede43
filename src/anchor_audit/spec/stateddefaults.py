"""The defaults a skill states for a command's flags: in a sentence right after the flag's code span
(`--steps` (default: 100)), or in a Markdown table with a Default column; and in such a table, for the dotted
keys of a spec file (`train.distributed_strategy`)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Iterator

from ..model import Citation, ReferenceKind

if TYPE_CHECKING:
    from markdown_it.token import Token

FLAG = re.compile(r"--[A-Za-z][\w-]*")
SPEC_KEY = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")  # a dotted key of a spec file: train.optim.lr
# right after a flag's code span: "(default: 100)", "(int, default 4)", "defaults to `8`", ", default is bf16"
_DEFAULT = re.compile(
    r"^\s*[(,:–—-]?\s*(?:[\w ]{1,20},\s*)?defaults?(?:\s+value)?(?:\s*[:=]\s*|\s+(?:is|to)\s+|\s+)`?([\w.+-]+)`?",
    re.I,
)
_NOT_VALUES = {"the", "a", "an", "its", "your", "this", "that", "whatever", "same", "current", "whichever"}


def stated_default(flag: str, line_text: str, line: int, at: int = -1) -> Iterator[Citation]:
    """A default the line states for ``flag``, right after its code span (at column ``at``, where known)."""
    if at < 0 or not line_text.startswith(f"`{flag}`", at):
        at = line_text.find(f"`{flag}`")
    said = _DEFAULT.match(line_text[at + len(flag) + 2 : at + len(flag) + 200]) if at >= 0 else None
    if said is not None and not said.group(1).startswith("-") and said.group(1).lower() not in _NOT_VALUES:
        yield Citation(ReferenceKind.DEFAULT, f"{flag} default {said.group(1)}", flag, line, said.group(1))


class DefaultsTable:
    """A Markdown table's rows whose first cell is a flag, when the table has a Default column."""

    def __init__(self) -> None:
        self.headers: list[str] = []
        self.row: list[str] = []
        self.cell: str | None = None
        self.in_head = False
        self.line = 0

    def read(self, token: Token) -> list[Citation]:
        kind = token.type
        if kind == "thead_open":
            self.headers, self.in_head = [], True
        elif kind == "thead_close":
            self.in_head = False
        elif kind == "tr_open":
            self.row, self.line = [], token.map[0] + 1 if token.map else 0
        elif kind in ("th_open", "td_open"):
            self.cell = ""
        elif kind == "inline" and self.cell is not None:
            self.cell = token.content.strip()
        elif kind in ("th_close", "td_close") and self.cell is not None:
            (self.headers if self.in_head else self.row).append(self.cell)
            self.cell = None
        elif kind == "tr_close" and not self.in_head:
            return self._row()
        return []

    def _row(self) -> list[Citation]:
        columns = [h.strip("*_ ").lower() for h in self.headers]
        if "default" not in columns or len(self.row) <= columns.index("default"):
            return []
        first = self.row[0].strip("`* ")
        flag = FLAG.match(first) or SPEC_KEY.fullmatch(first)
        value = self.row[columns.index("default")].strip("`* ")
        if flag is None or not re.fullmatch(r"[\w.+-]+", value) or value.startswith("-"):
            return []  # not a flag's or a spec key's row, or a default in words ("the GPU count", "-")
        return [Citation(ReferenceKind.DEFAULT, f"{flag.group(0)} default {value}", flag.group(0), self.line, value)]
