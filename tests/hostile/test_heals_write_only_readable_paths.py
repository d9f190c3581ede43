"""A heal takes its new path from the code repository, whose author chose the file's name: it writes only a path
that reads back as the same path once in SKILL.md, or it heals nothing and says why."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from anchor_audit.cli import main
from anchor_audit.spec.repopath import unwritable

from .conftest import CODE, QUOTE, make_code_repo, make_skill

NAMES = {
    "cr": "pkg/pl\ran.py",
    "esc": "pkg/pl\x1b[31man.py",
    "backtick": "pkg/pl`an.py",
    "space": "pkg/pl an.py",
    "tab": "pkg/pl\tan.py",
    "bidi": "pkg/pl\u202ean.py",
}


@pytest.mark.parametrize("name", list(NAMES.values()), ids=list(NAMES))
def test_a_quote_relocated_to_a_file_no_skill_can_name_is_unverifiable_and_not_healed(
    tmp_path: Path, capsys, name: str
) -> None:
    repo = make_code_repo(tmp_path / "code")
    repo.remove("pkg/plan.py")
    repo.write(name, CODE)
    repo.commit("moved to a hostile name", tag="v2")
    skill = make_skill(tmp_path / "skill", QUOTE)
    before = (skill / "SKILL.md").read_bytes()
    main(["check", "--repo", str(repo.path), "--ref", "v2", "--format", "json", str(skill)])
    (anchor,) = json.loads(capsys.readouterr().out)["skills"][0]["anchors"]
    assert anchor["status"] == "unverifiable" and "; not healed: " in anchor["detail"]
    main(["fix", "--repo", str(repo.path), "--ref", "v2", "--write", str(skill)])
    capsys.readouterr()
    assert (skill / "SKILL.md").read_bytes() == before


def test_a_prose_path_moved_to_a_name_with_a_space_is_missing_and_not_healed(tmp_path: Path, capsys) -> None:
    repo = make_code_repo(tmp_path / "code", {"pkg/tools/run.py": "x = 1\n"})
    repo.write("pkg/tools/run me.py", repo.read("pkg/tools/run.py"))
    repo.remove("pkg/tools/run.py")
    repo.commit("renamed", tag="v2")
    skill = make_skill(tmp_path / "skill", "Run `pkg/tools/run.py`.\n")
    main(["check", "--repo", str(repo.path), "--ref", "v2", "--format", "json", str(skill)])
    (path,) = [p for p in json.loads(capsys.readouterr().out)["skills"][0]["promises"] if p["kind"] == "path"]
    assert path["status"] == "missing" and "heal" not in path
    assert path["detail"].endswith("; not healed: the file name 'pkg/tools/run me.py' holds whitespace (SPACE)")


def test_a_plain_path_is_writable_and_each_hostile_one_says_why_not() -> None:
    assert unwritable("src/pkg/plan_v2.py") is None
    assert {key: bool(unwritable(name)) for key, name in NAMES.items()} == dict.fromkeys(NAMES, True)
