"""``anchor-audit matrix``: every release tag audited; per claim the releases it holds for."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from anchor_audit.cli import main

from .conftest import git
from .hostile.conftest import make_code_repo, make_skill
from .releases import CARD, build_releases


@pytest.fixture
def released(tmp_path: Path):
    return build_releases(tmp_path)


def _run(repo, skill, capsys, *extra: str) -> str:  # noqa: ANN001
    assert main(["matrix", str(skill), "--repo", str(repo.path), *extra]) == 0
    return capsys.readouterr().out


def test_each_claim_says_the_releases_it_holds_for_and_its_first_break(released, capsys) -> None:
    repo, skill = released
    data = json.loads(_run(repo, skill, capsys, "--format", "json"))
    assert [r["tag"] for r in data["releases"]] == ["v0.1.0", "v0.2.0", "v0.3.0"]  # versions only, no rc, no nightly
    rows = {(r["kind"], r["key"]): r for r in data["rows"]}
    gate = rows[("claim", "gate")]
    assert gate["cells"] == {"v0.1.0": "code_verified", "v0.2.0": "code_verified", "v0.3.0": "broken"}
    assert (gate["holds_for"], gate["first_break"]) == ([">=0.1.0,<0.3.0"], "v0.3.0")
    assert rows[("claim", "notes")]["holds_for"] == [">=0.1.0"]  # doc_only holds: nothing to break
    assert rows[("quote", "pkg/plan.py:3-6")]["cells"]["v0.3.0"] == "changed"


def test_pre_releases_and_bounds(released, capsys) -> None:
    repo, skill = released
    data = json.loads(_run(repo, skill, capsys, "--format", "json", "--pre", "--since", "0.2.0"))
    assert [r["tag"] for r in data["releases"]] == ["v0.2.0", "v0.3.0", "v0.3.1rc1"]
    gate = next(r for r in data["rows"] if r["key"] == "gate")
    assert gate["holds_for"] == [">=0.2.0,<0.3.0", ">=0.3.1rc1"]  # held again once the gate was restored


def test_the_terminal_grid_reads_without_colour_and_folds_at_80_columns(released, capsys, monkeypatch) -> None:
    repo, skill = released
    monkeypatch.setenv("COLUMNS", "80")
    out = _run(repo, skill, capsys)
    lines = out.splitlines()
    assert lines[0].startswith("matrix plan-skill at ") and lines[0].endswith(": 3 releases, v0.1.0 .. v0.3.0")
    gate = next(line for line in lines if line.startswith("gate "))
    assert [c.strip() for c in gate.split("│")[1:]] == ["V", "V", "B"]
    assert "  gate: holds for >=0.1.0,<0.3.0; broken from v0.3.0" in lines
    assert all(len(line) <= 80 for line in lines if "│" in line or "┃" in line)


def test_csv_has_a_column_per_release_and_never_a_formula(released, capsys, tmp_path) -> None:
    repo, skill = released
    rows = list(csv.reader(io.StringIO(_run(repo, skill, capsys, "--format", "csv"))))
    assert rows[0] == ["skill", "kind", "key", "v0.1.0", "v0.2.0", "v0.3.0", "holds_for", "first_break"]
    assert ["plan-skill", "claim", "gate", "code_verified", "code_verified", "broken", ">=0.1.0,<0.3.0", "v0.3.0"] in rows
    evil = make_skill(tmp_path / "evil", card="validation_status:\n  =HYPERLINK(1):\n    - doc_only\n")
    rows = list(csv.reader(io.StringIO(_run(repo, evil, capsys, "--format", "csv"))))
    assert any(row[2] == "'=HYPERLINK(1)" for row in rows)  # a spreadsheet reads it as text
    # A lone CR, which the CSV writer does not quote, would start a record of its own with a formula in it.
    cr = make_skill(tmp_path / "cr", card='validation_status:\n  "a\\r=HYPERLINK(2)":\n    - doc_only\n')
    text = _run(repo, cr, capsys, "--format", "csv")
    assert "\r" not in text and "a\\x0d=HYPERLINK(2)" in text


def test_markdown_is_a_table_of_claims_by_release(released, capsys) -> None:
    repo, skill = released
    out = _run(repo, skill, capsys, "--format", "markdown")
    assert "| claim | `v0.1.0` | `v0.2.0` | `v0.3.0` | holds for |\n" in out
    assert "| `plan-skill` `gate` | V | V | B | `>=0.1.0,<0.3.0` |\n" in out


def test_a_repository_without_release_tags_says_so_and_a_bad_bound_is_exit_2(tmp_path, capsys) -> None:
    repo = make_code_repo(tmp_path / "code")
    git(repo.path, "tag", "-d", "v1")
    skill = make_skill(tmp_path / "s", card=CARD)
    assert "no release tags" in _run(repo, skill, capsys)
    assert main(["matrix", str(skill), "--repo", str(repo.path), "--since", "latest"]) == 2
    assert "'latest' is not a version or a version tag" in capsys.readouterr().err


def test_conditions_and_references_have_rows_too(released, capsys, tmp_path) -> None:
    repo, skill = released
    (skill / "SKILL.md").write_text((skill / "SKILL.md").read_text() + "\nSee `pkg/plan.py` and `pkg/gone.py`.\n")
    registry = tmp_path / "anchors.yaml"
    registry.write_text(
        f"source: {{repo: {repo.path}, ref: v0.1.0}}\nskills:\n  plan-skill:\n    claims:\n      gate:\n"
        "        quotes: [pkg/plan.py:3-6]\n        conditions:\n"
        "          - {path: pkg/plan.py, in: Planner.plan, if: cfg.tp > 1}\n"
    )
    data = json.loads(_run(repo, skill, capsys, "--format", "json", "--spec", str(registry)))
    rows = {(r["kind"], r["key"]): r["cells"] for r in data["rows"]}
    condition = rows[("condition", "gate: Planner.plan: if cfg.tp > 1")]
    assert list(condition.values()) == ["holds", "holds", "different"]  # the gate raised at v0.3.0
    assert list(rows[("reference", "path pkg/plan.py")].values()) == ["exists"] * 3
    assert list(rows[("reference", "path pkg/gone.py")].values()) == ["missing"] * 3
    kinds = [r["kind"] for r in data["rows"]]
    assert kinds == sorted(kinds, key=["claim", "condition", "quote", "reference"].index)  # claims first


SVG = "{http://www.w3.org/2000/svg}"


def test_svg_is_a_self_contained_heat_map_that_reads_in_grey(released, capsys) -> None:
    import xml.etree.ElementTree as ElementTree

    repo, skill = released
    text = _run(repo, skill, capsys, "--format", "svg")
    root = ElementTree.fromstring(text.encode())
    assert root.tag == f"{SVG}svg"
    title = root.find(f"{SVG}title")
    assert title is not None and title.text is not None
    assert "plan-skill" in title.text and "3 releases, v0.1.0 (" in title.text and ") .. v0.3.0 (" in title.text
    gate = [c for c in root.iter(f"{SVG}g") if c.get("class") == "cell" and "gate at" in (c.findtext(f"{SVG}title") or "")]
    assert [c.get("data-verdict") for c in gate] == ["V", "V", "B"]
    assert [c.findtext(f"{SVG}text") for c in gate] == ["V", "V", "B"]  # the letter, not only the colour
    hatched = [len(c.findall(f"{SVG}rect")) for c in gate]
    assert hatched == [1, 1, 2]  # a broken cell is hatched as well
    fills = {c.get("data-verdict"): c.find(f"{SVG}rect").get("fill") for c in gate}  # type: ignore[union-attr]
    assert fills["V"] != fills["B"]
    releases = [t.text for t in root.iter(f"{SVG}text") if t.get("class") == "release"]
    assert releases == ["v0.1.0", "v0.2.0", "v0.3.0"]
    tags = {e.tag.removeprefix(SVG) for e in root.iter()}
    assert not tags & {"script", "foreignObject", "image", "a", "style", "use"}  # nothing to run or fetch
    assert all("href" not in k for e in root.iter() for k in e.attrib)
    assert "url(" not in text.replace("url(#aa-hatch)", "")


def test_svg_escapes_what_the_card_says(released, capsys, tmp_path) -> None:
    import xml.etree.ElementTree as ElementTree

    repo, _ = released
    evil = make_skill(tmp_path / "evil", card='validation_status:\n  "</text><script>x()</script>\\u202e&":\n    - doc_only\n')
    text = _run(repo, evil, capsys, "--format", "svg")
    root = ElementTree.fromstring(text.encode())  # still well-formed XML
    assert not [e for e in root.iter() if e.tag.endswith("script")]
    assert "&lt;/text&gt;&lt;script&gt;x()&lt;/script&gt;\\u202e&amp;" in text  # the bidi override made visible


def test_a_submodule_host_that_does_not_resolve_is_asked_once_for_every_release(tmp_path, monkeypatch) -> None:
    """Three releases pin the submodule at two commits; its host (.invalid) cannot resolve: one fetch, not two."""
    sub = tmp_path / "sub"
    sub.mkdir()
    git(sub, "init", "-q", "-b", "main")
    shas = []
    for n in (1, 2):
        (sub / "x.py").write_text(f"x = {n}\n")
        git(sub, "add", "x.py")
        git(sub, "commit", "-q", "-m", f"x {n}")
        shas.append(git(sub, "rev-parse", "HEAD"))
    modules = '[submodule "sub"]\n\tpath = sub\n\turl = https://nowhere.invalid/sub.git\n'
    repo = make_code_repo(tmp_path / "code", {".gitmodules": modules})
    git(repo.path, "tag", "-d", "v1")
    for n, sha in enumerate([shas[0], shas[1], shas[0]]):
        git(repo.path, "update-index", "--add", "--cacheinfo", f"160000,{sha},sub")
        git(repo.path, "commit", "-q", "--allow-empty", "-m", f"pin {n}")
        git(repo.path, "tag", f"v0.{n}.0")
    skill = make_skill(tmp_path / "s", body="See `sub/x.py`.\n")
    trace = tmp_path / "trace"
    monkeypatch.setenv("GIT_TRACE", str(trace))
    args = ["matrix", str(skill), "--repo", str(repo.path), "--cache-dir", str(tmp_path / "cache"), "--format", "json"]
    assert main(args) == 0
    fetches = [line for line in trace.read_text().splitlines() if "trace: built-in: git fetch" in line]
    assert len(fetches) == 1, fetches


def test_a_remote_repository_has_its_tags_fetched(released, capsys, tmp_path) -> None:
    """Over a URL (here file://, as a remote is read: a mirror in the cache) the release tags come too."""
    repo, skill = released
    url = repo.path.resolve().as_uri()
    args = ["--repo", url, "--cache-dir", str(tmp_path / "cache"), "--format", "json"]
    assert main(["matrix", str(skill), *args]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [r["tag"] for r in data["releases"]] == ["v0.1.0", "v0.2.0", "v0.3.0"]
    git(repo.path, "tag", "v0.4.0")  # a new release: the next run fetches it
    assert main(["matrix", str(skill), *args]) == 0
    assert json.loads(capsys.readouterr().out)["releases"][-1]["tag"] == "v0.4.0"


def test_the_legend_names_only_the_letters_the_grid_shows() -> None:
    from anchor_audit.report.matrixview import legend
    from anchor_audit.runs.matrix import Row

    rows = [Row("s", "claim", "gate", ("code_verified", "broken")),
            Row("s", "reference", "constraint TP needs TE.", ("holds", "differs"))]  # fmt: skip
    assert legend(rows) == "V code_verified · B broken · = holds · c changed"


def test_verbose_grids_every_row_and_the_default_only_claims(released, capsys) -> None:
    repo, skill = released
    short, full = _run(repo, skill, capsys), _run(repo, skill, capsys, "-v")
    assert not any(line.startswith(("quote ", "condition ")) for line in short.splitlines())
    rows = [line for line in full.splitlines() if "│" in line]
    assert any(line.startswith("quote pkg/plan.py:") for line in rows)  # a quote's row, its kind first, whole
    assert any(line.startswith("gate ") for line in rows)  # the claims are still there
    assert set(full.splitlines()) >= {line for line in short.splitlines() if line.startswith("  gate:")}


def test_constraints_that_begin_alike_are_numbered_in_the_grid_and_below_it() -> None:
    """Two decided constraints whose sentences share their first words would be one label cut to the claims' width:
    each is numbered, in the grid and in its line below."""
    from anchor_audit.model.versionspec import version_key
    from anchor_audit.report.matrixview import render_matrix_terminal
    from anchor_audit.runs.matrix import Matrix, Release, Row

    releases = [Release(tag, sha * 40, version_key(tag), False) for tag, sha in (("v1.0.0", "a"), ("v2.0.0", "b"))]
    rows = [Row("s", "claim", "gate", ("code_verified", "code_verified")),
            Row("s", "reference", "constraint TP overlap requires sequence_parallel=True.", ("holds", "holds")),
            Row("s", "reference", "constraint TP overlap requires Transformer Engine.", ("holds", "missing")),
            Row("s", "reference", "constraint Tune it by hand.", ("unverifiable", "unverifiable"))]  # fmt: skip
    out = io.StringIO()
    render_matrix_terminal(Matrix("acme/code", releases, rows), out, color="never")
    grid = [line.split("│")[0].strip() for line in out.getvalue().splitlines() if "│" in line]
    assert grid == ["gate", "constraint 1", "constraint 2"]
    below = [line.strip() for line in out.getvalue().splitlines() if line.startswith("  constraint")]
    assert below == ["constraint 1: TP overlap requires sequence_parallel=True.: holds for >=1.0.0",
                     "constraint 2: TP overlap requires Transformer Engine.: holds for >=1.0.0,<2.0.0; broken from v2.0.0"]
