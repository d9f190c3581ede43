"""Promises a skill makes besides its quotes and its prose: evidence paths, @path references, "N passed", the
names its Python examples use.

Each is checked by its kind's checker in :data:`anchor_audit.checks.CHECKERS`, against the same tree as the
quotes: a path exists at the ref or it does not (or the tree cannot say: unverifiable), and a missing one is
asked of the history (all at once); a pytest file promised to give ``N passed`` defines a countable number of
test items; an example's imports and keywords are defined where it imports them from.
"""

from __future__ import annotations

from ..model import PromiseResult, ReferenceKind
from . import CHECKERS
from .prose import check_each
from .protocol import Context

_PATHS = (ReferenceKind.EVIDENCE, ReferenceKind.AT_PATH)
_OTHERS = (ReferenceKind.TESTS, ReferenceKind.SYMBOL, ReferenceKind.CONSTRAINT, ReferenceKind.PAGE)


def check_promises(ctx: Context, evidence_only: bool = False) -> tuple[PromiseResult, ...]:
    """Every promise of the skill besides its quotes and its prose (``evidence_only``: card.yaml's evidence paths,
    which ``file_exists`` claims need), in the order of :data:`_PATHS` then :data:`_OTHERS`."""
    kinds = _PATHS[:1] if evidence_only else _PATHS
    paths = [c for kind in kinds for c in CHECKERS[kind].written(ctx.skill, ctx.entry)]
    out = check_each(paths, ctx)  # what became of the missing ones asked of the history once for all
    if evidence_only:
        return tuple(out)
    for kind in _OTHERS:
        out += _checked(kind, ctx)
    return tuple(out)


def _checked(kind: ReferenceKind, ctx: Context) -> list[PromiseResult]:
    checker = CHECKERS[kind]
    return [result for item in checker.written(ctx.skill, ctx.entry) for result in checker.check(item, ctx)]
