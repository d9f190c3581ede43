"""JUnit XML: one test case per quote and per claim, for CI test panes."""

from __future__ import annotations

from typing import TextIO
from xml.etree import ElementTree as ET

from ..findings import Family, Finding, counts_as_drift, findings
from ..model import AnchorStatus, AuditReport, SkillReport, Verdict
from ..text.escape import xml_text

Cases = list[tuple[str, str, bool]]  # (group, name, whether it could not be verified)
BySubject = dict[tuple[str, str], list[Finding]]  # (skill, subject) -> its findings


def render_junit(report: AuditReport, stream: TextIO) -> None:
    by_subject: BySubject = {}
    for f in findings(report):
        subject = f.subject.split(":")[0] if f.code == "AA204" else f.subject
        by_subject.setdefault((f.skill, subject), []).append(f)
    totals = {"tests": 0, "failures": 0, "skipped": 0}
    written: list[str] = []  # each suite as text once it is made: a catalog's memory is one suite's elements
    for skill in report.skills:
        suite = ET.Element("testsuite", name=xml_text(skill.name))
        counts = {"tests": 0, "failures": 0, "skipped": 0}
        for group, name, unverifiable in _cases(skill, by_subject, report):
            case = ET.SubElement(suite, "testcase", classname=xml_text(f"{skill.name}.{group}"), name=xml_text(name))
            counts["tests"] += 1
            said = _outcome(case, by_subject.get((skill.name, name), []), unverifiable, report)
            if said:
                counts[said] += 1
        for key, value in counts.items():
            suite.set(key, str(value))
            totals[key] += value
        ET.indent(suite, level=1)  # as ET.indent of the whole document would: suites two spaces in
        written.append(ET.tostring(suite, encoding="unicode"))
    suites = ET.Element("testsuites", {"name": "anchor-audit", **{key: str(value) for key, value in totals.items()}})
    head = ET.tostring(suites, encoding="unicode")
    body = head if not written else head[:-3] + ">" + "".join("\n  " + text for text in written) + "\n</testsuites>"
    stream.write('<?xml version="1.0" encoding="UTF-8"?>\n' + body + "\n")


def _cases(skill: SkillReport, by_subject: BySubject, report: AuditReport) -> Cases:
    """A skill's test cases: the skill as a whole where something is said of it, each quote, each claim, and each
    promise that fails the run (a test count, a missing path): every exit 1 shows here."""
    cases: Cases = [
        ("skill", subject, False) for subject in ("skill", "source", "sync") if by_subject.get((skill.name, subject))
    ]
    cases += [("quotes", m.quote.key, m.status is AnchorStatus.UNVERIFIABLE) for m in skill.anchors]
    cases += [("claims", c.id, c.verdict in (Verdict.UNVERIFIABLE, Verdict.UNLINKED)) for c in skill.claims]
    promised = sorted({s for (name, s), fs in by_subject.items() if name == skill.name and any(
        f.family is Family.PROMISE and counts_as_drift(f, report) for f in fs)})  # fmt: skip
    return cases + [("promises", subject, False) for subject in promised]


def _outcome(case: ET.Element, said: list[Finding], unverifiable: bool, report: AuditReport) -> str | None:
    """A case's skip or failure element, from its findings that drift; which of the two it is, if either."""
    drift = [f for f in said if f.drift or counts_as_drift(f, report)]
    accepted = [f for f in drift if f.key in report.accepted]
    open_findings = [f for f in drift if f.key not in report.accepted]
    if unverifiable or (accepted and not open_findings):
        reason = "accepted in the baseline" if accepted and not open_findings else "could not be verified"
        ET.SubElement(case, "skipped", message=reason)
        return "skipped"
    if open_findings:
        first = open_findings[0]
        failure = ET.SubElement(case, "failure", message=xml_text(first.message), type=first.code)
        lines = [f"{f.code} {f.file}:{f.line}: {f.message}" for f in open_findings]
        owners = f"\nwho can heal it: {first.owners}" if first.owners else ""
        failure.text = xml_text("\n".join(lines) + owners)
        return "failures"
    return None
