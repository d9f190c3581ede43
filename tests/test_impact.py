"""``impact BASE HEAD`` on a built repository: a move, an edit inside, a deletion, an unrelated commit."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from anchor_audit.cli import main

from .conftest import DEMO, GitRepo, assert_golden, git

OVERLAP = "src/demo/overlap.py"
SKILL = DEMO / "skills" / "demo-overlap"


def run(repo: GitRepo, base: str, head: str, capsys, *extra: str, skill: Path = SKILL) -> tuple[int, str]:
    args = ["impact", base, head, str(skill), "--spec", str(DEMO / "anchors.yaml"), "--repo", str(repo.path), *extra]
    code = main(args)
    return code, capsys.readouterr().out


def impacts(repo: GitRepo, base: str, head: str, capsys) -> tuple[int, dict]:
    code, out = run(repo, base, head, capsys, "--format", "json")
    return code, json.loads(out)


def test_unrelated_change_and_same_ref_are_no_impact(change, capsys) -> None:
    repo, shas = change
    code, data = impacts(repo, shas["v1"], shas["docs"], capsys)
    assert (code, data["impacts"]) == (0, [])
    assert (data["base"], data["head"]) == (shas["v1"], shas["docs"])
    code, data = impacts(repo, "HEAD", "HEAD", capsys)
    assert (code, data["impacts"]) == (0, [])


def test_a_move_is_reported_on_the_new_lines_with_the_healing_patch(change, capsys) -> None:
    repo, shas = change
    code, data = impacts(repo, shas["docs"], shas["move"], capsys)
    assert code == 1
    rows = [(i["kind"], i["key"], i["from"], i["to"], i["code"]) for i in data["impacts"]]
    # Two lines added above everything: each quote is found two lines further down (checked by hand in overlap.py).
    assert rows == [
        ("anchor", f"{OVERLAP}:32-38", "exact", "moved", {"path": OVERLAP, "lines": [34, 40]}),
        ("anchor", f"{OVERLAP}:41-47", "exact", "moved", {"path": OVERLAP, "lines": [43, 49]}),
        ("anchor", f"{OVERLAP}:55-57", "exact", "moved", {"path": OVERLAP, "lines": [57, 59]}),
    ]
    patch = data["impacts"][0]["patch"]
    assert "-```32:38:src/demo/overlap.py\n+```34:40:src/demo/overlap.py\n" in patch
    assert "+~~~43:49:src/demo/overlap.py" in patch and "+   ````57:59:src/demo/overlap.py" in patch
    shown = os.path.relpath(SKILL)  # named from the working folder, as git apply takes it (not a//abs/...)
    assert patch.startswith(f"--- a/{shown}/SKILL.md\n+++ b/{shown}/SKILL.md\n")


def test_an_edit_inside_a_gate_breaks_the_quote_the_condition_and_the_claim(change, capsys) -> None:
    repo, shas = change
    code, data = impacts(repo, shas["move"], shas["edit"], capsys)
    assert code == 1
    rows = {(i["kind"], i["key"]): (i["from"], i["to"]) for i in data["impacts"]}
    assert rows[("anchor", f"{OVERLAP}:32-38")] == ("moved", "changed")
    assert rows[("claim", "tp_gate")] == ("code_verified", "broken")
    conditions = [k for k in rows if k[0] == "condition"]
    assert len(conditions) == 1 and rows[conditions[0]][0] == "holds" and rows[conditions[0]][1] != "holds"
    # The other two quotes moved at BASE and still move the same way: no status change, lines untouched.
    assert not any(k[1] in (f"{OVERLAP}:41-47", f"{OVERLAP}:55-57") for k in rows)


def test_a_deleted_line_of_a_quote(change, capsys) -> None:
    repo, shas = change
    code, data = impacts(repo, shas["edit"], shas["delete"], capsys)
    assert code == 1
    rows = {(i["kind"], i["key"]): (i["from"], i["to"]) for i in data["impacts"]}
    assert rows[("anchor", f"{OVERLAP}:55-57")][0] == "moved"
    assert rows[("anchor", f"{OVERLAP}:55-57")][1] in ("changed", "missing")


@pytest.mark.parametrize("fmt", ["terminal", "markdown", "github", "sarif"])
def test_every_format_places_the_move_on_the_code_lines(change, capsys, fmt: str) -> None:
    repo, shas = change
    code, out = run(repo, shas["docs"], shas["move"], capsys, "--format", fmt)
    assert code == 1
    if fmt == "github":
        lines = out.splitlines()
        # a quote that only moved is a warning, as check calls it (it was an error once)
        assert len(lines) == 3 and all(line.startswith("::warning file=src/demo/overlap.py,line=") for line in lines)
        assert "line=34,endLine=40" in lines[0]
    elif fmt == "sarif":
        results = json.loads(out)["runs"][0]["results"]
        regions = [r["locations"][0]["physicalLocation"]["region"] for r in results]
        assert regions == [{"startLine": 34, "endLine": 40}, {"startLine": 43, "endLine": 49},
                           {"startLine": 57, "endLine": 59}]  # fmt: skip
    elif fmt == "markdown":
        assert "This change makes 3 quotes in 1 skill stale. The patch below re-anchors 3 moved quotes (" in out
        assert "had moved before this change" not in out  # all three moved in this change
        assert "```diff\n" in out and "+```34:40:src/demo/overlap.py" in out
    else:
        assert "demo-overlap: anchor src/demo/overlap.py:32-38: exact -> moved (HEAD src/demo/overlap.py:34-40)" in out
        assert "3 impacts, 3 status changes · exit 1" in out


def test_apply_writes_the_patch_and_the_skill_holds_again(change, capsys, tmp_path: Path) -> None:
    repo, shas = change
    skill = tmp_path / "demo-overlap"
    shutil.copytree(SKILL, skill)
    before = (skill / "SKILL.md").read_text()
    code, _ = run(repo, shas["docs"], shas["move"], capsys, skill=skill)
    assert code == 1 and (skill / "SKILL.md").read_text() == before  # a dry run by default
    code, _ = run(repo, shas["docs"], shas["move"], capsys, "--apply", skill=skill)
    after = (skill / "SKILL.md").read_text()
    assert "```34:40:src/demo/overlap.py" in after and "```32:38:" not in after
    code, data = impacts(repo, shas["move"], shas["move"], capsys)
    assert code == 0
    args = ["check", "--spec", str(DEMO / "anchors.yaml"), "--repo", str(repo.path), "--ref", shas["move"], str(skill)]
    main([*args, "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    anchors = [a for s in report["skills"] for a in s["anchors"]]
    assert len([a for a in anchors if a["path"] == OVERLAP]) == 3
    assert all(a["status"] == "exact" for a in anchors if a["path"] == OVERLAP)


def test_in_repo_skills_are_read_at_head_and_apply_heals_the_work_tree(make_repo, capsys, monkeypatch) -> None:
    repo = make_repo()
    shutil.copytree(SKILL, repo.path / "skills" / "demo-overlap")
    skill_sha = repo.commit("the skill lands beside the code")
    repo.edit(OVERLAP, "from dataclasses import dataclass\n", "import os\nimport sys\nfrom dataclasses import dataclass\n")
    repo.commit("add imports")
    monkeypatch.chdir(repo.path)
    args = ["impact", skill_sha, "HEAD", "--all", "skills", "--in-repo", "--spec", str(DEMO / "anchors.yaml"),
            "--repo", ".", "--format", "json"]  # fmt: skip
    assert main(args) == 1
    data = json.loads(capsys.readouterr().out)
    assert [(i["key"], i["from"], i["to"]) for i in data["impacts"]] == [
        (f"{OVERLAP}:32-38", "exact", "moved"), (f"{OVERLAP}:41-47", "exact", "moved"),
        (f"{OVERLAP}:55-57", "exact", "moved"),
    ]  # fmt: skip
    assert data["impacts"][0]["patch"].startswith("--- a/skills/demo-overlap/SKILL.md\n")
    assert main([*args[:-2], "--apply"]) == 1
    healed = (repo.path / "skills" / "demo-overlap" / "SKILL.md").read_text()
    assert "```34:40:src/demo/overlap.py" in healed and "~~~43:49:src/demo/overlap.py" in healed
    (repo.path / "skills" / "demo-overlap" / "SKILL.md").write_text("edited by hand\n")
    assert main([*args[:-2], "--apply"]) == 2  # the file is no longer what HEAD has: nothing written
    assert (repo.path / "skills" / "demo-overlap" / "SKILL.md").read_text() == "edited by hand\n"
    assert "differs from the skill at HEAD" in capsys.readouterr().err


def test_a_change_inside_a_quote_already_changed_is_a_notice_not_a_failure(change, capsys) -> None:
    repo, shas = change
    repo.edit(OVERLAP, "elif not model.seq_parallel:", "elif not model.sequence_parallel:")
    repo.commit("rename a field inside the (already stale) TP gate")
    code, data = impacts(repo, shas["delete"], "HEAD", capsys)
    touched = [i for i in data["impacts"] if i["kind"] == "anchor"]
    # 32:38 no longer matches at BASE (the threshold edit); its closest code there is lines 34-37, and line 37 changes.
    assert [(i["key"], i["from"], i["to"]) for i in touched] == [(f"{OVERLAP}:32-38", "changed", "changed")]
    assert [i for i in data["impacts"] if i["from"] != i["to"]] == [] and code == 0
    code, out = run(repo, shas["delete"], "HEAD", capsys, "--format", "github")
    assert out.startswith("::notice file=src/demo/overlap.py,line=") and code == 0


IMPACT_FORMATS = {"terminal": "txt", "json": "json", "markdown": "md", "sarif": "sarif", "github": "github"}


@pytest.mark.parametrize("fmt", list(IMPACT_FORMATS))
def test_golden_impact_of_the_edit_inside_the_gate(change, capsys, tmp_path: Path, monkeypatch, fmt: str) -> None:
    """Golden files checked by hand once (ANCHOR_AUDIT_UPDATE_GOLDEN=1 rewrites them; read the diff).

    Relative paths and fixed commit dates make the output the same on every machine.
    """
    repo, shas = change
    shutil.copytree(DEMO / "skills", tmp_path / "skills")
    shutil.copy(DEMO / "anchors.yaml", tmp_path / "anchors.yaml")
    monkeypatch.chdir(tmp_path)
    code = main(["impact", shas["move"], shas["edit"], "skills/demo-overlap", "--repo", str(repo.path), "--format", fmt])
    out = capsys.readouterr().out
    assert code == 1
    assert_golden(f"impact-edit.{IMPACT_FORMATS[fmt]}", out)


def test_apply_heals_the_skill_and_the_registry_keys_so_check_passes(change, capsys, tmp_path, monkeypatch) -> None:
    repo, shas = change
    shutil.copytree(DEMO / "skills", tmp_path / "skills")
    shutil.copy(DEMO / "anchors.yaml", tmp_path / "anchors.yaml")
    monkeypatch.chdir(tmp_path)
    check = ["check", "skills/demo-overlap", "--repo", str(repo.path), "--ref", shas["move"]]
    assert main(check) == 1  # the three overlap.py quotes moved
    args = ["impact", shas["docs"], shas["move"], "skills/demo-overlap", "--repo", str(repo.path), "--apply"]
    assert main(args) == 1
    registry = (tmp_path / "anchors.yaml").read_text()
    for old, new in (("32-38", "34-40"), ("41-47", "43-49"), ("55-57", "57-59")):
        assert f"src/demo/overlap.py:{new}" in registry and f"src/demo/overlap.py:{old}" not in registry
    capsys.readouterr()
    assert main(check) == 0  # healed in place: the skill and its registry hold at HEAD


def test_catalog_takes_the_skills_of_the_component_the_repository_is(change, capsys, tmp_path: Path) -> None:
    repo, shas = change
    git(repo.path, "remote", "add", "origin", "https://github.com/Owner-A/code-a.git")
    catalog = tmp_path / "catalog"
    (catalog / "components.d").mkdir(parents=True)
    (catalog / "components.d" / "a.yml").write_text("repo: owner-a/code-a\nskills:\n  - path: skills/x\n    catalog_dir: ours\n")
    (catalog / "components.d" / "b.yml").write_text("repo: owner-b/other\nskills:\n  - path: skills/y\n    catalog_dir: theirs\n")
    shutil.copytree(SKILL, catalog / "skills" / "ours")
    (catalog / "skills" / "theirs").mkdir()  # unreadable if it were taken: it is not
    args = ["impact", shas["docs"], shas["move"], "--catalog", str(catalog), "--spec", str(DEMO / "anchors.yaml"),
            "--repo", str(repo.path), "--format", "json"]  # fmt: skip
    assert main(args) == 1
    data = json.loads(capsys.readouterr().out)
    assert {i["skill"] for i in data["impacts"]} == {"ours"} and len(data["impacts"]) == 3
    git(repo.path, "remote", "set-url", "origin", "https://github.com/someone/else.git")
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"anchor-audit: error: {catalog}: no component of the catalog is {repo.path}")
    assert "owner-a/code-a, owner-b/other" in err
    assert main([*args, "--mirror", f"owner-a/code-a={repo.path}"]) == 1  # --mirror says which component it is
    assert {i["skill"] for i in json.loads(capsys.readouterr().out)["impacts"]} == {"ours"}
    # --repo the URL, --mirror URL=DIR: the change is read from the local copy, nothing fetched (the URL is not real)
    url = "https://github.com/owner-a/code-a"
    remote = [*args[: args.index("--repo")], "--repo", url, "--format", "json", "--mirror", f"{url}={repo.path}"]
    assert main(remote) == 1, capsys.readouterr().err
    assert {i["skill"] for i in json.loads(capsys.readouterr().out)["impacts"]} == {"ours"}


def test_a_change_that_only_mends_is_listed_and_exits_0(change, capsys) -> None:
    repo, shas = change
    code, data = impacts(repo, shas["move"], shas["docs"], capsys)  # the imports taken out again: moved -> exact
    assert [(i["from"], i["to"]) for i in data["impacts"]] == [("moved", "exact")] * 3
    assert code == 0
    code, data = impacts(repo, shas["docs"], shas["move"], capsys)  # and the other way: exact -> moved
    assert code == 1


def test_a_remote_base_written_as_an_ancestor_is_fetched_deep_enough(change, capsys, tmp_path: Path) -> None:
    """Over a URL the refs are fetched into a mirror; ``HEAD~1`` is no refspec git takes: its named ref is fetched,
    as deep as the ancestor, and the ancestor found there."""
    repo, shas = change
    git(repo.path, "checkout", "-q", "-b", "at-move", shas["move"])
    url = repo.path.resolve().as_uri()
    args = ["impact", "at-move~1", "at-move", str(SKILL), "--spec", str(DEMO / "anchors.yaml"), "--repo", url,
            "--cache-dir", str(tmp_path / "cache"), "--format", "json"]  # fmt: skip
    assert main(args) == 1  # the move, found: not exit 2 with git's "invalid refspec"
    data = json.loads(capsys.readouterr().out)
    assert {i["to"] for i in data["impacts"] if i["kind"] == "anchor"} == {"moved"}


def test_what_is_fetched_for_an_ancestor() -> None:
    from anchor_audit.source.mirror import fetched_as

    assert fetched_as("main") == ("main", 1)
    assert fetched_as("v1.0~3") == ("v1.0", 4)
    assert fetched_as("HEAD^^") == ("HEAD", 3)
    assert fetched_as("main~2^2") == ("main", 4)
