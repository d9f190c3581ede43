"""Renderers: an :class:`~anchor_audit.model.AuditReport` -> text on a stream they are given."""

from __future__ import annotations

from typing import Callable, TextIO

from ..model import AuditReport

Renderer = Callable[[AuditReport, TextIO], None]

FORMATS = ("terminal", "json")


def renderer(name: str, **options: object) -> Renderer:
    """The renderer for ``--format name`` (imported only when used)."""
    if name == "json":
        from .json import render_json

        return render_json
    if name == "terminal":
        from .terminal import TerminalRenderer

        return TerminalRenderer(**options)  # type: ignore[arg-type]
    raise ValueError(f"unknown format {name!r}")
