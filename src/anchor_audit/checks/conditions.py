"""Conditions (``CONDITION``): a gating condition anchors.yaml registers for a claim, judged at the ref
(:mod:`anchor_audit.match.condition`, through the judge's results kept by content)."""

from __future__ import annotations

from typing import Iterator, Sequence

from ..model import Condition, ConditionResult, Reference, ReferenceKind, Skill, SkillSpec
from .protocol import Checker, Context


def _written(skill: Skill, entry: SkillSpec | None) -> Sequence[Condition]:
    return [c for claim in entry.claims for c in claim.conditions] if entry else []


def _reads(c: Condition, skill: Skill, entry: SkillSpec | None) -> Iterator[Reference]:
    yield Reference(ReferenceKind.CONDITION, "anchors.yaml", 0, c.describe(), frozenset({c.path}))


def _check(c: Condition, ctx: Context) -> ConditionResult:
    return ctx.condition(c, ctx.tree)


CONDITION: Checker[Condition, ConditionResult] = Checker(ReferenceKind.CONDITION, _written, _reads, _check)
