"""``anchor-audit check``: audit at one ref and report."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from ..findings import exit_code
from ..model import ExitCode
from .common import emit, open_sources
from .options import ReportOptions, SourceOptions
from .reporter import Reporter


def check(
    options: SourceOptions,
    report_options: ReportOptions,
    reporter: Reporter,
    baseline: str | None = None,
    write_baseline: str | None = None,
) -> ExitCode:
    """Audit the skills at one ref; write the report; the exit code CI gates on."""
    from ..report import renderer
    from ..report.markdown import github_base

    accepted = None
    if baseline:
        from ..baseline import load_baseline

        accepted = load_baseline(Path(baseline))  # a bad baseline fails before any fetch
    with open_sources(options, [None], reporter) as sources:
        (tree,) = sources.trees
        report = sources.audit(tree)
    if accepted is not None:
        report = replace(report, accepted=accepted.keys)
        for key in accepted.stale(report):
            reporter.warn(f"{accepted.path}: no finding {key} any more; drop it")
    if write_baseline:
        from ..baseline import write_baseline as write

        count = write(report, Path(write_baseline))
        reporter.say(f"wrote {count} findings to {write_baseline}; give each a reason")
    spec = sources.inputs.spec
    link_base = (
        report_options.link_base or github_base(report.source.repo) or github_base(spec.source.repo if spec else None)
    )
    render = renderer(report_options.format, verbose=report_options.verbose, link_base=link_base)
    emit(lambda stream: render(report, stream), report_options.output)
    return exit_code(report)
