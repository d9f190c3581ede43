"""Find a line-anchored quote in the text of its file, and judge its anchor.

The core definition (docs/statuses.md, "Anchor status"):

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

import textwrap
from typing import Sequence

from ..errors import BoundExceeded
from ..model import Changed, Exact, LineRange, Missing, Moved, Quote, QuoteMatch
from ..parse import PythonSyntaxProblem, python_index
from ..source.file import SourceFile
from .closest import changed
from .find import Found, Work, find_logical, find_text
from .shape import ELISION, QuoteShape, shape_of

__all__ = ["ELISION", "QuoteShape", "match_quote", "quote_holds", "shape_of"]


def match_quote(quote: Quote, source: SourceFile | None, closest: bool = True) -> QuoteMatch:
    """Judge ``quote`` against ``source`` (None: the file is not at the ref).

    ``closest=False``: a quote not found is CHANGED without the search for
    the most similar code (for callers that only want to know where it is).
    """
    if source is None:
        return Missing(quote, f"{quote.path} is not in the tree at this ref")
    shape = shape_of(quote.body)
    if not shape.runs:
        return Changed(quote, detail="the quote has no code lines to look for")

    notes: list[str] = []
    index = None
    if source.is_python:
        try:
            index = python_index(source)
        except PythonSyntaxProblem as problem:
            notes.append(f"{quote.path} does not parse ({problem}); matched as plain text, region is the whole file")

    work = Work()
    found = find_text(shape, source, quote.declared.start, work)
    if found is None and index is not None:
        found = find_logical(shape, index, quote.declared.start, work)
        if found is not None:  # a maintainer should see that the quote is not the code to the letter
            notes.append(f"held as a paraphrase, not verbatim ({_paraphrase(shape)})")
    if found is None and source.is_markdown:
        found = _find_in_python_blocks(shape, source, quote.declared.start, work)
        if found is not None:
            notes.append(f"held as a paraphrase of a python code block, not verbatim ({_paraphrase(shape)})")
    if found is None and not closest:
        return Changed(quote, detail="the quoted code is not in the file")
    if found is None:
        return changed(quote, shape, source, notes)

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
        # A clause (else:, except:) starts no statement of its own: its body is what it indents.
        block = index.widest_starting_at(last_unit_start) or _clause_body(source.lines, last_unit_start)
        if block is not None:
            end = max(end, min(block.end, region.end))
    if exact:
        return Exact(quote, span, region, tuple(runs), "; ".join(notes))
    return Moved(quote, span, LineRange(span.start, end), region, tuple(runs), "; ".join(notes))


def quote_holds(quote: Quote, source: SourceFile) -> bool:
    """Whether :func:`match_quote` finds ``quote`` in ``source`` (exact or moved, to the letter or paraphrased):
    read as text first, so a quote there to the letter parses nothing (a validation day's older file)."""
    shape = shape_of(quote.body)
    if shape.runs and find_text(shape, source, quote.declared.start, Work()) is not None:
        return True  # match_quote would find these runs too, whatever the parse says: exact or moved
    return isinstance(match_quote(quote, source, closest=False), (Exact, Moved))


def _clause_body(lines: Sequence[str], start: int) -> LineRange | None:
    """The lines ``start`` (1-based) heads by indentation: those after it indented deeper, blank ones between."""
    head = lines[start - 1]
    depth, end = len(head) - len(head.lstrip()), start
    for number in range(start + 1, len(lines) + 1):
        line = lines[number - 1]
        if not line.strip():
            continue
        if len(line) - len(line.lstrip()) <= depth:
            break
        end = number
    return LineRange(start, end) if end > start else None


def _find_in_python_blocks(shape: QuoteShape, source: SourceFile, near: int, work: Work) -> Found | None:
    """A quote of the code in a Markdown file's ```python blocks, compared as Python (stage 2 on each block)."""
    for first, code in python_blocks(source.lines):
        try:
            index = python_index(SourceFile(source.path + ".py", code))
        except (PythonSyntaxProblem, BoundExceeded):
            continue  # a sketch, not a program: only its text is compared
        found = find_logical(shape, index, near - first + 1, work)
        if found is not None:
            runs, last = found
            shift = first - 1
            return [LineRange(r.start + shift, r.end + shift) for r in runs], last + shift
    return None


def python_blocks(lines: Sequence[str]) -> list[tuple[int, str]]:
    """(first code line, code) of each fenced block whose info string says Python."""
    out: list[tuple[int, str]] = []
    fence, info, start = "", "", 0
    for number, line in enumerate(lines, 1):
        text = line.strip()
        if not fence:
            marker = text[:3]
            if marker in ("```", "~~~"):
                run = len(text) - len(text.lstrip(marker[0]))
                fence, info, start = marker[0] * run, text[run:].strip().split(" ")[0].lower(), number + 1
        elif text.startswith(fence) and not text.strip(fence[0]):
            if info in ("python", "py", "python3", "pycon"):
                out.append((start, textwrap.dedent("\n".join(lines[start - 1 : number - 1]) + "\n")))
            fence = ""
    return out


def _paraphrase(shape: QuoteShape) -> str:
    inline = any(ELISION in line for line in shape.lines)
    return "inline `...` elide code" if inline else "wrapping, spacing, quotes or comments differ"


def _widen_over_comments(region: LineRange, src: Sequence[str]) -> LineRange:
    start = region.start
    while start > 1 and src[start - 2].startswith("#"):
        start -= 1
    return LineRange(start, region.end)


