"""What the parsers may be given: libcst's native parser crashes on deep nesting and long expression chains,
and both parsers hold gigabytes for a file of millions of tokens.  Every text from an input is measured here
before a parser sees it; past a bound, :class:`~anchor_audit.errors.BoundExceeded` (an ``incomplete`` result).
"""

from __future__ import annotations

import ast
import itertools
import re

from ..errors import BoundExceeded

MAX_BRACKET_DEPTH = 200  # libcst's native parser overflows its stack on far deeper nesting (it crashes)
# Nor may one expression chain too many terms: ``a and b and ...`` (or ``+``, ``.x``, ``()``) nests one tree
# node per term, and libcst's native parser segfaults the whole process from about 7,000 ``and`` terms
# (measured with libcst 1.x here). A run of tokens at one bracket level with no ``,`` ``;`` or line end in
# it bounds that chain from above; ordinary code stays far below this.
MAX_CHAIN_TOKENS = 2_000
_TOKEN = re.compile(r"\w+|\n|\S")  # a word (name or number), a line end, or one other character (a dot too)
# Nor a file of too many tokens: the stdlib parser holds about 500 bytes a token while it parses (a 9.6 MB list
# literal of 6.4 million: 3.1 GB, 10 s) and libcst about 2 kB (250,000: 550 MB, 7 s).  Megatron-LM's largest
# file has some 50,000; five times that is the bound.
MAX_PARSED_TOKENS = 250_000


def bounded_parse(text: str) -> ast.Module:
    """``ast.parse`` of a text an input gave, past :data:`MAX_PARSED_TOKENS` refused (:class:`BoundExceeded`)
    before the parser holds gigabytes.  Readers ask :func:`~.index.parse_ast`, which keeps the recent trees."""
    check_tokens(text)
    return ast.parse(text)


def check_tokens(text: str) -> None:
    """Raise :class:`BoundExceeded` for a text of more than :data:`MAX_PARSED_TOKENS` tokens (counted up to the
    bound, never past it)."""
    if len(text) > MAX_PARSED_TOKENS and next(itertools.islice(_TOKEN.finditer(text), MAX_PARSED_TOKENS, None), None):
        raise BoundExceeded(f"the file has more than {MAX_PARSED_TOKENS:,} Python tokens; not parsed")


def too_complex(text: str) -> str | None:
    """Why libcst's native parser must not see ``text`` (brackets nested, or one chain of terms, too long); or None.

    Strings and comments count too: a bound, not a parse.  Cheap next to the parse it guards.
    """
    if len(text) <= MAX_BRACKET_DEPTH:
        return None  # too short for either bound
    depth = deepest = 0
    for char in text:
        if char in "([{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in ")]}":
            depth = max(0, depth - 1)
    if deepest > MAX_BRACKET_DEPTH:
        return f"brackets nest {deepest} deep (more than {MAX_BRACKET_DEPTH}); not parsed"
    if len(text) <= MAX_CHAIN_TOKENS:
        return None
    runs = [0]  # tokens since the last separator, per open bracket level
    for match in _TOKEN.finditer(text.replace("\\\n", " ")):
        token = match.group()
        if token in ",;" or (token == "\n" and len(runs) == 1):
            runs[-1] = 0
            continue
        if token == "\n":
            continue
        runs[-1] += 1
        if runs[-1] > MAX_CHAIN_TOKENS:
            return f"one expression runs past {MAX_CHAIN_TOKENS} terms; not parsed"
        if token in "([{":
            runs.append(0)
        elif token in ")]}" and len(runs) > 1:
            runs.pop()
            runs[-1] += 1
    return None


def check_nesting(text: str) -> None:
    """Raise :class:`BoundExceeded` if ``text`` is past what libcst can safely parse (:func:`too_complex`).

    Called before any text reaches libcst: a crash there would take the
    whole run down, so a file past the bound gets an ``incomplete`` result.
    """
    check_tokens(text)
    reason = too_complex(text)
    if reason is not None:
        raise BoundExceeded(reason)
