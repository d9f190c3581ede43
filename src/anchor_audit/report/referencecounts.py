"""The references of a run counted for a summary line: how many, of which kinds, and what became of them."""

from __future__ import annotations

from collections import Counter

from ..model import AuditReport, PromiseKind

# What each kind of reference is called in a summary, one and many.
KIND_WORDS: dict[PromiseKind, tuple[str, str]] = {
    PromiseKind.EVIDENCE: ("evidence path", "evidence paths"),
    PromiseKind.REFERENCE: ("file reference", "file references"),  # an @path: no @ in a report GitHub renders
    PromiseKind.TESTS: ("test count", "test counts"),
    PromiseKind.SYMBOL: ("name", "names"),
    PromiseKind.PATH: ("path", "paths"),
    PromiseKind.LINK: ("link", "links"),
    PromiseKind.VERSION: ("version pin", "version pins"),
    PromiseKind.COMMAND: ("command", "commands"),
    PromiseKind.CONSTRAINT: ("constraint", "constraints"),
    PromiseKind.LINES: ("line citation", "line citations"),
    PromiseKind.PAGE: ("page", "pages"),
}


def references_said(report: AuditReport) -> str:
    """``24 references (11 paths, 6 links, 4 constraints, 2 names, 1 test count): 19 hold, 1 differs, 4
    unverifiable``: every kind a run checked, the most first, then what became of them, ``hold`` first; "" for a
    run that checked none."""
    kinds: Counter[PromiseKind] = Counter()
    statuses: Counter[str] = Counter()
    for promise in report.every_promise():
        kinds[promise.kind] += 1
        statuses["hold" if promise.status.ok else promise.status.value] += 1
    if not kinds:
        return ""
    total = sum(kinds.values())
    by_kind = ", ".join(f"{n} {KIND_WORDS[kind][n != 1]}" for kind, n in sorted(kinds.items(), key=_most_first))
    said = ", ".join(f"{statuses[k]} {k}" for k in ("hold", *sorted(k for k in statuses if k != "hold")) if statuses[k])
    return f"{total} reference{'s' if total != 1 else ''} ({by_kind}): {said}"


def _most_first(item: tuple[PromiseKind, int]) -> tuple[int, str]:
    return -item[1], KIND_WORDS[item[0]][1]
