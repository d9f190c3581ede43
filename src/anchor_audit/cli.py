"""The command line: argparse, one function per command, the only place that exits.

Every :class:`~anchor_audit.errors.AuditError` becomes one line on stderr and
exit code 2, here and nowhere else.
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import io
import os
import shutil
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterator, Sequence, TextIO

from . import __version__
from .errors import AuditError, UsageError
from .fsutil import write_atomic
from .model import ExitCode
from .source import Progress, no_progress

if TYPE_CHECKING:
    from rich.status import Status

    from .audit import Judge
    from .inputs import AuditInputs
    from .model import AuditReport
    from .source import SourceTree

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
    _source_options(check)
    check.add_argument("--format", choices=("terminal", "json"), default="terminal")
    check.add_argument("--output", metavar="FILE", help="write the report to FILE (atomically) instead of stdout")
    check.add_argument("--verbose", "-v", action="store_true", help="show the evidence that holds too, and every diff")
    check.set_defaults(command=cmd_check)

    fix = commands.add_parser(
        "fix",
        help="heal moved quotes (and card.yaml tags); a dry run unless --write",
        description="Rewrite the START:END of moved quotes (and the registry keys naming them). "
        "Prints a unified diff and writes nothing unless --write.",
    )
    _source_options(fix)
    fix.add_argument("--refresh-quotes", action="store_true", help="also re-copy moved quote bodies from the code")
    fix.add_argument("--update-card", action="store_true", help="set validated_on and reconcile card.yaml tags")
    fix.add_argument("--write", action="store_true", help="apply the changes (default: print the diff only)")
    fix.set_defaults(command=cmd_fix)

    cache = commands.add_parser("cache", help="show or remove the cache directory")
    cache.add_argument("action", choices=("dir", "clean"))
    cache.add_argument("--cache-dir", metavar="DIR", help="the cache directory (default: see README)")
    cache.set_defaults(command=cmd_cache)
    return parser


def _source_options(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "skill_dirs", nargs="*", metavar="SKILL_DIR", help="skill directories (default: the skills anchors.yaml names)"
    )
    command.add_argument("--spec", help=f"the registry (default: ./{DEFAULT_SPEC})")
    command.add_argument("--repo", help="git URL or local path; overrides the registry's source.repo")
    command.add_argument("--ref", help="tag, branch or sha; overrides the registry's source.ref")
    command.add_argument(
        "--release",
        nargs="?",
        const="",
        metavar="VERSION",
        help="read the published release wheel instead of git (VERSION defaults to the ref without 'v')",
    )
    command.add_argument("--cache-dir", metavar="DIR", help="where fetched repositories, wheels and results are kept")
    command.add_argument("--no-cache", action="store_true", help="neither read nor write the on-disk result cache")
    command.add_argument("--quiet", "-q", action="store_true", help="no progress display")


def cmd_check(args: argparse.Namespace) -> ExitCode:
    """``anchor-audit check``: audit at one ref and report."""
    from .report import renderer

    inputs, tree, report = _audit(args)
    render = renderer(args.format, verbose=args.verbose) if args.format == "terminal" else renderer(args.format)
    _emit(lambda stream: render(report, stream), args.output)
    return report.exit_code


def cmd_fix(args: argparse.Namespace) -> ExitCode:
    """``anchor-audit fix``: heal what only moved; report what needs a person."""
    from .fix import plan_fix
    from .fsutil import apply_edits

    inputs, tree, report = _audit(args)
    plan = plan_fix(report, inputs.skills, inputs.spec, tree, args.refresh_quotes, args.update_card)
    out = sys.stdout
    if args.write:
        apply_edits(plan.edits)
    else:
        for edit in plan.edits:
            out.writelines(
                difflib.unified_diff(
                    edit.before.decode("utf-8-sig").splitlines(keepends=True),
                    edit.after.decode("utf-8-sig").splitlines(keepends=True),
                    f"a/{edit.path}",
                    f"b/{edit.path}",
                )
            )
    verb = "" if args.write else "would fix "
    for line in plan.done:
        out.write(f"{verb}{line}\n")
    for line in plan.notes:
        out.write(f"note: {line}\n")
    for line in plan.left:
        out.write(f"left for a person: {line}\n")
    files = len(plan.edits)
    state = "written" if args.write else "dry run, nothing written (--write applies)"
    out.write(f"fix: {files} file{'s' if files != 1 else ''} to change, {state}; {len(plan.left)} left for a person\n")
    if plan.left or (plan.edits and not args.write):
        return ExitCode.DRIFT
    return ExitCode.OK


def _audit(args: argparse.Namespace) -> tuple[AuditInputs, SourceTree, AuditReport]:
    from .audit import audit
    from .inputs import load_inputs, open_tree

    inputs = load_inputs(args.spec, args.skill_dirs, args.repo, args.ref, DEFAULT_SPEC)
    tree = open_tree(inputs, release=args.release, cache_dir=args.cache_dir, progress=_progress(args.quiet))
    with _judge(args) as judge:
        return inputs, tree, audit(inputs.skills, tree, inputs.spec, judge)


@contextlib.contextmanager
def _judge(args: argparse.Namespace) -> Iterator[Judge]:
    """A judge backed by the on-disk result cache (unless --no-cache)."""
    from .audit import Judge
    from .resultcache import ResultStore
    from .source.cache import cache_root

    store = None if args.no_cache else ResultStore(cache_root(args.cache_dir) / "results.sqlite3")
    try:
        yield Judge(store)
    finally:
        if store is not None:
            store.close()


def cmd_cache(args: argparse.Namespace) -> ExitCode:
    """``anchor-audit cache dir|clean``."""
    from .source.cache import cache_root

    root = cache_root(args.cache_dir)
    if args.action == "dir":
        print(root)
    elif root.exists():
        if not (root / "results.sqlite3").exists() and not (root / "git").exists() and not (root / "wheels").exists():
            raise UsageError(f"{root}: does not look like an anchor-audit cache; not removed")
        shutil.rmtree(root)
        print(f"removed {root}")
    else:
        print(f"{root} is already empty")
    return ExitCode.OK


def _emit(write: Callable[[TextIO], None], output: str | None) -> None:
    """Write to stdout, or to ``output`` atomically: all of it or nothing."""
    if output is None:
        write(sys.stdout)
        return
    buffer = io.StringIO()
    write(buffer)
    try:
        write_atomic(Path(output), buffer.getvalue().encode("utf-8"))
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
