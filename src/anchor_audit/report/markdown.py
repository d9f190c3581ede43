"""The maintainer's report in Markdown: a summary table, then each skill's claims and quotes with links."""

from __future__ import annotations

import io
from collections import Counter
from dataclasses import dataclass
from typing import TextIO
from urllib.parse import quote

from ..findings import counts_as_drift, exit_code, exit_words, findings
from ..model import (
    AuditReport,
    Changed,
    ClaimVerdict,
    EvidenceKind,
    Exact,
    LineRange,
    Moved,
    PromiseStatus,
    QuoteColumn,
    Relocated,
    SkillReport,
    SourceKind,
    Verdict,
    quote_column,
    suggested_lines,
)
from ..text.escape import md_code, md_fence, md_text
from .catalogmarkdown import MAX_CHARS, render_catalog_markdown
from .ownerview import render_by_owner_markdown
from .referencecounts import references_said

MAX_PROMISES = 20  # citations not kept listed per skill; JSON has them all


@dataclass
class MarkdownRenderer:
    link_base: str | None = None  # https://github.com/OWNER/REPO: quotes link to their lines at the commit
    group_by: str | None = None  # "owner": one section per owner of drifting skills

    def __call__(self, report: AuditReport, stream: TextIO) -> None:
        if self.group_by == "owner":
            code = exit_code(report)
            stream.write(f"# anchor-audit report, by owner\n\nAudited {md_text(report.source.label)}. "
                         f"**Result: {exit_words(report, code)} (exit {int(code)}).**\n")  # fmt: skip
            stream.write(render_by_owner_markdown(report)[:MAX_CHARS])
            return
        if report.components:  # a catalog: grouped by component, within a comment's size
            stream.write(render_catalog_markdown(report, self._text))
            return
        w = stream.write
        src = report.source
        revision = src.commit or src.ref
        w("# anchor-audit report\n\n")
        repo = (
            f"[{md_text(self.link_base.split('github.com/', 1)[-1])}]({self.link_base})"
            if self.link_base
            else md_code(src.repo)
        )
        if src.kind is SourceKind.CATALOG:
            w(f"Audited the catalog {md_code(src.repo)}: each skill against its own component's repository.\n\n")
        elif src.kind is SourceKind.RELEASE:
            w(
                f"Audited {repo} at {md_code(src.ref)}, "
                f"read from the release wheel {md_text(src.release or '')} (not git); "
                f"links point at the tag {md_code(src.ref)}, not a commit.\n\n"
            )
        elif src.commit is None:  # --ref validated: each skill at its own commit, said in its section
            w(f"Audited {repo} at the {md_text(src.ref)}.\n\n")
        else:
            w(f"Audited {repo} at {md_code(src.ref)}, commit {md_code(revision)} ({src.date}).\n\n")
        w("| skill | quotes | exact | moved | changed | missing | not checked | claims | code_verified "
          "| broken | doc_only | unverifiable | unlinked | card mismatches |\n")  # fmt: skip
        w("| --- |" + " ---: |" * 13 + "\n")
        for skill in report.skills:
            a = Counter(quote_column(m.status) for m in skill.anchors)
            c = [x.verdict for x in skill.claims]
            cells = [
                len(skill.anchors), *(a[column] for column in QuoteColumn), len(c), c.count(Verdict.CODE_VERIFIED),
                c.count(Verdict.BROKEN), c.count(Verdict.DOC_ONLY), c.count(Verdict.UNVERIFIABLE),
                c.count(Verdict.UNLINKED),
                sum(1 for x in skill.claims if x.mismatch),
            ]  # fmt: skip
            w(f"| {md_code(skill.name)} | " + " | ".join(str(n) for n in cells) + " |\n")
        code = exit_code(report)
        found = findings(report)
        accepted = sum(1 for f in found if f.key in report.accepted)
        note = f", {accepted} known findings accepted by the baseline" if accepted else ""
        w(f"\n**Result: {exit_words(report, code)} (exit {int(code)}){note}.**\n")
        references = references_said(report)
        if references:
            w(f"\n{references}.\n")
        why = Counter(f.rule.name for f in found if counts_as_drift(f, report))
        if why:  # every reason for exit 1, by kind
            w("\nDrift: " + ", ".join(f"{n} {name}" for name, n in sorted(why.items())) + ".\n")
        for skill in report.skills:
            self._skill(w, skill, revision)

    def _text(self, skill: SkillReport) -> str:
        """A catalog skill's own section, its links at the commit of its own repository."""
        out = io.StringIO()
        self._skill(out.write, skill, (skill.source.commit or skill.source.ref) if skill.source else "", notes=False)
        return out.getvalue()

    def _skill(self, w, skill: SkillReport, revision: str, notes: bool = True) -> None:  # type: ignore[no-untyped-def]
        w(f"\n## {md_code(skill.name)}\n\n{md_code(skill.path)}\n")
        _said_of_the_skill(w, skill, notes)
        _citations_not_kept(w, skill)
        if skill.claims:
            w("\n### Claims\n\n| claim | card.yaml | verdict | evidence |\n| --- | --- | --- | --- |\n")
            for claim in skill.claims:
                verdict = claim.verdict.value
                verdict = f"**{verdict}**" if claim.verdict is Verdict.BROKEN else verdict
                if claim.mismatch:
                    verdict += f" — {md_text(claim.mismatch)}"
                declared = md_text(", ".join(claim.declared)) or "—"
                w(f"| {md_code(claim.id)} | {declared} | {verdict} | {self._evidence(claim, revision)} |\n")
        if skill.anchors:
            self._quotes(w, skill, revision)
        _suggested_fixes(w, skill)
        _quotes_not_found(w, skill)

    def _quotes(self, w, skill: SkillReport, revision: str) -> None:  # type: ignore[no-untyped-def]
        w("\n### Quotes\n\n| SKILL.md line | quote | status | at the ref | suggested |\n")
        w("| ---: | --- | --- | --- | --- |\n")
        for m in skill.anchors:
            at = "—"
            if isinstance(m, (Exact, Moved, Relocated)):  # a relocated quote is linked where it is now
                shown = str(m.location) if isinstance(m, Relocated) else str(m.found)
                at = self._link(m.location.path, m.found, revision, shown)
            healed = suggested_lines(m)
            suggested = f"`{healed.start}:{healed.end}`" if healed else "—"
            w(f"| {m.quote.skill_line} | {md_code(m.quote.key)} | {m.status.value} | {at} | {suggested} |\n")

    def _evidence(self, claim: ClaimVerdict, revision: str) -> str:
        if not claim.evidence:
            return "none registered"
        parts = []
        for e in claim.evidence:
            where = ""
            at = e.location
            if at is not None and at.lines is not None:
                rng = at.lines
                lines = f"{rng.start}" if rng.start == rng.end else f"{rng}"
                where = " at " + self._link(at.path, rng, revision, f"{at.path.rsplit('/', 1)[-1]}:{lines}")
            elif at is not None:  # a file (file_exists evidence): no lines to point at
                where = f" at {md_code(at.path)}"
            mark = "holds" if e.ok and e.kind is EvidenceKind.CONDITION else e.status
            detail = f" ({md_text(e.detail)})" if e.detail and not e.ok else ""
            parts.append(f"{e.kind} {md_code(e.ref)} {mark}{where}{detail}")
        return "; ".join(parts)

    def _link(self, path: str, rng: LineRange | None, revision: str, text: str) -> str:
        if not self.link_base or rng is None:
            return md_code(text)
        anchor = f"#L{rng.start}" if rng.start == rng.end else f"#L{rng.start}-L{rng.end}"
        target = quote(f"{self.link_base}/blob/{revision}/{path}", safe=":/@-._~") + anchor
        return f"[{md_code(text)}]({target})"


def _said_of_the_skill(w, skill: SkillReport, notes: bool) -> None:  # type: ignore[no-untyped-def]
    """What is said of the skill as a whole: its own source, an error or a skip, its sync, its card's dates, a
    folder rename, who can heal it, and (``notes``) the audit's notes."""
    if skill.source is not None:
        own = skill.source
        w(f"\nAudited against {md_text(own.repo)} at {md_code(own.ref)}, commit {md_code(own.commit or '-')}.\n")
    for label, text in (("error", skill.error), ("skipped", skill.skipped)):
        if text is not None:
            w(f"\n> **{label}**: {md_text(text)}\n")
    if skill.sync is not None and skill.sync.differs:
        files = f"; the files: {md_text(', '.join(skill.out_of_sync))}" if skill.out_of_sync else ""
        w(f"\n> **out of sync** with its repository: {md_text(skill.sync.summary(skill.source))}{files}\n")
    if skill.validation is not None:
        w(f"\n> card.yaml: {md_text(skill.validation.said)}\n")
    for said in skill.card_contradicted:
        w(f"\n> **card.yaml**: {md_text(said)}\n")
    if skill.folder_rename is not None:
        w(f"\n> **folder rename in paths**: {md_text(skill.folder_rename.said)}\n")
    if skill.owners is not None:
        w(f"\n> **who can heal it**: {md_text(skill.owners.said)}\n")
    for note in skill.notes if notes else ():
        w(f"\n> {md_text(note)}\n")


def _suggested_fixes(w, skill: SkillReport) -> None:  # type: ignore[no-untyped-def]
    moved = [m for m in skill.anchors if isinstance(m, (Moved, Relocated))]
    if moved:
        w("\n### Suggested fixes\n\n")
        for m in moved:
            old = f"{m.quote.declared.start}:{m.quote.declared.end}"
            w(f"- `SKILL.md:{m.quote.skill_line}`: {md_code(f'{old}:{m.quote.path}')} → "
              f"{md_code(f'{m.suggested.start}:{m.suggested.end}:{m.path_now}')}\n")  # fmt: skip
        w("\n`anchor-audit fix --write` applies these (and updates the registry's quote keys).\n")


def _quotes_not_found(w, skill: SkillReport) -> None:  # type: ignore[no-untyped-def]
    problems = [m for m in skill.anchors if quote_column(m.status) not in (QuoteColumn.EXACT, QuoteColumn.MOVED)]
    if problems:
        w("\n### Not found or not verified\n\n")
        for m in problems:
            w(
                f"- {md_code(m.quote.key)} (SKILL.md:{m.quote.skill_line}) "
                f"is **{m.status.value}**: {md_text(m.detail)}\n"
            )
            if isinstance(m, Changed) and m.diff:
                w("\n" + md_fence("\n".join(m.diff), "diff", indent="  "))


def _citations_not_kept(w, skill: SkillReport) -> None:  # type: ignore[no-untyped-def]
    """The prose's citations, evidence paths and test counts that do not hold (at most MAX_PROMISES)."""
    broken = [p for p in skill.promises if not p.status.ok and p.status is not PromiseStatus.UNVERIFIABLE]
    if not broken:
        return
    w("\n### Citations not kept\n\n")
    for p in broken[:MAX_PROMISES]:
        detail = f": {md_text(p.detail)}" if p.detail else ""
        w(f"- {p.kind} {md_code(p.path)} ({md_code(f'{p.file}:{p.line}')}): **{p.status}**{detail}\n")
    if len(broken) > MAX_PROMISES:
        w(f"- and {len(broken) - MAX_PROMISES} more (the JSON report lists every one)\n")
