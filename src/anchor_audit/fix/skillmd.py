"""Heal moved quotes in SKILL.md.

Only the ``START:END`` of a moved quote's fence changes, and with
``refresh=True`` its body (re-copied from the source at the ref, the
author's ``...`` elisions kept where they were).  Changed and missing
quotes are never touched.
"""

from __future__ import annotations

import re
from typing import Sequence

from ..model import Healable, LineRange, Relocated
from ..source.file import SourceFile
from ..text.lines import split_lines_keepends

_FENCE = re.compile(r"^(?P<lead>[ \t>]*)(?P<fence>`{3,}|~{3,})[ \t]*(?P<start>\d+):(?P<end>\d+):(?P<path>[^\s`~]+)")


def heal_skill_md(text: str, moved: Sequence[Healable], sources: dict[str, SourceFile], refresh: bool) -> str:
    """``text`` with each moved quote's range rewritten (a relocated quote's path too), and with
    ``refresh`` its body."""
    lines = split_lines_keepends(text)
    for match in sorted(moved, key=lambda m: m.quote.skill_line, reverse=True):  # bottom up: indices stay valid
        i = match.quote.skill_line - 1
        fence = _FENCE.match(lines[i])
        if fence is None:  # the file is not the one the quote was read from
            continue
        rng = f"{match.suggested.start}:{match.suggested.end}:"
        if isinstance(match, Relocated):  # relocated: the quote names the file the code is in now
            lines[i] = lines[i][: fence.start("start")] + rng + match.found_path + lines[i][fence.end("path") :]
        else:
            lines[i] = lines[i][: fence.start("start")] + rng + lines[i][fence.start("path") :]
        source = sources.get(match.path_now)
        if refresh and source is not None and match.runs:
            newline = "\r\n" if lines[i].endswith("\r\n") else "\n"
            indent = re.match(r"[ \t>]*", lines[i]).group(0)  # type: ignore[union-attr]
            body = refreshed_body(list(match.quote.body), list(match.runs), source)
            start, count = i + 1, len(match.quote.body)
            lines[start : start + count] = [(indent + b if b else b.rstrip()) + newline for b in body]
    return "".join(lines)


def refreshed_body(body: list[str], runs: list[LineRange], source: SourceFile) -> list[str]:
    """The quote body re-copied from ``source``: each run of lines between ``...`` replaced
    by the source lines it matched, common indentation removed; ``...`` lines and blank
    lines at the edges of a run kept as the author wrote them."""
    segments: list[list[str]] = [[]]
    for line in body:
        if line.strip() == "...":
            segments.append([line])
            segments.append([])
        else:
            segments[-1].append(line)
    copied = [[source.lines[n - 1] for n in range(r.start, r.end + 1)] for r in runs]
    indents = [len(s) - len(s.lstrip()) for run in copied for s in run if s.strip()]
    base = min(indents, default=0)
    out: list[str] = []
    next_run = 0
    for segment in segments:
        content = [k for k, s in enumerate(segment) if s.strip() and s.strip() != "..."]
        if not content or next_run >= len(copied):
            out += segment
            continue
        first, last = content[0], content[-1]
        out += segment[:first]
        out += [s[base:].rstrip() if s.strip() else "" for s in copied[next_run]]
        out += segment[last + 1 :]
        next_run += 1
    return out


def heal_paths(text: str, renames: Sequence[tuple[int, str, str]]) -> tuple[str, list[tuple[int, str, str]]]:
    """``text`` with each ``(line, old, new)``: the path ``old`` on that line replaced by ``new``, where ``old``
    occurs there exactly once (as a whole path, not inside a longer one); and the renames it made."""
    lines = split_lines_keepends(text)
    done = []
    for line, old, new in renames:
        if not 1 <= line <= len(lines):
            continue
        at = [m.start() for m in re.finditer(rf"(?<![\w./-]){re.escape(old)}(?![\w/-])", lines[line - 1])]
        if len(at) == 1:
            lines[line - 1] = lines[line - 1][: at[0]] + new + lines[line - 1][at[0] + len(old) :]
            done.append((line, old, new))
    return "".join(lines), done
