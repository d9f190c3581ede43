"""The catalog report a maintainer reads: the fixture catalog (tests/catalog_fixture.py) in every view.

Goldens checked by hand: tests/golden/catalog-fixture.{txt,md,json}.  Besides them, what a plausible bug
would break: a skill's reason missing or split over lines, a count that does not add up, the Markdown over
GitHub's size, a copy behind upstream not named as such, a folder no component names left unsaid.
"""

from __future__ import annotations

import json
import os
from importlib import resources
from pathlib import Path

import jsonschema
import pytest

from anchor_audit.cli import main
from anchor_audit.report.catalogmarkdown import MAX_CHARS
from anchor_audit.spec.components import load_catalog, unlisted_folders

from .catalog_fixture import build_catalog
from .conftest import GitRepo, assert_golden, git


@pytest.fixture(scope="module")
def fixture_catalog(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str], Path]:
    root = tmp_path_factory.mktemp("catalog-fixture")
    catalog, mirrors = build_catalog(root)
    return catalog, mirrors, root


def _run(fixture_catalog, capsys, *args: str) -> tuple[int, str, str]:
    catalog, mirrors, root = fixture_catalog
    code = main(["check", "--catalog", str(catalog), *mirrors, "--no-cache", *args])
    out, err = capsys.readouterr()
    return code, out.replace(str(root), "TMP"), err.replace(str(root), "TMP")


@pytest.mark.parametrize("fmt, ext", [("terminal", "txt"), ("markdown", "md"), ("json", "json")])
def test_the_fixture_catalog_in_each_view_is_its_golden(fixture_catalog, capsys, fmt: str, ext: str) -> None:
    code, out, _ = _run(fixture_catalog, capsys, "--format", fmt)
    assert code == 1
    assert_golden(f"catalog-fixture.{ext}", out)


def test_the_terminal_says_why_each_skill_drifts_in_one_line(fixture_catalog, capsys, monkeypatch) -> None:
    monkeypatch.setenv("COLUMNS", "60")
    _, out, err = _run(fixture_catalog, capsys)
    lines = out.splitlines()
    assert "12 skills in 3 components: 9 audited, 2 skipped, 1 unreadable; 7 with drift; 2 folders no component names" in lines
    reasons = {line.split(":", 1)[0]: line.split(": ", 1)[1] for line in lines if line.startswith(("a-", "b-"))}
    ask = " · ask Test Author"  # the upstream folder's last committer: no CODEOWNERS in the fixture
    assert reasons == {
        "a-moved": "1 quote moved" + ask,
        "a-changed": "1 quote changed · 1 claim broken · 1 card mismatch · 1 evidence path missing" + ask,
        "a-citations": "1 symbol missing · 1 path missing · 1 link broken" + ask,
        "b-cli": "1 version differs · 1 command fails to parse" + ask,
    }  # at 60 columns the reasons do not fit a table: one skill a line, none wrapped
    assert "acme/alpha: 2 skills out of sync and nothing else (1 behind upstream, 1 ahead or diverged)" in lines
    assert "acme/beta: 1 skill out of sync and nothing else (1 absent upstream)" in lines
    assert "not audited, no component names them (1 listed in catalog-exceptions.yml, 1 in none): local-notes, stray" in lines
    assert lines[-1].endswith("3 skills out of sync · 2 skills skipped · 1 skill unreadable · exit 1 (drift)")
    assert "acme/beta @ main: its newest commit (2026-01-01) is older than the catalog's last change" in err
    for word in ("a-citations", "catalog-exceptions.yml", "acme/gamma"):  # never split over two lines
        assert any(word in line for line in lines)


def test_the_verbose_terminal_of_a_catalog_cuts_nothing(fixture_catalog, capsys) -> None:
    _, short, _ = _run(fixture_catalog, capsys)
    _, out, _ = _run(fixture_catalog, capsys, "--verbose")
    assert "a-clean  skills/a-clean" not in out  # the catalog view, not every skill's tables: the JSON has those
    # every finding of each class, each whole (the short view clips an example after a word)
    whole = ("  a-behind: the catalog's copy is out of sync with the repository's: 1 file differs; the copy is "
             "upstream's of 8d9aae2d8 (2026-02-01), 1 commit to the folder behind; the files: SKILL.md (differs)")  # fmt: skip
    assert whole in out.splitlines() and whole not in short.splitlines()
    assert len(out.splitlines()) > len(short.splitlines())


def test_the_json_counts_every_skill_and_says_how_each_copy_stands(fixture_catalog, capsys) -> None:
    _, out, _ = _run(fixture_catalog, capsys, "--format", "json")
    report = json.loads(out)
    schema = json.loads(resources.files("anchor_audit.report").joinpath("report.schema.json").read_text())
    jsonschema.Draft202012Validator(schema).validate(report)
    skills = report["summary"]["skills"]
    assert skills == {"audited": 9, "skipped": 2, "unreadable": 1, "out_of_sync": 3, "absent_upstream": 1,
                      "behind_upstream": 1, "unlisted": 2}  # fmt: skip
    by_name = {s["name"]: s for s in report["skills"]}
    behind = by_name["a-behind"]["sync"]
    assert (behind["behind"], behind["matches_date"]) == (1, "2026-02-01")
    assert by_name["a-ahead"]["sync"]["searched"] == 1 and "matches" not in by_name["a-ahead"]["sync"]
    assert by_name["b-absent"]["sync"]["absent_upstream"] is True and "out_of_sync" not in by_name["b-absent"]
    assert [c["skills"] for c in report["components"]] == [
        ["a-clean", "a-moved", "a-changed", "a-behind", "a-ahead", "a-citations"],
        ["b-clean", "b-cli", "b-unreadable", "b-absent"], ["g-one", "g-two"],
    ]  # fmt: skip
    assert report["unlisted"] == [
        {"name": "local-notes", "listed_in": "catalog-exceptions.yml", "reason": "kept here on purpose, no upstream"},
        {"name": "stray", "listed_in": None, "reason": None},
    ]


def test_the_markdown_of_a_large_catalog_stays_within_a_github_comment(tmp_path: Path, capsys) -> None:
    # 150 skills, each with a moved quote: their claims and quotes alone would be far over the limit.
    code = GitRepo(tmp_path / "code")
    code.path.mkdir()
    git(code.path, "init", "-q", "-b", "main")
    code.write("pkg/plan.py", "import os\nclass Planner:\n    def plan(self, cfg):\n        if cfg.tp > 1:\n"
               "            cfg.overlap = True\n        return cfg\n")  # fmt: skip
    catalog = tmp_path / "catalog"
    (catalog / "components.d").mkdir(parents=True)
    names = [f"skill-{i:03d}-with-a-long-name-for-its-table-rows" for i in range(150)]
    entries = "".join(f"  - path: skills/{n}\n    catalog_dir: {n}\n" for n in names)
    (catalog / "components.d" / "big.yml").write_text(f"repo: acme/big\nskills:\n{entries}")
    for n in names:
        text = f"---\nname: {n}\ndescription: d\n---\n\n" + "```3:4:pkg/plan.py\nif cfg.tp > 1:\n    cfg.overlap = True\n```\n" * 4
        (catalog / "skills" / n).mkdir(parents=True)
        (catalog / "skills" / n / "SKILL.md").write_text(text)
        code.write(f"skills/{n}/SKILL.md", text)
    code.commit("code and skills")
    assert main(["check", "--catalog", str(catalog), "--mirror", f"acme/big={code.path}", "--format", "markdown"]) == 1
    out = capsys.readouterr().out
    assert len(out) <= MAX_CHARS
    assert out.count("<details>") == 1 and "150 skills, 150 with drift" in out
    assert all(f"`{n}`: 4 quotes moved" in out for n in names)  # every skill's reason survives the cut
    last = out.rstrip().splitlines()[-1]
    assert "Cut to stay within GitHub's comment size" in last and "the claims and quotes of" in last
    assert " with quotes and line citations changed or moved)" in last  # what was cut, by its worst class
    assert "`--report json=FILE`" in last


def test_exception_files_are_read_as_data_and_no_link_is_followed(tmp_path: Path) -> None:
    catalog = tmp_path / "catalog"
    (catalog / "components.d").mkdir(parents=True)
    (catalog / "components.d" / "a.yml").write_text("repo: acme/a\nskills:\n  - path: s/x\n    catalog_dir: x\n")
    for name in ("x", "kept", "linked", "odd"):
        (catalog / "skills" / name).mkdir(parents=True)
    (catalog / ".github" / "scripts").mkdir(parents=True)
    (catalog / ".github" / "scripts" / "manual.yml").write_text("components:\n  - catalog_dirs: [kept]\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "list.yml").write_text("- dir: linked\n  reason: from outside the catalog\n")
    os.symlink(outside, catalog / ".github" / "elsewhere")
    (catalog / "broken.yaml").write_text("a: [unclosed\n")  # a file it cannot parse is no listing, not a failure
    found = unlisted_folders(catalog, load_catalog(catalog))
    assert [(u.name, u.listed_in, u.reason) for u in found] == [
        ("kept", ".github/scripts/manual.yml", None), ("linked", None, None), ("odd", None, None),
    ]  # fmt: skip


def test_a_copy_is_matched_to_the_upstream_version_it_is_even_across_added_and_deleted_files(tmp_path: Path) -> None:
    from anchor_audit.source import git_blob_sha
    from anchor_audit.source.git import open_git

    repo = GitRepo(tmp_path / "up")
    repo.path.mkdir()
    git(repo.path, "init", "-q", "-b", "main")
    versions = [{"SKILL.md": "one\n", "b.md": "b\n"}, {"SKILL.md": "two\n", "b.md": "b\n"}, {"SKILL.md": "two\n", "c.md": "c\n"}]
    shas = []
    for i, files in enumerate(versions):
        for gone in ("b.md", "c.md"):
            if gone not in files and (repo.path / "skills/s" / gone).exists():
                repo.remove(f"skills/s/{gone}")
        for name, text in files.items():
            repo.write(f"skills/s/{name}", text)
        repo.write("other.py", f"x = {i}\n")  # commits elsewhere do not count as the folder's
        shas.append(repo.commit(f"v{i}", date=f"2026-0{i + 1}-01T00:00:00"))
        repo.write("other.py", f"x = {i} + 1\n")
        repo.commit(f"elsewhere {i}", date=f"2026-0{i + 1}-02T00:00:00")
    tree = open_git(str(repo.path), "main", cache_dir=str(tmp_path / "cache"))

    def blobs(files: dict[str, str]) -> dict[str, str]:
        return {name: git_blob_sha(text.encode()) for name, text in files.items()}

    first = tree.version_matching("skills/s", blobs(versions[0]))
    assert (first.commit, first.date, first.behind) == (shas[0], "2026-01-01", 2)
    second = tree.version_matching("skills/s/", blobs(versions[1]))
    assert (second.commit, second.behind) == (shas[1], 1)
    assert tree.version_matching("skills/s", blobs(versions[2])).behind == 0
    nowhere = tree.version_matching("skills/s", blobs({"SKILL.md": "mine\n"}))
    assert (nowhere.commit, nowhere.searched) == (None, 3)


def test_docs_catalog_shows_the_fixture_as_it_is() -> None:
    from .conftest import GOLDEN, ROOT

    docs = (ROOT / "docs/catalog.md").read_text()
    golden = (GOLDEN / "catalog-fixture.txt").read_text().rstrip("\n")
    assert f"```text\n{golden}\n```" in docs


def test_evidence_several_claims_share_is_printed_once_naming_the_claims(tmp_path: Path, capsys) -> None:
    from .hostile.conftest import make_code_repo, make_skill

    repo = make_code_repo(tmp_path / "code")
    card = ("validation_status:\n  wiring: [file_exists]\n  plugins: [file_exists]\n  launch: [file_exists]\n"
            "evidence:\n  - pkg/plan.py\n  - pkg/gone_a.py\n  - pkg/gone_b.py\n")  # fmt: skip
    skill = make_skill(tmp_path / "skill", card=card)
    assert main(["check", str(skill), "--repo", str(repo.path), "--ref", "v1"]) == 1
    out = capsys.readouterr().out
    assert out.count("missing: file pkg/gone_a.py") == 1 and out.count("missing: file pkg/gone_b.py") == 1
    assert "  under 3 claims (wiring, plugins, launch):\n    missing: file pkg/gone_a.py\n" in out


def _one_component(tmp_path: Path, files: dict[str, str], bodies: dict[str, str], upstream: str) -> list[str]:
    """A catalog of one component, acme/libs, whose repository holds ``files`` and each skill of ``bodies`` under
    the folder ``upstream``; the catalog copies each skill to skills/<name>.  The check's arguments."""
    from .catalog_fixture import skill_md
    from .conftest import GitRepo, git

    code = GitRepo(tmp_path / "code")
    code.path.mkdir()
    git(code.path, "init", "-q", "-b", "main")
    for rel, text in files.items():
        code.write(rel, text)
    catalog = tmp_path / "catalog"
    (catalog / "components.d").mkdir(parents=True)
    entries = "".join(f"  - path: {upstream}/{n}\n    catalog_dir: {n}\n" for n in bodies)
    (catalog / "components.d" / "libs.yml").write_text(f"repo: acme/libs\nskills:\n{entries}")
    for name, body in bodies.items():
        code.write(f"{upstream}/{name}/SKILL.md", skill_md(name, body))
        (catalog / "skills" / name).mkdir(parents=True)
        (catalog / "skills" / name / "SKILL.md").write_text(skill_md(name, body))
    code.commit("libraries")
    return ["check", "--catalog", str(catalog), "--mirror", f"acme/libs={code.path}"]


def test_skills_whose_only_drift_is_the_catalogs_layout_are_one_line_not_one_each(tmp_path: Path, capsys) -> None:
    """Upstream keeps its skills under skills/libs/; the catalog flattens them to skills/<name>: a link that climbs
    two folders to skills/guide.md holds upstream and breaks in every copy, one cause for all."""
    bodies = {f"lib-{i}": "See [the guide](../../guide.md).\n" if i < 3 else "Nothing to follow.\n" for i in range(7)}
    assert main(_one_component(tmp_path, {"skills/guide.md": "# Guide\n"}, bodies, "skills/libs")) == 1
    out = capsys.readouterr().out
    said = ("acme/libs: 3 skills whose only drift is 3 links broken by the catalog's layout (they hold in the "
            "repository): one cause, the catalog's to heal")  # fmt: skip
    assert said in out
    assert not any(line.startswith("lib-") for line in out.splitlines())  # not listed one by one


def test_the_terminal_names_every_changed_quote_and_gives_links_by_example(tmp_path: Path, capsys) -> None:
    """Claims broken and quotes changed are each a line of the findings by class, whatever their number; the
    classes after them (links) give two examples and their count."""
    code = {"pkg/plan.py": "".join(f"value_{i} = {i}\n" for i in range(8))}
    names = [f"lib-{i}" for i in range(6)]
    bodies = {n: f"```{i + 1}:{i + 1}:pkg/plan.py\nvalue_{i} = {i + 100}\n```\n\nSee [the notes](notes-{i}.md).\n"
              for i, n in enumerate(names)}  # fmt: skip
    assert main(_one_component(tmp_path, code, bodies, "skills")) == 1
    lines = capsys.readouterr().out.splitlines()
    changed = lines.index("AA102 quote-changed: 6 in 6 skills")
    assert [line.split(":")[0] for line in lines[changed + 1 : changed + 7]] == [f"  {n}" for n in names]
    links = lines.index("AA407 link-broken: 6 in 6 skills")
    assert changed < links  # worst first
    assert [line.startswith("  lib-") for line in lines[links + 1 : links + 4]] == [True, True, False]  # two examples
