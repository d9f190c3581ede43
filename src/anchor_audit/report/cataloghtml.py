"""``check --catalog --format html``: a page a maintainer reads, not a dump.

First the summary, then one row per component with its findings counted by severity (claims broken, quotes
and line citations, paths, names and commands, links; :mod:`anchor_audit.findings.severity`) and each skip's
cause said once, then the skills with drift, worst first, each a closed section: its findings by code, worst
first (the first :data:`EXAMPLES` of each and how many), its claims, the quotes that are not exact; what holds
is counted, not listed.  The skills that hold are named in one line;
the skipped ones are counted by their component.  The JSON report lists everything.
"""

from __future__ import annotations

from collections import Counter
from typing import Callable

from ..findings import Finding, counts_as_drift, findings
from ..findings.severity import SEVERITY, rank, severity
from ..model import AuditReport, Exact, QuoteMatch, SkillReport
from .catalogwords import component_counts, count, drift_by_skill, repo_name, why
from .htmlpage import h, status, table

EXAMPLES = 3  # findings shown of each code of a skill (the JSON report lists them all)

QuoteView = Callable[[QuoteMatch], str]  # a quote as the page shows it
ClaimsView = Callable[[SkillReport], str]  # a skill's claims as the page shows them


def catalog_body(report: AuditReport, quote: QuoteView, claims: ClaimsView) -> list[str]:
    """The page's body after its summary: components, the skills with drift worst first, the rest counted."""
    drift = drift_by_skill(report)
    every = findings(report)
    out = [_components(report, drift, every), *_skips(report)]
    drifting = sorted((s for s in report.skills if s.skipped is None and s.name in drift),  # unreadable ones too
                      key=lambda s: rank([f.code for f in drift[s.name]]))  # fmt: skip
    if drifting:
        rows = [[f'<a href="#skill-{i}">{h(s.name)}</a>', h(why(s, drift[s.name]))] for i, s in enumerate(drifting)]
        out.append(f"<h3>Skills with drift ({len(drifting)}), worst first</h3>" + table(["skill", "why"], rows))
    by_skill: dict[str, list[Finding]] = {}
    for f in every:
        by_skill.setdefault(f.skill, []).append(f)
    out += [_skill(f"skill-{i}", s, by_skill.get(s.name, []), report, quote, claims) for i, s in enumerate(drifting)]
    holding = [s.name for s in report.skills if s.checked and s.name not in drift]
    if holding:
        out.append(f"<h3>Skills that hold ({len(holding)})</h3><p>{h(', '.join(holding))}</p>")
    return out


def _components(report: AuditReport, drift: dict[str, list[Finding]], every: list[Finding]) -> str:
    classes = [name for name, _ in SEVERITY]
    rows = []
    for c in component_counts(report, drift):
        mine = set(c.info.skills)
        by_class = Counter(severity(f.code) for f in every if f.skill in mine and counts_as_drift(f, report))
        said = "skipped" if c.info.skipped else f"{(c.info.commit or '-')[:9]} {c.info.date or ''}"
        rows.append([h(repo_name(c.info.repo) or c.info.file), h(c.info.ref), h(said), str(len(c.info.skills)),
                     str(c.audited), str(c.drifting), *(str(by_class[i]) for i in range(len(classes)))])  # fmt: skip
    numeric = tuple(range(3, 6 + len(classes)))
    return "<h3>Components</h3>" + table(
        ["component", "ref", "commit", "skills", "audited", "drifting", *classes], rows, numeric=numeric
    )


def _skips(report: AuditReport) -> list[str]:
    """Each cause of a skip once, with the components it skipped."""
    causes: dict[str, list[str]] = {}
    for c in report.components:
        if c.skipped:
            causes.setdefault(c.skipped, []).append(repo_name(c.repo) or c.file)
    return [f"<blockquote><b>skipped</b> ({count(len(names), 'component')}: {h(', '.join(names))}): {h(cause)}"
            "</blockquote>" for cause, names in causes.items()]  # fmt: skip


def _skill(anchor: str, skill: SkillReport, found: list[Finding], report: AuditReport, quote: QuoteView,
           claims: ClaimsView) -> str:  # fmt: skip
    out = [f'<section class="skill" id="{anchor}"><details>',
           f'<summary><h2>{h(skill.name)}</h2> {status("drift")} <span class="path">{h(skill.path)}</span></summary>']
    if skill.source is not None:
        own = skill.source
        out.append(f'<p class="muted">against {h(own.repo)} at {h(own.ref)}, commit {h(own.commit or "-")}</p>')
    said = [("error", skill.error), ("card.yaml", skill.validation.said if skill.validation else None),
            ("who can heal it", skill.owners.said if skill.owners else None)]  # fmt: skip
    said += [("card.yaml", line) for line in skill.card_contradicted]
    out += [f"<blockquote><b>{h(label)}</b>: {h(text)}</blockquote>" for label, text in said if text]
    drift = [f for f in found if counts_as_drift(f, report)]
    if drift:
        out.append(f'<h3>Findings</h3><ul class="findings">{_grouped(drift)}</ul>')
    if skill.claims:
        out.append(claims(skill))
    off = [m for m in skill.anchors if not isinstance(m, Exact)]
    if skill.anchors:
        out.append(f"<h3>Quotes</h3><p>{len(skill.anchors) - len(off)} of {len(skill.anchors)} exact</p>")
        out.extend(quote(m) for m in off)
    if skill.promises:  # those that fail are findings above
        bad = sum(1 for p in skill.promises if not p.status.ok)
        out.append(f"<h3>References</h3><p>{len(skill.promises) - bad} of {len(skill.promises)} hold</p>")
    return "\n".join(out) + "\n</details></section>"


def _grouped(drift: list[Finding]) -> str:
    """A skill's findings by code, worst first: the first :data:`EXAMPLES` of each, and how many more."""
    by_code: dict[str, list[Finding]] = {}
    for f in sorted(drift, key=lambda f: (severity(f.code), f.code)):
        by_code.setdefault(f.code, []).append(f)
    out = []
    for code, found in by_code.items():
        items = "".join(f'<li>{h(f.message)} <span class="muted">({h(f.file)}:{f.line})</span></li>'
                        for f in found[:EXAMPLES])  # fmt: skip
        more = f'<li class="muted">and {len(found) - EXAMPLES} more</li>' if len(found) > EXAMPLES else ""
        head = f"<code>{h(code)}</code> {h(found[0].rule.name)} &times; {len(found)}"
        out.append(f"<li>{head}<ul>{items}{more}</ul></li>")
    return "".join(out)
