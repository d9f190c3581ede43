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
import functools
from bisect import bisect_left
from dataclasses import dataclass
from typing import Callable, Protocol, Sequence

from ..errors import BoundExceeded
from ..model import AnchorStatus, LineRange, Quote, QuoteMatch
from .pysource import LogicalLine, PythonIndex, PythonSyntaxProblem, SourceFile, logical_lines

ELISION = "..."
CANDIDATE_THRESHOLD = 0.5  # below this similarity a "closest candidate" is noise
MAX_CANDIDATE_WORK = 20_000  # line similarities the search for a closest candidate may compute
MAX_RELOCATION_CANDIDATES = 50  # files holding the quote's line that relocation reads and matches
MAX_MATCH_WORK = 3_000_000  # line comparisons one quote's matching may make (a few seconds at most)


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

    work = _Work()
    found = _find_text(shape, source, quote.declared.start, work)
    if found is None and index is not None:
        found = _find_logical(shape, index, quote.declared.start, work)
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
    are not searched.  A skill's own files (any folder holding a SKILL.md)
    are never candidates: a quote "found" in the document that quotes it
    checks nothing.  At most :data:`MAX_RELOCATION_CANDIDATES` files are
    tried; more is :class:`~anchor_audit.errors.BoundExceeded` (incomplete).
    """
    search = getattr(tree, "search", None)
    lines = [line for line in shape_of(quote.body).lines]
    if search is None or not lines:
        return None
    needle = max(lines, key=len)
    suffix = "." + quote.path.rsplit(".", 1)[-1] if "." in quote.path.rsplit("/", 1)[-1] else ""
    skill_folders: dict[str, bool] = {}
    candidates = [p for p in search(needle, suffix) or () if p != quote.path and not _in_skill(tree, p, skill_folders)]
    for tried, path in enumerate(candidates):
        if tried == MAX_RELOCATION_CANDIDATES:
            raise BoundExceeded(
                f"not in {quote.path}; {len(candidates)} other files hold its line {needle[:60]!r}, "
                f"more than the {MAX_RELOCATION_CANDIDATES} searched"
            )
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


def _in_skill(tree: "ReadableTree", path: str, folders: dict[str, bool]) -> bool:
    """Whether ``path`` is a skill's own file: a SKILL.md, or anything in a folder (or below one) holding one."""
    parts = path.split("/")
    if parts[-1] == "SKILL.md":
        return True
    for depth in range(len(parts)):
        folder = "/".join(parts[:depth])
        if folder not in folders:
            try:
                folders[folder] = tree.blob_id(f"{folder}/SKILL.md" if folder else "SKILL.md") is not None
            except Exception:  # noqa: BLE001 - a SKILL.md that cannot be read (a link) still marks a skill
                folders[folder] = True
        if folders[folder]:
            return True
    return False


class ReadableTree(Protocol):
    def read(self, path: str) -> SourceFile | None: ...

    def blob_id(self, path: str) -> str | None: ...


# ------------------------------------------------------------------ finding


# A match: the source lines each run covers, and the first line of the last matched statement.
_Found = tuple[list[LineRange], int]


class _Work:
    """A bound on the steps one quote's matching may take: past it, the result is incomplete."""

    def __init__(self, limit: int = MAX_MATCH_WORK) -> None:
        self.left = limit

    def spend(self, steps: int = 1) -> None:
        self.left -= steps
        if self.left < 0:
            raise BoundExceeded(f"matching this quote needs more than {MAX_MATCH_WORK:,} steps; not finished")


def _find_text(shape: QuoteShape, source: SourceFile, near: int, work: _Work) -> _Found | None:
    """Match runs line by line on stripped text (stage 1)."""
    src, skippable = source.stripped, source.skippable

    def run_at(k: int, i: int) -> int | None:
        run = shape.runs[k]
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
    starts = [index.get(run[0], []) for run in shape.runs]
    hit = _chain(starts, run_at, near - 1, lambda i: i, work)
    if hit is None:
        return None
    return [LineRange(a + 1, b + 1) for a, b in hit], hit[-1][1] + 1


def _find_logical(shape: QuoteShape, index: "PythonIndex", near: int, work: _Work) -> _Found | None:
    """Match runs by logical line, tolerant of re-wrapping and formatting (stage 2)."""
    units = index.logical
    runs: list[list[LogicalLine]] = []
    for run in shape.runs:
        work.spend(len(run))
        parsed = logical_lines("\n".join(run))
        if not parsed:
            return None  # a fragment that does not tokenize (e.g. half a call): text match only
        runs.append(parsed)

    from .canon import statement_key  # libcst: only here, where formatting must be compared

    def same(q: LogicalLine, s: LogicalLine) -> bool:
        work.spend()
        if q.key == s.key:
            return True
        if q.loose_key != s.loose_key:
            return False
        work.spend(100)  # a libcst parse of both statements
        qk = statement_key(q.text)  # only parentheses differ: redundant or not? ask libcst
        return qk is not None and qk == statement_key(s.text)

    def run_at(k: int, i: int) -> int | None:
        run = runs[k]
        if i + len(run) > len(units):
            return None
        return i + len(run) - 1 if all(same(q, units[i + n]) for n, q in enumerate(run)) else None

    by_key = index.logical_by_loose_key
    starts = [by_key.get(run[0].loose_key, []) for run in runs]
    hit = _chain(starts, run_at, near - 1, lambda i: units[i].start - 1, work)
    if hit is None:
        return None
    return [LineRange(units[a].start, units[b].end) for a, b in hit], units[hit[-1][1]].start


def _chain(
    starts: list[list[int]],
    run_at: Callable[[int, int], int | None],
    near: int,
    position: Callable[[int], int],
    work: _Work,
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
    bounds = [0] * (count + 1)
    bounds[count] = 1 << 62
    for k in range(count - 1, 0, -1):
        candidates = starts[k]
        idx = bisect_left(candidates, bounds[k + 1]) - 1
        found = None
        while idx >= 0:
            work.spend()
            end = run_at(k, candidates[idx])
            if end is not None and end < bounds[k + 1]:
                found = candidates[idx]
                break
            idx -= 1
        if found is None:
            return None
        bounds[k] = found
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


def _widen_over_comments(region: LineRange, src: Sequence[str]) -> LineRange:
    start = region.start
    while start > 1 and src[start - 2].startswith("#"):
        start -= 1
    return LineRange(start, region.end)


# ------------------------------------------------------------------ changed


def _changed(quote: Quote, shape: QuoteShape, source: SourceFile, notes: list[str]) -> QuoteMatch:
    """The quote is gone: show the most similar window of code and a diff.

    A small search compares every window; a larger one only the windows
    that share exact lines with the quote (and the one at START), at most
    :data:`MAX_CANDIDATE_WORK` line comparisons in all.
    """
    want = shape.lines
    code = [(i + 1, s) for i, s in enumerate(source.stripped) if s]
    n = len(want)
    if n * len(code) <= MAX_CANDIDATE_WORK:
        windows: Sequence[int] = range(max(1, len(code) - n + 1))
    else:
        windows = _likely_windows(want, code, quote.declared.start, MAX_CANDIDATE_WORK // n)
    if not windows:
        notes.insert(0, "the quoted code is not in the file; the file is too large to search for the closest code")
        return QuoteMatch(quote, AnchorStatus.CHANGED, detail="; ".join(notes))
    similar = functools.lru_cache(maxsize=65536)(_similar)
    best_score, best_k, best_distance = -1.0, 0, 0
    for k in windows:
        window = code[k : k + n]
        if not window:
            break
        score = sum(similar(a, b) for a, (_, b) in zip(want, window, strict=False)) / n  # a short file: fewer lines
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


def _likely_windows(want: list[str], code: list[tuple[int, str]], near: int, most: int) -> list[int]:
    """Up to ``most`` window starts (indices into ``code``) worth scoring, best first.

    A window is voted for by every quote line found verbatim in it at the
    same offset; lines that occur more than 50 times say nothing and are
    not counted.  The window at START is always among them.
    """
    if most < 1:
        return []
    at: dict[str, list[int]] = {}
    for k, (_, line) in enumerate(code):
        at.setdefault(line, []).append(k)
    votes: dict[int, int] = {}
    for offset, line in enumerate(want):
        places = at.get(line, ())
        if len(places) > 50:
            continue
        for k in places:
            if k - offset >= 0:
                votes[k - offset] = votes.get(k - offset, 0) + 1
    nearest = min(range(len(code)), key=lambda k: abs(code[k][0] - near), default=0)
    ranked = sorted(votes, key=lambda k: (-votes[k], abs(code[k][0] - near) if k < len(code) else 0))
    chosen = [nearest] + [k for k in ranked if k != nearest and k < len(code)]
    return sorted(chosen[:most])


def _similar(a: str, b: str) -> float:
    if a == b:
        return 1.0
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    if matcher.real_quick_ratio() < CANDIDATE_THRESHOLD:
        return 0.0
    return matcher.ratio()
