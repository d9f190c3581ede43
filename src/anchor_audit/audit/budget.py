"""The bound on one skill's checks: seconds from when they start, and the memory the process holds.

A budget is its own object, apart from the result cache and the memos (STYLE.md 22): it starts when a
skill's checks start (after its files were fetched), never when the run did, and it is tested with a fake
clock.  Hitting it makes the checks that follow ``incomplete``, never a crash of the run.
"""

from __future__ import annotations

import os
import time
from typing import Callable

from ..errors import BoundExceeded

# Seconds of new matching work one skill may take; what is left after that is incomplete.
# With each quote's own work bound, any one skill finishes in well under 30 s.
MAX_SKILL_SECONDS = 20.0
# Resident memory past which a skill's further checks are incomplete: the address-space cap (RLIMIT_AS) a
# caller may set counts mappings, not use; this counts what the process really holds.
MAX_RSS_BYTES = 2 * 1024**3
RSS_EVERY = 0.01  # seconds a reading of resident memory stands for


def resident_bytes() -> int:
    """This process's resident set size now (0 where the platform does not say)."""
    try:
        with open("/proc/self/statm", "rb") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


class Budget:
    """Seconds and bytes for one skill's checks; :meth:`start` per skill, :meth:`check` before new work."""

    def __init__(
        self,
        seconds: float = MAX_SKILL_SECONDS,
        clock: Callable[[], float] = time.monotonic,
        max_rss: int = MAX_RSS_BYTES,
    ) -> None:
        self.seconds, self.clock, self.max_rss = seconds, clock, max_rss
        self._deadline: float | None = None  # none until a skill's checks begin
        self._rss, self._rss_at = 0, -RSS_EVERY  # the last reading of resident memory, and when (monotonic)

    def start(self, spent: float = 0.0) -> None:
        """A skill's checks begin now, ``spent`` seconds of them done already (its quotes matched early)."""
        self._deadline = self.clock() + self.seconds - spent

    def stop(self) -> None:
        """No skill's checks run: work until the next :meth:`start` is the run's, never bounded."""
        self._deadline = None

    def elapsed(self) -> float:
        """Seconds of the running skill's budget gone (0 when none runs)."""
        return 0.0 if self._deadline is None else self.clock() - (self._deadline - self.seconds)

    def check(self) -> None:
        """Raise :class:`BoundExceeded` when the running skill is past its seconds or the process past its bytes."""
        if self._deadline is None:
            return
        if self.clock() > self._deadline:
            raise BoundExceeded(f"this skill's checks ran past {self.seconds:g} s; not checked")
        now = time.monotonic()
        if now - self._rss_at >= RSS_EVERY:  # read at most every few ms: /proc costs 20 us, a warm check 5
            self._rss, self._rss_at = resident_bytes(), now
        if self._rss > self.max_rss:
            raise BoundExceeded(f"the run holds more than {self.max_rss // 1024**2} MiB of memory; not checked")
