"""Pages of a skill folder that no chain of links from SKILL.md reaches: reported as notes, never as drift."""

from __future__ import annotations

import json
from pathlib import Path

from anchor_audit.cli import main

from .hostile.conftest import QUOTE, make_code_repo, make_skill

BODY = QUOTE + "\nSee [the guide](references/guide.md), the notes in `notes/setup.md`, and [extras](extra/).\n"


def _pages(tmp_path: Path, capsys, pages: dict[str, str]) -> tuple[int, list[dict]]:
    repo = make_code_repo(tmp_path / "code")
    skill = make_skill(tmp_path / "skill", BODY)
    for name, text in pages.items():
        (skill / name).parent.mkdir(parents=True, exist_ok=True)
        (skill / name).write_text(text, encoding="utf-8")
    code = main(["check", "--repo", str(repo.path), "--ref", "v1", "--format", "json", str(skill)])
    (report,) = json.loads(capsys.readouterr().out)["skills"]
    return code, [f for f in report["findings"] if f["code"] == "AA413"]


def test_a_page_no_chain_of_links_from_skill_md_reaches_is_a_note(tmp_path: Path, capsys) -> None:
    code, found = _pages(tmp_path, capsys, {
        "references/guide.md": "# Guide\n\nThen [the details](details.md).\n",  # reached: linked from SKILL.md
        "references/details.md": "# Details\n",  # reached through the guide, resolved from where it lies
        "notes/setup.md": "# Setup\n",  # reached: SKILL.md names its path
        "extra/one.md": "# One\n",  # reached: SKILL.md links its folder
        "leftover.md": "# Left over\n\nSee [the guide](references/guide.md).\n",  # links out, nothing links in
        "references/draft.md": "# Draft\n",
        ".github/hidden.md": "# not a page of the skill\n",
        "skill-card.md": "# For people\n", "BENCHMARK.md": "# For people\n",  # not the agent's to read
        "references/README.md": "# For people browsing\n", "AGENTS.md": "# Read by convention, unlinked\n",
        "evals/EVAL.md": "# For the evaluation harness\n", "fixtures/case/notes.md": "# Test data\n",
    })  # fmt: skip
    assert code == 0  # a note: it fails no run
    assert sorted((f["file"].rsplit("skill/", 1)[-1], f["line"]) for f in found) == [
        ("leftover.md", 1), ("references/draft.md", 1)]  # fmt: skip
    assert all(f["drift"] is False and "never opens it" in f["message"] for f in found)


def test_a_skill_with_only_skill_md_has_no_unreached_page(tmp_path: Path, capsys) -> None:
    repo = make_code_repo(tmp_path / "code")
    skill = make_skill(tmp_path / "skill")
    assert main(["check", "--repo", str(repo.path), "--ref", "v1", "--format", "json", str(skill)]) == 0
    (report,) = json.loads(capsys.readouterr().out)["skills"]
    assert [f for f in report["findings"] if f["code"] == "AA413"] == []


def test_a_skill_read_from_the_repository_tree_has_its_unreached_pages_said_too(tmp_path: Path, capsys) -> None:
    skill = "skills/plan/"
    repo = make_code_repo(tmp_path / "code", {
        f"{skill}SKILL.md": "---\nname: plan\ndescription: in the tree\n---\n\n" + BODY
        + "\nPatterns: @skills/plan/patterns.md\n",  # an @path from the repository's root
        f"{skill}patterns.md": "# Patterns\n",
        f"{skill}references/guide.md": "# Guide\n\nThe rest is in `references/later.md`.\n",
        f"{skill}references/later.md": "# Later\n",  # reached: the guide names its path
        f"{skill}references/draft.md": "# Draft\n",
        f"{skill}skill-card.md": "# For people\n",
    })  # fmt: skip
    main(["check", "--repo", str(repo.path), "--ref", "v1", "--in-repo", "--format", "json", skill])
    (report,) = json.loads(capsys.readouterr().out)["skills"]
    found = [(f["file"], f["line"]) for f in report["findings"] if f["code"] == "AA413"]
    assert found == [("skills/plan/references/draft.md", 1)]


def test_a_page_named_from_the_root_the_skills_copy_lies_in_is_reached(tmp_path: Path, capsys) -> None:
    """A copy at ``catalog/skills/tuning`` that names ``skills/tuning/notes.md`` (from the catalog's root, where its
    folder's name is not the repository's) reaches that page."""
    repo = make_code_repo(tmp_path / "code")
    skill = make_skill(tmp_path / "catalog" / "skills" / "tuning", QUOTE + "\nRead `skills/tuning/notes.md`.\n")
    (skill / "notes.md").write_text("# Notes\n", encoding="utf-8")
    (skill / "draft.md").write_text("# Draft\n", encoding="utf-8")
    main(["check", "--repo", str(repo.path), "--ref", "v1", "--format", "json", str(skill)])
    (report,) = json.loads(capsys.readouterr().out)["skills"]
    assert [f["file"].rsplit("/", 1)[-1] for f in report["findings"] if f["code"] == "AA413"] == ["draft.md"]
