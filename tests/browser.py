"""A real browser for the HTML report's tests: Debian's chromium, headless, driven by Playwright.

The test is skipped, with the reason, only where the browser or Playwright cannot be had (`.ci/run` installs
both).  Chromium starts with background networking off, so the only requests it makes are the page's own;
each test records them, with every console message, and asserts there are none.
"""

from __future__ import annotations

import shutil
import struct
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--disable-default-apps"]  # fmt: skip


@dataclass
class Visit:
    page: Any  # playwright.sync_api.Page
    requests: list[str] = field(default_factory=list)  # every URL asked for after the page itself
    console: list[str] = field(default_factory=list)  # "type: text" of every console message and page error


@contextmanager
def browser(tmp_path: Path) -> Iterator[Any]:
    """A headless chromium (a Playwright Browser), or the test skipped with the reason it cannot start."""
    try:
        from playwright.sync_api import Error, sync_playwright
    except ImportError:
        pytest.skip("playwright is not installed (pip install '.[test]' installs it)")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no chromium at {CHROMIUM} (apt-get install -y chromium; .ci/run does)")
    with sync_playwright() as driver:
        try:
            launched = driver.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        except Error as exc:  # present but unable to start here (no sandbox support, a broken install)
            pytest.skip(f"chromium at {CHROMIUM} does not start: {str(exc).splitlines()[0]}")
        try:
            yield launched
        finally:
            launched.close()


def visit(launched: Any, page_file: Path, scripts: bool = True) -> Visit:
    """``page_file`` opened in a new context; what it asked for and said recorded as it loaded."""
    context = launched.new_context(java_script_enabled=scripts, viewport={"width": 1200, "height": 900})
    page = context.new_page()
    seen = Visit(page)
    url = page_file.resolve().as_uri()
    page.on("request", lambda r: None if r.url == url else seen.requests.append(r.url))
    page.on("console", lambda m: seen.console.append(f"{m.type}: {m.text}"))
    page.on("pageerror", lambda e: seen.console.append(f"pageerror: {e}"))
    page.goto(url, wait_until="load")
    return seen


def pixel(png: bytes, x: int, y: int) -> tuple[int, int, int]:
    """The RGB colour at (x, y) of an 8-bit, non-interlaced PNG (what Chromium's screenshots are)."""
    width, _, depth, kind, _, _, interlace = struct.unpack(">IIBBBBB", png[16:29])
    assert depth == 8 and kind in (2, 6) and interlace == 0, (depth, kind, interlace)
    channels = 3 if kind == 2 else 4
    data, at = b"", 8
    while at < len(png):
        length, chunk = struct.unpack(">I4s", png[at : at + 8])
        if chunk == b"IDAT":
            data += png[at + 8 : at + 8 + length]
        at += 12 + length
    raw, stride, previous = zlib.decompress(data), width * channels, bytearray(width * channels)
    for row in range(y + 1):
        start = row * (stride + 1)
        line = _unfilter(raw[start], bytearray(raw[start + 1 : start + 1 + stride]), previous, channels)
        previous = line
    r, g, b = previous[x * channels : x * channels + 3]
    return r, g, b


def _unfilter(kind: int, line: bytearray, above: bytearray, bpp: int) -> bytearray:
    for i in range(len(line)):
        left = line[i - bpp] if i >= bpp else 0
        up, corner = above[i], above[i - bpp] if i >= bpp else 0
        if kind == 1:
            line[i] = (line[i] + left) & 0xFF
        elif kind == 2:
            line[i] = (line[i] + up) & 0xFF
        elif kind == 3:
            line[i] = (line[i] + (left + up) // 2) & 0xFF
        elif kind == 4:
            p = left + up - corner
            pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
            line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 0xFF
    return line
