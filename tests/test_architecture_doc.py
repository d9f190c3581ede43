"""ARCHITECTURE.md is drawn from the tree: every package and module it names is there, every one that is there
is named in its package's row, and its layers are the ones tests/test_layers.py holds, in the same order."""

from __future__ import annotations

import re

from .conftest import ROOT
from .test_layers import LAYERS

PACKAGE = ROOT / "src" / "anchor_audit"
DOC = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")


def _rows() -> dict[str, str]:
    """The table of what each package owns: package -> its row's text."""
    table = DOC.split("## What each package owns", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in table.splitlines():
        found = re.match(r"^\| `([\w/]+)` \| (.*) \|$", line)
        if found:
            rows[found.group(1).rstrip("/")] = found.group(2)
    return rows


def _packages() -> dict[str, set[str]]:
    """Package -> the files of its folder (the loose modules under the package's own name)."""
    out = {"anchor_audit": {p.name for p in PACKAGE.glob("*.py")}}
    for folder in sorted(p for p in PACKAGE.iterdir() if (p / "__init__.py").exists()):
        out[folder.name] = {p.name for p in folder.iterdir() if p.suffix in (".py", ".json") and p.name != "__init__.py"}
    return out


def test_every_package_has_a_row_and_every_row_a_package() -> None:
    assert set(_rows()) == set(_packages())


def test_every_module_is_named_in_its_packages_row() -> None:
    rows = _rows()
    unnamed = {name: sorted(f for f in files if f"`{f}`" not in rows[name]) for name, files in _packages().items()}
    assert {name: files for name, files in unnamed.items() if files} == {}


def test_a_row_names_no_module_its_package_does_not_have() -> None:
    rows, packages = _rows(), _packages()
    stale = {name: sorted(set(re.findall(r"`(\w+\.(?:py|json))`", row)) - packages[name] - {"__init__.py"})
             for name, row in rows.items()}  # fmt: skip
    assert {name: files for name, files in stale.items() if files} == {}


def test_the_layers_are_the_ones_the_layer_test_holds_in_its_order() -> None:
    block = DOC.split("## Layers", 1)[1].split("```text\n", 1)[1].split("```", 1)[0]
    drawn = [set(re.split(r",\s*", line[:19].strip())) for line in block.splitlines() if line.strip()]
    assert drawn == [layer for layer in LAYERS if layer != {""}]
