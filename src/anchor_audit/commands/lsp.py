"""``anchor-audit lsp``: the language server on stdin and stdout."""

from __future__ import annotations

import contextlib
import logging
import os
import sys

from ..model import ExitCode
from ..text.escape import one_line


def lsp(cache_dir: str | None = None) -> ExitCode:
    """Serve the Language Server Protocol on stdio until the client exits.

    stdout carries protocol messages only: anything else written to ``sys.stdout`` while serving (a library's
    stray print) goes to stderr instead.
    """
    from ..lsp.server import build_server

    _one_line_logs()
    protocol_out = sys.stdout.buffer
    sys.stdout = sys.stderr  # and it stays so: the protocol's stream is closed when the client has gone
    code = 0
    try:
        build_server(cache_dir).start_io(sys.stdin.buffer, protocol_out)
    except SystemExit as exc:  # the protocol's exit: 0 after a shutdown, 1 without one
        code = exc.code if isinstance(exc.code, int) else 1
    # The process ends now, with the client: a check still running on the worker (its store is crash-safe) is not
    # waited for, as the interpreter would wait for the worker's thread.
    with contextlib.suppress(Exception):
        sys.stderr.flush()
    os._exit(code)


class _OneLine(logging.Formatter):
    """A log record as one escaped line on stderr: what went wrong, never a traceback (a malformed frame from the
    client is its message's problem, and what it held is untrusted)."""

    def format(self, record: logging.LogRecord) -> str:
        why = f": {type(record.exc_info[1]).__name__}: {record.exc_info[1]}" if record.exc_info else ""
        return one_line(f"anchor-audit lsp: {record.levelname.lower()}: {record.getMessage()}{why}")[:2000]


def _one_line_logs() -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_OneLine())
    for name in ("pygls", "asyncio", ""):
        logger = logging.getLogger(name)
        logger.handlers[:] = [handler]
        logger.propagate = False
        logger.setLevel(logging.WARNING)
