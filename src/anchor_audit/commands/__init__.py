"""One function per command, callable from Python: frozen options and plain parameters in, an exit code out.

``cli.py`` parses the command line once into :mod:`.options` and calls these.  Each command's module is
imported when the command is first used: a remembered run (:mod:`anchor_audit.runmemo`) replays its report
without importing any of them.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .context import RunContext
from .options import ReportOptions, SourceOptions
from .reporter import Reporter

if TYPE_CHECKING:
    from .check import check
    from .explain import explain
    from .fix import fix, fix_catalog
    from .impact import impact
    from .lsp import lsp
    from .maintenance import cache, init
    from .versions import bump, diff, history, matrix

_MODULE_OF = {
    "check": "check", "explain": "explain", "fix": "fix", "fix_catalog": "fix", "impact": "impact", "lsp": "lsp",
    "cache": "maintenance", "init": "maintenance", "bump": "versions", "diff": "versions", "history": "versions",
    "matrix": "versions",
}  # fmt: skip


def __getattr__(name: str) -> Any:
    if name not in _MODULE_OF:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f".{_MODULE_OF[name]}", __name__), name)


__all__ = [
    "Reporter", "ReportOptions", "RunContext", "SourceOptions",
    "bump", "cache", "check", "diff", "explain", "fix", "fix_catalog", "history", "impact", "init", "lsp", "matrix",
]  # fmt: skip
