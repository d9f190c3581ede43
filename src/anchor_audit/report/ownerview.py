"""``--group-by owner``: one section per person or team who can heal skills at their source.

Each drifting skill is listed under each of its owners (co-owners each see it), with why it drifts and its
first findings; the skills whose owners nobody knows come last, under "no owner known".  What is not drift
is counted in one line, as in the other views.
"""

from __future__ import annotations

from dataclasses import replace

from rich.console import Console
from rich.text import Text

from ..findings import Finding
from ..model import AuditReport, SkillReport
from ..text.escape import md_code, md_text, printable
from .catalogwords import count, drift_by_skill, why

NOBODY = "no owner known"
SHOWN_FINDINGS = 3  # a skill's findings listed under its owner; the rest counted


def owner_groups(report: AuditReport) -> list[tuple[str, list[tuple[SkillReport, list[Finding]]]]]:
    """(owner, their drifting skills with their drift), owners with most skills first, then by name; nobody last."""
    drift = drift_by_skill(report)
    groups: dict[str, list[tuple[SkillReport, list[Finding]]]] = {}
    for skill in report.skills:
        if skill.name not in drift:
            continue
        for owner in skill.owners.names if skill.owners else (NOBODY,):
            groups.setdefault(owner, []).append((skill, drift[skill.name]))
    known = sorted((o for o in groups if o != NOBODY), key=lambda o: (-len(groups[o]), o.lower()))
    return [(o, groups[o]) for o in known + ([NOBODY] if NOBODY in groups else [])]


def render_by_owner(console: Console, report: AuditReport) -> None:
    groups = owner_groups(report)
    for owner, skills in groups:
        console.print()
        console.print(Text(printable(f"{owner}: {count(len(skills), 'skill')} with drift"), style="bold"))
        for skill, found in skills:
            source = f" ({skill.owners.source})" if skill.owners else ""
            console.print(Text(printable(f"  {skill.name}: {why(replace(skill, owners=None), found)}{source}")))
            for f in found[:SHOWN_FINDINGS]:
                console.print(Text(printable(f"    {f.code} {f.file}:{f.line}: {f.message}"), style="dim"))
            if len(found) > SHOWN_FINDINGS:
                console.print(Text(f"    and {count(len(found) - SHOWN_FINDINGS, 'more finding')}", style="dim"))
    clean = sum(1 for s in report.skills if s.checked) - len({s.name for _, group in groups for s, _ in group})
    console.print()
    console.print(Text(f"{count(clean, 'skill')} without drift"))


def render_by_owner_markdown(report: AuditReport) -> str:
    out = []
    for owner, skills in owner_groups(report):
        title = md_code(owner) if owner != NOBODY else NOBODY  # a mention is code: the report pings nobody
        out.append(f"\n## {title}: {count(len(skills), 'skill')} with drift\n\n")
        for skill, found in skills:
            source = f" ({md_text(skill.owners.source)})" if skill.owners else ""
            out.append(f"- {md_code(skill.name)}: {md_text(why(replace(skill, owners=None), found))}{source}\n")
            for f in found[:SHOWN_FINDINGS]:
                out.append(f"  - {f.code} {md_code(f'{f.file}:{f.line}')}: {md_text(f.message)}\n")
            if len(found) > SHOWN_FINDINGS:
                out.append(f"  - and {count(len(found) - SHOWN_FINDINGS, 'more finding')}\n")
    return "".join(out)
