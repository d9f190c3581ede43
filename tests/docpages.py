"""The fenced blocks of README.md and docs/*.md, their markers, and comparing a shown output with a run.

A block that shows what anchor-audit prints has, on the line above its fence, ``<!-- shown-by: CASE -->``
(CASE is a test of tests/test_docs_shown.py, or ``tests/FILE.py::TEST``, the test elsewhere that compares
it); a block that shows something else in an output's clothes has ``<!-- not-output: WHY -->``.  A shown
output may be abridged: a line that is ``...`` alone stands for any lines, and a line ending in ``...``
for a line that begins with what precedes it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from .conftest import ROOT

PAGES = [ROOT / "README.md", ROOT / "README.zh-CN.md", *sorted((ROOT / "docs").glob("*.md"))]
OUTPUT_LANGUAGES = {"text", "markdown", "json", "console", "diff"}  # what a tool prints is shown in these
_FENCE = re.compile(r"^(```+|~~~+)(\S*)")
_MARKER = re.compile(r"^<!-- (shown-by|not-output): (.+?) -->$")


@dataclass(frozen=True)
class Block:
    page: Path
    line: int  # of the opening fence
    language: str
    text: str  # without the fences, ending in a newline
    marker: tuple[str, str] | None  # (shown-by | not-output, what follows)

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def blocks(page: Path) -> list[Block]:
    lines = page.read_text(encoding="utf-8").split("\n")
    out: list[Block] = []
    i = 0
    while i < len(lines):
        opened = _FENCE.match(lines[i])
        if not opened:
            i += 1
            continue
        fence, language = opened.group(1), opened.group(2)
        end = next((j for j in range(i + 1, len(lines)) if lines[j].startswith(fence[:3]) and not lines[j][3:].strip()), len(lines))
        marked = _MARKER.match(lines[i - 1]) if i else None
        body = "\n".join(lines[i + 1 : end]) + "\n"
        out.append(Block(page, i + 1, language, body, (marked.group(1), marked.group(2)) if marked else None))
        i = end + 1
    return out


def every_block() -> list[Block]:
    return [b for page in PAGES for b in blocks(page)]


def shown_by(case: str) -> list[Block]:
    """The blocks (one per page that shows it: the README and its translation share cases) marked ``case``."""
    found = [b for b in every_block() if b.marker == ("shown-by", case)]
    assert found, f"no page has <!-- shown-by: {case} -->"
    return found


def agrees(shown: str, actual: str) -> bool:
    """Whether ``actual`` is what ``shown`` shows, with the page's elisions (``...``) and trailing spaces."""
    want = [line.rstrip() for line in shown.rstrip("\n").split("\n")]
    have = [line.rstrip() for line in actual.rstrip("\n").split("\n")]
    return _agrees(want, 0, have, 0)


def _agrees(want: list[str], i: int, have: list[str], j: int) -> bool:
    while i < len(want):
        line = want[i]
        if line.strip() == "...":
            return any(_agrees(want, i + 1, have, k) for k in range(j, len(have) + 1))
        if j >= len(have):
            return False
        if line.endswith("...") and line.strip() != "...":
            if not have[j].startswith(line[:-3]):
                return False
        elif have[j] != line:
            return False
        i, j = i + 1, j + 1
    return j == len(have)


def first_difference(shown: str, actual: str) -> str:
    """For a failing comparison: the first line that differs, both ways (elisions aside)."""
    want = [line.rstrip() for line in shown.rstrip("\n").split("\n") if line.strip() != "..."]
    have = [line.rstrip() for line in actual.rstrip("\n").split("\n")]
    for w in want:
        if not any(h == w or (w.endswith("...") and h.startswith(w[:-3])) for h in have):
            return f"shown but not printed: {w!r}\nprinted:\n{actual}"
    return f"printed:\n{actual}"
