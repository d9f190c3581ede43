"""The command line: argparse, one function per command, the only place that exits.

Every :class:`~anchor_audit.errors.AuditError` becomes one line on stderr and
exit code 2, here and nowhere else.
"""

from __future__ import annotations

import argparse
import io
import os
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Sequence, TextIO

from . import __version__
from .errors import AuditError, UsageError
from .model import ExitCode
from .source import Progress, no_progress

if TYPE_CHECKING:
    from rich.status import Status

DEFAULT_SPEC = "anchors.yaml"


def main(argv: Sequence[str] | None = None) -> int:
    """Run anchor-audit; returns the exit code."""
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        return int(args.command(args))
    except AuditError as exc:
        print(f"anchor-audit: error: {exc}", file=sys.stderr)
        return int(ExitCode.FATAL)
    except BrokenPipeError:  # `anchor-audit check | head`: the reader left; that is not an error
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return int(ExitCode.FATAL)
    except KeyboardInterrupt:
        print("anchor-audit: interrupted", file=sys.stderr)
        return 130


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="anchor-audit",
        description="Check that the line-anchored quotes and gating conditions of agent skills "
        "still hold at a pinned git ref.",
    )
    parser.add_argument("--version", action="version", version=f"anchor-audit {__version__}")
    commands = parser.add_subparsers(title="commands", metavar="COMMAND", required=True)

    check = commands.add_parser("check", help="audit skills at a ref", description="Audit skills at a ref.")
    check.add_argument(
        "skill_dirs", nargs="*", metavar="SKILL_DIR", help="skill directories (default: the skills anchors.yaml names)"
    )
    check.add_argument("--spec", help=f"the registry (default: ./{DEFAULT_SPEC})")
    check.add_argument("--repo", help="git URL or local path; overrides the registry's source.repo")
    check.add_argument("--ref", help="tag, branch or sha; overrides the registry's source.ref")
    check.add_argument(
        "--release",
        nargs="?",
        const="",
        metavar="VERSION",
        help="read the published release wheel instead of git (VERSION defaults to the ref without 'v')",
    )
    check.add_argument("--format", choices=("terminal", "json"), default="terminal")
    check.add_argument("--output", metavar="FILE", help="write the report to FILE (atomically) instead of stdout")
    check.add_argument("--cache-dir", metavar="DIR", help="where fetched repositories and wheels are kept")
    check.add_argument("--verbose", "-v", action="store_true", help="show the evidence that holds too, and every diff")
    check.add_argument("--quiet", "-q", action="store_true", help="no progress display")
    check.set_defaults(command=cmd_check)
    return parser


def cmd_check(args: argparse.Namespace) -> ExitCode:
    """``anchor-audit check``: audit at one ref and report."""
    from .audit import audit
    from .inputs import load_inputs, open_tree
    from .report import renderer

    inputs = load_inputs(args.spec, args.skill_dirs, args.repo, args.ref, DEFAULT_SPEC)
    tree = open_tree(inputs, release=args.release, cache_dir=args.cache_dir, progress=_progress(args.quiet))
    report = audit(inputs.skills, tree, inputs.spec)
    render = renderer(args.format, verbose=args.verbose) if args.format == "terminal" else renderer(args.format)
    _emit(lambda stream: render(report, stream), args.output)
    return report.exit_code


def _emit(write: Callable[[TextIO], None], output: str | None) -> None:
    """Write to stdout, or to ``output`` atomically: all of it or nothing."""
    if output is None:
        write(sys.stdout)
        return
    target = Path(output)
    buffer = io.StringIO()
    write(buffer)
    try:
        fd, tmp = tempfile.mkstemp(dir=target.parent or ".", prefix=f".{target.name}.", suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(buffer.getvalue())
        os.replace(tmp, target)
    except OSError as exc:
        raise UsageError(f"--output {output}: cannot write: {exc.strerror}") from None


def _progress(quiet: bool) -> Progress:
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
