"""``matrix --catalog``: each component's skills over its own repository's release tags."""

from __future__ import annotations

import csv
import io
import json
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

from anchor_audit.cli import main

from .catalog_fixture import build_catalog, release_alpha


@pytest.fixture
def tagged(tmp_path: Path) -> tuple[Path, list[str]]:
    """The fixture catalog, alpha released twice (v1.0.0 before plan.py moved its quotes, v1.1.0 after); beta
    without a release tag; gamma out of reach."""
    catalog, mirrors = build_catalog(tmp_path)
    release_alpha(tmp_path)
    return catalog, mirrors


def _run(catalog: Path, mirrors: list[str], capsys, *fmt: str) -> tuple[str, str]:  # noqa: ANN001
    assert main(["matrix", "--catalog", str(catalog), *mirrors, *fmt]) == 0
    done = capsys.readouterr()
    return done.out, done.err


def test_each_component_over_its_own_releases(tagged, capsys) -> None:
    out, err = _run(*tagged, capsys, "--format", "json")
    data = json.loads(out)
    (alpha,) = data["components"]
    assert alpha["repo"] == "https://github.com/acme/alpha"
    assert [r["tag"] for r in alpha["releases"]] == ["v1.0.0", "v1.1.0"]
    rows = {(r["skill"], r["kind"], r["key"]): r["cells"] for r in alpha["rows"]}
    assert rows[("a-moved", "quote", "pkg/plan.py:3-4")] == {"v1.0.0": "exact", "v1.1.0": "moved"}
    assert rows[("a-changed", "claim", "gate")] == {"v1.0.0": "broken", "v1.1.0": "broken"}
    said = [line.removeprefix("anchor-audit: ") for line in err.splitlines()]
    assert "https://github.com/acme/beta: no release tags; its 4 skills have no matrix" in said
    assert any(line.startswith("skipped: cannot reach https://github.com/acme/gamma") for line in said)
    assert data["skipped"] == [line for line in said if "gamma" in line or "beta" in line]


def test_the_catalog_csv_has_one_row_per_cell_and_the_svg_one_map_per_component(tagged, capsys) -> None:
    out, _ = _run(*tagged, capsys, "--format", "csv")
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[0] == ["repo", "skill", "kind", "key", "release", "status", "holds_for", "first_break"]
    moved = [r[4:6] for r in rows if r[1] == "a-moved" and r[2] == "quote"]
    assert moved == [["v1.0.0", "exact"], ["v1.1.0", "moved"]]
    svg, _ = _run(*tagged, capsys, "--format", "svg")
    root = ElementTree.fromstring(svg.encode())
    inner = root.findall("{http://www.w3.org/2000/svg}svg")
    assert len(inner) == 1  # alpha's (beta has no release, gamma no repository)
    ids = [e.get("id") for e in root.iter() if e.get("id")]
    assert len(ids) == len(set(ids))


def test_write_card_is_refused_for_a_catalog(tagged, capsys) -> None:
    catalog, mirrors = tagged
    assert main(["matrix", "--catalog", str(catalog), *mirrors, "--write-card"]) == 2
    assert "not a catalog's signed copies" in capsys.readouterr().err


def test_both_json_shapes_follow_the_shipped_schema(tagged, capsys, tmp_path) -> None:
    import jsonschema

    from anchor_audit.cli import main as run

    from .conftest import ROOT
    from .releases import build_releases

    schema = json.loads((ROOT / "src/anchor_audit/report/matrix.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    out, _ = _run(*tagged, capsys, "--format", "json")
    jsonschema.validate(json.loads(out), schema)
    repo, skill = build_releases(tmp_path / "single")
    assert run(["matrix", str(skill), "--repo", str(repo.path), "--format", "json"]) == 0
    one = json.loads(capsys.readouterr().out)
    jsonschema.validate(one, schema)
    del one["rows"][0]["holds_for"]  # a claim row without its ranges is not the documented shape
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(one, schema)


def test_a_component_with_more_release_tags_than_a_matrix_audits_is_said_once_and_skipped(
    tagged, capsys, tmp_path: Path
) -> None:
    """beta tagged 201 times: its line says so, alpha still gets its matrix, and the run exits 0."""
    from .conftest import git

    for n in range(201):
        git(tmp_path / "beta", "tag", f"v0.{n}.0")
    out, err = _run(*tagged, capsys, "--format", "json")
    data = json.loads(out)
    assert [m["repo"] for m in data["components"]] == ["https://github.com/acme/alpha"]
    assert ("https://github.com/acme/beta: 201 release tags: more than 200; narrow them with --tags or --since; its 4 "
            "skills have no matrix") in data["skipped"]
