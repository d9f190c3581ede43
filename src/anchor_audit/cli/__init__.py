"""The command line: argparse, parsed once; a remembered run replayed, or the command run; the only place that exits.

Every :class:`~anchor_audit.errors.AuditError` becomes one line on stderr and
exit code 2, here and nowhere else.  The commands are imported only for a run
that is not replayed (:mod:`.dispatch`).
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import os
import sys
from pathlib import Path
from typing import NoReturn, Sequence

from ..errors import AuditError
from ..report.reporter import Reporter
from ..runs import remembered, replay
from .parsing import parse
from .settings import apply_settings
from .table import build_parser


def program() -> NoReturn:
    """``anchor-audit`` and ``python -m anchor_audit``: :func:`main`, in a process of its own, which ends with it."""
    collect_seldom()
    code = main()
    # main() has written, flushed and closed every output and the result store.  An interpreter's exit frees
    # each object the run's caches hold, one at a time: 0.6 s of a 3.8 s cold catalog of 1,000 skills.  The
    # process ends here instead (as mypy's hard_exit does); nothing but memory is left to give back.
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a failed write was main()'s to report, and it did
            stream.flush()
    os._exit(code)


def collect_seldom() -> None:
    """Set this process's cyclic collector as the command's own process has it: for a caller that runs many
    audits in one process (the impact replay of ``benchmarks/``), not for :func:`main`, which leaves it alone."""
    # An audit allocates millions of objects (syntax trees) and frees nearly all by reference count; the cyclic
    # collector, scanning every live object each time 700 more were made, cost a cold run some 5% (Megatron-
    # Bridge's 33 skills, median of four: 5.5 -> 5.2 s) and the impact replay 13% (14 s of 106).  What the
    # imports made is never garbage: left out.
    gc.freeze()
    gc.set_threshold(100_000, 50, 100)


def main(argv: Sequence[str] | None = None) -> int:
    """Run anchor-audit; returns the exit code.

    The one place that turns failures into exit codes: an
    :class:`~anchor_audit.errors.AuditError` or an output that cannot be
    written is one line on stderr and exit 2, and so is an internal error
    (with ``ANCHOR_AUDIT_DEBUG=1`` it is raised instead, with its traceback).
    """
    for stream in (sys.stdout, sys.stderr):  # undecodable file names print as \udcXX, never crash the run
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="backslashreplace")
    given = list(sys.argv[1:] if argv is None else argv)
    if not given:  # as ruff and git do: what the program is and its commands, not one line of error
        build_parser().print_help(sys.stdout)
        return _fatal()
    args = parse(build_parser(), given)
    reporter = Reporter(quiet=getattr(args, "quiet", False))
    say = reporter.say
    try:
        for line in apply_settings(args, Path.cwd()):  # what the command line left unset, from anchor-audit.toml
            reporter.warn(line)  # or pyproject; with --config-from, what the checkout's file would have changed
        key = remembered.key_of(args, Path.cwd())
        code = replay.replay(key, args.cache_dir) if key is not None else None
        if code is None:
            code = _run(args, reporter, remembered.RunRecord(key) if key is not None else None)
        sys.stdout.flush()  # a full device fails here, not in the interpreter's exit
        return code
    except AuditError as exc:
        say(f"error: {exc}")
        return _fatal()
    except BrokenPipeError:  # `anchor-audit check | head`: the reader left; that is not an error
        _detach_stdout()
        return _fatal()
    except KeyboardInterrupt:
        say("interrupted")
        return 130
    except OSError as exc:  # writing the report: a full disk, a closed stream
        _detach_stdout()
        where = exc.filename if exc.filename else "the output"
        say(f"error: {where}: cannot write: {exc.strerror or exc}")
        return _fatal()
    except Exception as exc:
        if os.environ.get("ANCHOR_AUDIT_DEBUG"):
            raise
        say(f"internal error: {type(exc).__name__}: {exc} (ANCHOR_AUDIT_DEBUG=1 shows the traceback; please report it)")
        return _fatal()


def _run(args: argparse.Namespace, reporter: Reporter, record: remembered.RunRecord | None) -> int:
    """The command, run; with a ``record``, its report remembered for the next run of the same command line."""
    with contextlib.ExitStack() as stack:
        from ..commands import RunContext
        from ..commands.context import run_context
        from .dispatch import COMMANDS  # here, not above: a remembered run never imports the commands

        if not hasattr(args, "no_cache"):
            return int(COMMANDS[args.command](args, RunContext(reporter, getattr(args, "cache_dir", None))))
        from ..audit.parallel import default_jobs  # a command that reads sources: one cache directory for the whole run

        jobs = getattr(args, "jobs", None) or default_jobs()
        ctx = stack.enter_context(run_context(reporter, args.cache_dir, not args.no_cache, jobs, record))
        tee = replay.Tee(sys.stdout, replay.spool_folder(ctx.cache_dir) if record is not None else None)
        if record is not None:
            stack.enter_context(contextlib.redirect_stdout(tee))
        code = int(COMMANDS[args.command](args, ctx))
        if record is not None:
            if reporter.said:
                record.spoil("it wrote to stderr")
            replay.remember(ctx.store, record, code, tee, [args.output] if args.output else [])
        return code


def _fatal() -> int:
    from ..model import ExitCode  # imported on the way out: a remembered run's replay never needs the model

    return int(ExitCode.FATAL)


def _detach_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass  # not a real file (a test's capture): nothing will flush it at exit
