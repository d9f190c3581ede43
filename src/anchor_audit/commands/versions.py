"""``diff``, ``bump`` and ``history``: the skills across versions of the code."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..errors import UsageError
from ..model import ExitCode
from .common import DEFAULT_SPEC, compare_args, emit, progress_display, render_comparison, result_judge, say, submodules


def cmd_diff(args: argparse.Namespace) -> ExitCode:
    """``anchor-audit diff OLD NEW``."""
    comparison = compare_args(args, args.old, args.new)
    emit(lambda stream: render_comparison(args.format, comparison, stream), args.output)
    return ExitCode.DRIFT if comparison.breaks else ExitCode.OK


def cmd_bump(args: argparse.Namespace) -> ExitCode:
    """``anchor-audit bump NEW``: diff from the pinned ref; rewrite the pin when nothing breaks."""
    from ..fix.registry import rewrite_pin
    from ..fix.text import DiskText
    from ..fsutil import FileEdit, apply_edits
    from ..spec.registry import load_spec

    spec = load_spec(Path(args.spec or DEFAULT_SPEC))
    comparison = compare_args(args, spec.source.ref, args.new, spec_path=str(spec.path))
    emit(lambda stream: render_comparison(args.format, comparison, stream), args.output)
    if comparison.breaks and not args.force:
        say(f"not bumped: claims break at {args.new}; --force bumps anyway")
        return ExitCode.DRIFT
    disk = DiskText.read(spec.path)
    try:
        text = rewrite_pin(disk.text, args.new)
    except ValueError as exc:
        raise UsageError(f"{spec.path}: {exc}") from None
    apply_edits([FileEdit(spec.path, disk.raw, disk.encode(text))])
    say(f"{spec.path}: source.ref {spec.source.ref} -> {args.new}")
    return ExitCode.DRIFT if comparison.breaks else ExitCode.OK


def cmd_history(args: argparse.Namespace) -> ExitCode:
    """``anchor-audit history``: the timeline of every quote and claim."""
    from ..history import SkillSource, history
    from ..inputs import load_inputs, open_tree
    from ..report.history import render_history_json, render_history_terminal
    from ..source.git import GitTree

    if args.all:
        raise UsageError("history follows named skills; give SKILL_DIR arguments instead of --all")
    inputs = load_inputs(args.spec, args.skill_dirs, args.repo, args.until, DEFAULT_SPEC, args.in_repo)
    progress = progress_display(args.quiet)
    tree = open_tree(
        inputs,
        ref=args.until,
        cache_dir=args.cache_dir,
        progress=progress,
        full_history=True,
        allow=tuple(args.allow_protocol),
        submodules=submodules(args),
    )
    assert isinstance(tree, GitTree)
    sources = [SkillSource(skill.name, disk=skill) for skill, _ in inputs.disk_skills]
    sources += [SkillSource(folder.strip("/").rsplit("/", 1)[-1], in_repo=folder) for folder in inputs.repo_skills]

    def step(i: int, total: int) -> None:
        progress(f"auditing commit {i + 1} of {total}", None)

    with result_judge(args) as judge:
        result = history(tree, sources, inputs.spec, args.since, args.until, judge, on_commit=step)
    progress("", 1.0)
    render = render_history_json if args.format == "json" else render_history_terminal
    emit(lambda stream: render(result, stream), args.output)
    return ExitCode.OK
