"""The command line: argparse, parsed once into option objects, one command function each; the only place that exits.

Every :class:`~anchor_audit.errors.AuditError` becomes one line on stderr and
exit code 2, here and nowhere else.
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import os
import sys
from typing import Sequence

from . import __version__, commands
from .cliargs import Parser, parse
from .commands import Reporter, ReportOptions, RunContext, SourceOptions
from .commands.common import DEFAULT_SPEC
from .commands.context import run_context
from .errors import AuditError, UsageError
from .model import ExitCode
from .report import AUDIT_FORMATS, COMPARISON_FORMATS, HISTORY_FORMATS, IMPACT_FORMATS
from .source.cache import cache_root


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
    args = parse(_parser(), list(sys.argv[1:] if argv is None else argv))
    reporter = Reporter(quiet=getattr(args, "quiet", False))
    say = reporter.say
    try:
        with contextlib.ExitStack() as stack:
            if hasattr(args, "no_cache"):  # a command that reads sources: one cache directory for the whole run
                ctx = stack.enter_context(run_context(reporter, args.cache_dir, keep_results=not args.no_cache))
            else:
                ctx = RunContext(reporter, getattr(args, "cache_dir", None))  # explain has no cache
            code = int(args.run(args, ctx))
        sys.stdout.flush()  # a full device fails here, not in the interpreter's exit
        return code
    except AuditError as exc:
        say(f"error: {exc}")
        return int(ExitCode.FATAL)
    except BrokenPipeError:  # `anchor-audit check | head`: the reader left; that is not an error
        _detach_stdout()
        return int(ExitCode.FATAL)
    except KeyboardInterrupt:
        say("interrupted")
        return 130
    except OSError as exc:  # writing the report: a full disk, a closed stream
        _detach_stdout()
        where = exc.filename if exc.filename else "the output"
        say(f"error: {where}: cannot write: {exc.strerror or exc}")
        return int(ExitCode.FATAL)
    except Exception as exc:
        if os.environ.get("ANCHOR_AUDIT_DEBUG"):
            raise
        say(f"internal error: {type(exc).__name__}: {exc} (ANCHOR_AUDIT_DEBUG=1 shows the traceback; please report it)")
        return int(ExitCode.FATAL)


# ---------------------------------------------------------------- argv -> options -> a command


def _sources(args: argparse.Namespace) -> SourceOptions:
    return SourceOptions(
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
    return ReportOptions(
        format=args.format,
        output=args.output,
        verbose=getattr(args, "verbose", False),
        link_base=getattr(args, "link_base", None),
        also=also,
    )


def _check(args: argparse.Namespace, ctx: RunContext) -> int:
    return commands.check(_sources(args), _report(args), ctx, args.baseline, args.write_baseline, args.strict)


def _fix(args: argparse.Namespace, ctx: RunContext) -> int:
    return commands.fix(_sources(args), ctx, args.refresh_quotes, args.update_card, args.write)


def _diff(args: argparse.Namespace, ctx: RunContext) -> int:
    return commands.diff(_sources(args), _report(args), ctx, args.old, args.new)


def _impact(args: argparse.Namespace, ctx: RunContext) -> int:
    return commands.impact(_sources(args), _report(args), ctx, args.base, args.head, args.apply)


def _bump(args: argparse.Namespace, ctx: RunContext) -> int:
    return commands.bump(_sources(args), _report(args), ctx, args.new, args.force)


def _history(args: argparse.Namespace, ctx: RunContext) -> int:
    return commands.history(_sources(args), _report(args), ctx, args.since, args.until)


def _init(args: argparse.Namespace, ctx: RunContext) -> int:
    mirrors = tuple(_pair(item, "--mirror", "URL=GITDIR") for item in args.mirror)
    return commands.init(args.skill_dir, ctx, args.repo, args.ref, args.catalog, mirrors)


def _explain(args: argparse.Namespace, ctx: RunContext) -> int:
    return commands.explain(args.code)


def _cache(args: argparse.Namespace, ctx: RunContext) -> int:
    return commands.cache(args.action, ctx)


def _detach_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass  # not a real file (a test's capture): nothing will flush it at exit


FORMATS = AUDIT_FORMATS
EXIT_HELP = (
    "exit codes: 0 everything holds; 1 drift (a quote not exact, a claim broken, a promise not kept, a finding "
    "the baseline does not accept); 2 could not audit (bad input, unknown ref, unreachable source, bad command "
    "line), one line on stderr. More: README.md and docs/."
)


def _parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="anchor-audit",
        epilog=EXIT_HELP,
        description="Check that the line-anchored quotes and gating conditions of agent skills "
        "still hold at a pinned git ref.",
    )
    parser.add_argument("--version", action="version", version=f"anchor-audit {__version__}")
    commands = parser.add_subparsers(title="commands", metavar="COMMAND", required=True, parser_class=Parser)

    check = commands.add_parser("check", help="audit skills at a ref", description="Audit skills at a ref.")
    _source_options(check)
    _format_options(check, FORMATS)
    check.add_argument(
        "--report",
        action="append",
        default=[],
        metavar="FORMAT=FILE",
        help="also write the report in FORMAT to FILE, from the same run; repeatable (stdout keeps --format)",
    )
    check.add_argument("--verbose", "-v", action="store_true", help="show the evidence that holds too, and every diff")
    check.add_argument("--link-base", metavar="URL", help="https://github.com/OWNER/REPO for the Markdown links")
    check.add_argument("--baseline", metavar="FILE", help="accept the known findings FILE lists (each with a reason)")
    check.add_argument("--write-baseline", metavar="FILE", help="write the current findings as a baseline to FILE")
    check.add_argument(
        "--strict", action="store_true", help="a code_verified claim with no registered evidence (unlinked) is drift"
    )
    check.add_argument(
        "--catalog",
        metavar="DIR",
        help="a skills catalog: audit DIR/skills/* against the repositories DIR/components.d/*.yml name",
    )
    check.add_argument(
        "--mirror",
        action="append",
        default=[],
        metavar="URL=GITDIR",
        help="with --catalog: read the repository URL (or OWNER/NAME) from this local git dir; repeatable",
    )
    check.set_defaults(run=_check)

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
    fix.set_defaults(run=_fix)

    diff = commands.add_parser(
        "diff",
        help="audit at two refs; what changed, and what breaks",
        description="Audit the same skills at OLD and NEW and list every quote and claim whose status changes. "
        "Exit 1 when a claim that held at OLD is broken at NEW.",
    )
    diff.add_argument("old", metavar="OLD", help="the ref the skills were right at (tag, branch or sha)")
    diff.add_argument("new", metavar="NEW", help="the ref to compare with it")
    _source_options(diff, ref=False)
    _format_options(diff, COMPARISON_FORMATS)
    diff.set_defaults(run=_diff)

    impact = commands.add_parser(
        "impact",
        help="what a code change BASE..HEAD does to the skills that quote it",
        description="Read the diff BASE..HEAD (git) and report every quote, condition and claim whose status "
        "changes, and every quote whose lines the diff touches, with the code lines in HEAD and the healing patch. "
        "Exit 1 when a status changes.",
    )
    impact.add_argument("base", metavar="BASE", help="the ref the change starts from (a pull request's merge base)")
    impact.add_argument("head", metavar="HEAD", help="the ref the change ends at")
    _source_options(impact, ref=False, release=False)
    impact.add_argument("--catalog", metavar="DIR", help="the catalog skills whose component is the --repo repository")
    _format_options(impact, IMPACT_FORMATS)
    impact.add_argument("--apply", action="store_true", help="write the healing patch here (SKILL.md, anchors.yaml)")
    impact.set_defaults(run=_impact)

    bump = commands.add_parser(
        "bump",
        help="move the registry's pinned ref to NEW when nothing breaks",
        description="diff from the pinned ref to NEW; when no claim breaks (or with --force) rewrite source.ref "
        "in anchors.yaml, comments and layout kept.",
    )
    bump.add_argument(
        "new", metavar="NEW", help="the ref to move the pin to (HEAD or a branch is pinned to its commit)"
    )
    _source_options(bump, ref=False)
    _format_options(bump, COMPARISON_FORMATS)
    bump.add_argument("--force", action="store_true", help="rewrite the pin even when claims break")
    bump.set_defaults(run=_bump)

    hist = commands.add_parser(
        "history",
        help="when each quote and claim changed, commit by commit",
        description="The timeline of status changes of every quote and claim over --since..--until, "
        "each named by the first commit where it happened. Git only.",
    )
    _source_options(hist, ref=False, release=False, all_roots=False)
    hist.add_argument("--since", metavar="REF", help="start here (default: the whole history)")
    hist.add_argument("--until", metavar="REF", default="HEAD", help="end here (default: HEAD)")
    _format_options(hist, HISTORY_FORMATS)
    hist.set_defaults(run=_history)

    init = commands.add_parser(
        "init",
        help="draft an anchors.yaml that runs, for a skill or a catalog",
        description="Draft a complete anchors.yaml: each card claim with the quotes its comments or captions name "
        "and conditions drafted from the code. anchor-audit init SKILL_DIR > anchors.yaml && anchor-audit check",
    )
    init.add_argument("skill_dir", metavar="SKILL_DIR", nargs="?", help="the skill folder to draft an entry for")
    init.add_argument("--repo", help="the code the skill quotes (default: the git repository SKILL_DIR is in)")
    init.add_argument("--ref", help="tag, branch or sha to read the code at (default: HEAD)")
    init.add_argument("--catalog", metavar="DIR", help="draft one registry for every skill of a skills catalog")
    init.add_argument("--mirror", action="append", default=[], metavar="URL=GITDIR", help="with --catalog: local copy")
    init.add_argument("--cache-dir", metavar="DIR", help="where fetched repositories are kept")
    init.set_defaults(run=_init)

    cache = commands.add_parser("cache", help="show or remove the cache directory")
    cache.add_argument("action", choices=("dir", "clean"))
    cache.add_argument("--cache-dir", metavar="DIR", help=f"the cache directory (default: {cache_root()})")
    cache.set_defaults(run=_cache)
    explain = commands.add_parser(
        "explain", help="what a finding code means and what to do", description="What a finding code means."
    )
    explain.add_argument("code", nargs="?", metavar="CODE", help="a code (AA406) or a rule name (path-missing)")
    explain.set_defaults(run=_explain)
    for sub in commands.choices.values():
        sub.epilog = EXIT_HELP
    return parser


def _format_options(command: argparse.ArgumentParser, formats: tuple[str, ...]) -> None:
    command.add_argument(
        "--format",
        choices=formats,
        default="terminal",
        help="the report's format (default: terminal): " + ", ".join(formats),
    )
    command.add_argument("--output", metavar="FILE", help="write the report to FILE (atomically) instead of stdout")


def _source_options(
    command: argparse.ArgumentParser, ref: bool = True, release: bool = True, all_roots: bool = True
) -> None:
    command.add_argument(
        "skill_dirs", nargs="*", metavar="SKILL_DIR", help="skill directories (default: the skills anchors.yaml names)"
    )
    command.add_argument("--spec", help=f"the registry (default: ./{DEFAULT_SPEC})")
    if all_roots:
        command.add_argument(
            "--all",
            action="append",
            default=[],
            metavar="ROOT",
            help="audit every skill (SKILL.md) under ROOT, registered or not; repeatable",
        )
    command.add_argument("--repo", help="git URL or local path; overrides the registry's source.repo")
    if ref:
        command.add_argument("--ref", help="tag, branch or sha; overrides the registry's source.ref")
    if release:
        command.add_argument(
            "--installed",
            nargs="?",
            const="",
            metavar="DIST",
            help="read the distribution installed in this Python (default: source.release.dist) instead of git",
        )
        command.add_argument(
            "--release",
            nargs="?",
            const="",
            metavar="VERSION",
            help="read the published release wheel instead of git (VERSION defaults to the ref without 'v')",
        )
    command.add_argument(
        "--in-repo", action="store_true", help="SKILL_DIRs are folders inside the repository, read at each ref"
    )
    command.add_argument("--cache-dir", metavar="DIR", help="where fetched repositories, wheels and results are kept")
    command.add_argument(
        "--no-cache",
        action="store_true",
        help="use no on-disk cache this run: fetch into a temporary directory, keep no results",
    )
    command.add_argument(
        "--submodule",
        action="append",
        default=[],
        metavar="PATH=URL_OR_DIR",
        help="read the submodule at PATH from this repository instead of .gitmodules' URL; repeatable",
    )
    command.add_argument(
        "--allow-protocol",
        action="append",
        default=[],
        metavar="NAME",
        help="also allow this git transport (e.g. ext, which runs commands); repeatable",
    )
    command.add_argument("--quiet", "-q", action="store_true", help="no progress display")
