"""Finding a quote's runs in a file, in order, under a work bound.

Stage 1 compares stripped lines; stage 2 compares logical lines (tokens,
and libcst where only parentheses differ).  Both hand their candidates to
one bounded chain search, :func:`chain`.
"""

from __future__ import annotations

from bisect import bisect_left
from typing import Callable

from ..errors import BoundExceeded
from ..model import LineRange
from ..parse import LogicalLine, PythonIndex, logical_lines
from ..source.file import SourceFile
from .shape import ELISION, QuoteShape

MAX_MATCH_WORK = 3_000_000  # line comparisons one quote's matching may make (a few seconds at most)


# A match: the source lines each run covers, and the first line of the last matched statement.
Found = tuple[list[LineRange], int]


class Work:
    """A bound on the steps one quote's matching may take: past it, the result is incomplete."""

    def __init__(self, limit: int = MAX_MATCH_WORK) -> None:
        self.left = limit

    def spend(self, steps: int = 1) -> None:
        self.left -= steps
        if self.left < 0:
            raise BoundExceeded(f"matching this quote needs more than {MAX_MATCH_WORK:,} steps; not finished")


def find_text(shape: QuoteShape, source: SourceFile, near: int, work: Work) -> Found | None:
    """Match runs line by line on stripped text (stage 1)."""
    src, skippable = source.compared, source.skippable
    runs = [tuple(source.comparable(line) for line in run) for run in shape.runs]

    def run_at(k: int, i: int) -> int | None:
        run = runs[k]
        j = i
        for n, want in enumerate(run):
            while True:
                work.spend()
                if j >= len(src):
                    return None
                if src[j] == want:
                    j += 1
                    break
                if n > 0 and skippable[j]:
                    j += 1
                    continue
                return None
        return j - 1

    index = source.line_index
    starts = [index.get(run[0], []) for run in runs]
    hit = chain(starts, run_at, near - 1, lambda i: i, work)
    if hit is None:
        return None
    return [LineRange(a + 1, b + 1) for a, b in hit], hit[-1][1] + 1


def find_logical(shape: QuoteShape, index: PythonIndex, near: int, work: Work) -> Found | None:
    """Match runs by logical line, tolerant of re-wrapping and formatting (stage 2)."""
    units = index.logical
    runs: list[list[LogicalLine]] = []
    for run in shape.runs:
        work.spend(len(run))
        parsed = logical_lines("\n".join(run))
        if not parsed:
            return None  # a fragment that does not tokenize (e.g. half a call): text match only
        runs.append(parsed)

    def same(q: LogicalLine, s: LogicalLine) -> bool:
        work.spend()
        if q.key == s.key:
            return True
        if ELISION in q.key:  # an inline "...": any bracket-balanced tokens of the same statement
            work.spend(len(s.key))
            return elided_match(q.key, s.key)
        if q.loose_key != s.loose_key:
            return False
        from .canon import statement_key  # libcst: only here, where formatting must be compared

        work.spend(100)  # a libcst parse of both statements
        qk = statement_key(q.text)  # only parentheses differ: redundant or not? ask libcst
        return qk is not None and qk == statement_key(s.text)

    def run_at(k: int, i: int) -> int | None:
        run = runs[k]
        if i + len(run) > len(units):
            return None
        return i + len(run) - 1 if all(same(q, units[i + n]) for n, q in enumerate(run)) else None

    by_key, by_first = index.logical_by_loose_key, index.logical_by_first_token
    starts = [
        (by_first.get(run[0].key[0], []) if run[0].key[0] != ELISION else list(range(len(units))))
        if ELISION in run[0].key
        else by_key.get(run[0].loose_key, [])
        for run in runs
    ]
    hit = chain(starts, run_at, near - 1, lambda i: units[i].start - 1, work)
    if hit is None:
        return None
    return [LineRange(units[a].start, units[b].end) for a, b in hit], units[hit[-1][1]].start


_CLOSE = {")": "(", "]": "[", "}": "{"}


def elided_match(pattern: tuple[object, ...], tokens: tuple[object, ...]) -> bool:
    """Whether ``tokens`` (one statement) match ``pattern``, where each ``...`` stands for any tokens.

    What a ``...`` covers must be bracket-balanced: it can swallow ``a, b`` in
    ``f(...)``, never the ``)`` that closes a bracket opened outside it, so
    ``def f(...):`` does not match ``def f(a) -> None:``.  It may cover nothing.
    """
    memo: dict[tuple[int, int], bool] = {}

    def go(i: int, j: int) -> bool:
        if (i, j) in memo:
            return memo[(i, j)]
        if i == len(pattern):
            result = j == len(tokens)
        elif pattern[i] == ELISION:
            result, depth, k = False, 0, j
            while True:
                if depth == 0 and go(i + 1, k):
                    result = True
                    break
                if k == len(tokens):
                    break
                token = tokens[k]
                if token in ("(", "[", "{"):
                    depth += 1
                elif token in _CLOSE:
                    if depth == 0:
                        break  # it would close a bracket opened outside the elision
                    depth -= 1
                k += 1
        else:
            result = j < len(tokens) and pattern[i] == tokens[j] and go(i + 1, j + 1)
        memo[(i, j)] = result
        return result

    return go(0, 0)


def chain(
    starts: list[list[int]],
    run_at: Callable[[int, int], int | None],
    near: int,
    position: Callable[[int], int],
    work: Work,
) -> list[tuple[int, int]] | None:
    """Pick one occurrence per run, in order, the first nearest ``near``; None if the runs do not all occur in order.

    ``starts[k]`` lists where run ``k`` may begin (ascending); ``run_at(k, i)``
    is where it ends when it does begin at ``i``.  Occurrences are found
    lazily, never all of them for every run (2,000 elisions against 20,000
    alike lines would be 40 million):

    1. backwards, the latest start of each later run from which the rest
       of the quote still follows (``bound``);
    2. the first run's occurrences that end before that bound can start a
       whole match: the one nearest ``near`` wins (the earliest on a tie);
    3. forwards from it, each later run takes its earliest occurrence after
       the previous one that can still be followed by the rest, which gives
       the tightest span for that first line.
    """
    count = len(starts)
    bounds = _bounds(starts, run_at, work)
    if bounds is None:
        return None
    best: tuple[int, int] | None = None
    best_distance = 0
    for i in starts[0]:
        if i >= bounds[1]:
            break
        work.spend()
        end = run_at(0, i)
        if end is None or end >= bounds[1]:
            continue
        distance = abs(position(i) - near)
        if best is None or distance < best_distance:
            best, best_distance = (i, end), distance
    if best is None:
        return None
    chosen = [best]
    for k in range(1, count):
        candidates = starts[k]
        idx = bisect_left(candidates, chosen[-1][1] + 1)
        while True:  # terminates: the occurrence at bounds[k] qualifies
            work.spend()
            i = candidates[idx]
            end = run_at(k, i)
            if end is not None and end < bounds[k + 1]:
                chosen.append((i, end))
                break
            idx += 1
    return chosen


def _bounds(starts: list[list[int]], run_at: Callable[[int, int], int | None], work: Work) -> list[int] | None:
    """Step 1 of :func:`chain`: ``bounds[k]``, the latest start of run ``k`` from which the rest still follows."""
    count = len(starts)
    bounds = [0] * (count + 1)
    bounds[count] = 1 << 62
    for k in range(count - 1, 0, -1):
        candidates = starts[k]
        idx = bisect_left(candidates, bounds[k + 1]) - 1
        while idx >= 0:
            work.spend()
            end = run_at(k, candidates[idx])
            if end is not None and end < bounds[k + 1]:
                break
            idx -= 1
        if idx < 0:
            return None
        bounds[k] = candidates[idx]
    return bounds
