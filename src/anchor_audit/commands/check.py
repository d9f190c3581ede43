"""``anchor-audit check``: audit at one ref and report."""

from __future__ import annotations

import os
import re
from dataclasses import replace
from pathlib import Path
from typing import Callable, TextIO

from ..errors import UsageError
from ..findings import exit_code
from ..model import AuditReport, ExitCode, Policy, Spec
from ..report.catalogwords import count
from ..runs.remembered import MAX_CATALOG_FILES
from ..spec import DEFAULT_SPEC
from .common import catalog_registry, emit, open_sources, registry_path
from .context import RunContext
from .options import VALIDATED, ReportOptions, SourceOptions

_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def check(
    options: SourceOptions,
    report_options: ReportOptions,
    ctx: RunContext,
    baseline: str | None = None,
    write_baseline: str | None = None,
    policy: Policy | None = None,
    reason: str | None = None,
) -> ExitCode:
    """Audit the skills at one ref; write the report; the exit code CI gates on."""
    from ..report import renderer
    from ..report.permalinks import github_base

    if ctx.record is not None:  # witnessed before they are read (runs/remembered.py)
        ctx.record.before_reading_file(options.spec or DEFAULT_SPEC)
        ctx.record.before_reading_file(baseline)
    accepted = None
    if baseline:
        from ..findings.baseline import load_baseline

        accepted = load_baseline(Path(baseline))  # a bad baseline fails before any fetch
    reporter = ctx.reporter
    options = _catalog_of_registry(options)
    if options.catalog is not None:
        report, spec = _catalog(options, ctx)
    elif options.ref == VALIDATED:
        report, spec = _at_validation(options, ctx)
    else:
        with open_sources(options, [None], ctx) as sources:
            (tree,) = sources.trees
            report = sources.audit(tree)
            if ctx.record is not None:
                ctx.record.saw(sources.inputs, tree, report)
        spec = sources.inputs.spec
    report = replace(report, policy=policy or Policy())
    if accepted is not None:
        report = replace(report, accepted=accepted.keys, reasons=tuple(sorted(accepted.reasons.items())))
        for key in accepted.stale(report):
            reporter.warn(f"{accepted.path}: no finding {key} any more; drop it")
    link_base = (
        report_options.link_base or github_base(report.source.repo) or github_base(spec.source.repo if spec else None)
    )
    if report_options.group_by and report_options.format not in ("terminal", "markdown"):
        raise UsageError(f"--group-by shapes the terminal and Markdown reports, not --format {report_options.format}")
    render = renderer(report_options.format, report_options.verbose, link_base, report_options.color,
                      report_options.group_by)  # fmt: skip
    also: list[tuple[Callable[[TextIO], object], str, str]] = []
    for fmt, path in report_options.also:  # one audit, many reports
        extra = renderer(fmt, verbose=report_options.verbose, link_base=link_base)
        also.append((lambda stream, extra=extra: extra(report, stream), path, "--report"))  # type: ignore[misc]
    counted: list[tuple[int, int]] = []
    if write_baseline:  # an output of the run like the others: written with them, or not at all
        from ..findings.baseline import render_baseline

        also.append((lambda s: counted.append(render_baseline(report, s, reason)), write_baseline, "--write-baseline"))
    emit(lambda stream: render(report, stream), report_options.output, also)
    if write_baseline:
        reporter.say(_baseline_written(write_baseline, *counted[0]))
    return exit_code(report)


def _baseline_written(path: str, written: int, waiting: int) -> str:
    """What ``--write-baseline`` says it wrote, and what it awaits (nothing, where ``--reason`` gave each one)."""
    if waiting and waiting == written:
        return f"wrote {count(written, 'finding')} to {path}; give {'it' if waiting == 1 else 'each'} a reason"
    return f"wrote {count(written, 'finding')} to {path}" + (f"; {waiting} of them await a reason" if waiting else "")


def _catalog_of_registry(options: SourceOptions) -> SourceOptions:
    """``check`` with a registry whose source is a catalog (``init --catalog`` drafts one) is ``check --catalog``."""
    from ..spec.registry import load_spec

    spec_path = registry_path(options)
    if options.catalog is not None or options.repo or spec_path is None:
        return options
    catalog = load_spec(Path(spec_path)).source.catalog
    return options if catalog is None else replace(options, catalog=os.path.relpath(catalog), spec=spec_path)


def _catalog(options: SourceOptions, ctx: RunContext) -> tuple[AuditReport, Spec | None]:
    """``check --catalog DIR``: each skill against its own component's repository."""
    from ..runs.catalog import audit_catalog

    spec = catalog_registry(options)
    root = Path(options.catalog or ".")
    if ctx.record is not None:
        ctx.record.before_reading_folder(str(root), (".git",), MAX_CATALOG_FILES)
    with open_sources(options, (), ctx) as sources:
        mirrors = dict(options.mirrors)
        run = audit_catalog(root, spec, sources.judge, sources.open_repository, mirrors, sources.progress,
                            sources.jobs)  # fmt: skip
    if ctx.record is not None:
        ctx.record.saw_catalog(root, run.trees, run.report)
    for warning in run.report.warnings:  # the registry's, then a mirror older than the catalog's copies
        ctx.reporter.warn(warning)
    for line in run.skipped:
        ctx.reporter.say(line)
    if not any(skill.checked or skill.promises for skill in run.report.skills):  # a skipped skill's own links count
        raise UsageError(f"{options.catalog}: nothing could be audited (every component was skipped or unreadable)")
    return run.report, spec


def _at_validation(options: SourceOptions, ctx: RunContext) -> tuple[AuditReport, Spec | None]:
    """``check --ref validated``: each skill at the commit its card's ``validated_on`` names.

    The commit is the last first-parent commit of the default branch (the
    repository's HEAD) on or before the end of that day, UTC; the report
    names it per skill.  A skill whose card gives no date is its own error.
    """
    from ..audit.skills import audit_skill
    from ..model import SkillReport
    why = "--ref validated reads git history"
    with open_sources(replace(options, ref=None), ["HEAD"], ctx, full_history=True, git=why) as sources:
        (head,) = sources.git_trees
        reports = []
        for item in sources.inputs.skills_at(head):
            if isinstance(item, tuple):
                skill, entry = item
                day = skill.card.validated_on if skill.card else None
                if day is None or not _DAY.match(day):
                    why = f"{skill.path}: card.yaml gives no validated_on date (YYYY-MM-DD) to audit at"
                    reports.append(SkillReport(skill.name, skill.path, (), (), error=why))
                    continue
                sha = head.history.commit_on_or_before(day, head.commit.hexsha)
                if sha is None:
                    why = f"{skill.path}: no commit of the default branch on or before {day}"
                    reports.append(SkillReport(skill.name, skill.path, (), (), error=why))
                    continue
                tree = head.at(sha, ref=f"validated_on {day}")
                # The skill as it is now (its quotes, its card) against the code of the day it was validated.
                result = audit_skill(skill, entry, tree, sources.judge)
                reports.append(replace(result, source=tree.info))
            else:
                reports.append(SkillReport(item.name, item.path, (), (), error=item.error))
        if reports and not any(r.checked for r in reports):  # nothing audited is not "drift": it is exit 2
            raise UsageError(f"nothing could be audited: {reports[0].error}")
        base = replace(head.info, ref="validated_on of each skill", commit=None, date=None)
        spec = sources.inputs.spec
        return AuditReport(base, tuple(reports), spec.warnings if spec else ()), spec
