"""A skill's whole audit kept by commit (history, impact, check, a catalog): the same bytes as a run that keeps
nothing, and a second run that audits no skill again; a skill on disk audited again once what its checks read
there changed; never kept where something beside the commit could change it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import anchor_audit.audit.skills
from anchor_audit.audit.judge import Judge
from anchor_audit.audit.kept import keep, kept_key, recalled, unsettled
from anchor_audit.cli import main
from anchor_audit.model import LineRange, Quote, SkillReport, Unchecked, UncheckedReason
from anchor_audit.source.git import open_git
from anchor_audit.spec.skill import load_skill, load_skill_from_tree
from anchor_audit.store.sqlite import ResultStore

from .catalog_fixture import build_catalog
from .conftest import DEMO, GitRepo, git

SKILL = "skills/demo-overlap"


@pytest.fixture
def code(make_repo) -> GitRepo:
    """The demo code with its skill inside: v1, an unrelated commit, the quotes moved, the gate edited."""
    repo = make_repo()
    shutil.copytree(DEMO / "skills" / "demo-overlap", repo.path / SKILL)
    repo.commit("the skill", tag="s1")
    repo.write("docs/notes.md", "unrelated\n")
    repo.commit("docs")
    repo.edit("src/demo/overlap.py", "from dataclasses import dataclass\n", "import os\nfrom dataclasses import dataclass\n")
    repo.commit("an import on top")
    repo.edit("src/demo/overlap.py", "if model.tp_size < 2:", "if model.tp_size < 4:")
    repo.commit("the gate moves")
    return repo


@pytest.fixture
def audits(monkeypatch) -> list[str]:
    """The names of the skills audited (not served from what was kept), as they are audited."""
    done: list[str] = []
    audit_skill = anchor_audit.audit.skills.audit_skill

    def counted(skill, *args, **kwargs):
        done.append(skill.name)
        return audit_skill(skill, *args, **kwargs)

    monkeypatch.setattr(anchor_audit.audit.skills, "audit_skill", counted)
    return done


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main([*argv, *(["--jobs", "1"] if argv[0] == "history" else [])])  # audited here, where they are counted
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("pages", [False, True], ids=["skill-md-alone", "with-a-page"])
@pytest.mark.parametrize("command", ["history", "impact", "diff"])
def test_a_second_run_audits_no_skill_and_says_the_same(
    command: str, pages: bool, code: GitRepo, tmp_path: Path, capsys, audits: list[str], cache_dir: Path
) -> None:
    """A skill with pages besides SKILL.md too (read from each commit's tree when a check asks)."""
    if pages:
        code.write(f"{SKILL}/references/guide.md", "# Guide\n\nThe gate is in `src/demo/overlap.py`.\n")
        code.commit("a page of the skill")
    spec = tmp_path / "anchors.yaml"
    shutil.copy(DEMO / "anchors.yaml", spec)
    argv = (
        ("history", "--since", "s1", SKILL) if command == "history" else (command, "s1", "HEAD", SKILL)  # impact, diff
    ) + ("--in-repo", "--spec", str(spec), "--repo", str(code.path), "--format", "json")
    first = run(capsys, *argv)
    assert len(audits) >= 2
    audits.clear()
    assert run(capsys, *argv) == first and audits == []
    assert run(capsys, *argv, "--no-cache") == first and len(audits) >= 2
    # The registry's entry is part of what was kept: changed, the skill is audited again.
    spec.write_text(spec.read_text().replace("src/demo/overlap.py:32-38", "src/demo/overlap.py:33-39"))
    audits.clear()
    again = run(capsys, *argv)
    assert audits and again == run(capsys, *argv, "--no-cache") and again != first


def test_what_is_kept_is_keyed_by_a_whole_commit_and_what_was_audited(code: GitRepo, tmp_path: Path) -> None:
    tree = open_git(str(code.path), "HEAD")
    in_tree = load_skill_from_tree(tree, SKILL)
    key = kept_key(in_tree, None, tree, True, False)
    assert key is not None
    assert key not in (kept_key(in_tree, None, tree, False, False), kept_key(in_tree, None, tree, True, True))
    assert key != kept_key(in_tree, None, tree.at(git(code.path, "rev-parse", "s1")), True, False)
    elsewhere = open_git(str(code.path), "HEAD", submodules={"vendor/lib": str(tmp_path)})  # --submodule given
    assert kept_key(in_tree, None, elsewhere, True, False) not in (None, key)
    on_disk = load_skill(code.path / SKILL)  # kept with what its checks read on disk (where it lies is its key's)
    assert kept_key(on_disk, None, tree, True, False) not in (None, key)
    shallow = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{code.path}", str(shallow))
    assert kept_key(in_tree, None, open_git(str(shallow), "HEAD"), True, False) is None  # history ends early


def test_a_report_left_unsettled_is_never_kept(tmp_path: Path) -> None:
    judge = Judge(ResultStore(tmp_path / "cache"))
    quote = Quote("src/a.py", LineRange(1, 2), ("x = 1",), 3)
    for reason, kept in [(UncheckedReason.INCOMPLETE, False), (UncheckedReason.UNVERIFIABLE, True)]:
        report = SkillReport("s", "s", (Unchecked(quote, reason, "why"),), ())
        keep(judge, f"key-{reason}", report)
        judge.flush()
        assert (recalled(judge, f"key-{reason}") == report) is kept
        assert (unsettled(report) is None) is kept
    opened = SkillReport("s", "s", (Unchecked(quote, UncheckedReason.UNVERIFIABLE, "x (--submodule x=URL_OR_DIR)"),), ())
    assert unsettled(opened) == "s: a submodule could not be opened"


def test_a_judge_with_no_store_keeps_a_report_as_it_is(monkeypatch: pytest.MonkeyPatch) -> None:
    """With nothing to write to (``--no-cache``, a library's replay), a report is held by its key, never
    serialized to be named by its content; an unsettled one is still not kept."""
    from anchor_audit.model import wire

    def refuse(report: object) -> object:
        raise AssertionError("serialized with nowhere to write it")

    monkeypatch.setattr(wire, "dump", refuse)
    judge = Judge()
    quote = Quote("src/a.py", LineRange(1, 2), ("x = 1",), 3)
    settled = SkillReport("s", "s", (Unchecked(quote, UncheckedReason.UNVERIFIABLE, "why"),), ())
    keep(judge, "settled", settled)
    assert recalled(judge, "settled") is settled and recalled(judge, "other") is None
    keep(judge, "unsettled", SkillReport("s", "s", (Unchecked(quote, UncheckedReason.INCOMPLETE, "why"),), ()))
    assert recalled(judge, "unsettled") is None


def test_a_file_the_prose_names_by_its_tail_brings_its_commits_warm_as_cold(code: GitRepo, capsys, cache_dir: Path) -> None:
    """A partial ``demo/runner.py`` in the prose stands for src/demo/runner.py: a commit that changes only it is walked;
    the tail's files at the range's end are remembered by commit, and a warm run walks the same commits."""
    code.write(f"{SKILL}/SKILL.md", code.read(f"{SKILL}/SKILL.md") + "\nThe runner is `demo/runner.py`.\n")
    code.write("src/demo/runner.py", "RUNS = 1\n")
    code.commit("the skill names the runner")
    code.write("src/demo/runner.py", "RUNS = 2\n")
    code.commit("only the runner changes")
    argv = ("history", "--since", "s1", SKILL, "--in-repo", "--spec", str(DEMO / "anchors.yaml"), "--repo",
            str(code.path), "--format", "json")  # fmt: skip
    cold = run(capsys, *argv)
    # the import, the gate, the skill's own change, and the runner's (named by its tail only); not the docs
    assert json.loads(cold[1])["range"]["commits_touching"] == 4
    assert run(capsys, *argv) == cold == run(capsys, *argv, "--no-cache")


def test_a_second_matrix_audits_no_release_again(code: GitRepo, capsys, audits: list[str], cache_dir: Path) -> None:
    """A cell is a status: every release but the newest is audited without facts and kept; the newest shows its
    detail (owners, the card's dates), kept with them: a second matrix audits none and says the same."""
    for tag, ref in (("v1.1.0", "s1"), ("v1.2.0", "HEAD~1"), ("v1.3.0", "HEAD")):  # newer than the demo's v1
        git(code.path, "tag", tag, ref)
    argv = ("matrix", "--in-repo", SKILL, "--spec", str(DEMO / "anchors.yaml"), "--repo", str(code.path),
            "--format", "json")  # fmt: skip
    first = run(capsys, *argv)
    assert len(audits) == 3
    audits.clear()
    assert run(capsys, *argv) == first and audits == []
    assert run(capsys, *argv, "--no-cache") == first and len(audits) == 3


def test_what_is_kept_is_only_good_for_the_code_of_every_module_of_the_package() -> None:
    """An edit to any module (a checker, not only the store) is another tool: its identity lists every file of
    the package, so a kept audit or a remembered run of the code before the edit is not replayed."""
    from anchor_audit.store.toolprint import tool_identity

    files = {entry[0] for entry in tool_identity()[2]}
    assert {"checks/names.py", "cli/dispatch.py", "store/toolprint.py", "__init__.py"} <= files


def test_a_catalog_checked_again_audits_only_the_skills_whose_folder_or_link_targets_changed(
    tmp_path: Path, capsys, audits: list[str], cache_dir: Path
) -> None:
    """A catalog's copies are read on disk: kept with what their checks read there (a link's target, a page's
    headings), a copy is audited again when its own folder or a file it links outside it changed, and no other."""
    catalog, mirrors = build_catalog(tmp_path)
    clean = catalog / "skills" / "a-clean" / "SKILL.md"
    clean.write_text(clean.read_text() + "\nSee [the gate](../a-moved/SKILL.md#the-gate).\n")
    argv = ("check", "--catalog", str(catalog), *mirrors, "--format", "json", "--jobs", "1")
    first = run(capsys, *argv)
    assert "a-clean" in audits and "a-moved" in audits
    audits.clear()
    assert run(capsys, *argv) == first and audits == []
    moved = catalog / "skills" / "a-moved" / "SKILL.md"
    moved.write_text(moved.read_text().replace("The gate:", "## The gate\n\nThe gate:"))  # the anchor now there
    again = run(capsys, *argv)
    assert sorted(audits) == ["a-clean", "a-moved"]
    assert again != first and again == run(capsys, *argv, "--no-cache")
    links = [p for s in json.loads(again[1])["skills"] if s["name"] == "a-clean" for p in s["promises"]
             if p["kind"] == "link"]  # fmt: skip
    assert [(p["path"], p["status"]) for p in links] == [("../a-moved/SKILL.md#the-gate", "exists")]


def test_a_skipped_skills_checks_are_kept_while_its_pages_and_what_they_read_are_the_same(
    tmp_path: Path, capsys, monkeypatch, cache_dir: Path
) -> None:
    """A skill whose repository cannot be reached gets the checks that need no code; kept by its pages' texts and
    what the checks read on disk, they run again only once a page or a linked file changed."""
    import anchor_audit.runs.catalog as catalog_run

    checked: list[str] = []
    folder_links = catalog_run.folder_links
    monkeypatch.setattr(catalog_run, "folder_links", lambda skill, shown: checked.append(shown) or folder_links(skill, shown))
    catalog, mirrors = build_catalog(tmp_path)
    page = catalog / "skills" / "g-one" / "SKILL.md"
    page.write_text(page.read_text() + "\nSee [the notes](../g-two/notes.md).\n")
    argv = ("check", "--catalog", str(catalog), *mirrors, "--format", "json", "--jobs", "1")

    def link_status() -> str:
        (skill,) = [s for s in json.loads(run(capsys, *argv)[1])["skills"] if s["name"] == "g-one"]
        return next(p["status"] for p in skill["promises"] if p["kind"] == "link")

    assert link_status() == "missing" and "skills/g-one" in checked
    checked.clear()
    assert link_status() == "missing" and checked == []
    (catalog / "skills" / "g-two" / "notes.md").write_text("# Notes\n")  # outside g-one's folder: a read of it
    assert link_status() == "exists" and sorted(checked) == ["skills/g-one", "skills/g-two"]


def test_reads_of_another_shape_are_not_the_same_and_never_fail_the_run() -> None:
    """What a kept row says it read is asked again only through the functions that read it, with the arguments
    they take: anything else (a function not known, arguments of another number or kind, no reads at all) is
    not the same, and asking never raises."""
    import anchor_audit.checks  # noqa: F401  (the checks register the functions their reads go through)
    from anchor_audit.checks.diskreads import still_so

    assert still_so({})
    for said in ('["on_disk", "a"]', '["nowhere", "a"]', '["on_disk", 1, 2, 3]', "not json", '"on_disk"'):
        assert not still_so({said: "0" * 32}), said
    assert not still_so(["on_disk"])
