"""The run's memo: one place a check asks for a result it may have worked out before.

``memo(key, compute)`` answers the JSON object remembered under ``key``: in memory (the most recent
:data:`MEMO_SIZE`), then in the run's :class:`~anchor_audit.store.sqlite.ResultStore`, else ``compute()``,
remembered in both.  A key names everything the answer depends on (a blob sha, a commit, the question), so an
answer is good for any run that asks it.  :class:`RunMemo` is the run's; the judge holds it and hands its
``remember`` down to whatever checks, parses or lists (:data:`Memo` is that function's type), so nothing below
calls back up to the audit.  :func:`no_memo` remembers nothing.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:  # the memo's type is imported by every layer that is handed one: it loads nothing more
    from .sqlite import ResultStore

Memo = Callable[[str, Callable[[], dict[str, Any]]], dict[str, Any]]
MEMO_SIZE = 8192  # results a run keeps in memory


def no_memo(key: str, compute: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    return compute()


class RunMemo:
    """Results by content key: the most recently used in memory, all of them in the store (if any)."""

    def __init__(self, store: ResultStore | None = None) -> None:
        self.store = store
        # content key -> result fields, the most recently used only: a catalog asks most keys once (one skill's
        # text), so memory stays flat in the number of skills; what falls out is read again from the store.
        self._held: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self.computed = 0  # results that had to be computed (misses of both)

    def remember(self, key: str, compute: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        """A run-level fact by content key (git's answers, a SKILL.md's quoted paths): memory, disk, or ``compute``.
        Not a skill's check, so not under its time bound (a history asks these between skills)."""
        from .codecs import promise_key

        return self.cached(promise_key(key), compute)

    def cached(
        self, key: str, compute: Callable[[], dict[str, Any]], before_computing: Callable[[], None] | None = None
    ) -> dict[str, Any]:
        """The one lookup every result goes through: memory, then the store, then ``compute`` (stored);
        ``before_computing`` runs only when the result must be worked out (a bound on new work)."""
        found = self._held.get(key)
        if found is not None:
            self._held.move_to_end(key)
            return found
        found = self.store.get(key) if self.store is not None else None
        if found is None:
            if before_computing is not None:
                before_computing()
            self.computed += 1
            found = compute()
            if self.store is not None:
                self.store.put(key, found)
        self._hold(key, found)
        return found

    def recall(self, key: str, hold: bool = True) -> dict[str, Any] | None:
        """What is kept under ``key`` (memory, then the store), or None: nothing computed.  Read from the store, it
        is held in memory unless ``hold`` is False (a whole report: the caller holds what it decoded)."""
        found = self._held.get(key)
        if found is None and self.store is not None:
            found = self.store.get(key)
            if found is not None and hold:
                self._hold(key, found)
        return found

    def knows(self, key: str) -> bool:
        """Whether anything is kept under ``key``, without holding it."""
        return key in self._held or (self.store is not None and self.store.get(key) is not None)

    def keep(self, key: str, value: dict[str, Any], hold: bool = True) -> None:
        """Keep ``value`` under ``key`` (a result the caller knows to be settled): in the store, and in memory unless
        ``hold`` is False (a whole report: the caller holds what it decoded)."""
        if hold:
            self._hold(key, value)
        if self.store is not None:
            self.store.put(key, value)

    def _hold(self, key: str, value: dict[str, Any]) -> None:
        self._held[key] = value
        if len(self._held) > MEMO_SIZE:
            self._held.popitem(last=False)

    def flush(self) -> None:
        """Results computed so far written to the store (at the end of a worker's part)."""
        if self.store is not None:
            self.store.flush()

    def before_fork(self) -> None:
        """Before workers are forked: results so far written to the store (a worker's reads find them), which
        from now on holds rows other processes wrote."""
        if self.store is not None:
            self.store.flush()
            self.store.shared()

    def after_fork(self) -> None:
        """In a worker forked from the run: its own connection to the store; all it holds, kept."""
        if self.store is not None:
            self.store = self.store.reopened()
