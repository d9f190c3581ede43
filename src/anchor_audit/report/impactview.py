"""Renderers for ``impact``: what a code change does to the skills, placed on the code lines of the diff."""

from __future__ import annotations

import json
from typing import Any, TextIO

from rich.text import Text

from ..findings.rules import RULES
from ..model import ChangeKind, LineRange
from ..runs.impact import Impact, ImpactReport
from ..text.escape import md_code, md_fence, md_text, printable, uri_path
from ..text.lines import split_lines
from .catalogwords import count
from .github import _data, _property
from .jsontext import dumps_indented
from .terminal import make_console


def impact_dict(report: ImpactReport) -> dict[str, Any]:
    def one(i: Impact) -> dict[str, Any]:
        code = {"path": i.path, "lines": [i.lines.start, i.lines.end] if i.lines else None} if i.path else None
        return {"skill": i.skill, "kind": i.kind, "key": i.key, "from": i.before, "to": i.after, "code": code,
                "patch": i.patch}  # fmt: skip

    return {"base": report.base, "head": report.head, "impacts": [one(i) for i in report.impacts]}


def render_impact_json(report: ImpactReport, stream: TextIO) -> None:
    stream.write(dumps_indented(impact_dict(report)) + "\n")


def _what(i: Impact) -> str:
    if i.before == i.after:
        return f"still {i.after}, but the change touches its lines"
    return f"{i.before or '(new)'} -> {i.after or '(gone)'}"


def render_impact_terminal(report: ImpactReport, stream: TextIO, color: str = "auto") -> None:
    console = make_console(stream, color=color)
    files, skills = len(report.changed), report.audited
    console.print(Text(f"impact {report.base[:12]}..{report.head[:12]}: {files} file{'s' if files != 1 else ''} "
                       f"changed, {skills} skill{'s' if skills != 1 else ''} concerned", style="bold"))  # fmt: skip
    for i in report.impacts:
        where = f" (HEAD {_at(i.path, i.lines)})" if i.path and i.lines else ""
        console.print(Text(printable(f"  {i.skill}: {i.kind} {i.key}: {_what(i)}{where}")))
    patches = sorted({i.patch for i in report.impacts if i.patch})
    if patches:  # one patch, of every skill's files: what --apply writes
        console.print(Text("healing patch (anchor-audit impact --apply writes it):", style="bold"))
    for patch in patches:
        for line in split_lines(patch):
            console.print(Text("  " + printable(line)))
    n = sum(1 for i in report.impacts if i.before != i.after)
    said = f"{count(len(report.impacts), 'impact')}, {count(n, 'status change')}"
    console.print(Text(f"{said} · exit {int(report.exit_code)}"))


def render_impact_markdown(report: ImpactReport, stream: TextIO) -> None:
    """A pull-request comment: what this change makes stale, and the patch that heals it."""
    w = stream.write
    changes = [i for i in report.impacts if i.before != i.after]
    skills = {i.skill for i in report.impacts}
    if not report.impacts:
        w(f"### anchor-audit impact\n\nThis change ({md_code(report.base[:12])}..{md_code(report.head[:12])}) "
          "touches nothing a skill relies on.\n")  # fmt: skip
        return
    quotes = {i.key for i in changes if i.kind is ChangeKind.ANCHOR}
    w(f"### anchor-audit impact\n\nThis change makes {len(quotes)} quote{'s' if len(quotes) != 1 else ''} "
      f"in {len(skills)} skill{'s' if len(skills) != 1 else ''} stale.{_heals(report)}"
      + "\n\n| skill | what | status | code in HEAD |\n| --- | --- | --- | --- |\n")  # fmt: skip
    for i in report.impacts:
        where = md_code(_at(i.path, i.lines)) if i.path and i.lines else "—"
        w(f"| {md_text(i.skill)} | {i.kind} {md_code(i.key)} | {md_text(_what(i))} | {where} |\n")
    for patch in sorted({i.patch for i in report.impacts if i.patch}):
        w("\n" + md_fence(patch.rstrip("\n"), "diff"))


# Impact's own codes (findings/rules.py): a change of status, its level that of the status it leads to as `check`
# says it; a change that touches quoted lines but leaves their status.
_STALE, _TOUCHED = "AA501", "AA502"
_WARNING_STATES = {"moved", "relocated", "unverifiable", "incomplete", "differs"}
_GOOD_STATES = {"exact", "holds", "code_verified", "exists", "doc_only", "external"}


def _finding(i: Impact) -> tuple[str, str, str, int, int]:
    """(code, level, file, first line, last line): on the code lines in HEAD, else on the skill's own line."""
    if i.before == i.after:
        code, level = _TOUCHED, "note"
    else:
        code = _STALE
        after = str(i.after) if i.after is not None else "missing"
        level = "note" if after in _GOOD_STATES else "warning" if after in _WARNING_STATES else "error"
    if i.path and i.lines:
        return code, level, i.path, i.lines.start, i.lines.end
    return code, level, i.skill_file, i.skill_line, i.skill_line


def _heals(report: ImpactReport) -> str:
    """What the patch below heals, said as it is: the moved quotes it re-anchors, and how many moved before BASE."""
    if not report.heals or not any(i.patch for i in report.impacts):
        return ""
    keys = ", ".join(md_code(key) for _, key in report.heals)
    n = len(report.heals)
    here = {(i.skill, i.key) for i in report.impacts if i.before != i.after}
    earlier = sum(1 for h in report.heals if h not in here)
    before = f"; {earlier} of them had moved before this change" if earlier else ""
    return f" The patch below re-anchors {n} moved quote{'s' if n != 1 else ''} ({keys}){before}: apply it in " \
        "the same pull request."


def render_impact_github(report: ImpactReport, stream: TextIO) -> None:
    """Annotations on the code lines of the diff, where the code author reviews (else on the skill's line)."""
    for i in report.impacts:
        code, level, path, start, end = _finding(i)
        if not path:
            continue
        title = f"{code} {RULES[code].name}: skill {i.skill}: {i.kind} {_what(i)}"
        heals = i.patch and i.after in ("moved", "relocated")
        message = f"{i.key} in skill {i.skill}: {_what(i)}" + ("; impact --apply heals it" if heals else "")
        command = {"note": "notice"}.get(level, level)
        stream.write(f"::{command} file={_property(path)},line={start},endLine={end},"
                     f"title={_property(title)}::{_data(message)}\n")  # fmt: skip


def render_impact_sarif(report: ImpactReport, stream: TextIO) -> None:
    from .. import __version__
    from .sarif import SCHEMA, SRCROOT

    results = []
    for i in report.impacts:
        code, level, path, start, end = _finding(i)
        if not path:
            continue
        region = {"startLine": start, "endLine": end}
        results.append({
            "ruleId": code, "level": level,
            "message": {"text": f"{i.key} in skill {i.skill}: {_what(i)}"},
            "locations": [{"physicalLocation": {"artifactLocation": {"uri": uri_path(path), "uriBaseId": SRCROOT},
                                                "region": region}}],
            "partialFingerprints": {"anchorAuditKey/v1": f"{i.skill}:{code}:{i.kind}:{i.key}"},
        })  # fmt: skip
    rules = [{"id": code, "name": RULES[code].name, "shortDescription": {"text": RULES[code].summary},
              "fullDescription": {"text": RULES[code].why}, "help": {"text": RULES[code].act}}
             for code in (_STALE, _TOUCHED)]  # fmt: skip
    driver = {"name": "anchor-audit", "version": __version__, "rules": rules}
    log = {"$schema": SCHEMA, "version": "2.1.0", "runs": [{"tool": {"driver": driver}, "results": results}]}
    stream.write(json.dumps(log, indent=2, sort_keys=True) + "\n")


def _at(path: str, lines: LineRange) -> str:
    """``PATH:START-END``, or ``PATH:LINE`` for one line (a condition's line, not a range of one)."""
    return f"{path}:{lines.start}" if lines.start == lines.end else f"{path}:{lines}"
