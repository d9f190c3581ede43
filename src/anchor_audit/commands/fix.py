"""``anchor-audit fix``: heal what only moved; report what needs a person."""

from __future__ import annotations

import json
import sys
from typing import TextIO

from ..errors import UsageError
from ..escape import one_line, printable
from ..model import ExitCode
from ..textlines import unified_diff
from .common import open_sources
from .context import RunContext
from .options import SourceOptions


def fix(
    options: SourceOptions,
    ctx: RunContext,
    refresh_quotes: bool = False,
    update_card: bool = False,
    write: bool = False,
    out: TextIO | None = None,
    fmt: str = "terminal",
) -> ExitCode:
    """Heal moved quotes (and with ``update_card`` card.yaml); a unified diff, or with ``write`` the files;
    ``fmt`` json: the same as data (each file with its diff, what is healed, noted and left)."""
    from ..fix import plan_fix
    from ..fsutil import apply_edits

    out = out or sys.stdout
    if options.in_repo:
        raise UsageError("fix edits skill files on disk; it cannot be used with --in-repo")
    with open_sources(options, [None], ctx) as sources:
        (tree,) = sources.trees
        report = sources.audit(tree)
        plan = plan_fix(report, sources.inputs.disk_skills, sources.inputs.spec, tree, refresh_quotes, update_card)
    code = ExitCode.DRIFT if plan.left or (plan.edits and not write) else ExitCode.OK
    diffs = [unified_diff(e.before.decode("utf-8-sig"), e.after.decode("utf-8-sig"), str(e.path)) for e in plan.edits]
    written = [str(path) for path in apply_edits(plan.edits)] if write else []
    if fmt == "json":
        changes = [{"path": str(e.path), "diff": d} for e, d in zip(plan.edits, diffs, strict=True)]
        data = {"files": changes, "healed": plan.done, "notes": plan.notes, "left": plan.left, "written": written,
                "exit_code": int(code)}  # fmt: skip
        out.write(json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n")
        return code
    if write:
        for path in written:
            out.write(f"wrote {one_line(path)}\n")
    else:
        for diff in diffs:  # the diff shows a skill's text: its control characters as escapes, its lines kept
            out.write(printable(diff, keep="\t\n\r"))
    verb = "" if write else "would fix "
    for line in plan.done:
        out.write(f"{verb}{one_line(line)}\n")
    for line in plan.notes:
        out.write(f"note: {one_line(line)}\n")
    for line in plan.left:
        out.write(f"left for a person: {one_line(line)}\n")
    files = len(plan.edits)
    state = "written" if write else "dry run, nothing written (--write applies)"
    out.write(f"fix: {files} file{'s' if files != 1 else ''} to change, {state}; {len(plan.left)} left for a person\n")
    return code
