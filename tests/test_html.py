"""``--format html``: one self-contained page, read in a real browser.

Each page is opened from disk in headless chromium; the test asserts it made no request and logged nothing,
reads what the page shows (the heat map's cells, a diff, the claims), and checks the screenshot's pixels
where a broken cell is drawn.
"""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

import pytest

from anchor_audit.cli import main

from .browser import browser, pixel, visit
from .catalog_fixture import build_catalog, release_alpha
from .hostile.conftest import QUOTE, make_skill
from .releases import build_releases

HOSTILE = '<img src="http://127.0.0.1:9/x.png"><script>fetch("http://127.0.0.1:9/")</script>\u202e'


@pytest.fixture
def released(tmp_path: Path):
    return build_releases(tmp_path)


def _write(tmp_path: Path, name: str, *args: str, code: int = 0) -> Path:
    out = tmp_path / name
    assert main([*args, "--format", "html", "--output", str(out)]) == code
    return out


def test_the_matrix_page_shows_its_cells_and_asks_for_nothing(released, tmp_path) -> None:
    repo, skill = released
    page_file = _write(tmp_path, "matrix.html", "matrix", str(skill), "--repo", str(repo.path))
    with browser(tmp_path) as chromium:
        seen = visit(chromium, page_file)
        page = seen.page
        cells = page.locator("g.cell").evaluate_all(
            "cells => cells.map(c => [c.querySelector('title').textContent, c.dataset.verdict, "
            "getComputedStyle(c.querySelector('rect')).fill])"
        )
        gate = [(said, verdict) for said, verdict, _ in cells if said.startswith("gate at")]
        assert gate == [("gate at v0.1.0: code_verified", "V"), ("gate at v0.2.0: code_verified", "V"),
                        ("gate at v0.3.0: broken", "B")]  # fmt: skip
        fills = {verdict: fill for said, verdict, fill in cells}
        assert fills["B"] == "rgb(178, 24, 43)" and fills["V"] == "rgb(27, 120, 55)"
        broken = page.locator("g.cell[data-verdict=B] rect").first.bounding_box()
        shot = page.screenshot(full_page=True, path=str(tmp_path / "matrix.png"))
        r, g, b = pixel(shot, int(broken["x"]) + 3, int(broken["y"]) + 3)
        assert r > 150 and r > g + 60 and r > b + 60, (r, g, b)  # painted red where the B is
        text = page.inner_text("body")
        assert ">=0.1.0,<0.3.0" in text and "v0.3.0" in text
        assert seen.requests == [] and seen.console == []
        bare = visit(chromium, page_file, scripts=False)  # nothing on the page needs a script
        assert "holds for" in bare.page.inner_text("body") and bare.requests == []


def test_a_changed_quote_shows_its_diff_and_untrusted_text_stays_text(released, tmp_path) -> None:
    repo, _ = released
    skill = make_skill(tmp_path / "evil-skill", body=QUOTE + f"\nSee `{HOSTILE}`.\n",
                       card=f"validation_status:\n  '{HOSTILE}':\n    - doc_only\n")  # fmt: skip
    args = ("check", str(skill), "--repo", str(repo.path), "--ref", "v0.3.0")
    page_file = _write(tmp_path, "check.html", *args, code=1)
    with browser(tmp_path) as chromium:
        seen = visit(chromium, page_file)
        page = seen.page
        assert page.locator("pre.diff .del").all_inner_texts() == ["-if cfg.tp > 1:"]
        assert page.locator("pre.diff .add").all_inner_texts() == ["+if cfg.tp > 2:"]
        red = page.locator("pre.diff .del").evaluate("e => getComputedStyle(e).backgroundColor")
        assert red == "rgb(255, 235, 233)"
        assert page.locator("script, img, iframe, object").count() == 0  # the card's markup is text
        assert '<script>fetch("http://127.0.0.1:9/")</script>' in page.inner_text("body")
        assert "\\u202e" in page.inner_text("body")  # the bidi override shown, not obeyed
        page.screenshot(full_page=True, path=str(tmp_path / "check.png"))
        assert seen.requests == [] and seen.console == []


class _Collect(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.rows: list[list[str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        if tag == "tr":
            self.rows.append([])

    def handle_data(self, data: str) -> None:
        if self.tags and self.tags[-1] in ("td", "a") and self.rows:
            self.rows[-1].append(data)


def test_a_catalog_page_lists_its_components(tmp_path) -> None:
    catalog, mirrors = build_catalog(tmp_path)
    page_file = _write(tmp_path, "catalog.html", "check", "--catalog", str(catalog), *mirrors, code=1)
    text = page_file.read_text(encoding="utf-8")
    parsed = _Collect()
    parsed.feed(text)
    assert "script" not in parsed.tags and "Content-Security-Policy" in text
    components = [row[0] for row in parsed.rows if row and row[0].startswith("acme/")]
    assert components == ["acme/alpha", "acme/beta", "acme/gamma"]
    with browser(tmp_path) as chromium:
        seen = visit(chromium, page_file)
        assert seen.page.locator("section.skill").count() == text.count('<section class="skill"')
        assert seen.requests == [] and seen.console == []


def test_a_catalog_matrix_page_has_a_heat_map_per_component(tmp_path) -> None:
    catalog, mirrors = build_catalog(tmp_path)
    release_alpha(tmp_path)
    page_file = _write(tmp_path, "catalog-matrix.html", "matrix", "--catalog", str(catalog), *mirrors)
    with browser(tmp_path) as chromium:
        seen = visit(chromium, page_file)
        page = seen.page
        cells = page.locator("g.cell title").evaluate_all("els => els.map(e => e.textContent)")
        assert "gate at v1.1.0: broken" in cells and "pkg/plan.py:3-4 at v1.1.0: moved" not in cells  # claims only
        ids = page.locator("[id]").evaluate_all("els => els.map(e => e.id)")
        assert len(ids) == len(set(ids))  # one page, many components: no id twice
        assert "no release tags" in page.inner_text("body")
        assert seen.requests == [] and seen.console == []


def test_a_catalog_page_puts_the_worst_first_folds_every_section_and_counts_what_holds(tmp_path) -> None:
    catalog, mirrors = build_catalog(tmp_path)
    text = _write(tmp_path, "catalog.html", "check", "--catalog", str(catalog), *mirrors, code=1).read_text("utf-8")
    sections = [m.split("</h2>")[0] for m in text.split('<section class="skill"')[1:]]
    names = [s.split("<h2>")[1] for s in sections]
    # a broken claim, then a moved quote, then missing paths and links, then what only a re-sync heals
    assert names == ["a-changed", "a-moved", "a-citations", "b-cli", "a-behind", "a-ahead", "b-unreadable",
                     "b-absent"]  # fmt: skip
    assert "<details open" not in text and text.count("<details>") == len(names)
    assert "<h3>Skills that hold (2)</h3><p>a-clean, b-clean</p>" in text  # named, no section each
    assert text.count("no such repository") == 1  # the skip's cause once, not once per skill
    assert "<th>claims broken</th>" in text and "<th>links broken</th>" in text
    assert "references hold</p>" not in text.split('id="skill-0"')[0]  # no section before the table of skills
