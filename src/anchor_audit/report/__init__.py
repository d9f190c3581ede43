"""Renderers: an :class:`~anchor_audit.model.AuditReport` -> text on a stream they are given."""

from __future__ import annotations

from typing import Callable, TextIO

from ..model import AuditReport

Renderer = Callable[[AuditReport, TextIO], None]


def renderer(name: str, verbose: bool = False, link_base: str | None = None) -> Renderer:
    """The renderer for ``--format name`` (imported only when used)."""
    if name == "json":
        from .json import render_json

        return render_json
    if name == "terminal":
        from .terminal import TerminalRenderer

        return TerminalRenderer(verbose=verbose)
    if name == "markdown":
        from .markdown import MarkdownRenderer

        return MarkdownRenderer(link_base)
    if name == "sarif":
        from .sarif import render_sarif

        return render_sarif
    if name == "junit":
        from .junit import render_junit

        return render_junit
    if name == "github":
        from .github import render_github

        return render_github
    raise ValueError(f"unknown format {name!r}")
