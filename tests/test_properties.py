"""Property tests (hypothesis) for the fence parser and the quote matcher."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from anchor_audit.match.quote import match_quote
from anchor_audit.model import AnchorStatus, LineRange, Moved, Quote, found_lines
from anchor_audit.source.file import SourceFile
from anchor_audit.spec.skill import parse_skill_md

# ---------------------------------------------------------------- generated Python files

names = st.sampled_from(["tp", "dp", "pp", "bucket", "overlap", "margin", "size"])
ints = st.integers(min_value=0, max_value=999)


@st.composite
def blocks(draw: st.DrawFn) -> list[list[str]]:
    """Top-level statements, each a list of lines; every line unique (a counter is in each name)."""
    out: list[list[str]] = []
    for i in range(draw(st.integers(min_value=3, max_value=12))):
        name = f"{draw(names)}_{i}"
        if draw(st.booleans()):
            out.append([f"{name} = {draw(ints)}"])
        else:
            out.append([f"if {name} > {draw(ints)}:", f"    {name}_a = {draw(ints)}", f"    {name}_b = {draw(ints)}"])
    return out


def lay_out(parts: list[list[str]]) -> tuple[str, list[LineRange]]:
    lines: list[str] = []
    ranges = []
    for part in parts:
        ranges.append(LineRange(len(lines) + 1, len(lines) + len(part)))
        lines += part
    return "\n".join(lines) + "\n", ranges


@st.composite
def cut(draw: st.DrawFn) -> tuple[list[list[str]], int, int]:
    parts = draw(blocks())
    a = draw(st.integers(min_value=0, max_value=len(parts) - 1))
    b = draw(st.integers(min_value=a + 1, max_value=len(parts)))
    return parts, a, b


def quote_of(parts: list[list[str]], a: int, b: int, ranges: list[LineRange]) -> Quote:
    body = tuple(line for part in parts[a:b] for line in part)
    return Quote("gen.py", LineRange(ranges[a].start, ranges[b - 1].end), body, 1)


@settings(max_examples=60, deadline=None)
@given(cut())
def test_a_quote_cut_from_a_file_is_exact_at_its_own_lines(case) -> None:
    parts, a, b = case
    text, ranges = lay_out(parts)
    quote = quote_of(parts, a, b, ranges)
    match = match_quote(quote, SourceFile("gen.py", text))
    assert match.status is AnchorStatus.EXACT
    assert found_lines(match) == quote.declared


@settings(max_examples=60, deadline=None)
@given(cut(), st.integers(min_value=1, max_value=30))
def test_lines_inserted_above_move_the_quote_by_as_many(case, k: int) -> None:
    parts, a, b = case
    text, ranges = lay_out(parts)
    quote = quote_of(parts, a, b, ranges)
    shifted = "".join(f"pad_{j} = 0\n" for j in range(k)) + text
    match = match_quote(quote, SourceFile("gen.py", shifted))
    assert match.status is AnchorStatus.MOVED
    assert isinstance(match, Moved) and match.found == LineRange(quote.declared.start + k, quote.declared.end + k)
    assert match.found in match.suggested


@settings(max_examples=60, deadline=None)
@given(cut(), st.data())
def test_one_changed_token_makes_the_quote_changed(case, data: st.DataObject) -> None:
    parts, a, b = case
    text, ranges = lay_out(parts)
    quote = quote_of(parts, a, b, ranges)
    n = data.draw(st.integers(min_value=0, max_value=len(quote.body) - 1))
    line = quote.body[n]
    number = line.rstrip(":").split()[-1]  # every generated line ends with an integer
    changed = line[: line.rindex(number)] + str(int(number) + 1) + line[line.rindex(number) + len(number) :]
    lines = text.splitlines()
    lines[quote.declared.start - 1 + n] = changed
    match = match_quote(quote, SourceFile("gen.py", "\n".join(lines) + "\n"))
    assert match.status is AnchorStatus.CHANGED


# ---------------------------------------------------------------- generated Markdown

code_line = st.from_regex(r"[a-z_][a-z_0-9]{0,8} = [0-9]{1,3}", fullmatch=True)
prose = st.from_regex(r"[A-Z][a-z ]{0,30}\.", fullmatch=True)


@st.composite
def documents(draw: st.DrawFn) -> tuple[str, list[tuple[int, int, str, int, tuple[str, ...]]]]:
    """A SKILL.md of prose, plain code blocks and anchored fences, some inside list items."""
    lines: list[str] = []
    expected = []
    for i in range(draw(st.integers(min_value=1, max_value=8))):
        kind = draw(st.sampled_from(["prose", "plain", "anchored"]))
        if kind == "prose":
            lines += [draw(prose), ""]
            continue
        fence = draw(st.sampled_from(["`", "~"])) * draw(st.integers(min_value=3, max_value=5))
        in_list = draw(st.booleans())
        indent = "   " if in_list else ""
        body = tuple(draw(st.lists(code_line, min_size=1, max_size=4)))
        if in_list:
            lines += ["1. A step:", ""]
        start = draw(st.integers(min_value=1, max_value=500))
        end = start + draw(st.integers(min_value=0, max_value=40))
        info = f"{start}:{end}:pkg/mod_{i}.py" if kind == "anchored" else "python"
        if kind == "anchored":
            expected.append((start, end, f"pkg/mod_{i}.py", len(lines) + 1, body))
        lines += [f"{indent}{fence}{info}", *(indent + b for b in body), f"{indent}{fence}", ""]
    return "\n".join(lines) + "\n", expected


@settings(max_examples=100, deadline=None)
@given(documents())
def test_fence_parser_finds_exactly_the_anchored_fences(doc) -> None:
    text, expected = doc
    quotes = parse_skill_md(text)
    got = [(q.declared.start, q.declared.end, q.path, q.skill_line, q.body) for q in quotes]
    assert got == expected


# ---------------------------------------------------------------- the closest-window search


def brute_force_closest(want: list[str], code: list[tuple[int, str]], near: int) -> tuple[float, int, int]:
    """Every line of every window scored, in order: what the pruned search must return.

    Below the threshold nothing is similar, and which window was best does not matter: (-1.0, 0, 0).
    """
    from anchor_audit.match.closest import CANDIDATE_THRESHOLD, _similar

    n = len(want)
    best = (-1.0, 0, 0)
    for k in range(max(1, len(code) - n + 1)):
        window = code[k : k + n]
        if not window:
            break
        score = sum(_similar(a, b) for a, (_, b) in zip(want, window, strict=False)) / n
        distance = abs(window[0][0] - near)
        if score > best[0] + 1e-9 or (abs(score - best[0]) <= 1e-9 and distance < best[2]):
            best = (score, k, distance)
    return best if best[0] >= CANDIDATE_THRESHOLD - 1e-9 else (-1.0, 0, 0)


code_lines = st.lists(
    st.sampled_from(["x = 1", "x = 2", "y = x + 1", "if x:", "return y", "call(x, y)", "call(x)", "pass", "z = 10"]),
    min_size=0,
    max_size=25,
)


@given(want=code_lines.filter(bool), lines=code_lines, near=st.integers(min_value=1, max_value=30))
@settings(max_examples=500, deadline=None)
def test_pruned_closest_window_is_the_brute_force_one(want: list[str], lines: list[str], near: int) -> None:
    from anchor_audit.match.closest import _best_window

    code = [(i * 2 + 1, line) for i, line in enumerate(lines)]  # blank lines between: numbers are not indices
    windows = range(max(1, len(code) - len(want) + 1))
    score, k, distance = _best_window(want, code, windows, near)
    ref_score, ref_k, ref_distance = brute_force_closest(want, code, near)
    assert (k, distance) == (ref_k, ref_distance)
    assert abs(score - ref_score) < 1e-12


@given(a=st.text(alphabet="ab(x)_= 1", max_size=12), b=st.text(alphabet="ab(x)_= 1", max_size=12))
def test_the_character_bound_is_difflib_quick_ratio_and_bounds_the_score(a: str, b: str) -> None:
    import difflib

    from anchor_audit.match.closest import _similar, _similar_at_most

    bound = _similar_at_most(a, b)
    assert bound >= _similar(a, b)
    if a != b and bound:
        assert bound == difflib.SequenceMatcher(None, a, b, autojunk=False).quick_ratio()
