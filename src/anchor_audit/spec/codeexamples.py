"""The Python a SKILL.md shows that is not a quote, and what its author wrote above each piece: the plain Python
fences (examples), and the settings a sentence writes as code (``You must also set `dispatcher = "flex"`.``).

A setting written in prose is a code span that is one assignment of a word to a name or an attribute chain on
a name (`` `mode = "partial"` ``, `` `cfg.model.mode = "partial"` ``); a span that is anything else (a name
alone, a comparison, a call) is not one. Each is an :class:`~anchor_audit.model.Example` of that one line,
captioned as a fence is: the heading above it and the paragraph before its own.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Sequence

from ..model import Example

if TYPE_CHECKING:
    from markdown_it.token import Token

MAX_CAPTION = 300  # characters of the heading and lead-in kept above a quote
MAX_SETTINGS = 100  # settings written in prose read from one SKILL.md


def fenced_examples(tokens: Sequence[Token]) -> tuple[Example, ...]:
    """The plain Python code blocks of a SKILL.md (not quotes), with the line of their first code line and their
    caption."""
    out = []
    for at, token in enumerate(tokens):
        info = token.info.strip().split()[0].lower() if token.type == "fence" and token.info.strip() else ""
        if info in ("python", "py", "python3") and token.map:
            out.append(Example(token.content, token.map[0] + 2, caption(tokens, at)))
    return tuple(out)


def prose_settings(tokens: Sequence[Token]) -> tuple[Example, ...]:
    """The settings SKILL.md's paragraphs write as code (see the module's rule), each with its line and caption;
    the first :data:`MAX_SETTINGS`."""
    out: list[Example] = []
    for at, token in enumerate(tokens):
        in_paragraph = at > 0 and tokens[at - 1].type == "paragraph_open"
        if token.type != "inline" or not in_paragraph or not token.map or "=" not in token.content:
            continue
        lines = token.content.split("\n")
        for child in token.children or ():
            if child.type == "code_inline" and "=" in child.content and _is_setting(child.content):
                offset = next((n for n, line in enumerate(lines) if child.content in line), 0)
                out.append(Example(child.content, token.map[0] + 1 + offset, caption(tokens, at)))
                if len(out) >= MAX_SETTINGS:
                    return tuple(out)
    return tuple(out)


def _is_setting(code: str) -> bool:
    """Whether a code span is one assignment of a word to a name or an attribute chain on a name."""
    if len(code) > 200:
        return False
    try:
        body = ast.parse(code).body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    if len(body) != 1 or not isinstance(body[0], ast.Assign) or len(body[0].targets) != 1:
        return False
    target, value = body[0].targets[0], body[0].value
    while isinstance(target, ast.Attribute):
        target = target.value
    return isinstance(target, ast.Name) and isinstance(value, ast.Constant) and isinstance(value.value, str)


def caption(tokens: Sequence[Token], fence: int) -> str:
    """What a fence's author wrote above it: the nearest heading (not the page's title), and the last paragraph (a
    list item's too) between that heading and the fence (``DP overlap defaults:``), unless another fence stands
    between."""
    lead = ""
    for at in range(fence - 1, 0, -1):
        token, opening = tokens[at], tokens[at - 1]
        if token.type in ("fence", "code_block") and not lead:
            lead = " "  # the prose above belongs to that fence
        if token.type != "inline":
            continue
        if opening.type == "heading_open":  # a page's title (# ...) says what every fence is about: not kept
            heading = token.content if opening.tag != "h1" else ""
            return " ".join(s for s in (heading, lead.strip()) if s)[:MAX_CAPTION]
        if opening.type == "paragraph_open" and not lead:
            lead = token.content
    return lead.strip()[:MAX_CAPTION]
