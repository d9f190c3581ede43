"""One answer to "is this path here?" and to "what became of it?", however the skill writes the path.

A path in backticks, an ``@path`` and a card's evidence path are looked up by one rule each and healed by one
pass: a path the skill's own folder ships is there as ``@path`` too, and an ``@path`` the history moved is healed
to where it went, as a path in backticks is.
"""

from __future__ import annotations

from pathlib import Path

from anchor_audit.checks.promises import check_promises
from anchor_audit.checks.prose import check_citations
from anchor_audit.checks.protocol import context
from anchor_audit.source.git import open_git
from anchor_audit.spec.skill import load_skill

from .conftest import git
from .hostile.conftest import make_code_repo, make_skill

BODY = "def step(state):\n" + "".join(f"    state.value_{i} = {i}\n" for i in range(12)) + "    return state\n"


def test_a_file_of_the_skills_own_folder_is_there_written_as_at_path_or_in_backticks(tmp_path: Path) -> None:
    repo = make_code_repo(tmp_path / "code", {"scripts/other.sh": "echo\n"})
    folder = make_skill(tmp_path / "skill", "Run `scripts/run.sh`, then read @scripts/run.sh.\n")
    (folder / "scripts").mkdir()
    (folder / "scripts" / "run.sh").write_text("echo run\n")
    skill = load_skill(folder)
    tree = open_git(str(repo.path), "v1")
    prose = [(r.path, r.status, r.detail) for r in check_citations(context(skill, tree))]
    at = [(r.path, r.status, r.detail) for r in check_promises(context(skill, tree)) if r.kind == "reference"]
    assert prose == at == [("scripts/run.sh", "exists", "in the skill's own folder")]


def test_a_path_naming_the_skills_own_folder_where_it_lies_is_its_own_file(tmp_path: Path) -> None:
    """A copy at ``catalog/skills/tuning`` writes its card as ``@skills/tuning/card.yaml``, from the root it lies
    in: its own file, whether or not the code has a ``skills/`` folder; another skill's, or a file its folder does
    not ship, is looked up as any other path."""
    repo = make_code_repo(tmp_path / "code")
    body = "See @skills/tuning/card.yaml, `skills/tuning/card.yaml`, @skills/other/card.yaml, @skills/tuning/gone.md.\n"
    folder = make_skill(tmp_path / "catalog" / "skills" / "tuning", body, card="title: tuning\n")
    skill = load_skill(folder)
    tree = open_git(str(repo.path), "v1")
    prose = [(r.path, r.status, r.detail) for r in check_citations(context(skill, tree))]
    at = {r.path: (r.status, r.detail) for r in check_promises(context(skill, tree)) if r.kind == "reference"}
    assert prose == [("skills/tuning/card.yaml", "exists", "in the skill's own folder")]
    assert at["skills/tuning/card.yaml"] == ("exists", "in the skill's own folder")
    assert at["skills/other/card.yaml"][0] != "exists" and at["skills/tuning/gone.md"][0] != "exists"


def test_an_at_path_the_history_moved_is_healed_as_a_path_in_backticks_is(tmp_path: Path) -> None:
    repo = make_code_repo(tmp_path / "code", {"pkg/old_name.py": BODY})
    (repo.path / "pkg/core").mkdir()
    git(repo.path, "mv", "pkg/old_name.py", "pkg/core/new_name.py")
    repo.commit("move", tag="v2", date="2026-02-01T00:00:00")
    skill = load_skill(make_skill(tmp_path / "skill", "Read @pkg/old_name.py and `pkg/old_name.py`.\n"))
    tree = open_git(str(repo.path), "v2")
    (prose,) = check_citations(context(skill, tree))
    (at,) = [r for r in check_promises(context(skill, tree)) if r.kind == "reference"]
    assert (at.status, at.detail, at.heal) == (prose.status, prose.detail, prose.heal)
    assert (at.status, at.heal) == ("missing", "pkg/core/new_name.py")
    assert at.detail.startswith("moved to pkg/core/new_name.py in commit ")


def test_a_moved_evidence_path_is_healed_in_card_yaml(tmp_path: Path) -> None:
    repo = make_code_repo(tmp_path / "code", {"pkg/old_name.py": BODY})
    git(repo.path, "mv", "pkg/old_name.py", "pkg/new_name.py")
    repo.commit("move", tag="v2", date="2026-02-01T00:00:00")
    folder = make_skill(tmp_path / "skill", "Nothing cited.\n", card="evidence:\n  - pkg/old_name.py\n")
    (evidence,) = check_promises(context(load_skill(folder), open_git(str(repo.path), "v2")))
    assert (evidence.kind, evidence.file.rsplit("/", 1)[-1], evidence.status, evidence.heal) == (
        "evidence", "card.yaml", "missing", "pkg/new_name.py"
    )


def _heal_of(tmp_path: Path, cited: str, files: list[str]) -> tuple[str, str | None]:
    repo = make_code_repo(tmp_path / "code", {path: BODY for path in files})
    skill = load_skill(make_skill(tmp_path / "skill", f"Edit `{cited}`.\n"))
    (result,) = check_citations(context(skill, open_git(str(repo.path), "v1")))
    return result.status, result.heal


def test_a_missing_path_is_healed_to_the_one_file_of_its_name_in_the_same_place(tmp_path: Path) -> None:
    # the cited folders all there, in order, in the one candidate: where it moved
    assert _heal_of(tmp_path, "pkg/worker.py", ["pkg/runtime/worker.py"]) == ("missing", "pkg/runtime/worker.py")


def test_a_candidate_with_the_cited_folders_in_another_order_is_not_the_same_place(tmp_path: Path) -> None:
    assert _heal_of(tmp_path, "alpha/beta/worker.py", ["alpha/other.py", "beta/alpha/worker.py"]) == ("missing", None)


def test_a_missing_path_with_two_candidates_is_not_healed(tmp_path: Path) -> None:
    assert _heal_of(tmp_path, "pkg/worker.py", ["pkg/one/worker.py", "pkg/two/worker.py"]) == ("missing", None)


def test_a_path_added_to_the_default_branch_after_the_audited_commit_says_when_it_landed(tmp_path: Path) -> None:
    """Audited at an older commit (a card's validation day), a file the skill names that the default branch gains
    later is missing there, and says in which commit it landed: the skill describes newer code."""
    repo = make_code_repo(tmp_path / "code")
    repo.write("scripts/translate.py", "print('new')\n")
    repo.commit("add the translator", tag="v2", date="2026-03-20T00:00:00")
    skill = load_skill(make_skill(tmp_path / "skill", "Run `scripts/translate.py` and `scripts/never.py`.\n"))
    said = {r.path: r for r in check_citations(context(skill, open_git(str(repo.path), "v1")))}
    assert said["scripts/translate.py"].status == "missing"
    assert said["scripts/translate.py"].detail.startswith("not yet there: added in commit ")
    assert said["scripts/translate.py"].detail.endswith(" on 2026-03-20, after this one")
    assert "added in" not in said["scripts/never.py"].detail
    later = {r.path: r for r in check_citations(context(skill, open_git(str(repo.path), "v2")))}
    assert later["scripts/translate.py"].status == "exists"
