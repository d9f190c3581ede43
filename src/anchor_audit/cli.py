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
    from .compare import Comparison
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
    _format_options(check, ("terminal", "json", "markdown", "sarif", "junit", "github"))
    check.add_argument("--verbose", "-v", action="store_true", help="show the evidence that holds too, and every diff")
    check.add_argument("--link-base", metavar="URL", help="https://github.com/OWNER/REPO for the Markdown links")
    check.add_argument("--baseline", metavar="FILE", help="accept the known findings FILE lists (each with a reason)")
    check.add_argument("--write-baseline", metavar="FILE", help="write the current findings as a baseline to FILE")
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

    diff = commands.add_parser(
        "diff",
        help="audit at two refs; what changed, and what breaks",
        description="Audit the same skills at OLD and NEW and list every quote and claim whose status changes. "
        "Exit 1 when a claim that held at OLD is broken at NEW.",
    )
    diff.add_argument("old", metavar="OLD")
    diff.add_argument("new", metavar="NEW")
    _source_options(diff, ref=False)
    _format_options(diff, ("terminal", "json", "markdown"))
    diff.set_defaults(command=cmd_diff)

    bump = commands.add_parser(
        "bump",
        help="move the registry's pinned ref to NEW when nothing breaks",
        description="diff from the pinned ref to NEW; when no claim breaks (or with --force) rewrite source.ref "
        "in anchors.yaml, comments and layout kept.",
    )
    bump.add_argument("new", metavar="NEW")
    _source_options(bump, ref=False)
    _format_options(bump, ("terminal", "json", "markdown"))
    bump.add_argument("--force", action="store_true", help="rewrite the pin even when claims break")
    bump.set_defaults(command=cmd_bump)

    hist = commands.add_parser(
        "history",
        help="when each quote and claim changed, commit by commit",
        description="The timeline of status changes of every quote and claim over --since..--until, "
        "each named by the first commit where it happened. Git only.",
    )
    _source_options(hist, ref=False, release=False)
    hist.add_argument("--since", metavar="REF", help="start here (default: the whole history)")
    hist.add_argument("--until", metavar="REF", default="HEAD", help="end here (default: HEAD)")
    _format_options(hist, ("terminal", "json"))
    hist.set_defaults(command=cmd_history)

    init = commands.add_parser(
        "init",
        help="print a starter anchors.yaml entry for a skill",
        description="Print a starter anchors.yaml entry from the skill's quotes and card.yaml claims.",
    )
    init.add_argument("skill_dir", metavar="SKILL_DIR")
    init.set_defaults(command=cmd_init)

    cache = commands.add_parser("cache", help="show or remove the cache directory")
    cache.add_argument("action", choices=("dir", "clean"))
    cache.add_argument("--cache-dir", metavar="DIR", help="the cache directory (default: see README)")
    cache.set_defaults(command=cmd_cache)
    return parser


def _format_options(command: argparse.ArgumentParser, formats: tuple[str, ...]) -> None:
    command.add_argument("--format", choices=formats, default="terminal")
    command.add_argument("--output", metavar="FILE", help="write the report to FILE (atomically) instead of stdout")


def _source_options(command: argparse.ArgumentParser, ref: bool = True, release: bool = True) -> None:
    command.add_argument(
        "skill_dirs", nargs="*", metavar="SKILL_DIR", help="skill directories (default: the skills anchors.yaml names)"
    )
    command.add_argument("--spec", help=f"the registry (default: ./{DEFAULT_SPEC})")
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
    command.add_argument("--no-cache", action="store_true", help="neither read nor write the on-disk result cache")
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


def cmd_check(args: argparse.Namespace) -> ExitCode:
    """``anchor-audit check``: audit at one ref and report."""
    from dataclasses import replace

    from .report import renderer
    from .report.markdown import github_base

    baseline = None
    if args.baseline:
        from .baseline import load_baseline

        baseline = load_baseline(Path(args.baseline))  # bad baselines fail before any fetch
    inputs, tree, report = _audit(args)
    if baseline is not None:
        report = replace(report, accepted=baseline.keys)
        for key in baseline.stale(report):
            print(f"anchor-audit: warning: {baseline.path}: no finding {key} any more; drop it", file=sys.stderr)
    if args.write_baseline:
        from .baseline import write_baseline

        count = write_baseline(report, Path(args.write_baseline))
        print(f"anchor-audit: wrote {count} findings to {args.write_baseline}; give each a reason", file=sys.stderr)
    spec_repo = inputs.spec.source.repo if inputs.spec else None
    link_base = args.link_base or github_base(report.source.repo) or github_base(spec_repo)
    render = renderer(args.format, verbose=args.verbose, link_base=link_base)
    _emit(lambda stream: render(report, stream), args.output)
    return report.exit_code


def cmd_fix(args: argparse.Namespace) -> ExitCode:
    """``anchor-audit fix``: heal what only moved; report what needs a person."""
    from .fix import plan_fix
    from .fsutil import apply_edits

    if args.in_repo:
        raise UsageError("fix edits skill files on disk; it cannot be used with --in-repo")
    inputs, tree, report = _audit(args)
    plan = plan_fix(report, inputs.disk_skills, inputs.spec, tree, args.refresh_quotes, args.update_card)
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


def cmd_diff(args: argparse.Namespace) -> ExitCode:
    """``anchor-audit diff OLD NEW``."""
    comparison = _compare(args, args.old, args.new)
    _emit(lambda stream: _render_comparison(args.format, comparison, stream), args.output)
    return ExitCode.DRIFT if comparison.breaks else ExitCode.OK


def cmd_bump(args: argparse.Namespace) -> ExitCode:
    """``anchor-audit bump NEW``: diff from the pinned ref; rewrite the pin when nothing breaks."""
    from .fix.registry import rewrite_pin
    from .fix.text import DiskText
    from .fsutil import FileEdit, apply_edits
    from .spec.registry import load_spec

    spec = load_spec(Path(args.spec or DEFAULT_SPEC))
    comparison = _compare(args, spec.source.ref, args.new, spec_path=str(spec.path))
    _emit(lambda stream: _render_comparison(args.format, comparison, stream), args.output)
    if comparison.breaks and not args.force:
        print(f"anchor-audit: not bumped: claims break at {args.new}; --force bumps anyway", file=sys.stderr)
        return ExitCode.DRIFT
    disk = DiskText.decode(spec.path.read_bytes())
    try:
        text = rewrite_pin(disk.text, args.new)
    except ValueError as exc:
        raise UsageError(f"{spec.path}: {exc}") from None
    apply_edits([FileEdit(spec.path, disk.raw, disk.encode(text))])
    print(f"anchor-audit: {spec.path}: source.ref {spec.source.ref} -> {args.new}", file=sys.stderr)
    return ExitCode.DRIFT if comparison.breaks else ExitCode.OK


def cmd_history(args: argparse.Namespace) -> ExitCode:
    """``anchor-audit history``: the timeline of every quote and claim."""
    from .history import SkillSource, history
    from .inputs import load_inputs, open_tree
    from .report.history import render_history_json, render_history_terminal
    from .source.git import GitTree

    if args.all:
        raise UsageError("history follows named skills; give SKILL_DIR arguments instead of --all")
    inputs = load_inputs(args.spec, args.skill_dirs, args.repo, args.until, DEFAULT_SPEC, args.in_repo)
    progress = _progress(args.quiet)
    tree = open_tree(
        inputs,
        ref=args.until,
        cache_dir=args.cache_dir,
        progress=progress,
        full_history=True,
        allow=tuple(args.allow_protocol),
        submodules=_submodules(args),
    )
    assert isinstance(tree, GitTree)
    sources = [SkillSource(skill.name, disk=skill) for skill, _ in inputs.disk_skills]
    sources += [SkillSource(folder.strip("/").rsplit("/", 1)[-1], in_repo=folder) for folder in inputs.repo_skills]

    def step(i: int, total: int) -> None:
        progress(f"auditing commit {i + 1} of {total}", None)

    with _judge(args) as judge:
        result = history(tree, sources, inputs.spec, args.since, args.until, judge, on_commit=step)
    progress("", 1.0)
    render = render_history_json if args.format == "json" else render_history_terminal
    _emit(lambda stream: render(result, stream), args.output)
    return ExitCode.OK


def _compare(args: argparse.Namespace, old_ref: str, new_ref: str, spec_path: str | None = None) -> Comparison:
    from .audit import audit
    from .compare import compare
    from .inputs import load_inputs, open_tree

    inputs = load_inputs(
        spec_path or args.spec, args.skill_dirs, args.repo, old_ref, DEFAULT_SPEC, args.in_repo, args.all
    )
    _warn(inputs)
    progress = _progress(args.quiet)
    reports = []
    with _judge(args) as judge:
        for ref in (old_ref, new_ref):
            tree = open_tree(
                inputs,
                ref=ref,
                release=args.release,
                cache_dir=args.cache_dir,
                progress=progress,
                allow=tuple(args.allow_protocol),
                submodules=_submodules(args),
            )
            reports.append(audit(inputs.skills_at(tree), tree, inputs.spec, judge))
    return compare(reports[0], reports[1])


def _render_comparison(fmt: str, comparison: Comparison, stream: TextIO) -> None:
    from .report.compare import (
        render_comparison_json,
        render_comparison_markdown,
        render_comparison_terminal,
    )

    {"json": render_comparison_json, "markdown": render_comparison_markdown}.get(fmt, render_comparison_terminal)(
        comparison, stream
    )


def _audit(args: argparse.Namespace) -> tuple[AuditInputs, SourceTree, AuditReport]:
    from .audit import audit
    from .inputs import load_inputs, open_tree

    inputs = load_inputs(args.spec, args.skill_dirs, args.repo, args.ref, DEFAULT_SPEC, args.in_repo, args.all)
    tree = open_tree(
        inputs,
        release=args.release,
        cache_dir=args.cache_dir,
        progress=_progress(args.quiet),
        allow=tuple(args.allow_protocol),
        submodules=_submodules(args),
        installed=args.installed,
    )
    _warn(inputs)
    with _judge(args) as judge:
        return inputs, tree, audit(inputs.skills_at(tree), tree, inputs.spec, judge)


def _submodules(args: argparse.Namespace) -> dict[str, str]:
    out = {}
    for item in args.submodule:
        path, sep, where = item.partition("=")
        if not sep or not path or not where:
            raise UsageError(f"--submodule {item!r}: expected PATH=URL_OR_DIR")
        out[path.strip("/")] = where
    return out


def _warn(inputs: AuditInputs) -> None:
    """Registry warnings (unknown keys) go to stderr, one line each; the JSON report lists them too."""
    for warning in inputs.spec.warnings if inputs.spec else ():
        print(f"anchor-audit: warning: {warning}", file=sys.stderr)


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


def cmd_init(args: argparse.Namespace) -> ExitCode:
    """``anchor-audit init SKILL_DIR``: a registry entry for a maintainer to complete."""
    from .spec.skill import load_skill

    skill = load_skill(Path(args.skill_dir), shown_as=args.skill_dir)
    out = ["skills:", f"  {skill.name}:", f"    path: {args.skill_dir}", "    claims:"]
    for claim in skill.card.claims if skill.card else ():
        out.append(f"      {claim.id}:  # card.yaml: {', '.join(claim.tags)}")
        out += ["        quotes: []", "        conditions: []"]
    if not skill.card or not skill.card.claims:
        out.append("      {}  # card.yaml lists no claims")
    out.append("# The quotes of SKILL.md, to list under the claims they back:")
    out += [f"#   - {q.key}  # SKILL.md:{q.skill_line}" for q in skill.quotes]
    out.append("# Conditions: see the README, 'anchors.yaml'.")
    print("\n".join(out))
    return ExitCode.OK


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
