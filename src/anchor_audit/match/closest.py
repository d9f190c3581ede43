"""The closest code to a quote that is gone: a window of the file and a diff, at bounded cost."""

from __future__ import annotations

import difflib
import functools
import re
from collections import Counter
from typing import Sequence

from ..model import Changed, LineRange, Quote
from ..source.file import SourceFile
from .shape import ELISION, QuoteShape

CANDIDATE_THRESHOLD = 0.5  # below this similarity a "closest candidate" is noise
MAX_CANDIDATE_WORK = 20_000  # line similarities the search for a closest candidate may compute


def changed(quote: Quote, shape: QuoteShape, source: SourceFile, notes: list[str]) -> Changed:
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
        return Changed(quote, detail="; ".join(notes))
    best_score, best_k, best_distance = _best_window(want, code, windows, quote.declared.start)
    detail = "the quoted code is not in the file"
    if best_score < CANDIDATE_THRESHOLD:
        notes.insert(0, detail + "; nothing similar found")
        return Changed(quote, detail="; ".join(notes))
    window = code[best_k : best_k + n]
    candidate = LineRange(window[0][0], window[-1][0])
    label = f"{quote.path}:{candidate}"
    elided = shape.leading_elision or shape.trailing_elision or len(shape.runs) > 1
    what = explain(want, [s for _, s in window], set(source.stripped), elided)
    # Matched by stripped lines, shown as written: each side keeps its indentation (less what all its lines share).
    quoted = _as_written([line for line in quote.body if line.strip() and line.strip() != ELISION])
    found = _as_written([source.lines[number - 1] for number, _ in window])
    diff = tuple(line.rstrip("\n") for line in difflib.unified_diff(quoted, found, "quote", label, lineterm="", n=n))
    notes.insert(0, f"{detail}; closest: lines {candidate} ({best_score:.0%} similar): {what}")
    return Changed(quote, candidate, diff, "; ".join(notes))


_TOKEN = re.compile(r"""[A-Za-z_][A-Za-z0-9_]*|\d[\w.]*|"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'|\S""")
MAX_SAID = 3  # differences named in the detail; the diff shows them all


def explain(want: list[str], got: list[str], in_file: set[str] | None = None, elided: bool = False) -> str:
    """What differs between the quoted lines and the closest code, in words: a renamed identifier, an
    argument added, a statement removed ... (at most :data:`MAX_SAID`; the diff has the rest).

    A quoted line is "gone" only when it is nowhere in the file (``in_file``); a line of the closest code
    the quote lacks is "new" only when the quote elides nothing (else it is what ``...`` stood for).
    """
    present = in_file or set()
    said: list[str] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, want, got, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        pairs = list(zip(want[i1:i2], got[j1:j2], strict=False)) if tag == "replace" else []
        said += [c for a, b in pairs if a not in present and (c := _line_change(a, b)) is not None]
        said += [f"`{_short(a)}` is gone" for a in want[i1 + len(pairs) : i2] if a not in present]
        said += [f"`{_short(b)}` is new" for b in got[j1 + len(pairs) : j2] if not elided]
    more = f" (and {len(said) - MAX_SAID} more)" if len(said) > MAX_SAID else ""
    return "; ".join(said[:MAX_SAID]) + more if said else "its lines are in the file, but not together"


class _Line(str):
    """A line as written, compared (and hashed) by its stripped form: a diff that matches as quotes are matched
    and prints what the author and the code wrote."""

    def __new__(cls, written: str) -> _Line:
        line = super().__new__(cls, written)
        line.key = written.strip()
        return line

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Line) and self.key == other.key

    def __hash__(self) -> int:
        return hash(self.key)

    key: str


def _as_written(lines: list[str]) -> list[str]:
    indent = min((len(line) - len(line.lstrip()) for line in lines if line.strip()), default=0)
    return [_Line(line[indent:].rstrip()) for line in lines]


def _line_change(want: str, got: str) -> str | None:
    """One changed line in words: the code that differs, as written, named by what it is; None when the only
    difference is what the quote's ``...`` stands for."""
    a, b = list(_TOKEN.finditer(want)), list(_TOKEN.finditer(got))
    parts = []
    matcher = difflib.SequenceMatcher(None, [t.group() for t in a], [t.group() for t in b], autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        old, new = _written(want, a, i1, i2), _written(got, b, j1, j2)
        if old in (ELISION, "…"):
            continue  # the author's elision, not a change
        if tag == "replace" and i2 - i1 == j2 - j1 == 1 and old.isidentifier() and new.isidentifier():
            parts.append(f"`{old}` renamed to `{new}`")
        elif tag == "replace":
            parts.append(f"`{old}` became `{new}`")
        elif tag == "insert":
            before = [t.group() for t in b[:j1]]
            inside = before.count("(") + before.count("[") > before.count(")") + before.count("]")
            parts.append(f"{'an argument' if inside else 'code'} added: `{new}`")
        elif tag == "delete":
            parts.append(f"`{old}` removed")
    if not parts:
        return None if ELISION in want or "…" in want else f"`{_short(want)}` differs in spacing"
    return ", ".join(parts) + f" in `{_short(want)}`"


def _written(line: str, tokens: list[re.Match[str]], i: int, j: int) -> str:
    """Tokens ``i``..``j`` of ``line`` as the line writes them (their spacing kept)."""
    return line[tokens[i].start() : tokens[j - 1].end()] if j > i else ""


def _short(line: str, most: int = 60) -> str:
    return line if len(line) <= most else line[: most - 1] + "…"


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


def _best_window(
    want: list[str], code: list[tuple[int, str]], windows: Sequence[int], near: int
) -> tuple[float, int, int]:
    """(score, index, distance from ``near``) of the most similar window; ties go to the nearest, then the first.

    (-1.0, 0, 0) when no window reaches :data:`CANDIDATE_THRESHOLD`: nothing
    similar.  The result is that of scoring every line of every window, but a
    window is dropped as soon as an upper bound of its score falls below the
    threshold or the best so far: first from line lengths alone, then from
    character counts (``quick_ratio``), then from the exact scores so far plus
    the bounds of the lines left.  The window nearest ``near`` is scored first.
    """
    n = len(want)
    similar, counted = _similar, _similar_at_most
    best: tuple[float, int, int] | None = None  # (score, k, distance)
    seed = min(windows, key=lambda k: abs(code[k][0] - near) if k < len(code) else len(code) + abs(near))
    for k in [seed, *(k for k in windows if k != seed)]:
        window = code[k : k + n]
        if not window:
            continue
        pairs = [(a, b) for a, (_, b) in zip(want, window, strict=False)]  # a short file: fewer lines
        floor = (CANDIDATE_THRESHOLD if best is None else best[0]) * n - 1e-9 * n
        lengths = [_length_bound(a, b) for a, b in pairs]
        left = sum(lengths)
        if left < floor:
            continue  # lost on line lengths alone
        bounds = []
        for (a, b), length in zip(pairs, lengths, strict=True):  # each line's length bound made a character
            bound = counted(a, b)  # count bound, until the window cannot reach the floor
            bounds.append(bound)
            left -= length - bound
            if left < floor:
                break
        if left < floor:
            continue  # lost on character counts: no alignment computed
        left = sum(bounds)  # as summed before (the same rounding, the same windows dropped below)
        total = 0.0
        for (a, b), bound in zip(pairs, bounds, strict=True):
            total += similar(a, b)
            left -= bound
            if total + left < floor:
                break
        else:
            score, distance = total / n, abs(window[0][0] - near)
            if best is None or score > best[0] + 1e-9 or (
                abs(score - best[0]) <= 1e-9 and (distance, k) < (best[2], best[1])
            ):
                best = (score, k, distance)
    return best if best is not None and best[0] >= CANDIDATE_THRESHOLD - 1e-9 else (-1.0, 0, 0)


def _length_bound(a: str, b: str) -> float:
    """An upper bound of :func:`_similar` from the two lengths alone (``real_quick_ratio``)."""
    if a == b:
        return 1.0
    total = len(a) + len(b)
    bound = 2.0 * min(len(a), len(b)) / total if total else 1.0
    return bound if bound >= CANDIDATE_THRESHOLD else 0.0


# Pairs of lines kept scored across searches: a history or an impact replay searches the same quote in each new
# version of its file, most of whose lines are the last version's (a 300-commit replay's search 2.6 -> 0.8 s).
MAX_PAIRS = 16_384


@functools.lru_cache(maxsize=MAX_PAIRS)
def _similar_at_most(a: str, b: str) -> float:
    """An upper bound of :func:`_similar`: difflib's ``quick_ratio`` (shared characters, in any order)."""
    if a == b:
        return 1.0
    if _length_bound(a, b) == 0.0:
        return 0.0
    mine, theirs = _characters(a), _characters(b)
    if len(mine) > len(theirs):
        mine, theirs = theirs, mine
    shared = sum(min(count, theirs.get(char, 0)) for char, count in mine.items())
    return 2.0 * shared / (len(a) + len(b))


@functools.lru_cache(maxsize=8192)
def _characters(line: str) -> Counter[str]:
    return Counter(line)


@functools.lru_cache(maxsize=MAX_PAIRS)
def _similar(a: str, b: str) -> float:
    if a == b:
        return 1.0
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    if matcher.real_quick_ratio() < CANDIDATE_THRESHOLD:
        return 0.0
    return matcher.ratio()
