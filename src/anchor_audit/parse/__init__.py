"""Parsing Python: the one layer that turns a file's text into statements, logical lines and libcst scopes.

Matchers (:mod:`anchor_audit.match`) sit on top and never reach back:
:func:`python_index` gives a file's :class:`PythonIndex` (the stdlib parser
for positions, libcst on demand for the scopes a condition names), and
:mod:`.walk` is the one walk over statement blocks.
"""

from .index import (
    MAX_BRACKET_DEPTH,
    PythonIndex,
    PythonSyntaxProblem,
    ScopeView,
    check_nesting,
    python_index,
    too_complex,
)
from .tokens import LogicalLine, logical_lines

__all__ = [
    "MAX_BRACKET_DEPTH",
    "LogicalLine",
    "PythonIndex",
    "PythonSyntaxProblem",
    "ScopeView",
    "check_nesting",
    "logical_lines",
    "python_index",
    "too_complex",
]
