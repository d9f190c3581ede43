"""The judge: every quote and condition result, shared by content across skills, trees and runs.

A result depends only on the blob and the quote (or condition), so it is kept in memory for the run and,
with a :class:`ResultStore`, on disk for later runs; a hit reads and parses nothing.  Each check is guarded:
whatever goes wrong becomes that check's result, never the run's crash.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace
from typing import Any, Callable, TypeVar

from .budget import Budget
from .errors import BoundExceeded, NotCarried, UnreadableFile
from .match.quote import match_quote
from .match.relocate import relocate
from .model import (
    Changed,
    Condition,
    ConditionResult,
    ConditionStatus,
    Quote,
    QuoteMatch,
    Relocated,
    Unchecked,
    UncheckedReason,
)
from .resultcache import (
    ResultStore,
    condition_key,
    dump_condition,
    dump_quote,
    load_condition,
    load_quote,
    promise_key,
    quote_key,
)
from .source import SourceTree

R = TypeVar("R")
class Judge:
    """Judges quotes and conditions, sharing work by content.

    A result depends only on the blob and the quote (or condition), so it is
    kept in memory for the run and, with a :class:`ResultStore`, on disk for
    later runs; a hit reads and parses nothing.
    """

    def __init__(self, store: ResultStore | None = None, budget: Budget | None = None) -> None:
        self.store = store
        # No bound until a skill's checks begin: fetching, listing and git's history answers are not its checks.
        self.budget = budget or Budget()
        self._relocations: dict[tuple[int, str, tuple[str, ...]], Relocated | None] = {}
        self._memo: dict[str, dict[str, Any]] = {}  # content key -> result fields
        self.computed = 0  # results that had to be computed (misses of both caches)
        self.paths: dict[int, list[str]] = {}  # every file path of a tree, by tree, once listed

    def quote(self, quote: Quote, tree: SourceTree) -> QuoteMatch:
        return _guarded(
            lambda: self._quote(quote, tree),
            lambda reason, detail: Unchecked(quote, reason, detail),
        )

    def condition(self, condition: Condition, tree: SourceTree) -> ConditionResult:
        return _guarded(
            lambda: self._condition(condition, tree),
            lambda reason, detail: ConditionResult(condition, ConditionStatus(reason.value), detail=detail),
        )

    def begin_skill(self) -> None:
        """Start the bound of one skill's checks (each check also has its own work bound)."""
        self.budget.start()

    def remember(self, key: str, compute: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        """A run-level fact by content key (git's answers, a SKILL.md's quoted paths): memory, disk, or ``compute``.

        Not a skill's check, so not under its time bound (a history asks these between skills).
        """
        return self._cached(promise_key(key), compute, bounded=False)

    def _cached(self, key: str, compute: Callable[[], dict[str, Any]], bounded: bool = True) -> dict[str, Any]:
        """The one lookup every result goes through: memory, then disk, then ``compute`` (stored)."""
        if key not in self._memo:
            found = self.store.get(key) if self.store is not None else None
            if found is None:
                if bounded:
                    self.budget.check()  # results already known are served; only new work is bounded
                self.computed += 1
                found = compute()
                if self.store is not None:
                    self.store.put(key, found)
            self._memo[key] = found
        return self._memo[key]

    def _quote(self, quote: Quote, tree: SourceTree) -> QuoteMatch:
        blob = tree.blob_id(quote.path)
        if blob is None:
            return self._relocated(quote, tree) or match_quote(quote, None)
        data = self._cached(quote_key(blob, quote), lambda: dump_quote(match_quote(quote, tree.read(quote.path))))
        hit = load_quote(quote, data)  # the same content may sit at another line of SKILL.md: rebuilt for it
        if isinstance(hit, Changed):
            return self._relocated(quote, tree) or hit
        return hit

    def _relocated(self, quote: Quote, tree: SourceTree) -> Relocated | None:
        """The quote found in another file of the tree, or None (searched once per tree and quote)."""
        key = (id(tree), quote.key, quote.body)
        if key not in self._relocations:
            commit = tree.info.commit
            if commit is None:  # no commit to name the tree's content by: searched once per run
                self.budget.check()
                self._relocations[key] = relocate(quote, tree)
            else:  # a commit names the whole tree: the search's result is kept by content, like a match
                named = json.dumps([commit, quote.path, quote.declared.as_list(), quote.body])
                content = hashlib.sha256(named.encode())

                def search() -> dict[str, Any]:
                    self.budget.check()
                    hit = relocate(quote, tree)
                    return {"found": None} if hit is None else {"found": dump_quote(hit)}

                data = self._cached(promise_key(f"relocate|{content.hexdigest()}"), search)
                found = None if data["found"] is None else load_quote(quote, data["found"])
                self._relocations[key] = found if isinstance(found, Relocated) else None
        hit = self._relocations[key]
        return replace(hit, quote=quote) if hit else None

    def _condition(self, condition: Condition, tree: SourceTree) -> ConditionResult:
        # libcst is imported only where a condition is really checked; load_condition needs none of it.
        def compute() -> dict[str, Any]:
            from .match.condition import check_condition

            return dump_condition(check_condition(condition, tree.read(condition.path)))

        blob = tree.blob_id(condition.path)
        if blob is None:
            from .match.condition import check_condition

            return check_condition(condition, None)
        return load_condition(condition, self._cached(condition_key(blob, condition), compute))


def _guarded(run: Callable[[], R], unchecked: Callable[[UncheckedReason, str], R]) -> R:
    """Run one check; whatever goes wrong becomes that check's result, ``unchecked(status, detail)``.

    The statuses are ``unverifiable``, ``incomplete`` and ``error``, named alike for quotes and conditions.
    """
    try:
        return run()
    except NotCarried as exc:
        return unchecked(UncheckedReason.UNVERIFIABLE, str(exc))
    except BoundExceeded as exc:
        return unchecked(UncheckedReason.INCOMPLETE, str(exc))
    except UnreadableFile as exc:
        return unchecked(UncheckedReason.ERROR, str(exc))
    except RecursionError:
        return unchecked(UncheckedReason.INCOMPLETE, "the code is nested too deeply to check")
    except Exception as exc:  # noqa: BLE001 - the boundary where one check may not crash the run
        return unchecked(UncheckedReason.ERROR, f"internal error while checking: {type(exc).__name__}: {exc}")
