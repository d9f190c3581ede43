"""A checked skill as the editor shows it: diagnostics, hovers and code actions (the protocol's types, no I/O)."""

from __future__ import annotations

import datetime
import re
import textwrap
from pathlib import Path
from typing import Mapping
from urllib.parse import unquote, urlparse

from lsprotocol import types

from ..findings import Finding
from ..findings.baseline import PLACEHOLDER
from ..model import Healable, Moved, PromiseKind, PromiseResult, PromiseStatus, QuoteMatch, Relocated, pointed_at
from ..text.escape import printable
from ..text.lines import split_lines_keepends
from .edits import diagnostic, line_range, text_edits, utf16
from .session import Session, SkillCheck

Texts = Mapping[Path, str]  # the files' text as the editor has them (else as on disk)


def uri_of(path: Path) -> str:
    return path.resolve().as_uri()


def path_of(uri: str) -> Path | None:
    """The file a ``file://`` URI names (None for any other scheme, an unsaved buffer, a remote file, or a path no
    file can have: a NUL or another control character, ``%00`` once unquoted)."""
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return None
    path = unquote(parsed.path)
    return None if not path or any(ord(c) < 32 or ord(c) == 127 for c in path) else Path(path)


def text_of(path: Path, texts: Texts) -> str:
    if path in texts:
        return texts[path]
    try:
        return path.read_text(encoding="utf-8-sig", errors="replace")
    except OSError:
        return ""


def diagnostics(check: SkillCheck, texts: Texts) -> dict[Path, list[types.Diagnostic]]:
    """Every finding of ``check`` on its file (SKILL.md, card.yaml; each listed, so a cleared file is cleared)."""
    out: dict[Path, list[types.Diagnostic]] = {check.folder / name: [] for name in ("SKILL.md", "card.yaml")}
    lines_of: dict[Path, list[str]] = {}  # each file split once, however many findings it has (a card of 60,000)
    for finding in check.findings:
        file = Path(finding.file)
        if file not in lines_of:
            lines_of[file] = split_lines_keepends(text_of(file, texts))
        out.setdefault(file, []).append(diagnostic(finding, lines_of[file], _marked(finding)))
    return out


def _marked(finding: Finding) -> str | None:
    """What a finding marks on its line: a fence's ``START:END:PATH``, a promise's path, a claim's id."""
    if finding.code.startswith("AA1"):
        path, _, lines = finding.subject.rpartition(":")
        return f"{lines.replace('-', ':')}:{path}"
    if ":" in finding.subject and finding.code.startswith("AA4"):
        return finding.subject.split(":", 1)[1]
    return finding.subject.split(":", 1)[0] if finding.code.startswith("AA2") else None


def registry_diagnostic(message: str, path: Path, text: str) -> types.Diagnostic:
    """What ``check`` refuses in the registry, an error on the line its message names (else the first)."""
    at = re.search(rf"{re.escape(path.name)}:(\d+)", message)
    return types.Diagnostic(
        range=line_range(split_lines_keepends(text), int(at.group(1)) if at else 1),
        message=printable(message, keep=""),
        severity=types.DiagnosticSeverity.Error,
        source="anchor-audit",
    )


def problem_diagnostic(message: str, text: str) -> types.Diagnostic:
    """Nothing could be checked (the registry does not parse, the code cannot be opened): said on line 1."""
    return types.Diagnostic(
        range=line_range(split_lines_keepends(text), 1),
        message=f"anchor-audit could not check this skill: {message}",
        severity=types.DiagnosticSeverity.Warning,
        source="anchor-audit",
    )


# ---------------------------------------------------------------------------------------------- hover


def hover(check: SkillCheck, file: Path, line: int, session: Session) -> types.Hover | None:
    """On a fence header: the code it points at, at the audited ref. On a checked reference: what it resolved to."""
    if file.name != "SKILL.md" or check.skill is None:
        return None
    for match in check.report.anchors:
        if match.quote.skill_line == line + 1:
            return types.Hover(types.MarkupContent(types.MarkupKind.Markdown, _quote_hover(match, check, session)))
    said = [p for p in check.report.promises if p.line == line + 1 and Path(p.file) == file]
    if not said:
        return None
    rows = [f"**{p.kind}** `{_code(p.path)}`: {p.status}" + (f" ({_text(p.detail)})" if p.detail else "")
            for p in said]  # fmt: skip
    value = "\n\n".join(rows) + f"\n\n_at {_text(check.source)}_"
    return types.Hover(types.MarkupContent(types.MarkupKind.Markdown, value))


def _quote_hover(match: QuoteMatch, check: SkillCheck, session: Session) -> str:
    quote = match.quote
    at = pointed_at(match)
    head = f"**{match.status}**: `{_code(quote.path)}` {quote.declared.start}:{quote.declared.end}"
    if at is not None and at.lines is not None:
        head += f", found at `{_code(at.path)}` {at.lines.start}-{at.lines.end}"
        code = session.code_at(at.path, at.lines.start, at.lines.end)
    else:
        code = session.code_at(quote.path, quote.declared.start, quote.declared.end)
    shown = "\n".join(printable(line) for line in code) if code is not None else None  # the code's own ESC, CR
    body = textwrap.dedent(shown) if shown is not None else "(the file is not there)"
    fence = "`" * max(3, _longest_backticks(body) + 1)
    return f"{head}\n\n{fence}python\n{body}\n{fence}\n\n_at {_text(check.source)}_"


def _longest_backticks(text: str) -> int:
    longest = run = 0
    for ch in text:
        run = run + 1 if ch == "`" else 0
        longest = max(longest, run)
    return longest


def _code(text: str) -> str:
    """Untrusted text in a code span: one line, its control and invisible characters escaped, no backtick."""
    return printable(text, keep="").replace("`", "'")


def _text(text: str) -> str:
    """Untrusted text in Markdown prose: one line, control characters escaped, markup characters escaped."""
    return "".join("\\" + ch if ch in "\\`*_{}[]()#+-.!<>|~" else ch for ch in printable(text, keep=""))


# ---------------------------------------------------------------------------------------------- code actions


Actions = list[types.CodeAction]


def code_actions(
    check: SkillCheck, file: Path, first: int, last: int, texts: Texts, session: Session
) -> list[types.CodeAction]:
    """What the editor can do about the findings on lines ``first``..``last`` (0-based) of ``file``."""
    if check.skill is None:
        return []
    on_lines = [f for f in check.findings if Path(f.file) == file and first <= f.line - 1 <= last]
    here = [p for p in check.report.promises if Path(p.file) == file and first <= p.line - 1 <= last]
    out = _quote_actions(check, first, last, texts, session, on_lines) if file.name == "SKILL.md" else []
    out += _path_actions(file, here, texts, on_lines)
    if file.name == "card.yaml" and check.tree is not None and any(f.code == "AA203" for f in on_lines):
        out += _card_actions(check, file, texts, on_lines)
    out += [_accept(f, session) for f in on_lines if f.drift and session.baseline_path is not None]
    return out


def _quote_actions(
    check: SkillCheck, first: int, last: int, texts: Texts, session: Session, on_lines: list[Finding]
) -> Actions:
    """Heal each moved quote on the lines, and (more than one) every moved quote of the skill."""
    assert check.skill is not None
    out: Actions = []
    moved = [m for m in check.report.anchors if isinstance(m, (Moved, Relocated))]
    for match in moved:
        if first <= match.quote.skill_line - 1 <= last:
            title = f"Heal the quote: {match.path_now}:{match.suggested.start}:{match.suggested.end}"
            out.append(_action(title, _heal_quotes(check, [match], texts, session), on_lines, preferred=True))
    if len(moved) > 1:
        title = f"Heal all {len(moved)} moved quotes of {check.skill.name}"
        every = _heal_quotes(check, moved, texts, session)
        out.append(_action(title, every, [], kind=types.CodeActionKind.SourceFixAll))
    return out


def _path_actions(file: Path, here: list[PromiseResult], texts: Texts, on_lines: list[Finding]) -> Actions:
    """Rename each path (or evidence path) on the lines to where it went, and each name to its private name."""
    from ..fix.skillmd import heal_paths

    out: Actions = []
    for promise in (p for p in here if p.heal):
        assert promise.heal is not None
        before = text_of(file, texts)
        after, done = heal_paths(before, [(promise.line, promise.path, promise.heal)])
        if done:
            what = "evidence" if promise.kind is PromiseKind.EVIDENCE else "path"
            edit = {uri_of(file): text_edits(before, after)}
            out.append(_action(f"Rename the {what} to {promise.heal}", edit, on_lines, preferred=True))
    for promise in (p for p in here if p.status is PromiseStatus.PRIVATE):
        renamed = _private_rename(text_of(file, texts), promise.line, promise.path, promise.detail)
        if renamed is not None:
            title, after = renamed
            out.append(_action(title, {uri_of(file): text_edits(text_of(file, texts), after)}, on_lines))
    return out


def _card_actions(check: SkillCheck, file: Path, texts: Texts, on_lines: list[Finding]) -> Actions:
    """card.yaml's tags updated to the verdicts."""
    from ..fix.cardyaml import reconcile_card

    assert check.tree is not None
    before = text_of(file, texts)
    after, _ = reconcile_card(before, check.report.claims, check.tree.info, file)
    if after == before:
        return []
    card_findings = [f for f in on_lines if f.code == "AA203"]
    edit = {uri_of(file): text_edits(before, after)}
    return [_action("Update card.yaml's tags to the verdicts", edit, card_findings)]


_PRIVATE = re.compile(r" has _(\w+): the name became private$")


def _private_rename(text: str, line: int, written: str, detail: str) -> tuple[str, str] | None:
    """(title, text) with the name ``written`` on ``line`` given the private name the code has now (``detail``
    says it), where the line holds it once; None where it cannot be said which text to change."""
    said = _PRIVATE.search(detail)
    lines = split_lines_keepends(text)
    if said is None or not 1 <= line <= len(lines):
        return None
    name = said.group(1)
    new = re.sub(rf"(?<![\w_]){re.escape(name)}(?=\W|$)", f"_{name}", written, count=1)
    at = [m.start() for m in re.finditer(rf"(?<![\w.]){re.escape(written)}(?![\w])", lines[line - 1])]
    if new == written or len(at) != 1:
        return None
    lines[line - 1] = lines[line - 1][: at[0]] + new + lines[line - 1][at[0] + len(written) :]
    return f"Rename {written} to {new} (the name became private)", "".join(lines)


def _heal_quotes(
    check: SkillCheck, moved: list[Healable], texts: Texts, session: Session
) -> dict[str, list[types.TextEdit]]:
    """The fences' ranges rewritten, and the registry's quote keys with them where its entry is this folder's."""
    from ..fix.anchorsyaml import heal_registry
    from ..fix.skillmd import heal_skill_md

    skill_md = check.folder / "SKILL.md"
    before = text_of(skill_md, texts)
    edits = {uri_of(skill_md): text_edits(before, heal_skill_md(before, moved, {}, refresh=False))}
    entry, registry = check.entry, session.registry_path
    if entry is not None and registry is not None and (entry.path is None or entry.path.resolve() == check.folder):
        text = text_of(registry, texts)
        renamed = {m.quote.key: f"{m.path_now}:{m.suggested}" for m in moved}
        healed = heal_registry(text, entry.name, renamed, registry)
        if healed != text:
            edits[uri_of(registry)] = text_edits(text, healed)
    return edits


def _accept(finding: Finding, session: Session) -> types.CodeAction:
    """An entry for ``finding`` in the baseline, its reason left for the person to write (the baseline refuses
    an entry without one, so the finding is accepted only once someone says why)."""
    import yaml

    path = session.baseline_path
    assert path is not None
    entry = yaml.safe_dump([{"key": finding.key, "code": finding.code, "message": finding.message,
                             "reason": f"{PLACEHOLDER} ({datetime.date.today().isoformat()})"}],
                           sort_keys=False, allow_unicode=True, width=1000)  # fmt: skip
    entry = "".join(f"  {line}\n" for line in entry.splitlines())
    uri = uri_of(path)
    if path.is_file():
        text = path.read_text(encoding="utf-8", errors="replace")
        lines = split_lines_keepends(text)
        ends = text.endswith("\n") or not text
        last = lines[-1] if lines else ""
        end = types.Position(len(lines), 0) if ends else types.Position(len(lines) - 1, utf16(last, len(last)))
        insert = ("" if ends else "\n") + entry
        changes: list[types.TextDocumentEdit | types.CreateFile] = [
            types.TextDocumentEdit(types.OptionalVersionedTextDocumentIdentifier(uri, None),
                                   [types.TextEdit(types.Range(end, end), insert)])]  # fmt: skip
    else:
        header = "# anchor-audit baseline: findings CI accepts, each with the reason it is acceptable.\n"
        start = types.Range(types.Position(0, 0), types.Position(0, 0))
        changes = [
            types.CreateFile(uri=uri, options=types.CreateFileOptions(ignore_if_exists=True)),
            types.TextDocumentEdit(types.OptionalVersionedTextDocumentIdentifier(uri, None),
                                   [types.TextEdit(start, f"{header}version: 1\naccepted:\n{entry}")]),
        ]  # fmt: skip
    return types.CodeAction(
        title=f"Accept {finding.code} in the baseline (then write why)",
        kind=types.CodeActionKind.QuickFix,
        edit=types.WorkspaceEdit(document_changes=changes),
    )


def _action(
    title: str,
    changes: dict[str, list[types.TextEdit]],
    findings: list[Finding],
    preferred: bool = False,
    kind: str = types.CodeActionKind.QuickFix,
) -> types.CodeAction:
    return types.CodeAction(
        title=title,
        kind=kind,
        edit=types.WorkspaceEdit(changes=changes),
        is_preferred=preferred or None,
        diagnostics=[types.Diagnostic(range=types.Range(types.Position(f.line - 1, 0), types.Position(f.line - 1, 0)),
                                      message=f.message, code=f.code, source="anchor-audit") for f in findings] or None,
    )  # fmt: skip
