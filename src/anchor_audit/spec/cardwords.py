"""What a card's own words stand for, read from its ``feature_meaning`` and ``summary``: its known constraints are
read with these before the built-in table of what the code spells otherwise.

Two shapes, each the card defining a word of its own:

* a value and its short name, in a feature's meaning: ``local (MCore), transformer_engine (TE), or none``: on this
  card "TE" is the value ``transformer_engine``, not the library;
* words and the setting they are, where a parenthesis opens with it: ``layer-level activation offloading
  (cpu_offloading)``: "activation offloading" (the two words before it) is ``cpu_offloading``.

A feature's name is no word of the card's: "energon online packing ... controlled by packing_buffer_size" may be
turned on in the code by a switch of its own (``enable_energon_packing``), which the sentence's words already say.

``recommended_path`` gives no words: its keys are settings as the code spells them, its values advice.  What a card
says is untrusted: the first :data:`MAX_MEANINGS` meanings are read, each up to :data:`MAX_TEXT` characters, and
at most :data:`MAX_ALIASES` words are kept.
"""

from __future__ import annotations

import re
from typing import Any

Aliases = tuple[tuple[str, tuple[str, ...]], ...]

MAX_MEANINGS = 64
MAX_TEXT = 4000
MAX_ALIASES = 32
_SETTING = r"[A-Za-z][A-Za-z0-9]{0,40}_[A-Za-z0-9_]{1,60}"  # a name with an underscore
_VALUE_NAMED = re.compile(r"(?<![\w.-])([a-z][a-z0-9_]{2,63})\s{1,4}\(([A-Z][A-Za-z0-9+]{1,15})\)")
_WORD = r"[A-Za-z][\w-]{0,40}"
_WORDS_OF = re.compile(rf"(?<![\w-])((?:{_WORD}\s{{1,4}})?{_WORD})\s{{1,4}}\(`?({_SETTING})`?(?=[\s,)`])")
_LEADING = frozenset("a an the and or of to for with via by in on is".split())


def card_aliases(feature_meaning: Any, summary: Any) -> Aliases:
    """The card's words and what each stands for (see the module's rule); what is not text is no word."""
    meanings = list(feature_meaning.values())[:MAX_MEANINGS] if isinstance(feature_meaning, dict) else []
    texts = [text[:MAX_TEXT] for text in meanings if isinstance(text, str)]
    found: dict[str, tuple[str, ...]] = {}
    for text in texts:
        for value, short in _VALUE_NAMED.findall(text):
            found.setdefault(short, (value,))
    for text in texts + ([summary[:MAX_TEXT]] if isinstance(summary, str) else []):
        for words, setting in _WORDS_OF.findall(text):
            phrase = " ".join(w for w in words.split() if w.lower() not in _LEADING)
            if phrase and re.sub(r"[\s-]+", "_", phrase).lower() != setting.lower():  # its own name: no new word
                found.setdefault(phrase, (setting,))
    return tuple(list(found.items())[:MAX_ALIASES])
