"""One self-contained HTML page: the shell every ``--format html`` report is written into.

The page asks for nothing: its Content-Security-Policy allows no script, no connection, no frame and no
image but inline ``data:`` ones, so even text that escaped its escaping could neither run nor fetch.  The
style is inline; folding (``<details>``) is the browser's own, so the page reads the same with scripts off.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..text.escape import html_text

# default-src 'none' also covers fonts, media, frames and connections; forms go nowhere
POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'none'; base-uri 'none'"

STYLE = """
:root { color-scheme: light; --ok: #1b7837; --bad: #b2182b; --warn: #b35806; --muted: #5f6368; }
body { font: 15px/1.45 system-ui, sans-serif; margin: 2rem auto; max-width: 78rem; padding: 0 1rem; color: #1f2328; }
h1 { font-size: 1.6rem; margin-bottom: .2rem; } h2 { font-size: 1.25rem; margin: 0; display: inline; }
h3 { font-size: 1.02rem; margin: 1.2rem 0 .4rem; }
code, pre, .mono { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 13px; }
table { border-collapse: collapse; margin: .4rem 0 1rem; } th, td { border: 1px solid #d0d7de; padding: .25rem .5rem;
  vertical-align: top; text-align: left; } th { background: #f6f8fa; } td.n { text-align: right; }
.summary { font-weight: 600; padding: .6rem .8rem; border-left: 4px solid var(--ok); background: #f6f8fa; }
.summary.drift { border-color: var(--bad); }
section.skill { border: 1px solid #d0d7de; border-radius: 6px; margin: 1rem 0; padding: .3rem 1rem .6rem; }
section.skill > details > summary { cursor: pointer; padding: .3rem 0; }
.path, .muted { color: var(--muted); }
.status-exact, .status-holds, .status-exists, .status-code_verified, .status-doc_only { color: var(--ok); }
.status-moved, .status-relocated, .status-unverifiable, .status-unlinked, .status-external { color: var(--warn); }
.status-changed, .status-missing, .status-broken, .status-absent, .status-different, .status-differs,
.status-private, .status-error { color: var(--bad); font-weight: 600; }
pre { background: #f6f8fa; padding: .5rem .7rem; overflow-x: auto; border-radius: 4px; margin: .3rem 0 .8rem; }
pre.diff span { display: block; min-height: 1.2em; } pre.diff .add { background: #dafbe1; }
pre.diff .del { background: #ffebe9; } pre.diff .hunk { color: var(--muted); }
blockquote { margin: .4rem 0; padding: .2rem .8rem; border-left: 3px solid #d0d7de; color: #3d444d; }
.quote { margin: .6rem 0; } .quote-head { font-weight: 600; }
figure { margin: 1rem 0; overflow-x: auto; } figcaption { color: var(--muted); font-size: .9rem; }
table.grid td, table.grid th { padding: .1rem .3rem; font-size: 12px; }
table.grid td:nth-child(n+3) { text-align: center; font-weight: 600; }
.status-drift { color: var(--bad); font-weight: 600; }
ul.findings li { margin: .15rem 0; } .level-error { color: var(--bad); } .level-warning { color: var(--warn); }
"""


def h(text: object) -> str:
    """Untrusted text as HTML character data (one line)."""
    return html_text(str(text))


def status(value: str) -> str:
    """A status word, styled by what it means (the class is built from a closed vocabulary of words)."""
    safe = "".join(c for c in value if c.isalnum() or c == "_")
    return f'<span class="status-{safe}">{h(value)}</span>'


def pre(text: str, css: str = "code") -> str:
    return f'<pre class="{css}">{html_text(text, lines=True)}</pre>'


def diff_block(lines: Iterable[str]) -> str:
    """A unified diff, each added or removed line marked (and readable as text without the style)."""
    out = []
    for line in lines:
        css = "hunk" if line.startswith(("@@", "---", "+++")) else "add" if line[:1] == "+" else \
            "del" if line[:1] == "-" else "ctx"  # fmt: skip
        out.append(f'<span class="{css}">{html_text(line, lines=True)}</span>')
    return '<pre class="diff">' + "".join(out) + "</pre>"  # each line a block: no newline between them


def table(head: Iterable[str], rows: Iterable[Iterable[str]], numeric: Iterable[int] = (), css: str = "") -> str:
    """A table whose cells are already HTML (the callers escape what they put in); ``css``: its class."""
    right = set(numeric)
    opening = f'<table class="{css}">' if css else "<table>"
    out = [opening + "<thead><tr>" + "".join(f"<th>{h(c)}</th>" for c in head) + "</tr></thead><tbody>"]
    for row in rows:
        cells = (f'<td class="n">{c}</td>' if i in right else f"<td>{c}</td>" for i, c in enumerate(row))
        out.append("<tr>" + "".join(cells) + "</tr>")
    return "\n".join(out) + "</tbody></table>"


def page(title: str, body: str) -> str:
    """The whole document: doctype, the policy that forbids every request, the style, ``body`` (HTML)."""
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        f'<meta http-equiv="Content-Security-Policy" content="{POLICY}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="referrer" content="no-referrer">\n'
        f"<title>{h(title)}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n{body}\n</body>\n</html>\n"
    )
