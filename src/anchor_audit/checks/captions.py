"""Claims linked to SKILL.md's quotes by what the author wrote above them.

A card names a claim (``dp_overlap_defaults``); SKILL.md shows its code under a lead-in (``DP overlap
defaults:``) or a heading (``### Delayed wgrad validation``).  Where neither anchors.yaml nor a card.yaml comment
links a claim, the quotes whose caption (the nearest heading and the paragraph above the fence) shares the most
words with the claim's id are its evidence:

* at least two words in common (one, for an id of one word), singular and plural alike, case ignored, a longer
  form of an id's word of four letters or more as the word (``init``: "initialization"); an
  abbreviation the constraints' table knows counts as the words it stands for (``dp``: "data-parallel");
* the best caption only: the one that says most of the words naming what the claim is about, then most of those
  any claim may say (``runtime``, ``validation``); quotes under two different captions with the same counts
  link nothing (which one the claim means is a guess), and every quote under the best caption is linked.

Words every caption or id may say ("the", "code") count for nothing.

The same words decide whether a card comment's line range (``# MCore transformer_config.py:1907-1908``) is about
its claim at all: on the card's validation day its lines must name one of the claim's words that says what the
claim is about (not ``constraint``, ``validation`` and the like), a word of an identifier, a longer form
(``offload`` in ``cpu_offloading``), or, for an abbreviation the constraints' table knows (``TP``), the identifier
it stands for.
"""

from __future__ import annotations

import functools
import re
from typing import Protocol, Sequence, TypeVar

from .sentencewords import ABBREVIATIONS


class _Captioned(Protocol):
    @property
    def caption(self) -> str: ...


Fenced = TypeVar("Fenced", bound=_Captioned)  # a quote, or a plain example: what SKILL.md wrote above a fence

_STOP = frozenset(
    "a an and are as at by code for from in is it its of on or see snippet the this to with".split()
)
# What a claim id says of the code that names nothing in it.
# An abbreviation of a claim id as the words a caption spells it with (``dp``: "data parallel").
_SPELT = {
    word: frozenset(re.findall(r"[a-z]+", spelt[0].lower())) - {"size", "model", "use", "have", "torch"}
    for word, spelt in ABBREVIATIONS.items()
}
_GENERIC = frozenset(
    """behavior behaviour check compatible constraint coverage default exclusion exist guard incompatibility
    incompatible interaction mutual requirement required rule runtime support supported validation""".split()
)


@functools.lru_cache(maxsize=65536)
def words(text: str) -> frozenset[str]:
    """The content words of a claim id or a caption: split at ``_``, ``-``, spaces and case changes (a word written
    in mixed case, ``DeepEP``, is also itself: ``deepep``); lower case; a plural's trailing ``s`` dropped."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", text)
    joined = [w for w in re.findall(r"[A-Za-z0-9]+", text) if not w.islower() and not w.isupper()]  # DeepEP: deepep
    out = set()
    for word in re.findall(r"[A-Za-z0-9]+", spaced) + joined:
        word = word.lower()
        if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
            word = word[:-1]
        if word not in _STOP:
            out.add(word)
    return frozenset(out)


def captioned(claim_id: str, quotes: Sequence[Fenced]) -> tuple[Fenced, ...]:
    """The quotes (or examples) whose caption names ``claim_id`` best (none where no caption shares enough, or two
    differ): the words that say what the claim is about first, those any claim may say (``runtime``) only between
    equals."""
    wanted = words(claim_id)
    need = min(2, len(wanted))
    if not need:
        return ()
    telling, generic = wanted - _GENERIC, wanted & _GENERIC
    scored = [((_shared(telling, said), _shared(generic, said)), q) for q in quotes if q.caption
              for said in [words(q.caption)]]  # fmt: skip
    best = max((n for n, _ in scored), default=(0, 0))
    if sum(best) < need:
        return ()
    chosen = tuple(q for n, q in scored if n == best)
    return chosen if len({q.caption for q in chosen}) == 1 else ()


def _shared(wanted: frozenset[str], said: frozenset[str]) -> int:
    """How many of a claim id's words a caption says, an abbreviation (``dp``) as itself or as the words of what
    it stands for ("data-parallel")."""
    return sum(1 for w in wanted if w in said or _longer(w, said) or (w in _SPELT and _SPELT[w] <= said))


def _longer(word: str, said: frozenset[str]) -> bool:
    """Whether a caption says a longer form of a claim id's word of four letters or more (``init``:
    "initialization")."""
    return len(word) >= 4 and any(w.startswith(word) for w in said)


def mentions(claim_id: str, text: str, synonyms: dict[str, tuple[str, ...]]) -> bool:
    """Whether ``text`` (code) names one of the claim's telling words (see the module's rule)."""
    said = words(text)
    for word in words(claim_id) - _GENERIC:
        if len(word) >= 4 and any(w.startswith(word) or word.startswith(w) for w in said if len(w) >= 4):
            return True
        if word in said or any(name in text for name in synonyms.get(word, ())):
            return True
    return False
