"""The most recently used values of a run, bounded by how many and by the characters of what they were made from.

A replay over a history meets hundreds of versions of a large file: what is kept for each (its text, its
parse, its syntax tree, some thirty times the text) is kept for the latest ones only, never for the run.
"""

from __future__ import annotations

from typing import Callable, Generic, TypeVar

V = TypeVar("V")


class Recent(Generic[V]):
    """At most ``size`` values and ``max_chars`` characters; the newest is kept even when it alone is more.
    ``on_drop`` is called with each value let go for room (not one put again under its key)."""

    def __init__(self, size: int, max_chars: int, on_drop: Callable[[V], object] | None = None) -> None:
        self.size, self.max_chars, self.on_drop = size, max_chars, on_drop
        self._values: dict[str, tuple[V, int]] = {}  # in order of use, the oldest first
        self._held = 0

    def get(self, key: str) -> V | None:
        found = self._values.pop(key, None)
        if found is None:
            return None
        self._values[key] = found  # now the most recent
        return found[0]

    def put(self, key: str, value: V, chars: int) -> None:
        old = self._values.pop(key, None)
        self._held += chars - (old[1] if old is not None else 0)
        self._values[key] = (value, chars)
        while len(self._values) > 1 and (len(self._values) > self.size or self._held > self.max_chars):
            value, chars = self._values.pop(next(iter(self._values)))
            self._held -= chars
            if self.on_drop is not None:
                self.on_drop(value)
