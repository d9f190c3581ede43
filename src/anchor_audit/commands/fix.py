"""``anchor-audit fix``: heal what only moved; report what needs a person."""

from __future__ import annotations

import argparse
import difflib
import sys

from ..errors import UsageError
from ..model import ExitCode
from ..textlines import split_lines_keepends
from .common import audit_args


def cmd_fix(args: argparse.Namespace) -> ExitCode:
    """``anchor-audit fix``: heal what only moved; report what needs a person."""
    from ..fix import plan_fix
    from ..fsutil import apply_edits

    if args.in_repo:
        raise UsageError("fix edits skill files on disk; it cannot be used with --in-repo")
    inputs, tree, report = audit_args(args)
    plan = plan_fix(report, inputs.disk_skills, inputs.spec, tree, args.refresh_quotes, args.update_card)
    out = sys.stdout
    if args.write:
        apply_edits(plan.edits)
    else:
        for edit in plan.edits:
            out.writelines(
                difflib.unified_diff(
                    split_lines_keepends(edit.before.decode("utf-8-sig")),
                    split_lines_keepends(edit.after.decode("utf-8-sig")),
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
