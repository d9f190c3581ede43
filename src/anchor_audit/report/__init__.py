"""Renderers: a report -> text on a stream they are given; one registry per report type.

Each registry maps ``--format`` names to the renderer (imported only when used), and
the command line offers exactly its names. A renderer prints the exit code its report
declares (``findings.exit_code``, ``Comparison.exit_code``, ``ImpactReport.exit_code``),
never one of its own.
"""

from __future__ import annotations

import functools
import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Generic, TextIO, TypeVar, cast

if TYPE_CHECKING:  # the command line reads the format names here: nothing heavy is imported with them
    from ..model import AuditReport
    from ..runs.compare import Comparison
    from ..runs.history import History
    from ..runs.impact import ImpactReport
    from ..runs.matrix import CatalogMatrix, Matrix

Report = TypeVar("Report")
Renderer = Callable[["AuditReport", TextIO], None]


@dataclass(frozen=True)
class Registry(Generic[Report]):
    """One report type's formats: ``--format`` name -> (module of this package, renderer in it), imported only
    when used.  A terminal renderer is given the color setting."""

    formats: dict[str, tuple[str, str]]

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self.formats)

    def __call__(self, name: str, color: str = "auto") -> Callable[[Report, TextIO], None]:
        found = _load(self.formats, name)
        return cast(Callable[[Report, TextIO], None], functools.partial(found, color=color) if name == "terminal"
                    else found)  # fmt: skip


AUDIT_FORMATS = ("terminal", "json", "jsonl", "markdown", "sarif", "junit", "github", "html")
_AUDIT = {
    "json": ("json", "render_json"), "sarif": ("sarif", "render_sarif"), "junit": ("junit", "render_junit"),
    "github": ("github", "render_github"), "jsonl": ("jsonl", "render_jsonl"), "html": ("html", "render_html"),
}  # fmt: skip
COMPARISON: Registry[Comparison] = Registry({
    "terminal": ("compareview", "render_comparison_terminal"),
    "json": ("compareview", "render_comparison_json"),
    "markdown": ("compareview", "render_comparison_markdown"),
})  # fmt: skip
IMPACT: Registry[ImpactReport] = Registry({
    "terminal": ("impactview", "render_impact_terminal"),
    "json": ("impactview", "render_impact_json"),
    "markdown": ("impactview", "render_impact_markdown"),
    "github": ("impactview", "render_impact_github"),
    "sarif": ("impactview", "render_impact_sarif"),
})  # fmt: skip
HISTORY: Registry[History] = Registry({
    "terminal": ("historyview", "render_history_terminal"),
    "json": ("historyview", "render_history_json"),
})  # fmt: skip
MATRIX: Registry[Matrix | CatalogMatrix] = Registry({
    "terminal": ("matrixview", "render_matrix_terminal"),
    "json": ("matrixview", "render_matrix_json"),
    "markdown": ("matrixview", "render_matrix_markdown"),
    "csv": ("matrixview", "render_matrix_csv"),
    "svg": ("matrixsvg", "render_matrix_svg"),
    "html": ("html", "render_matrix_html"),
})  # fmt: skip
COMPARISON_FORMATS, IMPACT_FORMATS, HISTORY_FORMATS = COMPARISON.names, IMPACT.names, HISTORY.names
MATRIX_FORMATS = MATRIX.names


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
    return cast(Renderer, _load(_AUDIT, name))


def comparison_renderer(name: str, color: str = "auto") -> Callable[[Comparison, TextIO], None]:
    """``diff`` and ``bump``: two audits compared."""
    return COMPARISON(name, color)


def impact_renderer(name: str, color: str = "auto") -> Callable[[ImpactReport, TextIO], None]:
    return IMPACT(name, color)


def history_renderer(name: str, color: str = "auto") -> Callable[[History, TextIO], None]:
    return HISTORY(name, color)


def matrix_renderer(name: str, color: str = "auto", verbose: bool = False
                    ) -> Callable[[Matrix | CatalogMatrix, TextIO], None]:  # fmt: skip
    """A matrix format; the terminal's grid shows every row (quotes, conditions, references) with ``verbose``."""
    render: Any = MATRIX(name, color)
    return cast("Callable[[Matrix | CatalogMatrix, TextIO], None]",
                functools.partial(render, verbose=True) if verbose and name == "terminal" else render)  # fmt: skip


def _load(table: dict[str, tuple[str, str]], name: str) -> Any:
    if name not in table:
        raise ValueError(f"unknown format {name!r}")
    module, function = table[name]
    return getattr(importlib.import_module(f".{module}", __name__), function)
