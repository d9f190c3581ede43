"""Independent parts of a run spread over worker processes, their results in the order asked (``--jobs``).

A worker is forked from the run once its repositories are open, so it starts
with everything the run has read (trees, remembered answers, the one search
of each tree) and computes nothing twice that the run already knew.  What a
forked process must not share it makes anew before its first part (git's
processes, the result store's connection: ``after_fork``).  The run's own
process is one of the ``jobs``: it forks one worker fewer and takes parts
from the last one back while the workers take them from the first (a part
no worker has begun is taken off their queue), its caches and git processes
already warm.  Parts are contiguous runs of the items and are joined in
order, and every item's result depends on its own inputs only, so the output
is the same bytes for any number of jobs.  Forking needs a POSIX system;
elsewhere, and for runs too small to gain, or from a process running other
threads (a caller's, or a progress display not stopped by ``before_fork``),
the parts run here, one after another.
"""

from __future__ import annotations

import os
import threading
from typing import TYPE_CHECKING, Any, Callable, Generic, Sequence, TypeVar

if TYPE_CHECKING:
    from concurrent.futures import Future

R = TypeVar("R")
MIN_PER_WORKER = 4  # fewer items than this per worker gain less than the fork costs
# Many small parts: a slow part does not leave the others idle, and the two a worker has queued (which the run's
# own process cannot take) are a small share of the whole (with 4 a worker, it sat idle 0.5 s of a 1.2 s spread).
PARTS_PER_WORKER = 16


def default_jobs() -> int:
    """The cores this process may run on (``--jobs`` when not given)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not Linux
        return max(1, os.cpu_count() or 1)


class Spread(Generic[R]):
    """``work(span)`` over ``range(count)`` cut into parts, each part in a worker; ``after_fork`` runs in each
    worker before its first part, ``before_fork`` here before the first worker is made (a store flushed)."""

    def __init__(
        self,
        work: Callable[[range], list[R]],
        after_fork: Callable[[], None],
        before_fork: Callable[[], None] = lambda: None,
    ) -> None:
        self.work = work
        self.after_fork = after_fork
        self.before_fork = before_fork

    def run(self, count: int, jobs: int, done: Callable[[int], None] = lambda n: None) -> list[R]:
        """The results of every item, in order; ``done(n)`` after each part with the items done so far, when
        workers share them."""
        workers = min(jobs, count // MIN_PER_WORKER)
        if workers < 2:
            return self.work(range(count))
        import multiprocessing  # only for a run that forks (17 ms of imports)
        from concurrent.futures import ProcessPoolExecutor

        if "fork" not in multiprocessing.get_all_start_methods():
            return self.work(range(count))
        parts = _parts(count, workers * PARTS_PER_WORKER)
        self.before_fork()
        if threading.active_count() > 1:  # a fork copies this thread only: another's held locks would never free
            return self.work(range(count))
        global _SPREAD
        _SPREAD = self  # a forked worker finds the work here: closures need no pickling
        try:
            with ProcessPoolExecutor(workers - 1, multiprocessing.get_context("fork"), _start_worker) as pool:
                futures: list[Future[list[R]]] = [pool.submit(_run_part, p.start, p.stop) for p in parts]
                return self._joined(parts, futures, done)
        finally:
            _SPREAD = None

    def _joined(self, parts: Sequence[range], futures: list["Future[list[R]]"], done: Callable[[int], None]) -> list[R]:
        from concurrent.futures.process import BrokenProcessPool

        here: dict[int, list[R]] = {}

        def finished() -> int:
            return sum(len(p) for k, p in enumerate(parts) if k in here or futures[k].done())

        for k in reversed(range(len(parts))):  # this process's share: a part no worker has begun, from the last
            if futures[k].cancel():
                here[k] = self.work(parts[k])
                done(finished())
        out: list[R] = []
        for k, (part, future) in enumerate(zip(parts, futures, strict=True)):
            try:
                out += here[k] if k in here else future.result()
            except BrokenProcessPool:  # a worker was killed (out of memory, a signal): its part is done here
                out += self.work(part)
                here[k] = []
            done(finished())
        return out


_SPREAD: Spread | None = None  # type: ignore[type-arg]  # the run's work, while its workers run


def spreading() -> bool:
    """Whether parts are being run over forked workers now (asked in the run's process or in a worker)."""
    return _SPREAD is not None


def _start_worker() -> None:
    assert _SPREAD is not None
    _SPREAD.after_fork()


def _run_part(start: int, stop: int) -> list[Any]:
    assert _SPREAD is not None
    return _SPREAD.work(range(start, stop))


def _parts(count: int, wanted: int) -> list[range]:
    """``range(count)`` cut into ``wanted`` contiguous parts (or ``count``), sizes differing by one at most."""
    n = max(1, min(wanted, count))
    size, extra = divmod(count, n)
    bounds = [i * size + min(i, extra) for i in range(n + 1)]
    return [range(a, b) for a, b in zip(bounds, bounds[1:], strict=False) if b > a]
