"""What a fence's comments say of the code it does not show: facts of the quote, read in the code of the card's
validation day.

A quote of a signature and a comment (``def apply(cfg):`` / ``# Sets impl and te_rng_tracker``) says what the
function does: the values it set that day whose targets the comment names.  A paraphrased fence that elides
lines with a comment (``# CUDA graph scope validations for delayed wgrad``) says what those lines are: the
validations in the lines it declares whose tests the comment names, with what they do.
"""

from __future__ import annotations

import ast
import re

from ..match.quotefacts import Fact, blocks_in, facts_of, function_sets, holds_in, loose_key
from ..model import Quote
from ..source import SourceTree


def commented_sets(quote: Quote, facts: tuple[Fact, ...], then: SourceTree) -> tuple[Fact, ...]:
    """What a quote of a signature and a comment says the function does: the values the function set on the
    validation day whose targets the comment names (``# Sets impl and te_rng_tracker``: ``cfg.graph_impl = impl``,
    ``rng.te_rng_tracker = True``; a name, or the last or first part of one)."""
    said = set().union(*_comments(quote))
    source = then.read(quote.path) if said else None
    if source is None:
        return ()
    names = [f.needle for f in facts if f.kind == "def"]
    sets = [f for name in names for f in function_sets(source.text, name)]
    return tuple(dict.fromkeys(f for f in sets if _names_target(f, said)))


_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]{2,}")


def _comments(quote: Quote) -> list[set[str]]:
    """The words of each comment of a fence, lower case (three letters or more)."""
    return [{w.lower() for w in _WORD.findall(c)} for line in quote.body for c in re.findall(r"#(.*)", line)]


def _names_target(fact: Fact, said: set[str]) -> bool:
    """Whether the target of a value set (an attribute or an item: not a local name) is named by one of ``said``: a
    name of it, or the last or first part of one (``impl``: ``cuda_graph_impl``)."""
    target = fact.text.split(" = ", 1)[0]
    if target.isidentifier():  # a local name: what the function works with, not what it sets
        return False
    parts = {p.lower() for p in _WORD.findall(target)}
    return any(p == w or p.endswith("_" + w) or p.startswith(w + "_") for p in parts for w in said)


def elided(
    quote: Quote, then: SourceTree, own: tuple[Fact, ...] | None = None
) -> tuple[tuple[Fact, ...], frozenset[str]]:
    """The validations a paraphrased fence's comments say it elides (``# CUDA graph scope validations``), read in
    the lines it declares on the card's validation day: each ``if`` there, not one the fence writes itself, whose
    test names a comment's words (an identifier it writes whole, or two parts of one), with what its body does;
    and the words of the comments that named one (what those facts are said to be).  None where no statement of
    the fence's own (``own``) was in those lines that day: its range said nothing of the code then."""
    comments = _comments(quote)
    source = then.read(quote.path) if any(comments) and quote.path.endswith(".py") else None
    if source is None:
        return (), frozenset()
    blocks = blocks_in(source.text, quote.declared.start, quote.declared.end)
    own = facts_of(quote.body).facts if own is None else own
    there = frozenset(k for _, facts in blocks for f in facts for k in (f.key, f.loose))
    if not any(holds_in(f, there) for f in own if f.kind != "def"):
        return (), frozenset()
    written = {f.loose for f in own if f.kind == "gate"}
    found: list[Fact] = []
    words: set[str] = set()
    for said in comments:
        named = [f for test, facts in blocks if _commented_test(test, said, written) for f in facts]
        found += named
        words |= said if named else set()
    return tuple(dict.fromkeys(found)), frozenset(words)


def _commented_test(test: ast.expr, said: set[str], written: set[str]) -> bool:
    """Whether a gate's test, not one the fence writes (``written``), names a comment's words ``said``: an
    identifier it writes whole, or two parts of one of its names."""
    if f"gate~|{loose_key(test)}" in written:
        return False
    names = {n.id for n in ast.walk(test) if isinstance(n, ast.Name)} | {
        n.attr for n in ast.walk(test) if isinstance(n, ast.Attribute)}  # fmt: skip
    return any(n.lower() in said or len(set(n.lower().split("_")) & said) >= 2 for n in names)
