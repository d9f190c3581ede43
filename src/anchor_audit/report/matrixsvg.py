"""``matrix --format svg``: the claims × releases grid as a heat map, one self-contained SVG.

Each cell carries its verdict twice, by colour and by the grid's own letter (``V``, ``B``, ...), and a broken
cell is hatched as well, so the picture reads in grey and to a screen reader (each cell has a ``<title>``).
Nothing is fetched: the font is the viewer's own monospace, there are no scripts, links or external styles,
and every piece of untrusted text (claim ids, tags, the repository) is escaped for XML.
"""

from __future__ import annotations

from typing import TextIO

from ..runs.matrix import CatalogMatrix, Matrix, Row
from ..text.escape import html_text
from .matrixview import letter

CELL_W, CELL_H, PAD = 28, 22, 16
CHAR_W = 7.2  # a 12px monospace character, near enough for every common monospace font
MAX_NAME = 48  # characters of a claim's name shown; the full name is in the row's <title>
# verdict letter -> (fill, text colour, meaning); the fills differ in lightness too, for grey printing
PALETTE = {
    "V": ("#1b7837", "#ffffff", "code_verified"),
    "D": ("#a6dba0", "#00330f", "doc_only"),
    "B": ("#b2182b", "#ffffff", "broken"),
    "U": ("#762a83", "#ffffff", "unverifiable"),
    "L": ("#f1a340", "#3d2100", "unlinked"),
    ".": ("#f0f0f0", "#707070", "not there"),
    "?": ("#bababa", "#202020", "not checked"),
}


def _name(row: Row, one_skill: bool) -> str:
    name = row.key if one_skill else f"{row.skill} {row.key}"
    return name if len(name) <= MAX_NAME else name[: MAX_NAME - 1] + "…"


def matrix_svg(shown: Matrix | CatalogMatrix) -> str:
    """The heat map as SVG text (an ``<svg>`` element, also fit to inline in HTML); a catalog's, one heat map
    per component, stacked."""
    if isinstance(shown, Matrix):
        body, width, height = _figure(shown, "aa")
        return _svg(width, height, "aa-title", body)
    parts, top, width = [], 0, 0
    for i, matrix in enumerate(shown.matrices):
        body, w, h = _figure(matrix, f"aa{i}")
        parts.append(f'<svg x="0" y="{top}" width="{w}" height="{h}" viewBox="0 0 {w} {h}">')
        parts += body + ["</svg>"]
        top, width = top + h, max(width, w)
    title = f'<title id="aa-title">{html_text(f"anchor-audit matrix: the catalog {shown.catalog}")}</title>'
    return _svg(width, top, "aa-title", [title, *parts])


def _svg(width: int, height: int, title_id: str, body: list[str]) -> str:
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" role="img" aria-labelledby="{title_id}" '
            'font-family="ui-monospace, Menlo, Consolas, monospace" font-size="12">')  # fmt: skip
    return "\n".join([head, *body, "</svg>"]) + "\n"


def _figure(matrix: Matrix, ids: str) -> tuple[list[str], int, int]:
    """One matrix's heat map: its SVG elements (their ids prefixed ``ids``), width and height."""
    rows = [r for r in matrix.rows if r.kind == "claim"]
    releases = matrix.releases
    one_skill = len({r.skill for r in matrix.rows}) <= 1
    names = [_name(r, one_skill) for r in rows]
    ranges = [" or ".join(r.holds_for(releases)) or "no release" for r in rows]
    name_w = int(max((len(n) for n in names), default=10) * CHAR_W) + 12
    label_h = int(max((len(r.tag) for r in releases), default=4) * CHAR_W * 0.72) + 14
    top = PAD + 44 + label_h
    grid_w = CELL_W * len(releases)
    range_w = int(max((len(r) for r in ranges), default=10) * CHAR_W) + 24
    legend_y = top + CELL_H * len(rows) + 24
    width = max(PAD * 2 + name_w + grid_w + range_w, PAD * 2 + sum(_legend_step(m) for m in PALETTE.values()))
    height = legend_y + 40
    skills = sorted({r.skill for r in matrix.rows})
    about = f"{', '.join(skills[:3])}{' and more' if len(skills) > 3 else ''} at " if skills else ""
    span = f"{releases[0].tag} ({releases[0].commit[:7]}) .. {releases[-1].tag} ({releases[-1].commit[:7]})" \
        if releases else "no release tags"  # fmt: skip
    title = f"anchor-audit matrix: {about}{matrix.repo}"
    out = [
        f'<title id="{ids}-title">{html_text(f"{title}: {len(releases)} releases, {span}")}</title>',
        f'<defs><pattern id="{ids}-hatch" width="6" height="6" patternUnits="userSpaceOnUse" '
        'patternTransform="rotate(45)"><rect width="2" height="6" fill="#ffffff" fill-opacity="0.35"/>'
        "</pattern></defs>",
        f'<rect width="{width}" height="{height}" fill="#ffffff"/>',
        f'<text x="{PAD}" y="{PAD + 14}" font-size="14" font-weight="bold">{html_text(title)}</text>',
        f'<text x="{PAD}" y="{PAD + 32}" fill="#444444">{html_text(f"{len(releases)} releases, {span}")}</text>',
    ]
    left = PAD + name_w
    for j, release in enumerate(releases):
        x, y = left + j * CELL_W + CELL_W // 2, top - 6
        out.append(f'<text class="release" x="{x}" y="{y}" transform="rotate(-45 {x} {y})">'
                   f"{html_text(release.tag)}</text>")  # fmt: skip
    for i, (row, name, held) in enumerate(zip(rows, names, ranges, strict=True)):
        y = top + i * CELL_H
        out.append(f'<g class="row"><title>{html_text(f"{row.skill} {row.key}: holds for {held}")}</title>')
        out.append(f'<text x="{left - 8}" y="{y + 15}" text-anchor="end">{html_text(name)}</text></g>')
        for j, (release, cell) in enumerate(zip(releases, row.cells, strict=True)):
            out.append(_cell(left + j * CELL_W, y, letter(cell), f"{row.key} at {release.tag}: {cell}", ids))
        out.append(f'<text x="{left + grid_w + 12}" y="{y + 15}" fill="#444444">{html_text(held)}</text>')
    if not rows:
        out.append(f'<text x="{PAD}" y="{top + 15}">no claims</text>')
    out.extend(_legend(legend_y))
    return out, width, height


def _cell(x: int, y: int, mark: str, said: str, ids: str) -> str:
    fill, ink, _ = PALETTE.get(mark, PALETTE["?"])
    hatch = f'<rect x="{x}" y="{y}" width="{CELL_W - 2}" height="{CELL_H - 2}" fill="url(#{ids}-hatch)"/>' \
        if mark == "B" else ""  # fmt: skip
    return (f'<g class="cell" data-verdict="{html_text(mark)}"><title>{html_text(said)}</title>'
            f'<rect x="{x}" y="{y}" width="{CELL_W - 2}" height="{CELL_H - 2}" rx="3" fill="{fill}"/>{hatch}'
            f'<text x="{x + (CELL_W - 2) // 2}" y="{y + 15}" text-anchor="middle" fill="{ink}" '
            f'font-weight="bold">{html_text(mark)}</text></g>')  # fmt: skip


def _legend(y: int) -> list[str]:
    out, x = [], PAD
    for mark, (fill, ink, meaning) in PALETTE.items():
        out.append(f'<rect x="{x}" y="{y}" width="18" height="16" rx="3" fill="{fill}"/>'
                   f'<text x="{x + 9}" y="{y + 12}" text-anchor="middle" fill="{ink}" font-size="11">{mark}</text>'
                   f'<text x="{x + 24}" y="{y + 12}" font-size="11">{meaning}</text>')  # fmt: skip
        x += _legend_step((fill, ink, meaning))
    return out


def _legend_step(entry: tuple[str, str, str]) -> int:
    """How far one legend entry (swatch, gap, its meaning in 11px type) reaches along the line."""
    return 24 + int(len(entry[2]) * 6.6) + 16


def render_matrix_svg(shown: Matrix | CatalogMatrix, stream: TextIO, color: str = "auto") -> None:
    stream.write('<?xml version="1.0" encoding="UTF-8"?>\n' + matrix_svg(shown))
