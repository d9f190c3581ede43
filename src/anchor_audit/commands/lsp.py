"""``anchor-audit lsp``: the language server on stdin and stdout."""

from __future__ import annotations

import sys

from ..model import ExitCode


def lsp(cache_dir: str | None = None) -> ExitCode:
    """Serve the Language Server Protocol on stdio until the client exits.

    stdout carries protocol messages only: anything else written to ``sys.stdout`` while serving (a library's
    stray print) goes to stderr instead.
    """
    from ..lsp.server import build_server

    protocol_out = sys.stdout.buffer
    sys.stdout = sys.stderr  # and it stays so: the protocol's stream is closed when the client has gone
    build_server(cache_dir).start_io(sys.stdin.buffer, protocol_out)
    return ExitCode.OK
