"""The Markdown report of a catalog: within a GitHub comment's size, whatever the catalog's.

The component table and the result first; then one folded section
(``<details>``) per component: each skill with drift and why, the clean
skills counted, the skipped ones with the reason; then each drifting skill's
claims and quotes, for as many skills as :data:`MAX_CHARS` leaves room.  What
had to be cut is said in one line, with where the full report is.
"""

from __future__ import annotations

from collections import Counter
from typing import Callable

from ..findings import Finding, exit_code, exit_words
from ..findings.severity import left_out, rank
from ..model import AuditReport, SkillReport
from ..text.escape import md_code, md_text
from .catalogwords import ComponentCounts, component_counts, count, drift_by_skill, repo_name, why
from .referencecounts import references_said

MAX_CHARS = 60_000  # GitHub refuses a comment over 65,536 characters; room is kept for a caller's own lines
_CUT = 400  # characters kept for the line that says what was cut


def render_catalog_markdown(report: AuditReport, detail: Callable[[SkillReport], str]) -> str:
    """The whole report as text; ``detail(skill)`` is a skill's own section (its claims and quotes)."""
    drift = drift_by_skill(report)
    rows = component_counts(report, drift)
    head = _head(report, rows, drift)
    sections = [_section(report, r, drift) for r in rows]
    out, cut_sections = head, 0
    for text in sections:
        if len(out) + len(text) + _CUT > MAX_CHARS:
            cut_sections += 1
            continue
        out += text
    details, cut_details, cut_codes = "", 0, []
    # Worst first (claims broken, quotes, paths, links): their tables are what a reader acts on.
    drifting = sorted((s for s in report.skills if s.checked and s.name in drift),
                      key=lambda s: rank([f.code for f in drift[s.name]]))  # fmt: skip
    if drifting and cut_sections == 0:
        out += "\n## Skills with drift\n"
    for skill in drifting if cut_sections == 0 else ():
        text = detail(skill)
        if len(out) + len(details) + len(text) + _CUT > MAX_CHARS:
            cut_details += 1
            cut_codes.append([f.code for f in drift[skill.name]])
            continue
        details += text
    out += details
    if cut_sections or cut_details:
        what = [count(cut_sections, "component section")] if cut_sections else []
        if cut_details:  # and by their worst: what a reader would have acted on first
            what.append(f"the claims and quotes of {count(cut_details, 'skill')} ({left_out(cut_codes)})")
        if cut_sections:
            what.append("every skill's claims and quotes")
        out += (f"\n---\n\n*Cut to stay within GitHub's comment size ({MAX_CHARS:,} characters): "
                f"{', '.join(what)}. Every finding is in the full report: add `--report json=FILE` to the "
                "same command.*\n")  # fmt: skip
    return out


def _head(report: AuditReport, rows: list[ComponentCounts], drift: dict[str, list[Finding]]) -> str:
    checked = [s for s in report.skills if s.checked]
    skipped = sum(1 for s in report.skills if s.skipped is not None)
    lines = [
        "# anchor-audit report\n\n",
        f"Audited the catalog {md_code(report.source.repo)}: each skill against its own component's repository. "
        f"{count(len(report.skills), 'skill')} in {count(len(rows), 'component')}: {len(checked)} audited, "
        f"{skipped} skipped, {sum(1 for s in report.skills if s.error)} unreadable; "
        f"**{sum(1 for s in checked if s.name in drift)} with drift**.\n\n",
        "| repository (ref) | commit | date | skills | audited | skipped | in sync | drift |\n",
        "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |\n",
    ]
    for r in rows:
        name = f"{md_text(repo_name(r.info.repo) or r.info.file)} ({md_code(r.info.ref)})"
        commit = "skipped" if r.info.skipped else md_code((r.info.commit or "-")[:9])
        lines.append(f"| {name} | {commit} | {r.info.date or '—'} | {len(r.info.skills)} | {r.audited} | "
                     f"{r.skipped} | {r.in_sync} | {r.drifting} |\n")  # fmt: skip
    lines += _result(report, drift)
    for warning in report.warnings:
        lines.append(f"\n> **warning**: {md_text(warning)}\n")
    notes = Counter(note for s in report.skills for note in s.notes)
    for note, n in notes.most_common(5):
        lines.append(f"\n> note ({count(n, 'skill')}): {md_text(note)}\n")
    if report.unlisted:
        lines.append("\nNot audited, named by no component: " + ", ".join(
            md_code(u.name) + (f" (listed in {md_code(u.listed_in)})" if u.listed_in else "") for u in report.unlisted
        ) + ".\n")  # fmt: skip
    return "".join(lines)


def _result(report: AuditReport, drift: dict[str, list[Finding]]) -> list[str]:
    """The exit code in words, the references counted, and every reason for exit 1, by kind."""
    code = exit_code(report)
    lines = [f"\n**Result: {exit_words(report, code)} (exit {int(code)}).**\n"]
    references = references_said(report)
    if references:
        lines.append(f"\n{references}.\n")
    kinds = Counter(f.rule.name for found in drift.values() for f in found)
    if kinds:
        lines.append("\nDrift: " + ", ".join(f"{n} {name}" for name, n in sorted(kinds.items())) + ".\n")
    return lines


def _section(report: AuditReport, row: ComponentCounts, drift: dict[str, list[Finding]]) -> str:
    info = row.info
    by_name = {s.name: s for s in report.skills}
    mine = [by_name[n] for n in info.skills if n in by_name]
    title = f"{md_text(repo_name(info.repo) or info.file)} ({md_code(info.ref)})"
    state = f"skipped ({count(len(mine), 'skill')})" if info.skipped else (
        f"{count(len(mine), 'skill')}, {row.drifting} with drift")  # fmt: skip
    lines = [f"\n<details><summary><b>{title}</b>: {state}</summary>\n\n"]
    if info.skipped:
        lines.append(f"Skipped: {md_text(info.skipped)}\n\n")
        lines.append(", ".join(md_code(s.name) for s in mine) + "\n")
    else:
        lines.append(f"Commit {md_code(info.commit or '-')} ({info.date}), `{info.file}`.\n\n")
        for s in mine:
            if s.error is not None:
                lines.append(f"- {md_code(s.name)}: **unreadable**: {md_text(s.error)}\n")
            elif s.name in drift:
                lines.append(f"- {md_code(s.name)}: {md_text(why(s, drift[s.name]))}\n")
        clean = [s for s in mine if s.checked and s.name not in drift]
        if clean:
            lines.append(f"\n{count(len(clean), 'clean skill')}: " + ", ".join(md_code(s.name) for s in clean) + "\n")
    lines.append("\n</details>\n")
    return "".join(lines)
