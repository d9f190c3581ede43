"""The command line's parsed arguments -> option objects -> one command function each.

:mod:`.cli` parses, replays a remembered run, and turns failures into exit
codes; what is left of a run comes here, and with it the commands' imports.
"""

from __future__ import annotations

import argparse
import sys

from .. import commands
from ..commands import ReportOptions, RunContext, SourceOptions
from ..errors import UsageError
from ..model import Policy
from .parsing import codes
from .table import FORMATS


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
            import difflib  # only for a format that is wrong

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
        color=getattr(args, "color", None) or "auto",
        group_by=getattr(args, "group_by", None),
    )


def _policy(args: argparse.Namespace) -> Policy:
    return Policy(
        strict=bool(args.strict),
        select=codes(args.select, "--select"),
        ignore=codes(args.ignore, "--ignore"),
        fail_on=args.fail_on,
        exit_zero=bool(args.exit_zero),
        fail_on_codes=tuple(sorted((args.fail_on_codes or {}).items())),
        notes=getattr(args, "settings_notes", ()),
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
    submodules = tuple(_pair(item, "--submodule", "PATH=URL_OR_DIR", strip="/") for item in args.submodule)
    return commands.init(args.skill_dir, ctx, args.repo, args.ref, args.catalog, mirrors, worktree=args.worktree,
                         submodules=submodules, allow=tuple(args.allow_protocol))  # fmt: skip


def _lsp(args: argparse.Namespace, ctx: RunContext) -> int:
    return commands.lsp(args.cache_dir)


def _explain(args: argparse.Namespace, ctx: RunContext) -> int:
    return commands.explain(args.code)


def _completion(args: argparse.Namespace, ctx: RunContext) -> int:
    from .completion import script
    from .table import build_parser

    sys.stdout.write(script(args.shell, build_parser()))
    return 0


def _cache(args: argparse.Namespace, ctx: RunContext) -> int:
    return commands.cache(args.action, ctx, args.older_than)


COMMANDS = {
    "check": _check, "fix": _fix, "diff": _diff, "impact": _impact, "bump": _bump, "history": _history,
    "matrix": _matrix, "init": _init, "explain": _explain, "cache": _cache, "lsp": _lsp, "completion": _completion,
}  # fmt: skip
