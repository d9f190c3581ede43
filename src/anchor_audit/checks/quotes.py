"""Quotes (``QUOTE``): a line-anchored fence of SKILL.md, judged at the ref by its content
(:mod:`anchor_audit.match.quote`, through the judge's results kept by content)."""

from __future__ import annotations

from typing import Iterator, Sequence

from ..model import Quote, QuoteMatch, Reference, ReferenceKind, Skill, SkillSpec
from .protocol import Checker, Context


def _written(skill: Skill, entry: SkillSpec | None) -> Sequence[Quote]:
    return skill.quotes


def _reads(q: Quote, skill: Skill, entry: SkillSpec | None) -> Iterator[Reference]:
    yield Reference(ReferenceKind.QUOTE, "SKILL.md", q.skill_line, q.key, frozenset({q.path}))


def _check(q: Quote, ctx: Context) -> QuoteMatch:
    return ctx.quote(q, ctx.tree)


QUOTE: Checker[Quote, QuoteMatch] = Checker(ReferenceKind.QUOTE, _written, _reads, _check)
