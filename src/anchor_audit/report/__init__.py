"""Renderers: a report -> text on a stream they are given; one registry per report type.

Each registry maps ``--format`` names to the renderer (imported only when used), and
the command line offers exactly its names. A renderer prints the exit code its report
declares (``findings.exit_code``, ``Comparison.exit_code``, ``ImpactReport.exit_code``),
never one of its own.
"""

from __future__ import annotations

import functools
import importlib
from typing import TYPE_CHECKING, Any, Callable, TextIO

if TYPE_CHECKING:  # the command line reads the format names here: nothing heavy is imported with them
    from ..model import AuditReport
    from ..runs.compare import Comparison
    from ..runs.history import History
    from ..runs.impact import ImpactReport
    from ..runs.matrix import CatalogMatrix, Matrix

Renderer = Callable[["AuditReport", TextIO], None]

AUDIT_FORMATS = ("terminal", "json", "jsonl", "markdown", "sarif", "junit", "github", "html")

# report type -> format -> (module of this package, renderer in it)
_COMPARISON = {
    "terminal": ("compareview", "render_comparison_terminal"),
    "json": ("compareview", "render_comparison_json"),
    "markdown": ("compareview", "render_comparison_markdown"),
}
_IMPACT = {
    "terminal": ("impactview", "render_impact_terminal"),
    "json": ("impactview", "render_impact_json"),
    "markdown": ("impactview", "render_impact_markdown"),
    "github": ("impactview", "render_impact_github"),
    "sarif": ("impactview", "render_impact_sarif"),
}
_HISTORY = {
    "terminal": ("historyview", "render_history_terminal"),
    "json": ("historyview", "render_history_json"),
}
_MATRIX = {
    "terminal": ("matrixview", "render_matrix_terminal"),
    "json": ("matrixview", "render_matrix_json"),
    "markdown": ("matrixview", "render_matrix_markdown"),
    "csv": ("matrixview", "render_matrix_csv"),
    "svg": ("matrixsvg", "render_matrix_svg"),
    "html": ("html", "render_matrix_html"),
}
COMPARISON_FORMATS, IMPACT_FORMATS, HISTORY_FORMATS = tuple(_COMPARISON), tuple(_IMPACT), tuple(_HISTORY)
MATRIX_FORMATS = tuple(_MATRIX)


def renderer(
    name: str, verbose: bool = False, link_base: str | None = None, color: str = "auto", group_by: str | None = None
) -> Renderer:
    """The audit report's renderer for ``--format name`` (``color``: auto, always, never; terminal only;
    ``group_by``: "owner", terminal and Markdown)."""
    if name == "terminal":
        from .terminal import TerminalRenderer

        return TerminalRenderer(verbose=verbose, color=color, group_by=group_by)
    if name == "markdown":
        from .markdown import MarkdownRenderer

        return MarkdownRenderer(link_base, group_by)
    table = {"json": ("json", "render_json"), "sarif": ("sarif", "render_sarif"), "junit": ("junit", "render_junit")}
    table["github"] = ("github", "render_github")
    table["jsonl"] = ("jsonl", "render_jsonl")
    table["html"] = ("html", "render_html")
    return _load(table, name)  # type: ignore[no-any-return]


def comparison_renderer(name: str, color: str = "auto") -> Callable[[Comparison, TextIO], None]:
    """``diff`` and ``bump``: two audits compared."""
    return _load(_COMPARISON, name, color)  # type: ignore[no-any-return]


def impact_renderer(name: str, color: str = "auto") -> Callable[[ImpactReport, TextIO], None]:
    return _load(_IMPACT, name, color)  # type: ignore[no-any-return]


def history_renderer(name: str, color: str = "auto") -> Callable[[History, TextIO], None]:
    return _load(_HISTORY, name, color)  # type: ignore[no-any-return]


def matrix_renderer(name: str, color: str = "auto") -> Callable[[Matrix | CatalogMatrix, TextIO], None]:
    return _load(_MATRIX, name, color)  # type: ignore[no-any-return]


def _load(table: dict[str, tuple[str, str]], name: str, color: str = "auto") -> Any:
    if name not in table:
        raise ValueError(f"unknown format {name!r}")
    module, function = table[name]
    found = getattr(importlib.import_module(f".{module}", __name__), function)
    return functools.partial(found, color=color) if name == "terminal" else found
