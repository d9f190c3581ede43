"""Text as the protocol counts it: positions in UTF-16 code units, ranges of findings, edits between two texts."""

from __future__ import annotations

import difflib

from lsprotocol import types

from ..findings import Finding
from ..text.lines import split_lines_keepends


def utf16(line: str, index: int) -> int:
    """The UTF-16 column of ``line[index]`` (the protocol's default position encoding)."""
    return len(line[:index].encode("utf-16-le")) // 2


def line_range(lines: list[str], number: int, text: str | None = None) -> types.Range:
    """The range on line ``number`` (1-based) of ``text`` where the line has it, else of the line's content."""
    i = min(max(number - 1, 0), max(len(lines) - 1, 0))
    line = lines[i].rstrip("\r\n") if lines else ""
    start, end = len(line) - len(line.lstrip()), len(line)
    for needle in ([text, text.rsplit("/", 1)[-1]] if text else []):
        at = line.find(needle) if needle else -1
        if at >= 0:
            start, end = at, at + len(needle)
            break
    return types.Range(types.Position(i, utf16(line, start)), types.Position(i, utf16(line, end)))


SEVERITY = {"error": types.DiagnosticSeverity.Error, "warning": types.DiagnosticSeverity.Warning,
            "note": types.DiagnosticSeverity.Information}  # fmt: skip


def diagnostic(finding: Finding, lines: list[str], text: str | None = None) -> types.Diagnostic:
    """``finding`` on its line of the skill's file (``text``: what to mark on it, where the line has it)."""
    return types.Diagnostic(
        range=line_range(lines, finding.line, text),
        message=finding.message,
        severity=SEVERITY[finding.rule.level],
        code=finding.code,
        source="anchor-audit",
        data={"key": finding.key},
    )


def text_edits(before: str, after: str) -> list[types.TextEdit]:
    """The edits that turn ``before`` into ``after``, line by line (only the lines that change)."""
    old, new = split_lines_keepends(before), split_lines_keepends(after)
    edits = []
    matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        edits.append(types.TextEdit(types.Range(_at(old, i1), _at(old, i2)), "".join(new[j1:j2])))
    return edits


def _at(lines: list[str], index: int) -> types.Position:
    """The position of the start of line ``index`` (past the end: the end of the text)."""
    if index < len(lines):
        return types.Position(index, 0)
    if not lines:
        return types.Position(0, 0)
    last = lines[-1]
    if last.endswith("\n"):
        return types.Position(len(lines), 0)
    return types.Position(len(lines) - 1, utf16(last, len(last)))
