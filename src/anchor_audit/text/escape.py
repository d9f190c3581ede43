"""Untrusted text made safe for the medium it leaves by.

Everything a skill, card, registry, remote or quoted file says is kept raw
in the model; each renderer escapes it here, at the edge, for its own
medium: a terminal (control and bidi characters), Markdown (which GitHub
renders as HTML in a pull-request comment), XML 1.0, HTML and SVG, or one
line of a log.
"""

from __future__ import annotations

import html
import re
import unicodedata
from urllib.parse import quote

from .redact import redact

# Characters a terminal or a renderer acts on rather than shows: C0/C1 controls (ESC starts
# colour, title and hyperlink sequences), format characters (bidi overrides, zero-width),
# line and paragraph separators, and lone surrogates (undecodable file names).
_UNSAFE_CATEGORIES = {"Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"}


def _escaped(char: str) -> str:
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def _unsafe(char: str, keep: str) -> bool:
    return char not in keep and unicodedata.category(char) in _UNSAFE_CATEGORIES


def printable(text: str, keep: str = "\t") -> str:
    """``text`` with every control, format or separator character written as a visible ``\\xNN`` escape.

    ``keep`` lists characters let through (``"\\t\\n"`` for multi-line text).
    """
    if text.isprintable():
        return text
    return "".join(_escaped(c) if _unsafe(c, keep) else c for c in text)


def one_line(text: str) -> str:
    """``text`` as one safe line of a log or terminal: credentials redacted, newlines and controls escaped."""
    return printable(redact(text), keep="")


# ---------------------------------------------------------------- Markdown

_MD_SPECIAL = re.compile(r"([\\`*_\[\]|~<>&])")


def md_text(text: str) -> str:
    """``text`` as inert inline Markdown: no emphasis, link, autolink, mention, reference, HTML or cell break.

    Every character that can open an inline construct (emphasis, code,
    link, HTML tag or entity, strike-through, a table cell) is
    backslash-escaped, so GitHub shows it as is; line breaks become spaces.
    A word GitHub could turn into a link after rendering (``www.x.example``,
    ``a@b.example``, ``@team``, ``#12``, ``owner/repo#3``, ``GH-4``, a commit
    sha, any ``scheme://``) goes in a code span, where none of them forms.
    Callers never put this text at the start of a line, where ``#``, ``-``
    or ``1.`` would matter.
    """
    flat = printable(text, keep="").replace("\\x0a", " ").replace("\\x0d", " ")
    return "".join(md_code(part) if _LINKABLE.search(part) else _MD_SPECIAL.sub(r"\\\1", part)
                   for part in re.split(r"(\s+)", flat))  # fmt: skip


# What GitHub links in text after rendering: www. and scheme:// autolinks, e-mail addresses and @mentions,
# #N and owner/repo#N references, GH-N, commit shas.
_LINKABLE = re.compile(r"www\.|://|[@#]|\bGH-\d|\b[0-9a-f]{7,40}\b", re.I)


def md_code(text: str) -> str:
    """``text`` as an inline code span that nothing inside can close (a table's ``|`` escaped too)."""
    flat = printable(text, keep="").replace("|", "\\|")
    run = max((len(m) for m in re.findall(r"`+", flat)), default=0)
    ticks = "`" * (run + 1)
    pad = " " if flat.startswith("`") or flat.endswith("`") or not flat.strip() else ""
    return f"{ticks}{pad}{flat}{pad}{ticks}"


def md_fence(text: str, info: str = "", indent: str = "") -> str:
    """``text`` (several lines) as a fenced code block longer than any backtick run inside it."""
    body = printable(text, keep="\t\n")
    run = max((len(m) for m in re.findall(r"`+", body)), default=0)
    fence = "`" * max(3, run + 1)
    lines = "".join(f"{indent}{line}\n" for line in body.split("\n"))
    return f"{indent}{fence}{info}\n{lines}{indent}{fence}\n"


# ---------------------------------------------------------------- URIs (SARIF, JSON links)


def uri_path(path: str) -> str:
    """A relative path as a URI reference (RFC 3986): ``#``, ``%``, ``?``, spaces and the rest percent-encoded."""
    return quote(path, safe="/-._~")


# ---------------------------------------------------------------- XML

_XML_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def xml_text(text: str) -> str:
    """``text`` with the characters XML 1.0 cannot hold (most C0 controls, surrogates) written as escapes.

    ElementTree escapes ``<``, ``&`` and quotes itself; it does not refuse
    these, and the document it writes then does not parse.
    """
    return _XML_INVALID.sub(lambda m: _escaped(m.group(0)), text)


# ---------------------------------------------------------------- HTML and SVG


def html_text(text: str, lines: bool = False) -> str:
    """``text`` as inert HTML or XML character data, fit for an attribute too (quotes escaped).

    Control, format and separator characters become visible escapes first (``lines``: newlines and tabs kept,
    for a ``<pre>``), so nothing XML 1.0 refuses and nothing that reorders text (bidi overrides) is left.
    """
    return html.escape(printable(text, keep="\t\n" if lines else ""), quote=True)
