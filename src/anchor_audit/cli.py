"""The command line: argparse, parsed once into option objects, one command function each; the only place that exits.

Every :class:`~anchor_audit.errors.AuditError` becomes one line on stderr and
exit code 2, here and nowhere else.
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Sequence

from . import runmemo
from .cliargs import apply_settings, codes, parse
from .cliparser import FORMATS, build_parser
from .errors import AuditError, UsageError
from .reporter import Reporter

if TYPE_CHECKING:
    from . import commands
    from .commands import ReportOptions, RunContext, SourceOptions
    from .model import Policy


def _lazy(name: str) -> ModuleType:
    """``name``, imported at its first use (the standard library's LazyLoader): a remembered run never uses it."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None:
        raise ImportError(name)
    spec.loader = importlib.util.LazyLoader(spec.loader)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


if not TYPE_CHECKING:
    commands = _lazy(f"{__package__}.commands")


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
    args = parse(build_parser(), list(sys.argv[1:] if argv is None else argv))
    reporter = Reporter(quiet=getattr(args, "quiet", False))
    say = reporter.say
    try:
        apply_settings(args, Path.cwd())  # what the command line left unset, from anchor-audit.toml or pyproject
        key = runmemo.key_of(args, Path.cwd())
        code = runmemo.replay(key, args.cache_dir) if key is not None else None
        if code is None:
            code = _run(args, reporter, runmemo.RunRecord(key) if key is not None else None)
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


def _run(args: argparse.Namespace, reporter: Reporter, record: runmemo.RunRecord | None) -> int:
    """The command, run; with a ``record``, its report remembered for the next run of the same command line."""
    with contextlib.ExitStack() as stack:
        if not hasattr(args, "no_cache"):
            return int(COMMANDS[args.command](args, commands.RunContext(reporter, getattr(args, "cache_dir", None))))
        from .commands.context import run_context
        from .parallel import default_jobs  # a command that reads sources: one cache directory for the whole run

        jobs = getattr(args, "jobs", None) or default_jobs()
        ctx = stack.enter_context(run_context(reporter, args.cache_dir, not args.no_cache, jobs, record))
        tee = runmemo.Tee(sys.stdout)
        if record is not None:
            stack.enter_context(contextlib.redirect_stdout(tee))
        code = int(COMMANDS[args.command](args, ctx))
        if record is not None:
            if reporter.said:
                record.spoil("it wrote to stderr")
            runmemo.remember(ctx.store, record, code, tee, [args.output] if args.output else [])
        return code


# ---------------------------------------------------------------- argv -> options -> a command


def _sources(args: argparse.Namespace) -> SourceOptions:
    return commands.SourceOptions(
        spec=args.spec,
        skill_dirs=tuple(args.skill_dirs),
        all_roots=tuple(getattr(args, "all", ())),
        repo=args.repo,
        ref=getattr(args, "ref", None),
        in_repo=args.in_repo,
        release=getattr(args, "release", None),
        installed=getattr(args, "installed", None),
        submodules=tuple(_pair(item, "--submodule", "PATH=URL_OR_DIR", strip="/") for item in args.submodule),
        allow=tuple(args.allow_protocol),
        catalog=getattr(args, "catalog", None),
        mirrors=tuple(_pair(item, "--mirror", "URL=GITDIR") for item in getattr(args, "mirror", [])),
        worktree=getattr(args, "worktree", None),
    )


def _pair(item: str, flag: str, form: str, strip: str = "") -> tuple[str, str]:
    """``KEY=VALUE`` of a repeatable option, or a one-line error naming the option and its form."""
    key, sep, value = item.partition("=")
    if not sep or not key or not value:
        raise UsageError(f"{flag} {item!r}: expected {form}")
    return key.strip(strip), value


def _report(args: argparse.Namespace) -> ReportOptions:
    also = tuple(_pair(item, "--report", "FORMAT=FILE") for item in getattr(args, "report", []))
    for fmt, _ in also:
        if fmt not in FORMATS:
            near = difflib.get_close_matches(fmt, FORMATS, n=1)
            raise UsageError(
                f"--report {fmt}=...: not a format ({', '.join(FORMATS)})"
                + (f"; did you mean {near[0]}?" if near else "")
            )
    return commands.ReportOptions(
        format=args.format,
        output=args.output,
        verbose=getattr(args, "verbose", False),
        link_base=getattr(args, "link_base", None),
        also=also,
        color=getattr(args, "color", None) or "auto",
        group_by=getattr(args, "group_by", None),
    )


def _policy(args: argparse.Namespace) -> Policy:
    from .model import Policy

    return Policy(
        strict=bool(args.strict),
        select=codes(args.select, "--select"),
        ignore=codes(args.ignore, "--ignore"),
        fail_on=args.fail_on,
        exit_zero=bool(args.exit_zero),
        fail_on_codes=tuple(sorted((args.fail_on_codes or {}).items())),
    )


def _check(args: argparse.Namespace, ctx: RunContext) -> int:
    policy = _policy(args)
    if args.reason is not None and not args.write_baseline:
        raise UsageError("--reason goes with --write-baseline: it is the reason every new entry is given")
    if args.reason is not None and not args.reason.strip():
        raise UsageError("--reason: say why the findings are acceptable")
    report = _report(args)
    return commands.check(_sources(args), report, ctx, args.baseline, args.write_baseline, policy, args.reason)


def _fix(args: argparse.Namespace, ctx: RunContext) -> int:
    if args.catalog is not None:
        return commands.fix_catalog(_sources(args), ctx, args.refresh_quotes, args.update_card, args.write,
                                    args.output_dir, fmt=args.format)  # fmt: skip
    if args.output_dir is not None or args.format == "issue":
        raise UsageError("--output-dir and --format issue go with fix --catalog (the per-repository patches)")
    return commands.fix(_sources(args), ctx, args.refresh_quotes, args.update_card, args.write, fmt=args.format)


def _diff(args: argparse.Namespace, ctx: RunContext) -> int:
    return commands.diff(_sources(args), _report(args), ctx, args.old, args.new)


def _impact(args: argparse.Namespace, ctx: RunContext) -> int:
    if args.head is None and args.worktree is None:
        raise UsageError("impact needs HEAD, or --worktree to end the change at the working tree")
    if args.worktree is not None and args.head is not None:  # with --worktree there is no HEAD: a skill folder
        args.skill_dirs, args.head = [args.head, *args.skill_dirs], None
    return commands.impact(_sources(args), _report(args), ctx, args.base, args.head, args.apply)


def _bump(args: argparse.Namespace, ctx: RunContext) -> int:
    return commands.bump(_sources(args), _report(args), ctx, args.new, args.force, args.fix)


def _history(args: argparse.Namespace, ctx: RunContext) -> int:
    return commands.history(_sources(args), _report(args), ctx, args.since, args.until)


def _matrix(args: argparse.Namespace, ctx: RunContext) -> int:
    return commands.matrix(_sources(args), _report(args), ctx, args.tags, args.pre, args.since, args.until,
                           args.write_card)  # fmt: skip


def _init(args: argparse.Namespace, ctx: RunContext) -> int:
    mirrors = tuple(_pair(item, "--mirror", "URL=GITDIR") for item in args.mirror)
    return commands.init(args.skill_dir, ctx, args.repo, args.ref, args.catalog, mirrors, worktree=args.worktree)


def _lsp(args: argparse.Namespace, ctx: RunContext) -> int:
    return commands.lsp(args.cache_dir)


def _explain(args: argparse.Namespace, ctx: RunContext) -> int:
    return commands.explain(args.code)


def _cache(args: argparse.Namespace, ctx: RunContext) -> int:
    return commands.cache(args.action, ctx, args.older_than)


def _fatal() -> int:
    from .model import ExitCode  # imported on the way out: a remembered run's replay never needs the model

    return int(ExitCode.FATAL)


def _detach_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass  # not a real file (a test's capture): nothing will flush it at exit


COMMANDS = {
    "check": _check, "fix": _fix, "diff": _diff, "impact": _impact, "bump": _bump, "history": _history,
    "matrix": _matrix, "init": _init, "explain": _explain, "cache": _cache, "lsp": _lsp,
}  # fmt: skip
