"""A quote body cut into runs of lines between ``...`` elisions."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

ELISION = "..."


@dataclass(frozen=True)
class QuoteShape:
    """A quote body cut into runs of lines between ``...`` elisions."""

    runs: tuple[tuple[str, ...], ...]  # stripped, non-blank lines of each run
    leading_elision: bool
    trailing_elision: bool

    @property
    def lines(self) -> list[str]:
        return [line for run in self.runs for line in run]


def shape_of(body: Sequence[str]) -> QuoteShape:
    runs: list[tuple[str, ...]] = []
    current: list[str] = []
    stripped = [line.strip() for line in body]
    for line in stripped:
        if line == ELISION:
            if current:
                runs.append(tuple(current))
            current = []
        elif line:
            current.append(line)
    if current:
        runs.append(tuple(current))
    content = [s for s in stripped if s]
    return QuoteShape(
        tuple(runs),
        leading_elision=bool(content) and content[0] == ELISION,
        trailing_elision=bool(content) and content[-1] == ELISION,
    )
