"""The JSON report: stable, byte-identical for the same inputs (docs/report-json.md; report.schema.json).

Keys are sorted and nothing depends on time or the machine, so a report can
be committed and diffed.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any, TextIO

from ..findings import Finding, counts_as_drift, exit_code, findings
from ..model import (
    AuditReport,
    Changed,
    ClaimVerdict,
    ComponentInfo,
    Contradiction,
    Evidence,
    Exact,
    FolderRename,
    Missing,
    Moved,
    PromiseKind,
    PromiseResult,
    QuoteMatch,
    Relocated,
    SkillReport,
    SourceInfo,
    SyncFacts,
    Unchecked,
    UnlistedFolder,
    ValidationDay,
    assert_never,
)
from ..model.facts import VALIDATION_RULE
from .jsontext import Streamed, write_indented

SCHEMA_VERSION = 1


def report_dict(report: AuditReport) -> dict[str, Any]:
    found = findings(report)
    by_skill: dict[str, list[Finding]] = {}
    for f in found:
        by_skill.setdefault(f.skill, []).append(f)
    return {
        "version": SCHEMA_VERSION,
        "source": source_dict(report.source),
        "skills": Streamed(_skill(s, by_skill.get(s.name, []), report) for s in report.skills),
        "summary": _summary(report, found),
        "warnings": list(report.warnings),
        **({"components": [_component(c) for c in report.components]} if report.components else {}),
        **({"unlisted": [_unlisted(u) for u in report.unlisted]} if report.unlisted else {}),
    }


def _component(info: ComponentInfo) -> dict[str, Any]:
    out: dict[str, Any] = {"file": info.file, "repo": info.repo, "ref": info.ref, "commit": info.commit,
                           "date": info.date, "skills": list(info.skills)}  # fmt: skip
    if info.skipped is not None:
        out["skipped"] = info.skipped
    return out


def _unlisted(folder: UnlistedFolder) -> dict[str, Any]:
    out: dict[str, Any] = {"name": folder.name, "listed_in": folder.listed_in, "reason": folder.reason}
    if folder.promises:
        out["promises"] = [_promise(p) for p in folder.promises]
    return out


def _sync(sync: SyncFacts) -> dict[str, Any]:
    out: dict[str, Any] = {"differs": sync.differs, "summary": sync.summary()}
    if sync.absent:
        out["absent_upstream"] = True
    if sync.matches is not None:
        out.update(matches=sync.matches, matches_date=sync.matches_date, behind=sync.behind)
    elif sync.files:
        out["searched"] = sync.searched
    if sync.catalog_date:
        out["catalog_date"] = sync.catalog_date
    return out


def _summary(report: AuditReport, found: list[Finding]) -> dict[str, Any]:
    """Everything that drives the exit code, counted: quotes and claims by status, promises by kind and status,
    the skills audited, skipped and unreadable, out-of-sync files, findings by code, accepted and drifting."""
    promises: dict[str, dict[str, int]] = {}
    for p in report.every_promise():
        promises.setdefault(p.kind.value, {}).setdefault(p.status.value, 0)
        promises[p.kind.value][p.status.value] += 1
    return {
        "anchors": report.anchor_counts(),
        "claims": report.claim_counts(),
        "card_mismatches": report.mismatch_count(),
        "promises": promises,
        "skills": _skill_counts(report),
        "out_of_sync_files": sum(len(s.out_of_sync) for s in report.skills),
        "findings": dict(sorted(Counter(f.code for f in found).items())),
        "accepted": sum(1 for f in found if f.key in report.accepted),
        "drift": sum(1 for f in found if counts_as_drift(f, report)),
        "exit_code": int(exit_code(report)),
    }


def _skill_counts(report: AuditReport) -> dict[str, int]:
    """The skills audited, skipped and unreadable; out of sync with upstream, and how; the folders no component
    names."""
    skills = report.skills
    return {
        "audited": sum(1 for s in skills if s.error is None and s.skipped is None),
        "skipped": sum(1 for s in skills if s.skipped is not None),
        "unreadable": sum(1 for s in skills if s.error is not None),
        "out_of_sync": sum(1 for s in skills if s.sync is not None and s.sync.differs),
        "absent_upstream": sum(1 for s in skills if s.sync is not None and s.sync.absent),
        "behind_upstream": sum(1 for s in skills if s.sync is not None and s.sync.matches is not None),
        "unlisted": len(report.unlisted),
    }


_PAIR = re.compile(r"\[\s+(-?\d+),\s+(-?\d+)\s+\]")


def render_json(report: AuditReport, stream: TextIO) -> None:
    """The report, written a skill at a time (a catalog's memory is one skill's dictionary, not all of them)."""
    write_indented(report_dict(report), lambda text: stream.write(_PAIR.sub(r"[\1, \2]", text)))
    stream.write("\n")  # line ranges (inside one skill, so inside one part) on one line: [442, 449]


def source_dict(info: SourceInfo) -> dict[str, Any]:
    out: dict[str, Any] = {"repo": info.repo, "ref": info.ref, "commit": info.commit, "kind": info.kind}
    if info.release:
        out["release"] = info.release
    if info.date:
        out["date"] = info.date
    return out


def _skill(skill: SkillReport, found: list[Finding], report: AuditReport) -> dict[str, Any]:
    return {
        "name": skill.name,
        "path": skill.path,
        "anchors": [_anchor(m) for m in skill.anchors],
        "claims": [_claim(c) for c in skill.claims],
        "notes": list(skill.notes),
        "promises": [_promise(p) for p in skill.promises],
        **({"error": skill.error} if skill.error is not None else {}),
        **({"source": source_dict(skill.source) if skill.source else None} if skill.source or skill.skipped else {}),
        **({"skipped": skill.skipped} if skill.skipped is not None else {}),
        **({"out_of_sync": list(skill.out_of_sync)} if skill.out_of_sync else {}),
        **({"sync": _sync(skill.sync)} if skill.sync is not None else {}),
        **({"validation_day": _validation_day(skill.validation)} if skill.validation else {}),
        **({"contradicted": [_contradiction(c) for c in skill.contradicted]} if skill.contradicted else {}),
        **({"versions_contradicted": [{"claim": v.claim, "validated_versions": list(v.specifiers), "release": v.release,
                                       "verdict": v.verdict, "line": v.line} for v in skill.versions_contradicted]}
           if skill.versions_contradicted else {}),
        **({"owners": {"names": list(skill.owners.names), "from": skill.owners.source}} if skill.owners else {}),
        **({"folder_rename": _folder_rename(skill.folder_rename)} if skill.folder_rename else {}),
        "findings": [_finding(f, report) for f in found],
    }


def _validation_day(v: ValidationDay) -> dict[str, Any]:
    return {"validated_on": v.day, "commit": v.commit, "date": v.date,
            "rule": VALIDATION_RULE if v.commit else "this source has no history"}  # fmt: skip


def _folder_rename(r: FolderRename) -> dict[str, Any]:
    return {"written": r.written, "code_has": r.code_has, "paths": [{"cited": a, "there": b} for a, b in r.paths],
            "files": list(r.files), "commit": r.commit, "date": r.day}  # fmt: skip


def _contradiction(c: Contradiction) -> dict[str, Any]:
    return {"path": c.path, "commit": c.commit, "date": c.day, "validated_on": c.validated_on, "changed": c.changed}


def _finding(f: Finding, report: AuditReport) -> dict[str, Any]:
    """A problem as SARIF and the baseline know it: its code and its fingerprint (the baseline's key)."""
    return {
        "code": f.code,
        "fingerprint": f.key,
        "file": f.file,
        "line": f.line,
        "message": f.message,
        "drift": counts_as_drift(f, report),
        **({"accepted": True} if f.key in report.accepted else {}),
    }


def _promise(item: PromiseResult) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": item.kind, "path": item.path, "status": item.status, "file": item.file,
                           "line": item.line}  # fmt: skip
    if item.detail:
        out["detail"] = item.detail
    if item.kind is PromiseKind.TESTS:
        out["tests_promised"] = item.promised
        out["tests_found"] = item.found
    if item.heal is not None:
        out["heal"] = item.heal
    return out


def _anchor(match: QuoteMatch) -> dict[str, Any]:
    out: dict[str, Any] = {
        "path": match.quote.path,
        "declared": match.quote.declared.as_list(),
        "status": match.status.value,
        "line": match.quote.skill_line,
    }
    match match:
        case Exact():
            out.update(found=match.found.as_list(), region=match.region.as_list())
        case Moved() | Relocated():
            out.update(found=match.found.as_list(), suggested=match.suggested.as_list())
            if match.region is not None:
                out["region"] = match.region.as_list()
        case Changed():
            if match.candidate is not None:
                out["candidate"] = match.candidate.as_list()
            if match.diff:
                out["diff"] = list(match.diff)
        case Missing() | Unchecked():
            pass
        case _:
            assert_never(match)
    if match.detail:
        out["detail"] = match.detail
    if isinstance(match, Relocated):
        out["found_path"] = match.found_path
    return out


def _claim(claim: ClaimVerdict) -> dict[str, Any]:
    out: dict[str, Any] = {
        "id": claim.id,
        "declared": list(claim.declared),
        "verdict": claim.verdict.value,
        "evidence": [_evidence(e) for e in claim.evidence],
    }
    if claim.mismatch:
        out["mismatch"] = claim.mismatch
    if claim.unknown_tags:
        out["unknown_tags"] = list(claim.unknown_tags)
    return out


def _evidence(item: Evidence) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": item.kind, "ref": item.ref, "ok": item.ok, "status": item.status}
    if item.detail:
        out["detail"] = item.detail
    if item.location:
        out["location"] = str(item.location)
    if item.stale:
        out["stale_on_validation_day"] = item.stale
    return out
