"""One function per command, callable from Python: frozen options and plain parameters in, an exit code out.

``cli.py`` parses the command line once into :mod:`.options` and calls these.
"""

from ..reporter import Reporter
from .check import check
from .context import RunContext
from .explain import explain
from .fix import fix, fix_catalog
from .impact import impact
from .lsp import lsp
from .maintenance import cache, init
from .options import ReportOptions, SourceOptions
from .versions import bump, diff, history, matrix

__all__ = [
    "Reporter", "ReportOptions", "RunContext", "SourceOptions",
    "bump", "cache", "check", "diff", "explain", "fix", "fix_catalog", "history", "impact", "init", "lsp", "matrix",
]  # fmt: skip
