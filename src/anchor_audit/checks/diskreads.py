"""What a skill's audit read of the disk, so that its report is kept only while each read answers the same.

A skill read from disk (a catalog's copy, a folder given on the command line) has its checks read more of the
disk than its parsed pages: whether a link's target is there, the text of a page a link's anchor names, which
pages its folder holds.  Each such read is a function marked :func:`disk_read`, which notes what it was asked and told;
while a :func:`witnessing` block is open, those are kept, and :func:`still_so` asks each again later.  A read is
named by the function that made it (:data:`ASKED`) and its arguments, all strings; read back from the cache (a
signed row), each is asked again through that same function, and only whether its answer is the same is used.
"""

from __future__ import annotations

import functools
import hashlib
import json
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Callable, Iterator, ParamSpec, TypeVar

Reads = dict[str, str]  # a read (its function's name and arguments, as JSON) -> a digest of its answer
_OPEN: ContextVar[Reads | None] = ContextVar("disk_reads", default=None)
ASKED: dict[str, Callable[..., Any]] = {}  # the functions whose reads are witnessed, by name
P = ParamSpec("P")
T = TypeVar("T")


def disk_read(name: str) -> Callable[[Callable[P, T]], Callable[P, T]]:
    """A function that reads the disk, taking strings by position only: each call is noted, by ``name`` and its
    arguments, in the open :func:`witnessing` block (if any), and :func:`still_so` asks it again by that name."""

    def registered(read: Callable[P, T]) -> Callable[P, T]:
        if name in ASKED:
            raise ValueError(f"two disk reads are named {name}")
        ASKED[name] = read

        @functools.wraps(read)
        def noted(*args: P.args, **kwargs: P.kwargs) -> T:
            if kwargs:
                raise TypeError(f"{name} takes its arguments by position: they are what is asked again")
            answer = read(*args, **kwargs)
            reads = _OPEN.get()
            if reads is not None:
                reads[json.dumps([name, *args])] = _digest(answer)
            return answer

        return noted

    return registered


@contextmanager
def witnessing() -> Iterator[Reads]:
    """The reads made within the block, filled as they are made."""
    reads: Reads = {}
    token = _OPEN.set(reads)
    try:
        yield reads
    finally:
        _OPEN.reset(token)


def still_so(reads: object) -> bool:
    """Whether each of ``reads`` (as :func:`witnessing` gave them, read back from the cache) answers the same now;
    False for anything that is not such reads."""
    if not isinstance(reads, dict):
        return False
    for said, digest in reads.items():
        try:
            name, *args = json.loads(said)
        except (TypeError, ValueError):  # not JSON, or not a list
            return False
        ask = ASKED.get(name) if isinstance(name, str) else None
        if ask is None or not all(isinstance(a, str) for a in args):
            return False
        try:
            if _digest(ask(*args)) != digest:
                return False
        except (TypeError, ValueError, OSError, RecursionError):  # arguments of another number: another read
            return False
    return True


def _digest(answer: Any) -> str:
    return hashlib.sha256(json.dumps(answer).encode("utf-8", "surrogateescape")).hexdigest()[:32]
