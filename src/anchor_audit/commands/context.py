"""What one run shares, made once: the reporter, the cache directory, the result store, the clock."""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterator

from ..report.reporter import Reporter

if TYPE_CHECKING:
    from ..audit.judge import Judge
    from ..runs.remembered import RunRecord
    from ..store.sqlite import ResultStore


@dataclass(frozen=True)
class RunContext:
    """Built once per run (by ``cli.main``, or by a Python caller) and handed to the command.

    ``cache_dir`` is the directory every source of the run caches in (None: the
    default, ``cache_root()``); ``store`` keeps match results on disk (None: in
    memory only); ``clock`` times each skill's budget (a test passes a fake one); ``jobs``: how many
    processes audit the skills of a catalog or of ``--all`` (:mod:`anchor_audit.audit.parallel`).
    """

    reporter: Reporter = field(default_factory=Reporter)
    cache_dir: str | None = None
    store: ResultStore | None = None
    clock: Callable[[], float] = time.monotonic
    jobs: int = 1  # worker processes for a run of many skills (--jobs)
    record: RunRecord | None = None  # what a run that may be remembered read (runs/remembered.py); None: not remembered

    def judge(self) -> Judge:
        """A judge for the run's results, its per-skill budget on this run's clock."""
        from ..audit.budget import Budget
        from ..audit.judge import Judge

        return Judge(self.store, Budget(clock=self.clock))


@contextlib.contextmanager
def run_context(
    reporter: Reporter, cache_dir: str | None, keep_results: bool, jobs: int = 1, record: RunRecord | None = None
) -> Iterator[RunContext]:
    """The context of a command that reads sources: its cache directory opened (made, or its stale
    contents replaced; a temporary one unless ``keep_results``) and the result store in it, both closed
    at the end; a cache problem is one warning."""
    from ..store.cachedir import open_cache
    from ..store.sqlite import ResultStore

    cache = open_cache(cache_dir, ephemeral=not keep_results)
    store = None
    try:
        if cache.problem:
            reporter.warn(cache.problem)
        store = ResultStore(Path(cache.path) / "results.sqlite3") if keep_results else None
        yield RunContext(reporter, str(cache.path), store, jobs=jobs, record=record)
    finally:
        if store is not None:
            store.close()
            if store.problem:
                reporter.warn(store.problem)
        cache.close()
