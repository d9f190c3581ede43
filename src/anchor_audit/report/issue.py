"""``fix --catalog --format issue``: per upstream repository, the body of a tracking issue.

What a scheduled workflow opens (or updates: the first line is a marker it can search for) in the upstream
repository: which of its skills drift and why, since which commits where the history says, who can heal each
(the CODEOWNERS rule, else the folder's recent committers), the patch that heals what only moved, and what is
left for a person.  Everything the skills or the repository say is Markdown-escaped; a mention is code, so the
body pings nobody by itself (the workflow decides whom to assign).
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Mapping, Sequence, TextIO

from ..findings import skill_findings
from ..model import SkillReport, contradiction_lines
from ..text.escape import md_code, md_text
from .catalogwords import count, repo_name, why

MAX_BODY_CHARS = 60_000  # GitHub refuses an issue body over 65,536 characters
MARKER = "<!-- anchor-audit issue: {repo} -->"


def render_issue(
    repo: str, ref: str, commit: str | None, skills: Sequence[SkillReport], patch: str, left: Sequence[str],
    patch_file: str, stream: TextIO, since: Mapping[str, Sequence[str]] | None = None,
) -> None:  # fmt: skip
    """The issue body for ``repo`` at ``ref`` (``commit``): its drifting ``skills``, ``patch``, what is ``left``."""
    drifting = [(s, [f for f in skill_findings(s) if f.drift]) for s in skills]
    drifting = [(s, found) for s, found in drifting if found]
    at = f" ({md_code(commit[:12])})" if commit else ""
    name = repo_name(repo)
    marker = re.sub(r"[^A-Za-z0-9._/:-]|-(?=-)", "_", repo)  # nothing that could end the comment
    out = [MARKER.format(repo=marker), "",
           f"## anchor-audit: {count(len(drifting), 'skill')} of {md_text(name)} drift from the code at "
           f"{md_code(ref)}{at}", ""]  # fmt: skip
    if drifting:
        out += ["| skill | what drifts | who can heal it |", "| --- | --- | --- |"]
        for skill, found in drifting:
            owners = md_text(skill.owners.said) if skill.owners else "—"
            words = md_text(why(replace(skill, owners=None), found))  # the owners have their own column
            out.append(f"| {md_code(skill.name)} ({md_code(skill.path)}) | {words} | {owners} |")
        when = [f"- {md_code(s.name)}: {md_text(line)}" for s, _ in drifting
                for line in _since(s) + list((since or {}).get(s.name, ()))]  # fmt: skip
        when += [f"- {md_text(line)}" for line in (since or {}).get("", ())]  # of the repository as a whole
        if when:
            out += ["", "Since (where the history says):", "", *when]
    body = "\n".join(out) + "\n"
    body += _patch_section(patch, commit, patch_file, MAX_BODY_CHARS - len(body) - 2_000)
    if left:
        body += "\n### Left for a person\n\n" + "".join(f"- {md_text(line)}\n" for line in left[:50])
        if len(left) > 50:
            body += f"- and {len(left) - 50} more (the summary lists each)\n"
    stream.write(body)


def _since(skill: SkillReport) -> list[str]:
    lines = contradiction_lines(skill.contradicted)
    rename = skill.folder_rename
    if rename is not None and rename.commit:
        lines.append(f"the folder was renamed {rename.code_has} -> {rename.written} in {rename.commit[:9]} on "
                     f"{rename.day}, and {len(rename.paths)} of its paths with it")  # fmt: skip
    return lines


def _patch_section(patch: str, commit: str | None, patch_file: str, room: int) -> str:
    if not patch:
        return "\nNo patch: nothing here only moved.\n"
    files = patch.count("\n+++ b/")
    where = f" at {md_code(commit[:12])}" if commit else ""
    head = f"\n### The patch ({count(files, 'file')})\n\n`git apply` it in this repository{where}.\n"
    if len(patch) > room:
        return head + f"\nThe patch is {len(patch):,} characters, too long for an issue: see {md_code(patch_file)}.\n"
    fence = "`" * max(3, 1 + max((len(m) for m in re.findall(r"`+", patch)), default=0))
    return head + f"\n<details><summary>{md_text(patch_file)}</summary>\n\n{fence}diff\n{patch}{fence}\n\n</details>\n"
