"""A module's top-level imports: read from its syntax tree, or from the lines up to its last import alone.

A program's flags are looked for through the modules it imports, and theirs: dozens of files of which most make
no flag, read only for what they import.  Those imports are top-level statements, each at the start of a line
(or after a ``;``), so the lines up to the last of them, parsed alone, hold the same import statements as the
whole file: :func:`header_imports` parses that much (a string left open there does not parse: then the whole).
"""

from __future__ import annotations

import ast
import re

from ..errors import BoundExceeded
from .bounds import bounded_parse

_TOP_IMPORT = re.compile(r"^(?:import|from)\b|;[ \t]*(?:import|from)\b", re.MULTILINE)
MAX_CONTINUED = 200  # lines one import statement may run on for (a parenthesised list of names)


def imported(module: ast.Module) -> list[str]:
    """The absolute modules a module imports at its top level."""
    names: list[str] = []
    for node in module.body:
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
        elif isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
    return names


def header_imports(text: str) -> list[str] | None:
    """:func:`imported` of ``text``, from the lines up to the end of its last top-level import; None where those
    lines do not parse alone (a string or a bracket left open: parse the whole file)."""
    starts = [match.start() for match in _TOP_IMPORT.finditer(text)]
    if not starts:
        return []
    end = _statement_end(text, starts[-1])
    if end is None:
        return None
    try:
        return imported(bounded_parse(text[:end]))
    except (SyntaxError, ValueError, RecursionError, MemoryError, BoundExceeded):
        return None


def _statement_end(text: str, start: int) -> int | None:
    """Where the import statement that begins at ``start`` ends: its line, and those its brackets or
    backslashes carry it onto (at most :data:`MAX_CONTINUED`)."""
    depth = 0
    at = start
    for _ in range(MAX_CONTINUED):
        newline = text.find("\n", at)
        end = len(text) if newline < 0 else newline + 1
        line = text[at:end]
        depth += line.count("(") - line.count(")")
        if depth <= 0 and not line.rstrip("\r\n").endswith("\\"):
            return end
        if newline < 0:
            return None
        at = end
    return None
