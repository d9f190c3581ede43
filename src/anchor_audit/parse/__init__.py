"""Parsing Python: the one layer that turns a file's text into statements, logical lines and libcst scopes.

Matchers (:mod:`anchor_audit.match`) sit on top and never reach back:
:func:`python_index` gives a file's :class:`PythonIndex` (the stdlib parser
for positions, libcst on demand for the scopes a condition names), and
:mod:`.walk` is the one walk over statement blocks.
"""

from .bounds import MAX_BRACKET_DEPTH, check_nesting, too_complex
from .index import PythonIndex, PythonSyntaxProblem, ScopeView, parse_ast, python_index
from .tokens import LogicalLine, logical_lines

__all__ = [
    "MAX_BRACKET_DEPTH",
    "LogicalLine",
    "PythonIndex",
    "PythonSyntaxProblem",
    "ScopeView",
    "check_nesting",
    "logical_lines",
    "parse_ast",
    "python_index",
    "too_complex",
]
