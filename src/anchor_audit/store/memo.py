"""The run's memo: one function a check asks for a result it may have worked out before.

``memo(key, compute)`` answers the JSON object remembered under ``key`` (in memory, then in the run's
:class:`~anchor_audit.store.sqlite.ResultStore`), else ``compute()``, remembered.  A key names everything the
answer depends on (a blob sha, a commit, the question), so an answer is good for any run that asks it.
:meth:`anchor_audit.audit.judge.Judge.remember` is the run's; it is handed down to whatever checks, parses or
lists, never called back up.  :func:`no_memo` remembers nothing.
"""

from __future__ import annotations

from typing import Any, Callable

Memo = Callable[[str, Callable[[], dict[str, Any]]], dict[str, Any]]


def no_memo(key: str, compute: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    return compute()
