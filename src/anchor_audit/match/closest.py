"""The closest code to a quote that is gone: a window of the file and a diff, at bounded cost."""

from __future__ import annotations

import difflib
import functools
from typing import Sequence

from ..model import AnchorStatus, LineRange, Quote, QuoteMatch
from ..source.file import SourceFile
from .shape import QuoteShape

CANDIDATE_THRESHOLD = 0.5  # below this similarity a "closest candidate" is noise
MAX_CANDIDATE_WORK = 20_000  # line similarities the search for a closest candidate may compute


def changed(quote: Quote, shape: QuoteShape, source: SourceFile, notes: list[str]) -> QuoteMatch:
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
