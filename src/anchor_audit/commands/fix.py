"""``anchor-audit fix``: heal what only moved; report what needs a person."""

from __future__ import annotations

import json
import sys
from typing import TextIO

from ..errors import UsageError
from ..model import ExitCode
from ..text.escape import one_line, printable
from ..text.lines import unified_diff
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
    from ..text.fsutil import apply_edits

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


def fix_catalog(
    options: SourceOptions,
    ctx: RunContext,
    refresh_quotes: bool = False,
    update_card: bool = False,
    write: bool = False,
    output_dir: str | None = None,
    out: TextIO | None = None,
    fmt: str = "terminal",
) -> ExitCode:
    """``fix --catalog DIR``: one patch per upstream repository, in its own paths, made against the component's
    ref; to stdout, or with ``output_dir`` as ``OWNER-REPO.patch`` files and ``summary.md``.  Never writes
    inside the catalog."""
    from pathlib import Path

    from ..runs.catalogfix import plan_catalog_fix
    from .common import catalog_registry

    out = out or sys.stdout
    if write:
        raise UsageError("fix --catalog never writes inside the catalog (its sync would undo it): the patches go "
                         "to stdout, or to --output-dir DIR, for each upstream repository to apply")  # fmt: skip
    spec = catalog_registry(options)
    with open_sources(options, (), ctx) as sources:
        root, mirrors = Path(options.catalog or "."), dict(options.mirrors)
        planned = plan_catalog_fix(root, spec, sources.judge, sources.open_repository, mirrors, refresh_quotes,
                                   update_card, sources.progress, since=fmt == "issue")  # fmt: skip
    for line in planned.skipped:
        ctx.reporter.say(line)
    patches = planned.patches
    code = ExitCode.DRIFT if any(p.patch or p.left for p in patches) else ExitCode.OK
    if fmt == "json":
        data = {"repositories": [{"repo": p.repo, "ref": p.ref, "commit": p.commit, "patch": p.patch,
                                  "file": p.file_name if p.patch else None, "healed": p.healed, "left": p.left,
                                  "notes": p.notes} for p in patches], "exit_code": int(code)}  # fmt: skip
        out.write(json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n")
    issues = _issues(patches) if fmt == "issue" else {}
    if output_dir is not None:
        _write_patches(Path(output_dir), patches, issues)
    elif fmt == "issue":
        out.write("\n".join(issues.values()))
    if fmt == "terminal":  # the repositories with something to heal first; the others after, a line or two each
        for p in sorted(patches, key=lambda p: not p.patch):
            out.write(_summary(p, output_dir))
            if output_dir is None and p.patch:
                out.write(printable(p.patch, keep="\t\n\r"))
        total = sum(p.files for p in patches)
        where = f"in {output_dir}" if output_dir else "above"
        repos = sum(1 for p in patches if p.patch)
        out.write(f"fix --catalog: {total} upstream file{'s' if total != 1 else ''} to change in {repos} "
                  f"repositor{'ies' if repos != 1 else 'y'}, patches {where}; nothing written in the catalog; "
                  f"{sum(len(p.left) for p in patches)} left for a person\n")  # fmt: skip
    return code


def _summary(p, output_dir: str | None) -> str:  # type: ignore[no-untyped-def]
    """A repository's lines: ``# OWNER/REPO @ REF (COMMIT)``, then what its patch heals and what it cannot, each a
    ``#`` comment, which ``git apply`` skips."""
    at = f" ({(p.commit or '')[:12]})" if p.commit else ""
    file = f": {p.file_name}" if output_dir and p.patch else ""
    lines = [f"# {one_line(p.repo)} @ {one_line(p.ref)}{at}{file}"]
    lines += [f"#   heals {one_line(line)}" for line in p.healed]
    from ..runs.catalogfix import AGAINST_UPSTREAM

    against = [n for n in p.notes if n.endswith(AGAINST_UPSTREAM)] if not p.patch else []
    lines += [f"#   note: {one_line(line)}" for line in p.notes if line not in against]
    if against:  # what a patch would be made against, where there is none: counted, not listed
        lines.append(f"#   {len(against)} cop{'ies' if len(against) != 1 else 'y'} out of sync with upstream; no patch "
                     "here (summary.md and --format json list them)")  # fmt: skip
    lines += [f"#   left for a person: {one_line(line)}" for line in p.left]
    return "\n".join(lines) + "\n"


def _summary_markdown(patches) -> str:  # type: ignore[no-untyped-def]
    """summary.md: per repository, its patch and how to apply it, what it heals, what is left for a person."""
    from ..text.escape import md_code, md_text

    out = ["# anchor-audit fix --catalog: patches for the upstream repositories\n"]
    for p in patches:
        at = f" ({md_code((p.commit or '')[:12])})" if p.commit else ""
        out.append(f"\n## {md_text(p.repo)} @ {md_code(p.ref)}{at}\n")
        if p.patch:
            out.append(f"\n{md_code(p.file_name)}: {p.files} file{'s' if p.files != 1 else ''}; `git apply` it in "
                       "that repository at that commit.\n")  # fmt: skip
        for title, lines in (("Heals", p.healed), ("Notes", p.notes), ("Left for a person", p.left)):
            if lines:
                out.append(f"\n{title}:\n\n" + "".join(f"- {md_text(line)}\n" for line in lines))
    return "".join(out)


def _issues(patches) -> dict[str, str]:  # type: ignore[no-untyped-def]
    """OWNER-REPO.issue.md -> the tracking-issue body, for each repository with drift or a patch."""
    import io

    from ..report.issue import render_issue

    out = {}
    for p in patches:
        if p.patch or p.left:
            buffer = io.StringIO()
            render_issue(p.repo, p.ref, p.commit, p.skills, p.patch, p.left, p.file_name, buffer, p.since)
            out[p.issue_file] = buffer.getvalue()
    return out


def _write_patches(folder, patches, issues: dict[str, str]) -> None:  # type: ignore[no-untyped-def]
    """Every patch, issue body and summary.md written together, or none (one transaction)."""
    from ..text.fsutil import WriteFailed, write_all

    files = [(folder / p.file_name, p.patch.encode("utf-8")) for p in patches if p.patch]
    files += [(folder / name, body.encode("utf-8")) for name, body in issues.items()]
    files.append((folder / "summary.md", _summary_markdown(patches).encode("utf-8")))
    try:
        folder.mkdir(parents=True, exist_ok=True)
        write_all(files, follow_links=False)  # names chosen here: a link already in the folder is replaced
    except (OSError, WriteFailed) as exc:
        why = getattr(exc, "strerror", None) or exc
        raise UsageError(f"--output-dir {folder}: cannot write: {why}; nothing written") from None
