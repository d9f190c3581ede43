"""The Python examples of SKILL.md (``SYMBOL``): the names they import from the repository, the keywords of
the classes they call (:mod:`.symbols`), and the config attribute chains they assign (:mod:`.attrchains`)."""

from __future__ import annotations

from typing import Iterator, Sequence

from ..model import Example, PromiseKind, PromiseResult, Reference, ReferenceKind, Skill, SkillSpec
from .attrchains import check_chains
from .protocol import Checker, Context
from .symbols import check_symbols

Examples = tuple[Example, ...]  # a skill's Python code blocks


def _written(skill: Skill, entry: SkillSpec | None) -> Sequence[Examples]:
    return (skill.examples,)  # checked together: what one example imports, the next may use


def _reads(examples: Examples, skill: Skill, entry: SkillSpec | None) -> Iterator[Reference]:
    for code, line, _ in examples:  # the modules it imports are found at the ref: nothing to read before
        yield Reference(ReferenceKind.SYMBOL, "SKILL.md", line, code.split("\n", 1)[0])


def _check(examples: Examples, ctx: Context) -> list[PromiseResult]:
    return check_symbols(ctx.skill, ctx.tree, ctx.memo) + check_chains(ctx.skill, ctx.tree)


SYMBOL: Checker[Examples, list[PromiseResult]] = Checker(
    ReferenceKind.SYMBOL, _written, _reads, _check, PromiseKind.SYMBOL
)
