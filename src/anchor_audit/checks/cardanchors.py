"""Claims a card ties to code in YAML comments: ``- code_verified  # config.py:1524-1531``.

Authors already link claims to code in card.yaml, in comments nothing
reads.  A comment after a tag names a file (a short name or a path; ``MCore``
before it means the Megatron-Core sources) and line ranges.  Each range
links the claim to the SKILL.md quotes of that file whose declared range
overlaps it; where no quote covers a range, the range itself is a bare
anchor: its expected text is the code at the skill's ``validated_on``
commit, checked at the audited ref like a quote.  A short name that fits
several files is a note naming them.  anchors.yaml entries win: a claim the
registry backs is not linked here.
"""

from __future__ import annotations

from typing import Iterator, Sequence

from ..model import (
    AnchorStatus,
    CardAnchor,
    CardClaim,
    Evidence,
    EvidenceKind,
    LineRange,
    Quote,
    Reference,
    ReferenceKind,
    RegistryStatus,
    Skill,
    SkillSpec,
    Tail,
)
from .behaviour import quote_evidence
from .captions import mentions
from .protocol import Checker, Context
from .sentencewords import ABBREVIATIONS

Linked = tuple[list[Evidence], list[str]]  # a claim's evidence, and notes


def card_tail(anchor: CardAnchor, entry: SkillSpec | None) -> Tail:
    """The files a card comment names: its prefix word resolved by the built-in and the registry's card_prefixes."""
    return anchor.tail(entry.card_prefixes if entry else ())


def _written(skill: Skill, entry: SkillSpec | None) -> Sequence[CardClaim]:
    return [claim for claim in skill.card.claims if claim.anchors] if skill.card else []


def _reads(claim: CardClaim, skill: Skill, entry: SkillSpec | None) -> Iterator[Reference]:
    for a in claim.anchors:
        text = f"{a.prefix + ' ' if a.prefix else ''}{a.file}:{','.join(str(r) for r in a.ranges)}"
        yield Reference(ReferenceKind.CARD_ANCHOR, "card.yaml", a.line, text, tail=card_tail(a, entry))


def _check(claim: CardClaim, ctx: Context) -> Linked:
    return link_card_claim(claim, ctx)


def link_card_claim(claim: CardClaim, ctx: Context) -> Linked:
    """The evidence the claim's card comments give, and notes (ambiguous names)."""
    quotes, paths, entry = ctx.matches, ctx.listing, ctx.entry
    validated_on = ctx.skill.card.validated_on if ctx.skill.card else None
    evidence: list[Evidence] = []
    notes: list[str] = []
    for anchor in claim.anchors:
        tail = card_tail(anchor, entry)  # the one rule, shared with reads()
        for rng in anchor.ranges:
            covering = [m for m in quotes if tail.matches(m.quote.path) and _overlap(m.quote.declared, rng)]
            if covering:
                evidence += [quote_evidence(m, ctx) for m in covering]
                continue
            candidates = sorted(p for p in paths() if tail.matches(p))
            where = f"{anchor.file}:{rng}"
            if len(candidates) != 1:
                # Not a failure of the claim: the pointer cannot be followed here (a name that fits several
                # files, or none, which a submodule out of reach may hold).
                found = f" ({', '.join(candidates[:5])})" if candidates else " (a submodule out of reach may hold it)"
                why = f"card.yaml:{anchor.line}: {anchor.file} names {len(candidates)} files here{found}"
                if candidates:
                    notes.append(f"claim {claim.id}: {why}")
                evidence.append(Evidence(EvidenceKind.QUOTE, where, False, AnchorStatus.UNVERIFIABLE, why))
                continue
            evidence.append(_bare(candidates[0], rng, anchor, ctx, validated_on, claim.id))
    return evidence, notes


def _bare(path: str, rng: LineRange, anchor: CardAnchor, ctx: Context, day: str | None, claim: str) -> Evidence:
    """A range no quote covers: the code at validated_on is its expected text, checked at the audited ref; a range
    whose code that day names nothing of the claim is no evidence (the comment was stale on its own day)."""
    key = f"{path}:{rng}"
    then = ctx.validated() if day else None
    if then is None:
        why = "no validated_on commit to read its expected text at" if day else "card.yaml gives no validated_on"
        return Evidence(EvidenceKind.QUOTE, key, False, AnchorStatus.UNVERIFIABLE, why)
    try:
        source = then.read(path)
    except Exception as exc:  # noqa: BLE001 - one anchor's failure is that anchor's result
        return Evidence(EvidenceKind.QUOTE, key, False, AnchorStatus.ERROR, str(exc))
    if source is None or rng.end > len(source.lines):
        why = f"{key} is not in the code at {then.info.ref} ({(then.info.commit or '')[:12]})"
        return Evidence(EvidenceKind.QUOTE, key, False, RegistryStatus.UNRESOLVED, why)
    body = tuple(source.lines[rng.start - 1 : rng.end])
    if not mentions(claim, "\n".join(body), ABBREVIATIONS):
        stale = (f"card.yaml:{anchor.line}: {key} on the validation day ({(then.info.commit or '')[:10]}) names "
                 f"nothing of {claim}")  # fmt: skip
        why = f"{stale}: the anchor was stale on its own validation day; re-verify the claim"
        return Evidence(EvidenceKind.QUOTE, key, False, AnchorStatus.UNVERIFIABLE, why, stale=stale)
    match = ctx.quote(Quote(path, rng, body, anchor.line), ctx.tree)
    return quote_evidence(match, ctx, key)


def _overlap(a: LineRange, b: LineRange) -> bool:
    return a.start <= b.end and b.start <= a.end


CARD_ANCHOR: Checker[CardClaim, Linked] = Checker(ReferenceKind.CARD_ANCHOR, _written, _reads, _check)
