"""A missing path the history renamed: found by git's rename detection at the ref, said, and healed by fix.

The repository renames a file (with an edit), renames one twice, moves a folder, deletes one, and moves one
that it later deletes: only a move to a path that is there is a suggestion.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from anchor_audit.checks.prose import check_citations
from anchor_audit.checks.protocol import context
from anchor_audit.source.git import open_git
from anchor_audit.spec.skill import load_skill

from .conftest import GitRepo, git
from .hostile.conftest import QUOTE, make_code_repo, make_skill, run_cli

BODY = "def step(state):\n" + "".join(f"    state.value_{i} = {i}\n" for i in range(12)) + "    return state\n"
CITED = (
    "See `pkg/old_name.py`, `pkg/chain_a.py`, `pkg/launchers/`, `pkg/doomed.py` and `pkg/passing.py`.\n"
    "From inside the package: `runner/slurm_cfg.py`, `runner/never_here.py`.\n"
)


@pytest.fixture(scope="module")
def moved(tmp_path_factory: pytest.TempPathFactory) -> GitRepo:
    names = ["old_name", "chain_a", "doomed", "passing"]
    files = {f"pkg/{n}.py": BODY.replace("step", n) for n in names}
    files["pkg/runner/slurm_cfg.py"] = BODY
    files |= {f"pkg/launchers/{n}.py": BODY.replace("step", n) for n in ("slurm", "local")}
    repo = make_code_repo(tmp_path_factory.mktemp("moves") / "code", files)
    (repo.path / "pkg/core").mkdir()
    git(repo.path, "mv", "pkg/old_name.py", "pkg/core/new_name.py")
    repo.edit("pkg/core/new_name.py", "value_3 = 3", "value_3 = 33")  # renamed with an edit: still a rename
    git(repo.path, "mv", "pkg/chain_a.py", "pkg/chain_b.py")
    git(repo.path, "mv", "pkg/launchers", "pkg/launch")
    git(repo.path, "mv", "pkg/passing.py", "pkg/interim.py")
    repo.remove("pkg/doomed.py")
    repo.remove("pkg/runner/slurm_cfg.py")
    repo.commit("move things", date="2026-02-01T00:00:00")
    git(repo.path, "mv", "pkg/chain_b.py", "pkg/chain_c.py")
    repo.remove("pkg/interim.py")
    repo.commit("move again", tag="v2", date="2026-03-01T00:00:00")
    return repo


def test_a_missing_path_says_where_the_history_moved_it(moved: GitRepo, tmp_path: Path) -> None:
    tree = open_git(str(moved.path), "v2")
    skill = load_skill(make_skill(tmp_path / "skill", CITED))
    got = {r.path: r for r in check_citations(context(skill, tree))}
    first = git(moved.path, "rev-parse", "v2~1")[:10]
    # no runner/ at the root: alone it could be another tree's path, but the history had it (under pkg/)
    assert (got["runner/slurm_cfg.py"].status, got["runner/slurm_cfg.py"].detail) == (
        "missing",
        f"deleted in commit {first} (as pkg/runner/slurm_cfg.py)",
    )
    assert got.pop("runner/never_here.py").status == "unverifiable"  # never here: still not called missing
    del got["runner/slurm_cfg.py"]
    assert all(r.status == "missing" for r in got.values())
    assert got["pkg/old_name.py"].detail == f"moved to pkg/core/new_name.py in commit {first}"
    assert got["pkg/chain_a.py"].detail.startswith("moved to pkg/chain_c.py in commit")  # followed both renames
    assert got["pkg/launchers/"].detail.startswith("moved to pkg/launch/ in commit")
    assert got["pkg/doomed.py"].detail == f"deleted in commit {first}"
    assert got["pkg/passing.py"].detail == f"deleted in commit {first}"  # moved there, then deleted: no move
    heals = {path: r.heal for path, r in got.items()}
    assert heals == {
        "pkg/old_name.py": "pkg/core/new_name.py",
        "pkg/chain_a.py": "pkg/chain_c.py",
        "pkg/launchers/": None,  # a folder: said, not rewritten
        "pkg/doomed.py": None,
        "pkg/passing.py": None,
    }


def test_a_module_a_command_runs_that_the_history_moved_says_which_module_to_run_now(tmp_path: Path) -> None:
    """``python -m pkg._cli.app`` after the package renamed ``_cli`` to ``cli``: missing, saying where the file went
    and the module that runs it now; a module deleted says in which commit, and the modules of its name; one never
    here says neither."""
    main = "import argparse\nparser = argparse.ArgumentParser()\nparser.add_argument('--config')\n"
    files = {"pkg/__init__.py": "", "pkg/_cli/__init__.py": "", "pkg/_cli/app.py": main, "pkg/tool.py": main}
    repo = make_code_repo(tmp_path / "code", files)
    (repo.path / "pkg/cli").mkdir()
    git(repo.path, "mv", "pkg/_cli/app.py", "pkg/cli/app.py")
    git(repo.path, "mv", "pkg/_cli/__init__.py", "pkg/cli/__init__.py")
    repo.remove("pkg/tool.py")
    repo.write("pkg/ops/tool.py", "print('another tool altogether')\n")
    repo.commit("the command line package", tag="v2", date="2026-02-01T00:00:00")
    sha = git(repo.path, "rev-parse", "v2")[:10]
    body = "```bash\npython -m pkg._cli.app --config c.yaml\npython -m pkg.tool\npython -m pkg.never\n```\n"
    report = json.loads(run_cli("check", "--format", "json", "--repo", str(repo.path), "--ref", "v2",
                                str(make_skill(tmp_path / "skill", body))).out)  # fmt: skip
    said = {p["path"]: p for p in report["skills"][0]["promises"] if p["kind"] == "command"}
    moved = said["python -m pkg._cli.app"]
    assert moved["status"] == "missing"
    assert moved["detail"] == (f"no module pkg._cli.app here (its package pkg is): pkg/_cli/app.py moved to "
                               f"pkg/cli/app.py in commit {sha}, where it runs as python -m pkg.cli.app")  # fmt: skip
    assert said["python -m pkg.tool"]["detail"].endswith(
        f": pkg/tool.py deleted in commit {sha}; a module of its name is pkg.ops.tool"
    )
    assert said["python -m pkg.never"]["detail"] == "no module pkg.never here (its package pkg is)"


def test_a_module_an_import_names_that_the_history_moved_says_where_it_went(tmp_path: Path) -> None:
    """``from pkg.datasets.packed import Specs`` after ``packed.py`` moved into ``pkg/packing/``: missing, with the
    file's move and the module it is now."""
    repo = make_code_repo(tmp_path / "code", {"pkg/__init__.py": "", "pkg/datasets/__init__.py": "",
                                              "pkg/datasets/packed.py": "class Specs:\n    pass\n"})  # fmt: skip
    (repo.path / "pkg/packing").mkdir()
    git(repo.path, "mv", "pkg/datasets/packed.py", "pkg/packing/offline.py")
    repo.commit("packing in a package of its own", tag="v2", date="2026-02-01T00:00:00")
    sha = git(repo.path, "rev-parse", "v2")[:10]
    body = "```python\nfrom pkg.datasets.packed import Specs\n```\n"
    report = json.loads(run_cli("check", "--format", "json", "--repo", str(repo.path), "--ref", "v2",
                                str(make_skill(tmp_path / "skill", body))).out)  # fmt: skip
    (said,) = [p for p in report["skills"][0]["promises"] if p["kind"] == "symbol"]
    assert (said["status"], said["detail"]) == ("missing", (
        f"no module pkg.datasets.packed in this repository's package pkg (pkg/): pkg/datasets/packed.py moved to "
        f"pkg/packing/offline.py in commit {sha} (module pkg.packing.offline)"))  # fmt: skip


def test_fix_renames_a_moved_path_in_the_prose_and_in_the_cards_evidence(moved: GitRepo, tmp_path: Path) -> None:
    card = "validation_status:\n  files:\n    - file_exists\nevidence:\n  - pkg/old_name.py\n  - pkg/doomed.py\n"
    skill = make_skill(tmp_path / "skill", QUOTE + CITED, card)
    args = ["--repo", str(moved.path), "--ref", "v2", str(skill)]
    done = run_cli("fix", "--write", *args)
    assert "evidence pkg/old_name.py -> pkg/core/new_name.py" in done.out, done.out + done.err
    assert "path pkg/chain_a.py -> pkg/chain_c.py" in done.out
    assert "`pkg/core/new_name.py`, `pkg/chain_c.py`, `pkg/launchers/`" in (skill / "SKILL.md").read_text()
    assert (skill / "card.yaml").read_text() == card.replace("pkg/old_name.py", "pkg/core/new_name.py")
    after = json.loads(run_cli("check", "--format", "json", *args).out)
    missing = [(p["kind"], p["path"]) for s in after["skills"] for p in s["promises"] if p["status"] == "missing"]
    assert missing == [("evidence", "pkg/doomed.py"), ("path", "pkg/launchers/"), ("path", "pkg/doomed.py"),
                       ("path", "pkg/passing.py"), ("path", "runner/slurm_cfg.py")]  # fmt: skip


def test_the_skills_own_new_name_written_inside_a_path_is_read_as_the_name_the_code_has(tmp_path: Path) -> None:
    """A skill folder renamed (resiliency -> acme-resiliency) with the rename applied inside its paths too:
    each such path says which path is there, and fix renames it back, in the prose and in the card."""
    files = {"scripts/resiliency_plugins.py": "x = 1\n", "examples/resiliency/run.sh": "echo\n"}
    repo = make_code_repo(tmp_path / "code", files)
    card = "validation_status:\n  files:\n    - file_exists\nevidence:\n  - examples/acme-resiliency/\n"
    body = QUOTE + "Plugins: `scripts/acme-resiliency_plugins.py`; run `examples/acme-resiliency/run.sh`.\n"
    skill = make_skill(tmp_path / "acme-resiliency", body, card)
    args = ["--repo", str(repo.path), "--ref", "v1", str(skill)]
    report = json.loads(run_cli("check", "--format", "json", *args).out)
    said = {p["path"]: (p["status"], p["detail"], p.get("heal")) for p in report["skills"][0]["promises"]}
    assert said["scripts/acme-resiliency_plugins.py"] == (
        "missing",
        "the skill's name acme-resiliency is written inside the path, where the code has resiliency: "
        "scripts/resiliency_plugins.py is there",
        "scripts/resiliency_plugins.py",
    )
    assert said["examples/acme-resiliency/"][2] == "examples/resiliency/"  # the card's evidence folder
    run_cli("fix", "--write", *args)
    assert "`scripts/resiliency_plugins.py`; run `examples/resiliency/run.sh`" in (skill / "SKILL.md").read_text()
    assert (skill / "card.yaml").read_text() == card.replace("acme-resiliency", "resiliency")


def test_history_shows_when_a_path_the_prose_cites_broke_for_a_skill_in_the_repository(tmp_path: Path) -> None:
    """history, for an in-repository skill: the commit that deletes a file its prose names is an event of the
    path (exists -> missing); the paths it cites are not listed as they first appear."""
    files = {"pkg/other.py": "x = 1\n", "pkg/kept.py": "y = 2\n",
             "skills/s/SKILL.md": "---\nname: s\ndescription: d\n---\n\nSee `pkg/other.py` and `pkg/kept.py`.\n"}  # fmt: skip
    repo = make_code_repo(tmp_path / "code", files)
    repo.remove("pkg/other.py")
    removed = repo.commit("remove other.py", date="2026-02-01T00:00:00")
    done = run_cli("history", "--repo", str(repo.path), "--in-repo", "skills/s", "--format", "json")
    events = [(e["commit"], e["kind"], e["key"], e["from"], e["to"]) for e in json.loads(done.out)["events"]]
    assert events == [(removed, "promise", "path pkg/other.py", "exists", "missing")], done.out + done.err


def test_a_skill_in_the_work_tree_has_its_links_checked_at_the_ref_and_a_moved_target_healed(tmp_path: Path) -> None:
    """A skill folder inside the audited repository's work tree lies in that folder of it: a link above the
    folder is resolved in the repository at the ref; one whose target moved is rewritten by fix."""
    skill_md = "---\nname: s\ndescription: d\n---\n\n[guide](../../docs/guide.md), [api](../../docs/api.md)\n"
    files = {"docs/guide.md": "# Guide\n" + BODY, "docs/api.md": "# API\n", "skills/s/SKILL.md": skill_md}
    repo = make_code_repo(tmp_path / "code", files)
    (repo.path / "docs/user").mkdir()
    git(repo.path, "mv", "docs/guide.md", "docs/user/guide.md")
    repo.commit("move the guide", tag="v2")
    args = ["--repo", str(repo.path), "--ref", "v2", str(repo.path / "skills/s")]
    report = json.loads(run_cli("check", "--format", "json", *args).out)
    said = {p["path"]: (p["status"], p.get("heal")) for p in report["skills"][0]["promises"]}
    assert said == {"../../docs/guide.md": ("missing", "../../docs/user/guide.md"), "../../docs/api.md": ("exists", None)}
    run_cli("fix", "--write", *args)
    assert "[guide](../../docs/user/guide.md), [api](../../docs/api.md)" in (repo.path / "skills/s/SKILL.md").read_text()


def test_a_catalog_copy_says_where_a_links_target_moved_but_is_not_healed_where_it_lies(tmp_path: Path) -> None:
    """A catalog's copy of a skill links to an upstream file the repository moved: the detail says where, and no
    heal is offered (the copy is re-synced from upstream: the fix belongs there)."""
    from .conftest import git as run_git

    body = "---\nname: s\ndescription: d\n---\n\n[guide](../../docs/guide.md)\n"
    repo = make_code_repo(tmp_path / "code", {"docs/guide.md": "# Guide\n" + BODY, "skills/s/SKILL.md": body})
    (repo.path / "docs/user").mkdir()
    run_git(repo.path, "mv", "docs/guide.md", "docs/user/guide.md")
    repo.commit("move the guide")
    catalog = tmp_path / "catalog"
    (catalog / "components.d").mkdir(parents=True)
    (catalog / "components.d" / "c.yml").write_text("repo: acme/code\nskills:\n  - path: skills/s/\n    catalog_dir: s\n")
    (catalog / "skills" / "s").mkdir(parents=True)
    (catalog / "skills" / "s" / "SKILL.md").write_text(body)
    done = run_cli("check", "--catalog", str(catalog), "--mirror", f"acme/code={repo.path}", "--format", "json")
    (link,) = [p for p in json.loads(done.out)["skills"][0]["promises"] if p["kind"] == "link"]
    assert link["status"] == "missing" and link["detail"].startswith(
        "the link's target docs/guide.md: moved to docs/user/guide.md in commit"
    ), done.out + done.err
    assert "heal" not in link


def test_a_piped_history_takes_its_width_from_columns_and_never_breaks_a_word(tmp_path: Path) -> None:
    """history | cat: COLUMNS is the width; where the table does not fit, one record per event, the subject
    whole on its own line (it was once squeezed to four characters a line)."""
    subject = "refactor: move every launcher helper into the shared runtime package"
    files = {"pkg/other.py": "x = 1\n", "skills/s/SKILL.md": "---\nname: s\ndescription: d\n---\n\nSee `pkg/other.py`.\n"}
    repo = make_code_repo(tmp_path / "code", files)
    repo.remove("pkg/other.py")
    repo.commit(subject, date="2026-02-01T00:00:00")
    args = ["history", "--repo", str(repo.path), "--in-repo", "skills/s"]
    narrow = run_cli(*args, env={"COLUMNS": "60"}).out.splitlines()
    assert f"    {subject}" in narrow and all(len(line) <= 80 for line in narrow)
    wide = run_cli(*args, env={"COLUMNS": "200"}).out.splitlines()
    (row,) = [line for line in wide if "pkg/other.py" in line]
    assert row.rstrip().endswith(f"│ {subject}") and len(row) <= 200


def _claims(skill: Path, repo: GitRepo, ref: str) -> dict[str, dict]:
    report = json.loads(run_cli("check", "--format", "json", "--repo", str(repo.path), "--ref", ref, str(skill)).out)
    return {c["id"]: c for c in report["skills"][0]["claims"]}


def test_a_file_exists_claim_whose_file_moved_holds_and_one_whose_file_was_deleted_is_broken(
    moved: GitRepo, tmp_path: Path
) -> None:
    """The file a claim names moved: the file is there, the card's path drifted (a citation finding, healed by fix),
    and the claim holds. Its file deleted: broken. Each claim rests on the evidence paths its words name."""
    card = ("validation_status:\n  old_name_helpers: [file_exists]\n  doomed_module: [file_exists]\n"
            "  launch: [file_exists]\nevidence:\n  - pkg/old_name.py\n  - pkg/doomed.py\n")  # fmt: skip
    claims = _claims(make_skill(tmp_path / "skill", QUOTE, card), moved, "v2")
    kept = claims["old_name_helpers"]
    assert (kept["verdict"], [e["ref"] for e in kept["evidence"]]) == ("code_verified", ["pkg/old_name.py"])
    assert kept["evidence"][0]["ok"] and "pkg/core/new_name.py" in kept["evidence"][0]["detail"]
    gone = claims["doomed_module"]
    assert (gone["verdict"], [e["ref"] for e in gone["evidence"]]) == ("broken", ["pkg/doomed.py"])
    assert claims["launch"]["verdict"] == "broken"  # its words name no path: it rests on all of them


def test_a_file_exists_claim_whose_path_the_catalog_rewrote_with_the_skills_name_holds(tmp_path: Path) -> None:
    """The skill's new folder name written inside a card path (acme-resiliency where the code has resiliency) is
    the copy's drift, not the code's: the file is there and the claim holds."""
    repo = make_code_repo(tmp_path / "code", {"examples/resiliency/run.sh": "echo\n"})
    card = "validation_status:\n  run_example: [file_exists]\nevidence:\n  - examples/acme-resiliency/run.sh\n"
    claims = _claims(make_skill(tmp_path / "acme-resiliency", QUOTE, card), repo, "v1")
    assert claims["run_example"]["verdict"] == "code_verified"
    assert "mismatch" not in claims["run_example"]


def test_a_file_exists_claim_whose_file_the_default_branch_gains_later_is_not_broken_on_an_older_day(
    tmp_path: Path,
) -> None:
    """Audited at a commit before the example landed (a card's validation day), the file the claim names is not yet
    there: the card describes newer code, which says nothing of the claim that day (unverifiable, saying when it
    landed), never broken. Written with the skill's new folder name too (``acme-resiliency``), the old form's
    landing is found. A file the history never had is still broken."""
    repo = make_code_repo(tmp_path / "code", {"pkg/core.py": BODY})
    repo.write("examples/resiliency/run.sh", "echo\n")
    repo.write("examples/plain/run.sh", "echo\n")
    repo.commit("the examples", tag="v2", date="2026-03-20T00:00:00")
    card = ("validation_status:\n  resiliency_run: [file_exists]\n  plain_run: [file_exists]\n"
            "  never_run: [file_exists]\nevidence:\n  - examples/acme-resiliency/run.sh\n"
            "  - examples/plain/run.sh\n  - examples/never/run.sh\n")  # fmt: skip
    skill = make_skill(tmp_path / "acme-resiliency", QUOTE, card)
    old = _claims(skill, repo, "v1")
    for cid in ("resiliency_run", "plain_run"):
        (said,) = old[cid]["evidence"]
        assert (old[cid]["verdict"], said["status"]) == ("unverifiable", "unverifiable"), old[cid]
        assert " in commit " in said["detail"] and " on 2026-03-20, after this one" in said["detail"], said
        assert "the card describes code that landed after this commit" in said["detail"], said
    assert "as examples/resiliency/run.sh" in old["resiliency_run"]["evidence"][0]["detail"]
    assert old["never_run"]["verdict"] == "broken"
    now = _claims(skill, repo, "v2")
    assert [now[c]["verdict"] for c in ("resiliency_run", "plain_run", "never_run")] == [
        "code_verified", "code_verified", "broken"
    ]


def test_a_path_written_from_the_skills_folder_is_followed_in_that_folder_before_any_other_of_its_tail(
    tmp_path: Path,
) -> None:
    """Two skills each had ``deploy/info.yaml``; each moved it into its ``references/``, the other skill last.
    The first skill's ``deploy/info.yaml`` is its own file's move, not the other skill's."""
    files = {f"skills/{name}/{part}": "x: 1\n" for name in ("ocr", "seg") for part in ("SKILL.md", "deploy/info.yaml")}
    repo = make_code_repo(tmp_path / "code", files)
    git(repo.path, "mv", "skills/ocr/deploy/info.yaml", "skills/ocr/deploy-info.yaml")
    repo.commit("ocr: deploy info beside the skill", date="2026-02-01T00:00:00")
    git(repo.path, "mv", "skills/seg/deploy/info.yaml", "skills/seg/deploy-info.yaml")
    repo.commit("seg: deploy info beside the skill", tag="v2", date="2026-03-01T00:00:00")
    repo.write("skills/ocr/SKILL.md", "---\nname: ocr\ndescription: d\n---\n\nBuild engines from `deploy/info.yaml`.\n")
    repo.commit("the ocr skill", tag="v3", date="2026-03-02T00:00:00")
    report = json.loads(run_cli("check", "--repo", str(repo.path), "--ref", "v3", "--in-repo", "--format", "json",
                                "skills/ocr").out)  # fmt: skip
    (said,) = [p for p in report["skills"][0]["promises"] if p["path"] == "deploy/info.yaml"]
    assert said["status"] == "missing"
    assert said["detail"].startswith("moved to skills/ocr/deploy-info.yaml in commit"), said


def test_a_path_never_in_the_history_of_a_skill_that_names_another_projects_files_is_not_called_missing(
    tmp_path: Path,
) -> None:
    """A skill that ports a model into two other repositories names their files (``porter/setup.py``): a path the
    audited repository never had (``pkg/__main__.py``) is then read as one of theirs, unverifiable. Without such
    paths it is missing, as ever; a path the history deleted stays missing either way."""
    repo = make_code_repo(tmp_path / "code", {"pkg/gone.py": "x = 1\n"})
    repo.remove("pkg/gone.py")
    repo.commit("drop gone", tag="v2", date="2026-02-01T00:00:00")
    cited = "Check `pkg/__main__.py` and the old `pkg/gone.py`.\n"
    others = "Register it in `porter/setup.py` and `porter-deploy/setup.py`.\n"

    def paths(body: str, name: str) -> dict[str, tuple[str, str]]:
        skill = make_skill(tmp_path / name, QUOTE + body)
        report = json.loads(run_cli("check", "--repo", str(repo.path), "--ref", "v2", "--format", "json",
                                    str(skill)).out)  # fmt: skip
        return {p["path"]: (p["status"], p["detail"]) for p in report["skills"][0]["promises"] if p["kind"] == "path"}

    alone = paths(cited, "alone")
    assert alone["pkg/__main__.py"] == ("missing", "not at the ref, and no file of its name anywhere here")
    porting = paths(cited + others, "porting")
    assert porting["pkg/__main__.py"] == ("unverifiable", "not at the ref, and no file of its name anywhere here; "
        "the skill names another project's files too (porter/setup.py, porter-deploy/setup.py): one of them? re-verify")
    assert porting["pkg/gone.py"][0] == alone["pkg/gone.py"][0] == "missing"
