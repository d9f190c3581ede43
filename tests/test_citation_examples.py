"""Run every example the prose's citations own (anchor_audit/checks/prose_examples.py), against real git trees."""

from __future__ import annotations

from pathlib import Path

import pytest

from anchor_audit.checks.links import heading_slugs
from anchor_audit.checks.prose import check_citations
from anchor_audit.checks.prose_examples import EXAMPLES, NOT_CITATIONS, CitationExample
from anchor_audit.checks.prose_examples_code import CODE
from anchor_audit.checks.protocol import context
from anchor_audit.source.git import open_git
from anchor_audit.spec.skill import load_skill

from .hostile.conftest import make_code_repo, make_skill


@pytest.fixture(scope="module")
def code(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("citations") / "acme" / "code"  # the repository GitHub links name
    make_code_repo(root, CODE)
    return open_git(str(root), "v1")


def _skill(tmp_path: Path, body: str, files: dict[str, str]):
    folder = make_skill(tmp_path / "skill", body)
    for rel, text in files.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text)
    return load_skill(folder)


@pytest.mark.parametrize("example", EXAMPLES, ids=[e.name for e in EXAMPLES])
def test_citation_example(example: CitationExample, code, tmp_path: Path) -> None:
    skill = _skill(tmp_path, example.body, example.skill_files)
    got = check_citations(context(skill, code))
    assert [(r.kind, r.path, r.status) for r in got] == list(example.expect), [r.detail for r in got]
    assert all(r.line > 4 for r in got)  # on the skill's own lines, below the front matter


@pytest.mark.parametrize("body", NOT_CITATIONS)
def test_not_a_citation(body: str, tmp_path: Path) -> None:
    assert _skill(tmp_path, body, {}).citations == ()


def test_a_missing_path_names_the_files_of_its_name(code, tmp_path: Path) -> None:
    skill = _skill(tmp_path, "See `src/acme/config.py`.\n", {})
    (result,) = check_citations(context(skill, code))
    assert result.detail == "not at the ref; a file of that name is at src/acme/training/config.py"


def test_a_docs_page_that_changed_its_extension_is_named(code, tmp_path: Path) -> None:
    skill = _skill(tmp_path, "See `docs/api/index.md`.\n", {})
    (result,) = check_citations(context(skill, code))
    assert (result.status, result.detail) == (
        "missing",
        "not at the ref; docs/api/index.mdx is there, in the same folder",
    )


def test_a_link_to_a_file_of_the_skill_the_copy_does_not_ship(code, tmp_path: Path) -> None:
    from dataclasses import replace

    skill = _skill(tmp_path, "[usage](../guide.md)\n", {})  # upstream, the skill is docs/x: docs/guide.md is there
    copy = replace(skill, disk_root=str(tmp_path), repo_folder="docs/x")
    (result,) = check_citations(context(copy, code))
    assert (
        result.detail
        == "resolves in the repository (docs/guide.md) but not in this copy: broken by the catalog's layout"
    )
    inner = _skill(tmp_path / "inner", "[usage](api/index.mdx)\n", {})
    (shipped,) = check_citations(context(replace(inner, disk_root=str(tmp_path), repo_folder="docs"), code))
    assert shipped.detail == "the repository has it (docs/api/index.mdx), but this copy does not ship it"


def test_a_link_that_resolves_upstream_but_not_in_the_catalogs_copy(code, tmp_path: Path) -> None:
    """The catalog flattens skills/libs/x to skills/x: ../../guide.md resolved upstream, not in the copy."""
    from dataclasses import replace

    skill = _skill(tmp_path, "[guide](../../guide.md)\n", {})
    copy = replace(skill, disk_root=str(tmp_path), repo_folder="docs/libs/x")
    (result,) = check_citations(context(copy, code))
    assert (result.status, result.detail) == (
        "missing",
        "resolves in the repository (docs/guide.md) but not in this copy: broken by the catalog's layout",
    )


def test_github_slugs() -> None:
    text = '# A Title\n## Usage *notes*\n## Usage notes\n```\n# not a heading\n```\n<a name="Custom"></a>\n## C++ & `code`\n'
    assert heading_slugs(text) == {"a-title", "usage-notes", "usage-notes-1", "custom", "c--code"}


def test_citations_survive_the_result_cache(tmp_path: Path) -> None:
    """Kills: a field of Citation left out of what the cache keeps (a remembered SKILL.md lost its flags)."""
    import json

    store: dict[str, str] = {}

    def memo(key, compute):  # type: ignore[no-untyped-def]
        if key not in store:
            store[key] = json.dumps(compute())
        return json.loads(store[key])

    from anchor_audit.spec.skill import forget_built_skills

    def load(**memo):  # type: ignore[no-untyped-def]
        forget_built_skills()  # what the memo gives back, not the skill kept built
        return load_skill(folder, **memo)

    body = "".join(e.body for e in EXAMPLES)
    folder = make_skill(tmp_path / "skill", body)
    fresh, first, remembered = load(), load(memo=memo), load(memo=memo)
    assert fresh.citations == first.citations == remembered.citations and len(store) == 1
    assert any(c.flags for c in remembered.citations)


def test_free_text_evidence_and_files_to_create_are_not_missing_paths(code, tmp_path: Path) -> None:
    """Kills two false findings: card evidence in words, and an @path the skill tells the agent to create."""
    from anchor_audit.checks.promises import check_promises
    from anchor_audit.checks.protocol import context
    from anchor_audit.model import PromiseStatus

    card = 'evidence:\n  - "PR #3107 (the overlap fix)"\n  - Acme v0.16 benchmarks\n  - src/acme/gone.py\n'
    folder = make_skill(tmp_path / "skill", "Create @sandbox/results.md with the numbers.\n", card=card)
    skill = load_skill(folder)
    assert skill.references == ()
    got = [(p.path, p.status) for p in check_promises(context(skill, code))]
    assert got == [
        ("PR #3107 (the overlap fix)", PromiseStatus.UNVERIFIABLE),
        ("Acme v0.16 benchmarks", PromiseStatus.UNVERIFIABLE),
        ("src/acme/gone.py", PromiseStatus.MISSING),
    ]


def test_a_test_count_promised_in_prose_for_an_inline_pytest_command(tmp_path: Path) -> None:
    body = "Run `pytest tests/test_plan.py -q`: it reports 3 passed.\n\n```bash\npytest tests/test_other.py\n```\n\n5 passed\n"
    skill = load_skill(make_skill(tmp_path / "skill", body))
    assert [(t.path, t.promised) for t in skill.test_promises] == [
        ("tests/test_plan.py", 3),
        ("tests/test_other.py", 5),
    ]


def _prose_path_removed(tmp_path: Path, command: str) -> tuple[list[tuple[str, str, str, str]], int, str]:
    """A skill naming `pkg/other.py` in prose (no quote of it), and a v2 that removes it: ``command`` v1 v2 in JSON,
    its impacts or changes as (kind, key, from, to), its exit and its stderr."""
    import json

    from .conftest import git
    from .hostile.conftest import QUOTE, run_cli

    repo = make_code_repo(tmp_path / "code", {"pkg/other.py": "x = 1\n"})
    git(repo.path, "rm", "-q", "pkg/other.py")
    repo.commit("remove other.py", tag="v2")
    skill = make_skill(tmp_path / "skill", QUOTE + "The helper lives in `pkg/other.py`.\n")
    done = run_cli(command, "v1", "v2", str(skill), "--repo", str(repo.path), "--format", "json")
    items = json.loads(done.out)["impacts" if command == "impact" else "changes"]
    return [(i["kind"], i["key"], i["from"], i["to"]) for i in items], done.code, done.err


def test_a_change_that_breaks_a_prose_path_is_an_impact(tmp_path: Path) -> None:
    """impact: deleting a file the prose names (no quote of it) concerns the skill, and says so."""
    impacts, code, err = _prose_path_removed(tmp_path, "impact")
    assert impacts == [("promise", "path pkg/other.py", "exists", "missing")] and code == 1, err


def test_fix_writes_the_one_path_a_missing_path_can_only_mean(tmp_path: Path) -> None:
    """fix --write: a page that changed its extension, and a file moved to the one place of its name, are
    renamed in the prose; a path with no candidate (or several) is left as it is."""
    from .hostile.conftest import QUOTE, run_cli

    files = {"docs/api/index.mdx": "# API\n", "pkg/runtime/loader.py": "x = 1\n", "a/util.py": "", "b/util.py": "",
             "examples/other/gone.py": ""}  # a namesake of pkg/gone.py elsewhere: not where it went
    repo = make_code_repo(tmp_path / "code", files)
    body = QUOTE + "See `docs/api/index.md`, `pkg/loader.py`, `pkg/util.py` and `pkg/gone.py`.\n"
    skill = make_skill(tmp_path / "skill", body)
    args = ["--repo", str(repo.path), "--ref", "v1", str(skill)]
    done = run_cli("fix", "--write", *args)
    text = (skill / "SKILL.md").read_text()
    assert "See `docs/api/index.mdx`, `pkg/runtime/loader.py`, `pkg/util.py` and `pkg/gone.py`." in text, done.out
    assert "path docs/api/index.md -> docs/api/index.mdx" in done.out
    after = run_cli("check", "--format", "json", *args)
    import json

    missing = [p["path"] for s in json.loads(after.out)["skills"] for p in s["promises"] if p["status"] == "missing"]
    assert missing == ["pkg/util.py", "pkg/gone.py"]


def test_diff_lists_a_promise_the_new_ref_breaks_without_failing_on_it(tmp_path: Path) -> None:
    """diff: a prose path gone at NEW is a change it lists; only a claim that breaks is its exit 1."""
    changes, code, err = _prose_path_removed(tmp_path, "diff")
    assert changes == [("promise", "path pkg/other.py", "exists", "missing")] and code == 0, err


def test_the_docs_show_what_the_tool_says(tmp_path: Path) -> None:
    """docs/anchors-yaml.md's registry example (card_prefixes included) is a registry that loads, and the
    impact line docs/commands.md shows for a broken prose path is the terminal's own."""
    import re

    from anchor_audit.spec.registry import parse_spec

    from .conftest import ROOT, git
    from .hostile.conftest import QUOTE, run_cli

    example = re.search(r"```yaml\n(.*?)```", (ROOT / "docs" / "anchors-yaml.md").read_text(), re.S)
    assert example is not None
    spec = parse_spec(example.group(1), tmp_path / "anchors.yaml")
    assert dict(spec.skills[0].card_prefixes) == {"TE": "transformer_engine/pytorch/"} and not spec.warnings

    shown = "promise path pkg/other.py: exists -> missing"
    assert f"(`{shown}`" in " ".join((ROOT / "docs" / "commands.md").read_text().split())
    repo = make_code_repo(tmp_path / "code", {"pkg/other.py": "x = 1\n"})
    git(repo.path, "rm", "-q", "pkg/other.py")
    repo.commit("remove other.py", tag="v2")
    skill = make_skill(tmp_path / "skill", QUOTE + "The helper lives in `pkg/other.py`.\n")
    out = run_cli("impact", "v1", "v2", str(skill), "--repo", str(repo.path)).out
    assert f"skill: {shown}" in out, out


def test_a_headings_id_attribute_is_an_anchor_and_so_is_githubs_slug_of_its_text() -> None:
    """Pandoc, MkDocs and Docusaurus anchor ``## Intro {#start}`` at ``#start``; GitHub at ``#intro-start``; an
    agent reading the text finds either: both count.  A dash between words is kept doubled, as GitHub does."""
    text = "# Intro {#start}\n## RR-loop — Convert a loop\n## Plain\n"
    assert heading_slugs(text) == {"start", "intro", "intro-start", "rr-loop--convert-a-loop", "plain"}


def test_a_test_count_for_a_file_that_moved_says_where_it_moved(tmp_path: Path) -> None:
    """The promise is missing (``pytest tests/test_plan.py`` finds no file), and says what became of it."""
    import json

    from .conftest import git
    from .hostile.conftest import run_cli

    repo = make_code_repo(tmp_path / "code", {"tests/test_plan.py": "def test_one():\n    pass\n"})
    (repo.path / "tests" / "unit").mkdir()
    git(repo.path, "mv", "tests/test_plan.py", "tests/unit/test_plan.py")
    repo.commit("tests in a folder", tag="v2")
    skill = make_skill(tmp_path / "skill", "```bash\npytest tests/test_plan.py\n```\n\n1 passed\n")
    done = run_cli("check", "--repo", str(repo.path), "--ref", "v2", "--format", "json", str(skill))
    (tests,) = [p for p in json.loads(done.out)["skills"][0]["promises"] if p["kind"] == "tests"]
    assert tests["status"] == "missing"
    assert tests["detail"].startswith("moved to tests/unit/test_plan.py in commit "), tests
