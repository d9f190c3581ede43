"""Class 10: what an input names is never followed out of its tree, and no flag is read as another."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from ..conftest import git
from .conftest import QUOTE, make_code_repo, make_skill, run_cli

TOKEN = "ghp_0123456789abcdefTOKEN"


def superproject(tmp_path: Path, url: str) -> Path:
    """A superproject served over file:// whose .gitmodules gives ``url`` for ``third/sub``; its bare copy."""
    secret = make_code_repo(tmp_path / "secret", {"creds.py": f"TOKEN = '{TOKEN}'\n"})
    sub_sha = git(secret.path, "rev-parse", "HEAD")
    top = make_code_repo(tmp_path / "top")
    (top.path / ".gitmodules").write_text(f'[submodule "s"]\n\tpath = third/sub\n\turl = {url}\n')
    git(top.path, "add", ".gitmodules")
    git(top.path, "update-index", "--add", "--cacheinfo", f"160000,{sub_sha},third/sub")
    git(top.path, "commit", "-q", "-m", "a submodule")  # not add -A: it would drop the gitlink (no work tree there)
    git(top.path, "tag", "v2")
    served = tmp_path / "top.git"
    git(tmp_path, "clone", "-q", "--bare", str(top.path), str(served))
    git(served, "config", "uploadpack.allowFilter", "true")
    return served


@pytest.mark.parametrize("how", ["absolute", "file-url", "relative"])
def test_a_submodule_url_that_is_a_local_path_is_not_read(tmp_path: Path, how: str) -> None:
    url = {"absolute": str(tmp_path / "secret"), "file-url": f"file://{tmp_path / 'secret'}", "relative": "../secret"}[how]
    served = superproject(tmp_path, url)
    skill = make_skill(tmp_path / "skill", f"```1:1:third/sub/creds.py\nTOKEN = '{TOKEN}'\n```\n")
    args = ["check", "--repo", f"file://{served}", "--ref", "v2", str(skill)]
    for fmt in ("markdown", "json"):
        done = run_cli(*args, "--format", fmt)
        assert done.code == 1 and done.out.count(TOKEN) == 0, done.out  # the token is only in the skill's own quote
    (anchor,) = json.loads(done.out)["skills"][0]["anchors"]
    assert anchor["status"] == "unverifiable" and "a local path is not followed" in anchor["detail"]
    assert "--submodule third/sub=URL_OR_DIR" in anchor["detail"]
    # Named by the user, the same place is read.
    done = run_cli(*args, "--format", "json", "--submodule", f"third/sub={tmp_path / 'secret'}")
    assert [a["status"] for a in json.loads(done.out)["skills"][0]["anchors"]] == ["exact"]


def catalog_with(tmp_path: Path) -> tuple[Path, list[str]]:
    code = make_code_repo(tmp_path / "code")
    catalog = tmp_path / "catalog"
    (catalog / "components.d").mkdir(parents=True)
    (catalog / "components.d" / "a.yml").write_text(
        "repo: owner/code\nskills:\n  - path: skills/demo\n    catalog_dir: demo\n"
        "  - path: skills/plain\n    catalog_dir: plain\n"
    )
    make_skill(catalog / "skills" / "plain")
    return catalog, ["check", "--catalog", str(catalog), "--mirror", f"owner/code={code.path}", "--format", "json"]


def test_a_catalog_skill_folder_linked_outside_is_an_error_for_that_skill(tmp_path: Path) -> None:
    catalog, args = catalog_with(tmp_path)
    outside = make_skill(tmp_path / "home" / "someone")
    (outside / "private-notes-name.txt").write_text("x")
    os.symlink(outside, catalog / "skills" / "demo")
    done = run_cli(*args)
    assert "private-notes-name" not in done.out + done.err
    skills = {s["name"]: s for s in json.loads(done.out)["skills"]}
    assert skills["demo"]["error"] == "skills/demo: a link to a place outside the catalog; not followed"
    assert [a["status"] for a in skills["plain"]["anchors"]] == ["exact"]  # the other skill is audited as ever


def test_a_catalog_whose_skills_folder_is_a_link_outside_audits_none_of_it(tmp_path: Path) -> None:
    catalog, args = catalog_with(tmp_path)
    make_skill(catalog / "skills" / "demo", QUOTE)
    (catalog / "skills").rename(tmp_path / "elsewhere")
    os.symlink(tmp_path / "elsewhere", catalog / "skills")
    (tmp_path / "elsewhere" / "private-notes-name.txt").write_text("x")
    done = run_cli(*args)
    assert done.code == 2 and done.out == "" and "private-notes-name" not in done.err
    assert done.one_error_line().endswith("nothing could be audited (every component was skipped or unreadable)")


def test_a_file_in_a_catalog_skill_linked_outside_is_an_error(tmp_path: Path) -> None:
    catalog, args = catalog_with(tmp_path)
    make_skill(catalog / "skills" / "demo", QUOTE)
    (tmp_path / "elsewhere").mkdir()
    os.symlink(tmp_path / "elsewhere", catalog / "skills" / "demo" / "refs")
    os.symlink(catalog / "skills" / "plain" / "SKILL.md", catalog / "skills" / "demo" / "inside.md")  # inside: fine
    skills = {s["name"]: s for s in json.loads(run_cli(*args).out)["skills"]}
    assert skills["demo"]["error"] == "skills/demo/refs: a link to a place outside the catalog; not followed"


@pytest.mark.parametrize("argv, bad", [
    (["history", "--all", "skills"], "--all"),
    (["check", "--allow", "ext"], "--allow"),
    (["check", "--form", "json"], "--form"),
    (["fix", "--wri"], "--wri"),
    (["matrix", "--write"], "--write"),  # not --write-card: a card is edited only when asked by name
])
def test_no_option_is_read_as_an_abbreviation(tmp_path: Path, argv: list[str], bad: str) -> None:
    line = run_cli(*argv, cwd=tmp_path).one_error_line()
    assert f"unrecognized arguments: {bad}" in line, line


def test_a_commands_positionals_may_follow_its_options(tmp_path: Path) -> None:
    """`diff v1 v2 --repo R SKILL` read SKILL as an unknown argument; every command takes them anywhere."""
    repo = make_code_repo(tmp_path / "code")
    skill = make_skill(tmp_path / "skill")
    for argv in (["diff", "v1", "v1", "--repo", str(repo.path), str(skill)],
                 ["impact", "v1", "--repo", str(repo.path), "v1", str(skill)],
                 ["check", "--repo", str(repo.path), str(skill), "--ref", "v1"]):  # fmt: skip
        done = run_cli(*argv, "--format", "json", cwd=tmp_path)
        assert done.code == 0, (argv, done.err)


def test_every_parser_refuses_abbreviations() -> None:
    import argparse

    from anchor_audit.cli.table import build_parser as _parser

    top = _parser()
    (sub,) = [a for a in top._actions if isinstance(a, argparse._SubParsersAction)]
    parsers = [top, *sub.choices.values()]
    assert len(parsers) == 13 and all(p.allow_abbrev is False for p in parsers)
