"""``anchor-audit check``: audit at one ref and report."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..findings import exit_code
from ..model import ExitCode
from .common import audit_args, emit, say


def cmd_check(args: argparse.Namespace) -> ExitCode:
    """``anchor-audit check``: audit at one ref and report."""
    from dataclasses import replace

    from ..report import renderer
    from ..report.markdown import github_base

    baseline = None
    if args.baseline:
        from ..baseline import load_baseline

        baseline = load_baseline(Path(args.baseline))  # bad baselines fail before any fetch
    inputs, tree, report = audit_args(args)
    if baseline is not None:
        report = replace(report, accepted=baseline.keys)
        for key in baseline.stale(report):
            say(f"warning: {baseline.path}: no finding {key} any more; drop it")
    if args.write_baseline:
        from ..baseline import write_baseline

        count = write_baseline(report, Path(args.write_baseline))
        say(f"wrote {count} findings to {args.write_baseline}; give each a reason")
    spec_repo = inputs.spec.source.repo if inputs.spec else None
    link_base = args.link_base or github_base(report.source.repo) or github_base(spec_repo)
    render = renderer(args.format, verbose=args.verbose, link_base=link_base)
    emit(lambda stream: render(report, stream), args.output)
    return exit_code(report)
