"""``--format html``: a check, a catalog or a matrix as one self-contained page (see htmlpage.py).

The page opens with the summary (the same words as the terminal's last line).  A catalog's page goes on as
cataloghtml.py writes it (components, the skills with drift worst first, what holds counted).  A matrix's shows
the heat map and each claim's range.  Then one section per skill: its findings, its claims with their
evidence, each quote with the code at the ref (the diff to the closest code where it changed), and every
reference its prose makes.  A skill with drift is open; one that holds is folded.
"""

from __future__ import annotations

from typing import TextIO

from ..findings import Finding, counts_as_drift, exit_code, findings
from ..model import (
    AuditReport,
    Changed,
    ClaimVerdict,
    Exact,
    Moved,
    QuoteMatch,
    Relocated,
    SkillReport,
    suggested_lines,
)
from ..runs.matrix import CatalogMatrix, Matrix
from .cataloghtml import catalog_body
from .catalogwords import drift_by_skill
from .htmlpage import diff_block, h, page, pre, status, table
from .matrixsvg import matrix_svg
from .matrixview import LEGEND, each, letter
from .terminal import summary_line

MAX_REFERENCES = 400  # per skill; JSON lists them all


def render_html(report: AuditReport, stream: TextIO) -> None:
    """``check --format html`` (and ``check --catalog``)."""
    code = exit_code(report)
    body = ["<h1>anchor-audit report</h1>", f'<p class="muted">{h(_audited(report))}</p>',
            f'<p class="summary{" drift" if int(code) == 1 else ""}">{h(summary_line(report))}</p>']  # fmt: skip
    if report.warnings:
        body.append("<ul>" + "".join(f"<li>{h(w)}</li>" for w in report.warnings) + "</ul>")
    if report.components:  # a catalog: worst first, what holds counted
        body.extend(catalog_body(report, _quote, _claims))
    else:
        body.append(_skills_table(report))
        body.extend(_skill_sections(report))
    stream.write(page("anchor-audit report", "\n".join(body)))


def render_matrix_html(shown: Matrix | CatalogMatrix, stream: TextIO, color: str = "auto") -> None:
    """``matrix --format html``: the heat map, each claim's range, then the skills at the newest release (for a
    catalog, all of it per component)."""
    body = ["<h1>anchor-audit matrix</h1>"]
    if isinstance(shown, CatalogMatrix):
        body.append(f'<p class="muted">the catalog {h(shown.catalog)}: {len(shown.matrices)} components read at '
                    "their release tags</p>")  # fmt: skip
        body += [f"<blockquote>{h(line)}</blockquote>" for line in shown.skipped]
    for i, matrix in enumerate(each(shown)):
        body += _matrix_part(matrix, heading=isinstance(shown, CatalogMatrix), ids=f"c{i}")
    title = shown.catalog if isinstance(shown, CatalogMatrix) else shown.repo
    stream.write(page(f"anchor-audit matrix: {title}", "\n".join(body)))


def _matrix_part(matrix: Matrix, heading: bool, ids: str) -> list[str]:
    releases = matrix.releases
    body = [f"<h2>{h(matrix.repo)}</h2>"] if heading else []
    body.append(f'<p class="muted">{h(matrix.repo)}: {h(len(releases))} releases, {h(matrix.span)}</p>')
    if releases:
        body.append(f"<figure>{matrix_svg(matrix)}<figcaption>Each claim at each release tag.</figcaption></figure>")
        rows = []
        for row in (r for r in matrix.rows if r.kind == "claim"):
            held = " or ".join(row.holds_for(releases)) or "no release"
            broke = row.first_break(releases)
            rows.append([h(row.skill), f"<code>{h(row.key)}</code>", f"<code>{h(held)}</code>", h(broke or "—")])
        body.append(table(["skill", "claim", "holds for", "broken from"], rows))
        body.append(_rows_table(matrix))
    if matrix.latest is not None:
        body.append(f"<h3>At {h(releases[-1].tag)}</h3>")
        body.extend(_skill_sections(matrix.latest, ids=f"{ids}-skill"))
    return body


def _rows_table(matrix: Matrix) -> str:
    """Every row (claims, conditions, quotes, references), one letter per release, its status on hover."""
    tags = [r.tag for r in matrix.releases]
    rows = []
    for row in matrix.rows:
        cells = [f'<span class="mono status-{h(c.replace(" ", "_"))}" title="{h(c)}">{h(letter(c, row.kind))}</span>'
                 for c in row.cells]  # fmt: skip
        rows.append([h(row.kind), f"<code>{h(row.key)}</code>", *cells])
    return "<h3>Every row</h3>" + table(["kind", "row", *tags], rows, css="grid") + f'<p class="muted">{h(LEGEND)}</p>'


def _audited(report: AuditReport) -> str:
    src = report.source
    if report.components:
        return f"the catalog {src.repo}: each skill against its own component's repository"
    at = f", commit {src.commit}" if src.commit else ""
    return f"Audited {src.repo} at {src.ref}{at}" + (f" ({src.date})" if src.date else "")


def _skills_table(report: AuditReport) -> str:
    drifting = drift_by_skill(report)
    rows = []
    for i, skill in enumerate(report.skills):
        verdicts = [c.verdict.value for c in skill.claims]
        broken = sum(1 for v in verdicts if v == "broken")
        moved = sum(1 for m in skill.anchors if isinstance(m, (Moved, Relocated)))
        rows.append([f'<a href="#skill-{i}">{h(skill.name)}</a>', str(len(skill.anchors)), str(moved),
                     str(len(skill.claims)), str(broken), str(len(drifting.get(skill.name, [])))])  # fmt: skip
    return "<h3>Skills</h3>" + table(["skill", "quotes", "moved", "claims", "broken", "drift findings"], rows,
                                      numeric=(1, 2, 3, 4, 5))  # fmt: skip


def _skill_sections(report: AuditReport, ids: str = "skill") -> list[str]:
    by_skill: dict[str, list[Finding]] = {}
    for f in findings(report):
        by_skill.setdefault(f.skill, []).append(f)
    out = []
    for i, skill in enumerate(report.skills):
        mine = by_skill.get(skill.name, [])
        drift = any(counts_as_drift(f, report) for f in mine)
        out.append(_skill(f"{ids}-{i}", skill, mine, drift))
    return out


def _skill(anchor: str, skill: SkillReport, found: list[Finding], drift: bool) -> str:
    out = [f'<section class="skill" id="{anchor}"><details{" open" if drift else ""}>',
           f'<summary><h2>{h(skill.name)}</h2> {status("drift" if drift else "holds")} '
           f'<span class="path">{h(skill.path)}</span></summary>']  # fmt: skip
    if skill.source is not None:
        own = skill.source
        out.append(f'<p class="muted">against {h(own.repo)} at {h(own.ref)}, commit {h(own.commit or "-")}</p>')
    said = [("error", skill.error), ("skipped", skill.skipped)]
    said += [("card.yaml", line) for line in ([skill.validation.said] if skill.validation else [])]
    said += [("card.yaml", line) for line in skill.card_contradicted]
    said += [("folder rename in paths", skill.folder_rename.said if skill.folder_rename else None),
             ("who can heal it", skill.owners.said if skill.owners else None)]  # fmt: skip
    said += [("note", note) for note in skill.notes]
    out += [f"<blockquote><b>{h(label)}</b>: {h(text)}</blockquote>" for label, text in said if text]
    if found:
        out.append("<h3>Findings</h3><ul class=\"findings\">" + "".join(
            f'<li><code>{h(f.code)}</code> <span class="level-{h(f.rule.level)}">{h(f.rule.name)}</span>: '
            f'{h(f.message)} <span class="muted">({h(f.file)}:{f.line})</span></li>' for f in found) + "</ul>")
    if skill.claims:
        out.append(_claims(skill))
    if skill.anchors:
        out.append("<h3>Quotes</h3>")
        out.extend(_quote(m) for m in skill.anchors)
    if skill.promises:
        out.append("<h3>References</h3>" + _references(skill))
    return "\n".join(out) + "\n</details></section>"


def _claims(skill: SkillReport) -> str:
    rows = [_claim_row(c) for c in skill.claims]
    return "<h3>Claims</h3>" + table(["claim", "card.yaml", "verdict", "evidence"], rows)


def _claim_row(claim: ClaimVerdict) -> list[str]:
    verdict = status(claim.verdict.value) + (f"<br>{h(claim.mismatch)}" if claim.mismatch else "")
    evidence = "<ul>" + "".join(
        f"<li>{h(e.kind)} <code>{h(e.ref)}</code> {status(str(e.status))}"
        + (f' <span class="muted">at {h(e.location)}</span>' if e.location else "")
        + (f"<br>{h(e.detail)}" if e.detail and not e.ok else "") + "</li>"
        for e in claim.evidence
    ) + "</ul>" if claim.evidence else '<span class="muted">none registered</span>'  # fmt: skip
    return [f"<code>{h(claim.id)}</code>", h(", ".join(claim.declared)) or "—", verdict, evidence]


def _quote(m: QuoteMatch) -> str:
    quote = m.quote
    where = f" → at the ref {h(m.location)}" if isinstance(m, (Exact, Moved, Relocated)) else ""
    healed = suggested_lines(m)
    fix = f' <span class="muted">(fix writes {healed.start}:{healed.end})</span>' if healed else ""
    head = (f'<div class="quote" data-status="{h(m.status.value)}"><div class="quote-head">'
            f"<code>{h(quote.key)}</code> {status(m.status.value)}{where}{fix} "
            f'<span class="muted">(SKILL.md:{quote.skill_line})</span></div>')  # fmt: skip
    body = f'<p class="muted">{h(m.detail)}</p>' if m.detail and not isinstance(m, Exact) else ""
    if isinstance(m, Changed) and m.diff:
        return head + body + diff_block(m.diff) + "</div>"
    return head + body + pre("\n".join(quote.body)) + "</div>"


def _references(skill: SkillReport) -> str:
    ordered = sorted(skill.promises, key=lambda p: p.status.ok)  # the ones not kept first
    rows = [[h(p.kind), f"<code>{h(p.path)}</code>", status(p.status.value), h(f"{p.file}:{p.line}"),
             h(p.detail)] for p in ordered[:MAX_REFERENCES]]  # fmt: skip
    more = len(ordered) - MAX_REFERENCES
    tail = f'<p class="muted">and {more} more (the JSON report lists them all)</p>' if more > 0 else ""
    return table(["kind", "reference", "status", "where", "detail"], rows) + tail
