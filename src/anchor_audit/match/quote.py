"""Find a line-anchored quote in the text of its file, and judge its anchor.

The core definition (README, "Anchor status"):

* Find the quote: its non-``...`` lines, indentation ignored, in order.
  Within a run between two ``...`` lines the lines are consecutive in the
  source, except that blank and comment-only source lines may sit between
  them; across a ``...`` any gap is allowed.  Where the text differs only by
  formatting, logical lines are compared by tokens and, where only
  parentheses differ, by libcst structure.  Of several matches, the one
  nearest START wins.
* span = first..last matched line; region = the smallest statement enclosing
  the span, widened upward over the comment lines directly above it (the
  whole file for non-Python files).
* exact: span <= [START, END] <= region; moved: found otherwise; changed: not
  found; missing: no file.
"""

from __future__ import annotations

import difflib
from bisect import bisect_left
from dataclasses import dataclass
from typing import Callable, Protocol, Sequence

from ..model import AnchorStatus, LineRange, Quote, QuoteMatch
from .pysource import LogicalLine, PythonSyntaxProblem, SourceFile, logical_lines

ELISION = "..."
CANDIDATE_THRESHOLD = 0.5  # below this similarity a "closest candidate" is noise
MAX_CANDIDATE_WORK = 2_000_000  # line comparisons the search for a closest candidate may make


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


def match_quote(quote: Quote, source: SourceFile | None) -> QuoteMatch:
    """Judge ``quote`` against ``source`` (None: the file is not at the ref)."""
    if source is None:
        return QuoteMatch(quote, AnchorStatus.MISSING, detail=f"{quote.path} is not in the tree at this ref")
    shape = shape_of(quote.body)
    if not shape.runs:
        return QuoteMatch(quote, AnchorStatus.CHANGED, detail="the quote has no code lines to look for")

    notes: list[str] = []
    index = None
    if source.is_python:
        try:
            index = source.python()
        except PythonSyntaxProblem as problem:
            notes.append(f"{quote.path} does not parse ({problem}); matched as plain text, region is the whole file")

    found = _find_text(shape, source.stripped, quote.declared.start)
    if found is None and index is not None:
        found = _find_logical(shape, index.logical, quote.declared.start)
    if found is None:
        return _changed(quote, shape, source, notes)

    runs, last_unit_start = found
    span = LineRange(runs[0].start, runs[-1].end)
    if index is not None:
        region = index.enclosing(span) or source.whole
        region = _widen_over_comments(region, source.stripped)
    else:
        region = source.whole

    exact = span in quote.declared and quote.declared in region
    end = span.end
    if shape.trailing_elision and index is not None:
        # "...": the author quoted the head of a block; keep its body in range.
        block = index.widest_starting_at(last_unit_start)
        if block is not None:
            end = max(end, min(block.end, region.end))
    suggested = LineRange(span.start, end)
    status = AnchorStatus.EXACT if exact else AnchorStatus.MOVED
    return QuoteMatch(
        quote,
        status,
        found=span,
        region=region,
        suggested=None if exact else suggested,
        runs=tuple(runs),
        detail="; ".join(notes),
    )


def relocate(quote: Quote, tree: "ReadableTree") -> QuoteMatch | None:
    """Look for a changed or missing quote in the other files of ``tree``.

    git grep finds the files holding the quote's most specific line (its
    longest); the full match runs on those.  The first file where the whole
    quote is found wins (in path order).  Trees without ``search(text, suffix)``
    are not searched.
    """
    search = getattr(tree, "search", None)
    lines = [line for line in shape_of(quote.body).lines]
    if search is None or not lines:
        return None
    needle = max(lines, key=len)
    suffix = "." + quote.path.rsplit(".", 1)[-1] if "." in quote.path.rsplit("/", 1)[-1] else ""
    for path in search(needle, suffix) or ():
        if path == quote.path:
            continue
        source = tree.read(path)
        if source is None:
            continue
        moved = Quote(path, quote.declared, quote.body, quote.skill_line)
        match = match_quote(moved, source)
        if match.status in (AnchorStatus.EXACT, AnchorStatus.MOVED) and match.found is not None:
            return QuoteMatch(
                quote,
                AnchorStatus.RELOCATED,
                found=match.found,
                region=match.region,
                suggested=match.suggested or match.found,
                runs=match.runs,
                detail=f"the quoted code is now in {path}, lines {match.found}",
                found_path=path,
            )
    return None


class ReadableTree(Protocol):
    def read(self, path: str) -> SourceFile | None: ...


# ------------------------------------------------------------------ finding


# A match: the source lines each run covers, and the first line of the last matched statement.
_Found = tuple[list[LineRange], int]


def _find_text(shape: QuoteShape, src: Sequence[str], near: int) -> _Found | None:
    """Match runs line by line on stripped text (stage 1)."""
    skippable = [not s or s.startswith("#") for s in src]

    def run_at(run: tuple[str, ...], i: int) -> int | None:
        j = i
        for k, want in enumerate(run):
            while True:
                if j >= len(src):
                    return None
                if src[j] == want:
                    j += 1
                    break
                if k > 0 and skippable[j]:
                    j += 1
                    continue
                return None
        return j - 1

    starts_by_line: dict[str, list[int]] = {}
    for i, s in enumerate(src):
        starts_by_line.setdefault(s, []).append(i)

    def occurrences(run: tuple[str, ...]) -> list[tuple[int, int]]:
        out = []
        for i in starts_by_line.get(run[0], ()):
            end = run_at(run, i)
            if end is not None:
                out.append((i, end))
        return out

    hit = _chain([occurrences(run) for run in shape.runs], near - 1)
    if hit is None:
        return None
    return [LineRange(a + 1, b + 1) for a, b in hit], hit[-1][1] + 1


def _find_logical(shape: QuoteShape, units: Sequence[LogicalLine], near: int) -> _Found | None:
    """Match runs by logical line, tolerant of re-wrapping and formatting (stage 2)."""
    runs: list[list[LogicalLine]] = []
    for run in shape.runs:
        parsed = logical_lines("\n".join(run))
        if not parsed:
            return None  # a fragment that does not tokenize (e.g. half a call): text match only
        runs.append(parsed)

    from .canon import statement_key  # libcst: only here, where formatting must be compared

    def same(q: LogicalLine, s: LogicalLine) -> bool:
        if q.key == s.key:
            return True
        if q.loose_key != s.loose_key:
            return False
        qk = statement_key(q.text)  # only parentheses differ: redundant or not? ask libcst
        return qk is not None and qk == statement_key(s.text)

    def occurrences(run: list[LogicalLine]) -> list[tuple[int, int]]:
        out = []
        for i in range(len(units) - len(run) + 1):
            if all(same(q, units[i + k]) for k, q in enumerate(run)):
                out.append((i, i + len(run) - 1))
        return out

    hit = _chain([occurrences(run) for run in runs], near - 1, position=lambda i: units[i].start - 1)
    if hit is None:
        return None
    return [LineRange(units[a].start, units[b].end) for a, b in hit], units[hit[-1][1]].start


def _chain(
    occurrences: list[list[tuple[int, int]]],
    near: int,
    position: Callable[[int], int] | None = None,
) -> list[tuple[int, int]] | None:
    """Pick one occurrence per run, in order, the first nearest ``near``.

    Later runs take their earliest occurrence after the previous one, which
    gives the tightest span for a given first line.  Returns the chosen
    (start, end) index pair of each run.
    """
    pos = position or (lambda i: i)
    best: list[tuple[int, int]] | None = None
    best_distance = 0
    starts = [[o[0] for o in occ] for occ in occurrences]
    for first in occurrences[0]:
        chosen = [first]
        for occ, occ_starts in zip(occurrences[1:], starts[1:], strict=True):
            k = bisect_left(occ_starts, chosen[-1][1] + 1)
            if k == len(occ):
                break
            chosen.append(occ[k])
        if len(chosen) < len(occurrences):
            continue
        distance = abs(pos(first[0]) - near)
        if best is None or distance < best_distance:
            best, best_distance = chosen, distance
    return best


def _widen_over_comments(region: LineRange, src: Sequence[str]) -> LineRange:
    start = region.start
    while start > 1 and src[start - 2].startswith("#"):
        start -= 1
    return LineRange(start, region.end)


# ------------------------------------------------------------------ changed


def _changed(quote: Quote, shape: QuoteShape, source: SourceFile, notes: list[str]) -> QuoteMatch:
    """The quote is gone: show the most similar window of code and a diff."""
    want = shape.lines
    code = [(i + 1, s) for i, s in enumerate(source.stripped) if s]
    n = len(want)
    if n * len(code) > MAX_CANDIDATE_WORK:
        notes.insert(0, "the quoted code is not in the file; the file is too large to search for the closest code")
        return QuoteMatch(quote, AnchorStatus.CHANGED, detail="; ".join(notes))
    best_score, best_k, best_distance = -1.0, 0, 0
    for k in range(max(1, len(code) - n + 1)):
        window = code[k : k + n]
        if not window:
            break
        score = sum(_similar(a, b) for a, (_, b) in zip(want, window, strict=False)) / n  # a short file: fewer lines
        distance = abs(window[0][0] - quote.declared.start)
        if score > best_score + 1e-9 or (abs(score - best_score) <= 1e-9 and distance < best_distance):
            best_score, best_k, best_distance = score, k, distance
    detail = "the quoted code is not in the file"
    if best_score < CANDIDATE_THRESHOLD:
        notes.insert(0, detail + "; nothing similar found")
        return QuoteMatch(quote, AnchorStatus.CHANGED, detail="; ".join(notes))
    window = code[best_k : best_k + n]
    candidate = LineRange(window[0][0], window[-1][0])
    label = f"{quote.path}:{candidate}"
    diff = tuple(
        line.rstrip("\n")
        for line in difflib.unified_diff(want, [s for _, s in window], "quote", label, lineterm="", n=n)
    )
    notes.insert(0, f"{detail}; closest: lines {candidate} ({best_score:.0%} similar)")
    return QuoteMatch(quote, AnchorStatus.CHANGED, candidate=candidate, diff=diff, detail="; ".join(notes))


def _similar(a: str, b: str) -> float:
    if a == b:
        return 1.0
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    if matcher.real_quick_ratio() < CANDIDATE_THRESHOLD:
        return 0.0
    return matcher.ratio()
