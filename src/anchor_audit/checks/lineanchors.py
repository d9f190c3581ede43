"""Line anchors of the prose (``LINES``): `file.py:10-20` names a file, and lines it has."""

from __future__ import annotations

from ..model import Citation, PromiseKind, PromiseResult, PromiseStatus, ReferenceKind
from .paths import PATH_HEAL, cited_path, path_in_prose
from .protocol import Checker, Context, citations_of, judged


def _check(c: Citation, ctx: Context) -> list[PromiseResult]:
    """The file (a path, or the one file with that tail) is there, and has those lines."""
    status, shown, detail = _lines(c, ctx)
    return judged(PromiseKind.PATH, c, ctx, status, shown, detail)


def _lines(c: Citation, ctx: Context) -> tuple[PromiseStatus, str, str]:
    status, _, detail = path_in_prose(c.target, ctx.skill, ctx.tree, ctx.listing)
    shown = f"{c.target}:{c.fragment}"
    if status is not PromiseStatus.EXISTS:
        return status, shown, detail
    tail = "/" + c.target
    found = [c.target] if ctx.tree.blob_id(c.target) is not None else ctx.listing.ending_in(tail)
    if len(found) != 1:
        return PromiseStatus.UNVERIFIABLE, shown, f"{len(found)} files end in {c.target}: which one is meant?"
    source = ctx.tree.read(found[0])
    start, _, end = c.fragment.partition("-")
    count = len(source.lines) if source is not None else 0
    if source is None or int(end or start) > count:
        return PromiseStatus.DIFFERS, shown, f"{found[0]} has {count} lines; the range ends past them"
    return PromiseStatus.EXISTS, shown, found[0] if found[0] != c.target else ""


LINES: Checker[Citation, list[PromiseResult]] = Checker(
    ReferenceKind.LINES, citations_of(ReferenceKind.LINES), cited_path, _check, PromiseKind.PATH, PATH_HEAL
)
