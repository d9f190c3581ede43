"""Class 1: no data loss. Nothing the tool did not make is deleted; nothing is half-written."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import yaml

from ..conftest import git
from .conftest import CODE, make_code_repo, make_skill, registry, run_cli, snapshot


def test_cache_clean_never_deletes_a_folder_it_did_not_make(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / "git").mkdir(parents=True)
    (project / "git" / "HEAD").write_text("ref: refs/heads/main\n")
    (project / "results.sqlite3").write_text("not ours\n")
    before = snapshot(project)
    line = run_cli("cache", "clean", "--cache-dir", str(project)).one_error_line()
    assert line == f"anchor-audit: error: {project}: not an anchor-audit cache (it has no CACHEDIR.TAG made by anchor-audit); nothing removed"
    assert snapshot(project) == before and not (project / "CACHEDIR.TAG").exists()


def test_cache_clean_removes_only_its_own_entries(tmp_path: Path) -> None:
    repo = make_code_repo(tmp_path / "code")
    skill = make_skill(tmp_path / "skill")
    cache = tmp_path / "cache-here"
    assert run_cli("check", "--repo", str(repo.path), "--ref", "v1", "--cache-dir", str(cache), str(skill)).code == 0
    assert (cache / "CACHEDIR.TAG").is_file() and (cache / "results.sqlite3").is_file()
    (cache / "notes.txt").write_text("mine\n")  # the user put something of theirs there
    done = run_cli("cache", "clean", "--cache-dir", str(cache))
    assert done.code == 0 and done.err == ""
    assert sorted(p.name for p in cache.iterdir()) == ["notes.txt"]


def test_output_onto_a_device_writes_into_it_and_leaves_it_a_device(tmp_path: Path) -> None:
    repo = make_code_repo(tmp_path / "code")
    skill = make_skill(tmp_path / "skill")
    null = tmp_path / "null"
    if os.geteuid() == 0:
        os.mknod(null, 0o666 | stat.S_IFCHR, os.makedev(1, 3))  # a /dev/null of our own
    else:
        os.symlink(os.devnull, null)
    done = run_cli("check", "--repo", str(repo.path), "--ref", "v1", "--format", "json", "--output", str(null), str(skill))
    assert done.code == 0, done.err
    assert stat.S_ISCHR(null.stat().st_mode)
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".null")] == []  # no temporary left


def test_output_onto_a_folder_is_refused_in_one_line(tmp_path: Path) -> None:
    repo = make_code_repo(tmp_path / "code")
    skill = make_skill(tmp_path / "skill")
    line = run_cli("check", "--repo", str(repo.path), "--ref", "v1", "--output", str(tmp_path), str(skill)).one_error_line()
    assert line.startswith(f"anchor-audit: error: --output {tmp_path}: cannot write: Is a directory")


SEPARATORS = "\u2028 \u2029 \x0c \x1c \x1d \x1e \x85"


def test_line_separators_in_prose_do_not_shift_the_fences_fix_rewrites(tmp_path: Path) -> None:
    repo = make_code_repo(tmp_path / "code")
    exact = "```3:6:pkg/plan.py\nif cfg.tp > 1:\n    cfg.overlap = True\nelse:\n    cfg.overlap = False\n```\n"
    moved = "```1:2:pkg/plan.py\nreturn cfg\n```\n"  # really line 7
    prose = f"Prose with {SEPARATORS} in it.\n" * 3
    skill = make_skill(tmp_path / "skill", prose + exact + "\n" + prose + moved)
    done = run_cli("fix", "--write", "--repo", str(repo.path), "--ref", "v1", str(skill))
    assert done.code == 0, done.out + done.err
    text = (skill / "SKILL.md").read_text(encoding="utf-8")
    assert "```3:6:pkg/plan.py\n" in text and "```7:7:pkg/plan.py\nreturn cfg\n" in text
    assert text.count(SEPARATORS) == 6  # the prose is byte for byte as it was


def test_line_separators_in_quoted_code_do_not_shift_its_line_numbers(tmp_path: Path) -> None:
    odd = "# a comment with \u2028 and \x0c and \x85 in it\n" + CODE  # the quoted lines are now 4-7
    repo = make_code_repo(tmp_path / "code", {"pkg/plan.py": odd})
    quote = "```4:7:pkg/plan.py\nif cfg.tp > 1:\n    cfg.overlap = True\nelse:\n    cfg.overlap = False\n```\n"
    skill = make_skill(tmp_path / "skill", quote)
    done = run_cli("check", "--format", "json", "--repo", str(repo.path), "--ref", "v1", str(skill))
    assert done.code == 0, done.out
    (anchor,) = json.loads(done.out)["skills"][0]["anchors"]
    assert (anchor["status"], anchor["found"]) == ("exact", [4, 7])


def test_fix_write_changes_registry_and_skill_together_or_not_at_all(tmp_path: Path) -> None:
    # A real write failure without privileges: the file size limit lets the small registry be staged
    # and makes staging the large SKILL.md fail (EFBIG), as a full disk or a read-only folder would.
    repo = make_code_repo(tmp_path / "code")
    moved = "```1:2:pkg/plan.py\nreturn cfg\n```\n" + "Long prose.\n" * 6000
    skill = make_skill(tmp_path / "skill", moved)
    spec = registry(tmp_path / "anchors.yaml", repo.path, skill, claims="      c:\n        quotes: [pkg/plan.py:1-2]\n")
    before = snapshot(tmp_path)
    done = run_cli("fix", "--write", "--no-cache", "--spec", str(spec), file_bytes=16 * 1024, cwd=tmp_path)
    line = done.one_error_line()
    assert line == "anchor-audit: error: skill/SKILL.md: cannot write: File too large; nothing written"
    assert snapshot(tmp_path) == before  # the registry was not rewritten, and no temporary file is left
    assert yaml.safe_load(spec.read_text())["skills"]["s"]["claims"]["c"]["quotes"] == ["pkg/plan.py:1-2"]


def test_update_card_with_a_hash_in_a_quoted_claim_id_keeps_the_card_valid(tmp_path: Path) -> None:
    repo = make_code_repo(tmp_path / "code")
    card = 'validation_status:\n  "gate #1 # anchor-audit: x":\n    - code_verified\n'
    skill = make_skill(tmp_path / "skill", card=card)
    claims = '      "gate #1 # anchor-audit: x":\n        conditions:\n          - {path: pkg/plan.py, in: Planner.plan, if: cfg.tp > 2}\n'
    spec = registry(tmp_path / "anchors.yaml", repo.path, skill, claims=claims)
    done = run_cli("fix", "--update-card", "--write", "--spec", str(spec))
    assert done.code == 1, done.out + done.err  # the claim is broken: marked, left for a person
    data = yaml.safe_load((skill / "card.yaml").read_text())
    assert data["validation_status"] == {"gate #1 # anchor-audit: x": ["code_verified"]}
    assert (skill / "card.yaml").read_text().splitlines()[1].startswith('  "gate #1 # anchor-audit: x":  # anchor-audit: broken at v1 (')


def test_bump_writes_refs_that_read_back_as_strings(tmp_path: Path) -> None:
    repo = make_code_repo(tmp_path / "code")
    skill = make_skill(tmp_path / "skill")
    spec = registry(tmp_path / "anchors.yaml", repo.path, skill)
    for tag in ("1.10", "null", "true", "0x10", "1e3"):
        git(repo.path, "tag", tag)
        done = run_cli("bump", tag, "--spec", str(spec))
        assert done.code == 0, done.err
        pinned = yaml.safe_load(spec.read_text())["source"]["ref"]  # a version tag as written; a word, its commit
        assert pinned in (tag, git(repo.path, "rev-parse", f"{tag}^{{commit}}"))
        assert run_cli("check", "--spec", str(spec)).code == 0  # and later runs read it


def test_a_quote_of_a_doc_is_never_relocated_into_a_skill_that_copies_it(tmp_path: Path) -> None:
    doc = "# Guide\n\nRun the planner with cfg.tp set above one to overlap.\nThen check cfg.overlap.\n"
    skill_md = (
        "---\nname: guide-skill\ndescription: x\n---\n\n```3:4:docs/guide.md\n"
        "Run the planner with cfg.tp set above one to overlap.\nThen check cfg.overlap.\n```\n"
    )
    repo = make_code_repo(tmp_path / "code", {"docs/guide.md": doc, "skills/guide-skill/SKILL.md": skill_md})
    repo.write("docs/guide.md", "# Guide\n\nNothing here any more.\n")
    repo.commit("docs rewritten", tag="v2")
    done = run_cli("check", "--format", "json", "--repo", str(repo.path), "--ref", "v2", "--in-repo", "skills/guide-skill")
    assert done.code == 1
    (anchor,) = json.loads(done.out)["skills"][0]["anchors"]
    assert anchor["status"] == "changed" and "found_path" not in anchor, anchor
