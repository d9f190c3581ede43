"""Independent parts of a run spread over worker processes, their results in the order asked (``--jobs``).

A worker is forked from the run once its repositories are open, so it starts
with everything the run has read (trees, remembered answers, the one search
of each tree) and computes nothing twice that the run already knew.  What a
forked process must not share it makes anew before its first part (git's
processes, the result store's connection: ``after_fork``).  The run's own
process is one of the ``jobs``: it forks one worker fewer and takes parts
from the last one back while the workers take them from the first (a part
no worker has begun is taken off their queue), its caches and git processes
already warm.  Who does a part is settled by a claim in memory the processes
share (not by cancelling the pool's queued calls: Python 3.11's pool, broken
by a killed worker, fails on a call given back and leaves its other workers
running).  A worker killed (out of memory, a signal) breaks the pool: every
part not returned, or never handed over, is done here.  Parts are contiguous
runs of the items and are joined in order, and every item's result depends
on its own inputs only, so the output is the same bytes for any number of
jobs.  Forking needs a POSIX system; elsewhere, and for runs too small to
gain, or from a process running other threads (a caller's, or a progress
display not stopped by ``before_fork``), the parts run here, one after
another.
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
# Not many more: each part searches its components' trees for its own skills again (on the real catalog 8 a
# worker gave 0.66x of one process, 16 gave 0.68x: 54 searches, not 68).  Parts cut by cost are tapered, this
# many a worker being the smallest (:func:`_tapered_lines`): 4, 6, 10 or 12 gave the same or slower.
PARTS_PER_WORKER = 8
CLAIM_WAIT = 1.0  # seconds: a claim's lock is held for microseconds, unless its holder was killed holding it


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

    def run(
        self, count: int, jobs: int, done: Callable[[int], None] = lambda n: None,
        weights: Sequence[float] | None = None,
    ) -> list[R]:  # fmt: skip
        """The results of every item, in order; ``done(n)`` after each part with the items done so far, when
        workers share them; ``weights``: what each item is expected to cost (parts of even cost)."""
        workers = min(jobs, count // MIN_PER_WORKER)
        if workers < 2:
            return self.work(range(count))
        import multiprocessing  # only for a run that forks (17 ms of imports)
        from concurrent.futures import ProcessPoolExecutor

        if "fork" not in multiprocessing.get_all_start_methods():
            return self.work(range(count))
        parts = _parts(count, workers * PARTS_PER_WORKER, weights, workers)
        self.before_fork()
        if threading.active_count() > 1:  # a fork copies this thread only: another's held locks would never free
            return self.work(range(count))
        context = multiprocessing.get_context("fork")
        global _SPREAD, _CLAIMS
        _SPREAD, _CLAIMS = self, _Claims(context, len(parts))  # a forked worker finds them here: nothing pickled
        try:
            with ProcessPoolExecutor(workers - 1, context, _start_worker) as pool:
                return self._joined(parts, _handed_over(pool, parts), _CLAIMS, done)
        finally:
            _SPREAD = _CLAIMS = None

    def _joined(
        self, parts: Sequence[range], futures: list["Future[list[R] | None]"], claims: "_Claims",
        done: Callable[[int], None],
    ) -> list[R]:  # fmt: skip
        from concurrent.futures.process import BrokenProcessPool

        here: dict[int, list[R]] = {}

        def finished() -> int:
            return sum(len(p) for k, p in enumerate(parts) if k in here or (k < len(futures) and futures[k].done()))

        for k in reversed(range(len(parts))):  # this process's share: a part no worker has begun, from the last
            if claims.claim(k, wait=CLAIM_WAIT):
                here[k] = self.work(parts[k])
                done(finished())
        out: list[R] = []
        for k, part in enumerate(parts):
            if k not in here:
                try:
                    result = futures[k].result() if k < len(futures) else None
                except BrokenProcessPool:  # a worker was killed: what it had not returned is done here
                    result = None
                here[k] = self.work(part) if result is None else result
            out += here[k]
            done(finished())
        return out


class _Claims:
    """Which parts have begun, in memory shared with the workers: a part is done by whoever claims it first."""

    def __init__(self, context: Any, count: int) -> None:
        import mmap

        self._lock = context.Lock()
        self._begun = mmap.mmap(-1, count)  # anonymous and shared: a fork sees the same bytes (0.02 ms, not 3.6)

    def claim(self, k: int, wait: float | None = None) -> bool:
        """Whether part ``k`` is now this process's; not when another has it, nor when the lock stays held
        past ``wait`` seconds (by a worker killed holding it: the pool is broken, the part comes back here)."""
        if not self._lock.acquire(timeout=wait):
            return False
        try:
            if self._begun[k]:
                return False
            self._begun[k] = 1
            return True
        finally:
            self._lock.release()


def _handed_over(pool: Any, parts: Sequence[range]) -> list["Future[Any]"]:
    """A call for each part, in order, until the pool breaks (a worker killed as it started): the parts after
    that have none, and this process claims them."""
    from concurrent.futures.process import BrokenProcessPool

    futures = []
    for k, part in enumerate(parts):
        try:
            futures.append(pool.submit(_run_part, k, part.start, part.stop))
        except BrokenProcessPool:
            break
    return futures


_SPREAD: Spread | None = None  # type: ignore[type-arg]  # the run's work, while its workers run
_CLAIMS: _Claims | None = None


def spreading() -> bool:
    """Whether parts are being run over forked workers now (asked in the run's process or in a worker)."""
    return _SPREAD is not None


def _start_worker() -> None:
    assert _SPREAD is not None
    _SPREAD.after_fork()


def _run_part(k: int, start: int, stop: int) -> list[Any] | None:
    """Part ``k``'s results, or None when the run's process has claimed it first."""
    assert _SPREAD is not None and _CLAIMS is not None
    return _SPREAD.work(range(start, stop)) if _CLAIMS.claim(k) else None


def _parts(count: int, wanted: int, weights: Sequence[float] | None = None, processes: int = 2) -> list[range]:
    """``range(count)`` cut into ``wanted`` contiguous parts (or ``count``): sizes differing by one at most; or, with
    ``weights`` (what each item is expected to cost), tapered for ``processes`` (:func:`_tapered_lines`): the
    first parts, which the workers take, and the last, which this process takes, the largest, and the parts
    where they meet the smallest, so that no process ends long after another and a run of like items (a
    component's skills, which share a search of their tree) is cut into few parts."""
    n = max(1, min(wanted, count))
    total = sum(max(w, 0.0) for w in weights) if weights is not None and len(weights) == count else 0.0
    if weights is None or total <= 0:
        size, extra = divmod(count, n)
        bounds = [i * size + min(i, extra) for i in range(n + 1)]
        return [range(a, b) for a, b in zip(bounds, bounds[1:], strict=False) if b > a]
    lines = iter(_tapered_lines(total, wanted, max(2, processes)))
    cuts, done, line = [0], 0.0, next(lines, total)
    for i, weight in enumerate(weights):
        done += max(weight, 0.0)
        if done >= line and i + 1 < count:
            cuts.append(i + 1)
            while line <= done:  # a heavy item may pass several lines: the next is past them all
                line = next(lines, total + 1)
    cuts.append(count)
    return [range(a, b) for a, b in zip(cuts, cuts[1:], strict=False) if b > a]


def _tapered_lines(total: float, wanted: int, processes: int) -> list[float]:
    """Where parts end, as cost done: from the first item, each of the workers' parts a share of what is left of
    theirs (``processes - 1`` of ``processes``) that halves as it shrinks; from the last, this process's the same,
    each at least ``total / wanted``."""
    smallest = total / max(1, wanted)
    meet = total * (processes - 1) / processes
    front, done, left = [], 0.0, meet
    while left > smallest * 1.5:
        step = max(smallest, left / (2 * (processes - 1)))
        done, left = done + step, left - step
        front.append(done)
    back, at, left = [], total, total - meet
    while left > smallest * 1.5:
        step = max(smallest, left / 2)
        at, left = at - step, left - step
        back.append(at)
    return [*front, meet, *reversed(back)]
