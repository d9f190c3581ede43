"""The prose's citations, each checked by its kind's checker in :data:`anchor_audit.checks.CHECKERS`, in the
order written: paths, links, line anchors, version pins, names, commands and the defaults they state.

What the names of one skill share (one search for all of them, and their past) is worked out once, before the
citations are checked.  A citation whose check fails is that citation's result (``unverifiable`` where the tree
cannot say, ``error`` with the reason for anything else), never the run's.  Once all are checked, each kind's
heal pass (:class:`~anchor_audit.checks.protocol.Heal`) asks the history, once for all, what became of those
that failed: moved, renamed or deleted.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Sequence

from ..errors import NotCarried, UnreadableFile
from ..model import Citation, PromiseResult, PromiseStatus, ReferenceKind
from . import CHECKERS
from .names import names_gone, names_searched
from .protocol import Checker, Context, Heal


def check_citations(ctx: Context) -> list[PromiseResult]:
    """A result for every citation of the skill's prose, in the order written."""
    skill = ctx.skill
    searched = names_searched(skill, ctx.tree)
    commands = tuple(c for c in skill.citations if c.kind is ReferenceKind.COMMAND and c.file == "SKILL.md")
    ctx = replace(ctx, searched=searched, gone=names_gone(skill, ctx.tree, searched), commands=commands)
    return check_each(skill.citations, ctx)


def check_each(citations: Sequence[Citation], ctx: Context) -> list[PromiseResult]:
    """A result for each of ``citations`` by its kind's checker, in order; then each kind's heal pass."""
    skill = ctx.skill
    out: list[PromiseResult] = []
    failed: dict[Heal, list[tuple[int, Citation]]] = {}  # for each heal pass, (where in out, the citation)
    for c in citations:
        checker = CHECKERS[c.kind]
        for result in _guarded(checker, c, ctx):
            out.append(result)
            if checker.heal is not None and checker.heal.wants(c, result, skill):
                failed.setdefault(checker.heal, []).append((len(out) - 1, c))
    for heal, items in failed.items():
        out = heal.apply(out, items, ctx)
    return out


def _guarded(checker: Checker[Citation, Any], c: Citation, ctx: Context) -> list[PromiseResult]:
    """The checker's results, or one result saying why it could not check: one citation's failure is its result,
    never the run's."""
    kind = checker.reported_as
    assert kind is not None

    def failed(status: PromiseStatus, detail: str) -> list[PromiseResult]:
        return [PromiseResult(kind, checker.subject(c), status, ctx.file(checker.written_in), c.line, detail)]

    try:
        results: list[PromiseResult] = checker.check(c, ctx)
        return results
    except NotCarried as exc:
        return failed(PromiseStatus.UNVERIFIABLE, str(exc))
    except UnreadableFile as exc:
        if checker.unreadable_is_there:
            return failed(PromiseStatus.EXISTS, str(exc))  # there, if not readable
        return failed(PromiseStatus.ERROR, f"internal error: {type(exc).__name__}: {exc}")
    except Exception as exc:  # noqa: BLE001 - one citation's failure is its result, never the run's
        return failed(PromiseStatus.ERROR, f"internal error: {type(exc).__name__}: {exc}")
