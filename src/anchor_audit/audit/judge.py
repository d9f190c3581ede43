"""The judge: every quote and condition result, shared by content across skills, trees and runs.

A result depends only on the blob and the quote (or condition), so it is kept in memory for the run and,
with a :class:`ResultStore`, on disk for later runs; a hit reads and parses nothing.  Each check is guarded:
whatever goes wrong becomes that check's result, never the run's crash.
"""

from __future__ import annotations

import hashlib
import json
import sys
import weakref
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Hashable, Iterable, Sequence, TypeVar

from ..errors import BoundExceeded, NotCarried, UnreadableFile
from ..match.quote import match_quote
from ..match.relocate import needle_of, relocate
from ..model import (
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
from ..source import SourceTree
from ..source.listing import ListedBefore, Listing
from ..store.codecs import condition_key, dump_condition, dump_quote, load_condition, load_quote, promise_key, quote_key
from ..store.memo import RunMemo
from ..store.sqlite import ResultStore
from .budget import Budget

R = TypeVar("R")


@dataclass
class _TreeState:
    """What a judge knows of one tree, for as long as the tree lives."""

    listing: Listing | None = None
    searched: dict[tuple[str, str], list[str]] = field(default_factory=dict)  # (text, suffix) -> presearch's files
    relocations: dict[tuple[str, tuple[str, ...]], Relocated | Unchecked | None] = field(default_factory=dict)


class Judge:
    """Judges quotes and conditions, sharing work by content.

    A result depends only on the blob and the quote (or condition), so it is
    kept in memory for the run and, with a :class:`ResultStore`, on disk for
    later runs; a hit reads and parses nothing.
    """

    def __init__(self, store: ResultStore | None = None, budget: Budget | None = None) -> None:
        self.memo = RunMemo(store)  # the run's results by content: handed down, never called back up
        # No bound until a skill's checks begin: fetching, listing and git's history answers are not its checks.
        self.budget = budget or Budget()
        self._presearched: dict[Hashable, float] = {}  # seconds each skill's quotes took in presearch, by its key
        # What is known of each tree while it lives (its listing, presearch's answers, its relocations): a replay
        # over a history opens a tree per commit, and a tree's id may be another's once it is gone.
        self._trees: weakref.WeakKeyDictionary[SourceTree, _TreeState] = weakref.WeakKeyDictionary()
        self._listed = ListedBefore()  # the last tree's paths: the next tree with the same paths shares their indexes
        self.reports: dict[str, Any] = {}  # whole skill reports by digest, as kept or read in this run (audit/kept.py)

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

    def after_fork(self) -> None:
        """In a worker forked from the run: its own store connection and git processes; all it knows, kept."""
        if "anchor_audit.source.gitrun" in sys.modules:  # else no repository was opened: no git process shared
            from ..source.gitrun import forget_inherited_processes

            forget_inherited_processes()
        self.memo.after_fork()

    def flush(self) -> None:
        self.memo.flush()

    def before_fork(self) -> None:
        self.memo.before_fork()

    def begin_skill(self, key: Hashable = None) -> None:
        """Start the bound of one skill's checks (each check also has its own work bound), less what its quotes'
        matching took in :meth:`presearch` (``key`` names the skill there)."""
        self.budget.start(self._presearched.pop(key, 0.0))

    def listing(self, tree: SourceTree) -> Listing:
        """Every file path of ``tree`` (its submodules' too), listed once for all the skills audited against it, and
        where its packages lie (remembered by commit)."""
        state = self._state(tree)
        if state.listing is None:
            state.listing = Listing(tree, self.memo.remember, self._listed)
        return state.listing

    def _state(self, tree: SourceTree) -> _TreeState:
        state = self._trees.get(tree)
        if state is None:
            state = self._trees[tree] = _TreeState()
        return state

    @property
    def store(self) -> ResultStore | None:
        return self.memo.store

    @property
    def computed(self) -> int:
        """Results that had to be computed (in neither memory nor the store)."""
        return self.memo.computed

    def _cached(self, key: str, compute: Callable[[], dict[str, Any]], bounded: bool = True) -> dict[str, Any]:
        """A result by content key; only new work is bounded (results already known are served)."""
        return self.memo.cached(key, compute, self.budget.check if bounded else None)

    def _quote(self, quote: Quote, tree: SourceTree) -> QuoteMatch:
        blob = tree.blob_id(quote.path)
        if blob is None:
            return self._relocated(quote, tree) or match_quote(quote, None)
        hit = self._match(quote, tree, blob)
        if isinstance(hit, Changed):
            return self._relocated(quote, tree) or hit
        return hit

    def _match(self, quote: Quote, tree: SourceTree, blob: str, bounded: bool = True) -> QuoteMatch:
        """The quote in its own file, by the blob's content (the same content may sit at another line of
        SKILL.md: the result is rebuilt for this quote)."""

        def compute() -> dict[str, Any]:
            return dump_quote(match_quote(quote, tree.read(quote.path)))

        return load_quote(quote, self._cached(quote_key(blob, quote), compute, bounded=bounded))

    def presearch(self, skills: Iterable[tuple[Hashable, Sequence[Quote]]], tree: SourceTree) -> None:
        """One search of ``tree`` for all the quotes (of every skill audited against it, each skill's under a key)
        that relocation will look for, in place of one search each; a quote's relocation then reads its answer
        here.  A needle that lies inside another is left to its own search: ``git grep -o`` names only the
        longer where both match.  Matching a skill's quotes to know which left their files is that skill's work,
        under its budget: what it takes here, :meth:`begin_skill` counts as spent."""
        if tree.search_many([], "") is None:
            return  # a tree that is not searched (a lean mirror): nothing to gather, and no blob read early
        wanted: dict[str, set[str]] = {}
        for key, quotes in skills:
            self.budget.start()
            try:
                for quote in quotes:
                    needle = needle_of(quote) if self._will_relocate(quote, tree) else None
                    if needle is not None:
                        wanted.setdefault(needle[1], set()).add(needle[0])
            except BoundExceeded:
                pass  # the skill's budget is gone: its other quotes are its checks' to say incomplete
            finally:
                self._presearched[key] = self.budget.elapsed()
                self.budget.stop()
        for suffix, needles in wanted.items():
            batch = sorted(n for n in needles if not any(n != m and n in m for m in needles))
            try:
                found = tree.search_many(batch, suffix) if len(batch) > 1 else None
            except BoundExceeded:
                continue  # each quote's own search says so, bounded as ever
            for text, paths in (found or {}).items():
                self._state(tree).searched[(text, suffix)] = paths

    def _will_relocate(self, quote: Quote, tree: SourceTree) -> bool:
        """Whether the quote's file lost it (gone, or changed) and no earlier run's search is remembered."""
        try:
            blob = tree.blob_id(quote.path)
            if blob is not None:
                if not isinstance(self._match(quote, tree, blob), Changed):
                    return False
        except BoundExceeded:
            raise
        except Exception:  # noqa: BLE001 - the quote's own check says what went wrong
            return False
        key = self._relocation_key(quote, tree)
        return key is None or not self.memo.knows(key)

    def _relocation_key(self, quote: Quote, tree: SourceTree) -> str | None:
        """The content key a relocation's result is kept under: the commit names the whole tree (None: none)."""
        if tree.info.commit is None:
            return None
        named = json.dumps([tree.info.commit, quote.path, quote.declared.as_list(), quote.body])
        return promise_key(f"relocate|{hashlib.sha256(named.encode()).hexdigest()}")

    def _search(self, tree: SourceTree) -> Callable[[str, str], list[str] | None]:
        searched = self._state(tree).searched

        def search(text: str, suffix: str) -> list[str] | None:
            found = searched.get((text, suffix))
            return found if found is not None else tree.search(text, suffix)

        return search

    def _relocated(self, quote: Quote, tree: SourceTree) -> Relocated | Unchecked | None:
        """The quote found in another file of the tree (unchecked: in a file whose name no heal may write), or
        None (searched once per tree and quote)."""
        key, relocations = (quote.key, quote.body), self._state(tree).relocations
        if key not in relocations:
            content = self._relocation_key(quote, tree)
            if content is None:  # no commit to name the tree's content by: searched once per run
                self.budget.check()
                relocations[key] = relocate(quote, tree, self._search(tree))
            else:  # a commit names the whole tree: the search's result is kept by content, like a match

                def search() -> dict[str, Any]:
                    self.budget.check()
                    hit = relocate(quote, tree, self._search(tree))
                    return {"found": None} if hit is None else {"found": dump_quote(hit)}

                data = self._cached(content, search)
                found = None if data["found"] is None else load_quote(quote, data["found"])
                relocations[key] = found if isinstance(found, (Relocated, Unchecked)) else None
        hit = relocations[key]
        return replace(hit, quote=quote) if hit else None

    def _condition(self, condition: Condition, tree: SourceTree) -> ConditionResult:
        # libcst is imported only where a condition is really checked; load_condition needs none of it.
        def compute() -> dict[str, Any]:
            from ..match.condition import check_condition

            return dump_condition(check_condition(condition, tree.read(condition.path)))

        blob = tree.blob_id(condition.path)
        if blob is None:
            from ..match.condition import check_condition

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
