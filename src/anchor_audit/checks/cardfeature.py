"""What a card says beside a known constraint's sentence, which the sentence leaves unsaid: the feature the card is
about (its ``title``: a gate that also tests that the feature is on says no more than its sentences), and the
card's own words (:mod:`anchor_audit.spec.cardwords`: "TE" may be a value on one card)."""

from __future__ import annotations

from ..model import Skill
from ..spec.cardwords import Aliases
from .captions import words
from .gateleaves import switched_on
from .gates import Gate
from .sentencewords import spelt_out


def featured(skill: Skill, gates: list[Gate]) -> frozenset[str]:
    """``NAME:on`` for each setting the gates test whose name says every word of the card's title, two at least
    (``overlap_moe_expert_parallel_comm`` for ``expert_parallel_overlap``), or that the title spells in the table
    of words (``activation_recompute``: ``recompute_granularity``): a card's sentences are about its feature, so a
    gate that also tests that it is on says no more than they do."""
    title = words(skill.card.title) if skill.card else frozenset()
    spelt = spelt_out(skill.card.title.replace("_", " "), skill.card.aliases)[1] if skill.card else frozenset()
    if len(title) < 2 and not spelt:
        return frozenset()
    return frozenset(f"{n}:on" for g in gates for n in g.names if (len(title) >= 2 and title <= words(n)) or n in spelt)


def aliases_of(skill: Skill) -> Aliases:
    """What the card's own words stand for (:mod:`anchor_audit.spec.cardwords`)."""
    return skill.card.aliases if skill.card else ()


def aliased(sentence: str, aliases: Aliases) -> frozenset[str]:
    """What the card's own words the sentence uses stand for, as said: "TE" is the value ``transformer_engine``
    where the card says so, which a gate compares a setting with."""
    own = {n for _, names in aliases for n in names}
    return frozenset(n.lower() for n in spelt_out(sentence, aliases)[1] & own)


def feature_said(skill: Skill, said: frozenset[str], parts: list[Gate]) -> frozenset[str]:
    """The words of the card's title, where the gates that decide a sentence test that its feature is on (none
    else): they say what the sentence leaves unsaid."""
    featured = {m.split(":")[0] for m in said if m.endswith(":on")}
    on = any(featured & switched_on(g.text) for g in parts)
    return words(skill.card.title) if on and skill.card else frozenset()


# The words of a card's interactions whose sentences leave the feature unsaid ("incompatible: cpu_offloading").
OF_THE_FEATURE = ("incompatible: ", "required: ")


def of_the_feature(sentence: str, names: frozenset[str]) -> bool:
    """Whether a sentence of one setting is what the card's feature needs or refuses (an interaction's
    ``incompatible`` or ``required``): only a gate that tests the feature is on decides it, not one that tests the
    setting under another switch, read alone."""
    return sentence.startswith(OF_THE_FEATURE) and len(names) == 1
