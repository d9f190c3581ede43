"""The project's own pages: every relative link and every #anchor in them goes somewhere, read with the same
link parser and heading slugs the tool checks skills with."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote

import pytest

from anchor_audit.checks.links import heading_slugs
from anchor_audit.model import ReferenceKind
from anchor_audit.spec.pages import page_links

from .conftest import ROOT

PAGES = [ROOT / "README.md", ROOT / "README.zh-CN.md", ROOT / "ARCHITECTURE.md", ROOT / "CHANGELOG.md",
         *sorted((ROOT / "docs").glob("*.md"))]  # fmt: skip


def _broken(page: Path) -> list[str]:
    text = page.read_text(encoding="utf-8")
    out = []
    for link in (c for c in page_links(text) if c.kind is ReferenceKind.LINK):  # not the paths code spans name
        target = unquote(link.target)
        if "://" in target or target.startswith("mailto:"):
            continue
        where = (page.parent / target).resolve() if target else page
        if not where.exists():
            out.append(f"{page.name}:{link.line}: {target} does not exist")
        elif link.fragment and where.suffix == ".md" and link.fragment not in heading_slugs(where.read_text("utf-8")):
            out.append(f"{page.name}:{link.line}: {target}#{link.fragment}: no such heading")
    return out


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_every_relative_link_and_anchor_of_the_pages_resolves(page: Path) -> None:
    assert _broken(page) == []


def test_a_broken_link_or_anchor_is_caught(tmp_path: Path) -> None:
    (tmp_path / "there.md").write_text("# A heading\n", encoding="utf-8")
    page = tmp_path / "page.md"
    page.write_text("[a](there.md#a-heading) [b](gone.md) [c](there.md#nope) [d](#here)\n\n## Here\n", "utf-8")
    assert _broken(page) == ["page.md:1: gone.md does not exist", "page.md:1: there.md#nope: no such heading"]
