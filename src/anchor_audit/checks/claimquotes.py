"""A claim nothing else links, decided by the quotes whose code names it.

Where neither anchors.yaml, a card comment, a SKILL.md caption, a validation nor a file or definition its id
names links a ``code_verified`` claim, SKILL.md's quotes are read for the identifiers their code writes (and
their comments, which say what a ``...`` elides): a quote whose identifiers say every telling word of the
claim's id (:func:`anchor_audit.checks.claimgates.telling`: at least two, or one abbreviation the constraints'
table knows, such as ``tp``, which names one setting; a word said as itself, a longer form, one of its stem, or
what an abbreviation stands for) is its evidence, judged like a quote its caption links: by its facts, from the
card's validation day to the ref.  More than :data:`MAX_QUOTES` such quotes: too vague, none.
"""

from __future__ import annotations

import re
from typing import Sequence

from ..model import Quote
from .claimgates import telling
from .claimnames import says
from .sentencewords import ABBREVIATIONS

MAX_QUOTES = 3
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def named_by_code(claim_id: str, quotes: Sequence[Quote]) -> tuple[Quote, ...]:
    """The quotes whose code names every telling word of ``claim_id`` (none where fewer than two, or too many)."""
    wanted = telling(claim_id)
    if len(wanted) < 2 and not (wanted and next(iter(wanted)) in ABBREVIATIONS):
        return ()
    chosen = tuple(q for q in quotes if _names_all(wanted, q))
    return chosen if len(chosen) <= MAX_QUOTES else ()


def _names_all(wanted: frozenset[str], quote: Quote, comments: bool = True) -> bool:
    lines = quote.body if comments else [line.split("#", 1)[0] for line in quote.body]
    names = set(_IDENTIFIER.findall("\n".join(lines)))
    return all(any(says(word, name) for name in names) for word in wanted)


def named_by_comments_only(claim_id: str, quote: Quote) -> frozenset[str]:
    """The telling words of ``claim_id`` that only the quote's comments say (what a ``...`` elides): its facts,
    which are its statements, cannot show them."""
    return frozenset(w for w in telling(claim_id) if not _names_all(frozenset({w}), quote, comments=False))
