"""One function per command, callable from Python: frozen options and plain parameters in, an exit code out.

``cli`` parses the command line once into :mod:`.options` and calls these.
"""

from ..report.reporter import Reporter
from .check import check
from .context import RunContext
from .explain import explain
from .fix import fix, fix_catalog
from .lsp import lsp
from .maintenance import cache, init
from .options import ReportOptions, SourceOptions
from .refs import bump, diff, history, impact, matrix

__all__ = [
    "Reporter", "ReportOptions", "RunContext", "SourceOptions",
    "bump", "cache", "check", "diff", "explain", "fix", "fix_catalog", "history", "impact", "init", "lsp", "matrix",
]  # fmt: skip
