"""Run every example the quote matcher owns (anchor_audit/match/quote_examples.py)."""

from __future__ import annotations

from textwrap import dedent

import pytest

from anchor_audit.match.quote import match_quote
from anchor_audit.match.quote_examples import DRIFTS, HOLDS, QuoteExample
from anchor_audit.model import (
    AnchorStatus,
    Changed,
    Exact,
    LineRange,
    Moved,
    Quote,
    Relocated,
    found_lines,
    suggested_lines,
)
from anchor_audit.source.file import SourceFile


def run(example: QuoteExample):
    lines = dedent(example.fence).splitlines()
    start, end = (int(x) for x in lines[0].split(":"))
    quote = Quote(example.path, LineRange(start, end), tuple(lines[1:]), skill_line=1)
    return match_quote(quote, SourceFile(example.path, example.code))


def check(example: QuoteExample) -> None:
    match = run(example)
    assert match.status is example.status, match.detail
    assert example.detail in match.detail
    if example.found is not None:
        assert found_lines(match) == LineRange(*example.found)
    if example.suggested is not None:
        assert suggested_lines(match) == LineRange(*example.suggested)
    if isinstance(match, Moved):
        # A suggestion must itself be exact: span <= suggested <= region.
        assert match.region is not None and match.found in match.suggested and match.suggested in match.region
    if isinstance(match, (Exact, Moved, Relocated)):  # the runs between "..." tile the span, in order
        assert match.runs[0].start == match.found.start and match.runs[-1].end == match.found.end
        assert all(a.end < b.start for a, b in zip(match.runs, match.runs[1:], strict=False))


@pytest.mark.parametrize("example", HOLDS, ids=[e.name for e in HOLDS])
def test_holds(example: QuoteExample) -> None:
    assert example.status is AnchorStatus.EXACT
    check(example)


@pytest.mark.parametrize("example", DRIFTS, ids=[e.name for e in DRIFTS])
def test_drifts(example: QuoteExample) -> None:
    assert example.status is not AnchorStatus.EXACT
    check(example)


def test_missing_file() -> None:
    quote = Quote("gone.py", LineRange(1, 1), ("x = 1",), 1)
    assert match_quote(quote, None).status is AnchorStatus.MISSING


def test_changed_shows_closest_candidate_and_diff() -> None:
    code = "def f(cfg):\n    if cfg.tp > 1:\n        go()\n"
    quote = Quote("m.py", LineRange(2, 3), ("if cfg.tp >= 1:", "    go()"), 1)
    match = match_quote(quote, SourceFile("m.py", code))
    assert match.status is AnchorStatus.CHANGED
    assert isinstance(match, Changed) and match.candidate == LineRange(2, 3)
    assert "-if cfg.tp >= 1:" in match.diff and "+if cfg.tp > 1:" in match.diff


def test_syntax_error_falls_back_to_text_with_a_note() -> None:
    code = "def f(:\n    x = 1\n"
    quote = Quote("bad.py", LineRange(2, 2), ("x = 1",), 1)
    match = match_quote(quote, SourceFile("bad.py", code))
    assert match.status is AnchorStatus.EXACT  # region is the whole file
    assert "does not parse" in match.detail


def test_real_shape_of_region_spanning_two_methods() -> None:
    # Quoted lines from two methods: the enclosing statement is the class.
    code = dedent(
        """\
        class Plugin:
            def a(self, ex):
                ex.env["A"] = "1"

            def b(self, ex):
                ex.env["B"] = "2"
        """
    )
    quote = Quote("p.py", LineRange(1, 6), ('ex.env["A"] = "1"', "...", 'ex.env["B"] = "2"'), 1)
    match = match_quote(quote, SourceFile("p.py", code))
    assert isinstance(match, Exact) and (match.found, match.region) == (LineRange(3, 6), LineRange(1, 6))


@pytest.mark.parametrize("example", HOLDS + DRIFTS, ids=[e.name for e in HOLDS + DRIFTS])
def test_whether_a_quote_holds_is_what_the_matcher_says_and_a_letter_for_letter_one_parses_nothing(
    example: QuoteExample,
) -> None:
    """quote_holds (a validation day's older file) reads the file as text first: its answer is match_quote's,
    and a quote found to the letter builds no parse of the file."""
    from anchor_audit.match.quote import quote_holds
    from anchor_audit.parse.index import INDEXES

    lines = dedent(example.fence).splitlines()
    start, end = (int(x) for x in lines[0].split(":"))
    quote = Quote(example.path, LineRange(start, end), tuple(lines[1:]), skill_line=1)
    source = SourceFile(example.path, example.code + "\n# a different blob from the other tests'\n")
    paraphrase = "paraphrase" in run(example).detail
    parses = INDEXES.parses
    holds = quote_holds(quote, source)
    if holds and not paraphrase:
        assert INDEXES.parses == parses  # to the letter: text alone
    assert holds == isinstance(match_quote(quote, source, closest=False), (Exact, Moved))


def test_a_rewrapped_quote_is_found_by_its_logical_lines_without_loading_libcst() -> None:
    """libcst is asked (and imported) only where two statements differ in their parentheses alone: a catalog
    whose moved quotes were only re-wrapped never loads it (0.15 s of a cold run)."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from anchor_audit.match.quote import match_quote\n"
        "from anchor_audit.model import LineRange, Quote\n"
        "from anchor_audit.source.file import SourceFile\n"
        "quote = Quote('m.py', LineRange(2, 2), ('go(first, second, third)',), 1)\n"
        "source = SourceFile('m.py', 'import os\\n\\n\\ngo(first,\\n   second,\\n   third)\\n')\n"
        "print(type(match_quote(quote, source)).__name__, 'libcst' in sys.modules)\n"
        "quote = Quote('m.py', LineRange(4, 4), ('x = (a + b)',), 1)\n"
        "print(type(match_quote(quote, SourceFile('m.py', 'x = a + b\\n'))).__name__, 'libcst' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split("\n")
    assert out[0] == "Moved False", out  # found re-wrapped, three lines lower, by its logical line alone
    assert out[1] == "Moved True", out  # the parentheses differ: libcst says they are redundant
