"""Helpers every command shares: loading inputs, opening trees, the result cache, output, progress."""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterator, TextIO

from ..errors import UsageError
from ..escape import one_line
from ..fsutil import write_atomic
from ..source import Progress, no_progress

if TYPE_CHECKING:
    from rich.status import Status

    from ..audit import Judge
    from ..compare import Comparison
    from ..inputs import AuditInputs
    from ..model import AuditReport
    from ..source import SourceTree

DEFAULT_SPEC = "anchors.yaml"


def audit_args(args: argparse.Namespace) -> tuple[AuditInputs, SourceTree, AuditReport]:
    from ..audit import audit
    from ..inputs import load_inputs, open_tree

    inputs = load_inputs(args.spec, args.skill_dirs, args.repo, args.ref, DEFAULT_SPEC, args.in_repo, args.all)
    tree = open_tree(
        inputs,
        release=args.release,
        cache_dir=args.cache_dir,
        progress=progress_display(args.quiet),
        allow=tuple(args.allow_protocol),
        submodules=submodules(args),
        installed=args.installed,
    )
    warn(inputs)
    with result_judge(args) as judge:
        return inputs, tree, audit(inputs.skills_at(tree), tree, inputs.spec, judge)


def submodules(args: argparse.Namespace) -> dict[str, str]:
    out = {}
    for item in args.submodule:
        path, sep, where = item.partition("=")
        if not sep or not path or not where:
            raise UsageError(f"--submodule {item!r}: expected PATH=URL_OR_DIR")
        out[path.strip("/")] = where
    return out


def say(message: str) -> None:
    """One line on stderr for the user, prefixed; escaped (inputs can reach it) and with credentials redacted."""
    try:
        print(f"anchor-audit: {one_line(message)}", file=sys.stderr)
    except OSError:
        pass  # stderr itself is gone: the exit code still tells


def warn(inputs: AuditInputs) -> None:
    """Registry warnings (unknown keys) go to stderr, one line each; the JSON report lists them too."""
    for warning in inputs.spec.warnings if inputs.spec else ():
        say(f"warning: {warning}")


@contextlib.contextmanager
def result_judge(args: argparse.Namespace) -> Iterator[Judge]:
    """A judge backed by the on-disk result cache (unless --no-cache)."""
    from ..audit import Judge
    from ..resultcache import ResultStore
    from ..source.cache import cache_root

    store = None if args.no_cache else ResultStore(cache_root(args.cache_dir) / "results.sqlite3")
    try:
        yield Judge(store)
    finally:
        if store is not None:
            store.close()
            if store.problem:
                say(f"warning: {store.problem}")


def emit(write: Callable[[TextIO], None], output: str | None) -> None:
    """Write to stdout, or to ``output`` atomically: all of it or nothing."""
    if output is None:
        write(sys.stdout)
        return
    buffer = io.StringIO()
    write(buffer)
    try:
        write_atomic(Path(output), buffer.getvalue().encode("utf-8", "backslashreplace"))
    except OSError as exc:
        raise UsageError(f"--output {output}: cannot write: {exc.strerror}; nothing written") from None


def progress_display(quiet: bool) -> Progress:
    """A progress display on stderr when it is a terminal and not --quiet."""
    if quiet or not sys.stderr.isatty():
        return no_progress
    from rich.console import Console

    console = Console(file=sys.stderr, no_color="NO_COLOR" in os.environ)
    shown: list[Status] = []

    def show(message: str, fraction: float | None) -> None:
        while shown:
            shown.pop().stop()
        if message:
            status = console.status(message)
            status.start()
            shown.append(status)

    return show


def compare_args(args: argparse.Namespace, old_ref: str, new_ref: str, spec_path: str | None = None) -> Comparison:
    from ..audit import audit
    from ..compare import compare
    from ..inputs import load_inputs, open_tree

    inputs = load_inputs(
        spec_path or args.spec, args.skill_dirs, args.repo, old_ref, DEFAULT_SPEC, args.in_repo, args.all
    )
    warn(inputs)
    progress = progress_display(args.quiet)
    reports = []
    with result_judge(args) as judge:
        for ref in (old_ref, new_ref):
            tree = open_tree(
                inputs,
                ref=ref,
                release=args.release,
                cache_dir=args.cache_dir,
                progress=progress,
                allow=tuple(args.allow_protocol),
                submodules=submodules(args),
            )
            reports.append(audit(inputs.skills_at(tree), tree, inputs.spec, judge))
    return compare(reports[0], reports[1])


def render_comparison(fmt: str, comparison: Comparison, stream: TextIO) -> None:
    from ..report.compare import (
        render_comparison_json,
        render_comparison_markdown,
        render_comparison_terminal,
    )

    {"json": render_comparison_json, "markdown": render_comparison_markdown}.get(fmt, render_comparison_terminal)(
        comparison, stream
    )
