"""check --catalog: each skill against its own component's repository, read from local mirrors."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from anchor_audit.cli import main
from anchor_audit.runs.catalogsync import sync_facts
from anchor_audit.source.git import open_git

from .conftest import assert_golden
from .hostile.conftest import CODE, QUOTE, make_code_repo, make_skill


def _component(path: Path, repo: str, skills: list[tuple[str, str]], ref: str | None = None) -> None:
    lines = [f"name: {repo}", f"repo: {repo}"] + ([f"ref: {ref}"] if ref else []) + ["skills:"]
    lines += [f"  - path: {p}\n    catalog_dir: {d}" for p, d in skills]
    path.write_text("\n".join(lines) + "\n")


def test_a_catalog_audits_each_component_against_its_own_repository(tmp_path: Path, capsys) -> None:
    a = make_code_repo(tmp_path / "a", {"skills/plan-skill/SKILL.md": "---\nname: plan-skill\ndescription: hostile case\n---\n\n" + QUOTE})
    b = make_code_repo(tmp_path / "b", {"pkg/plan.py": "import os\n" + CODE,  # one line lower in this repository
                                        "skills/b-skill/SKILL.md": "---\nname: b-skill\ndescription: hostile case\n---\n\n" + QUOTE})
    catalog = tmp_path / "catalog"
    (catalog / "components.d").mkdir(parents=True)
    _component(catalog / "components.d" / "a.yml", "owner-a/code-a", [("skills/plan-skill/", "plan-skill"), ("skills/broken/", "broken")])
    _component(catalog / "components.d" / "b.yml", "Owner-B/code-b", [("skills/b-skill", "b-skill")], ref="main")
    _component(catalog / "components.d" / "c.yml", "nobody/gone", [("skills/gone", "gone-skill")])
    (catalog / "components.d" / "d.yml").write_text("repo: ../../etc\nskills: []\n")  # not a GitHub repository
    skills = catalog / "skills"
    make_skill(skills / "plan-skill")
    make_skill(skills / "broken", "```3:6:pkg/plan.py\nif cfg.tp > 1:\n")  # the fence is never closed
    make_skill(skills / "b-skill")
    (skills / "b-skill" / "SKILL.md").write_text((skills / "b-skill" / "SKILL.md").read_text() + "\nA local edit.\n")
    make_skill(skills / "gone-skill")

    code = main(["check", "--catalog", str(catalog), "--format", "json",
                 "--mirror", f"https://github.com/owner-a/code-a={a.path}", "--mirror", f"owner-b/code-b={b.path}",
                 "--mirror", f"nobody/gone={tmp_path / 'no-such-dir'}"])  # fmt: skip
    out, err = capsys.readouterr()
    assert code == 1
    assert err.splitlines() == [
        f"anchor-audit: skipped: cannot reach https://github.com/nobody/gone at main: {tmp_path / 'no-such-dir'}: "
        "no such repository (not a path, and not a URL)",
        "anchor-audit: skipped: components.d/d.yml:1: repo: expected OWNER/NAME of a GitHub repository, got '../../etc'",
    ]
    report = json.loads(out)
    assert report["source"]["kind"] == "catalog"
    by_name = {s["name"]: s for s in report["skills"]}
    assert list(by_name) == ["plan-skill", "broken", "b-skill", "gone-skill"]

    plan = by_name["plan-skill"]
    assert plan["source"]["repo"] == "https://github.com/owner-a/code-a" and len(plan["source"]["commit"]) == 40
    assert [x["status"] for x in plan["anchors"]] == ["exact"] and "out_of_sync" not in plan

    assert by_name["broken"]["error"].startswith("skills/broken/SKILL.md:6: quote 3:6:pkg/plan.py: the fence is never closed")
    assert by_name["broken"]["anchors"] == []

    other = by_name["b-skill"]  # the same quote, against its own repository: one line lower there
    assert other["source"]["repo"] == "https://github.com/Owner-B/code-b"
    assert [(x["status"], x["found"]) for x in other["anchors"]] == [("moved", [4, 7])]
    assert other["out_of_sync"] == ["SKILL.md (differs)"]

    gone = by_name["gone-skill"]
    assert gone["source"] is None and gone["skipped"].startswith("cannot reach https://github.com/nobody/gone")
    assert gone["anchors"] == [] and gone["claims"] == []


def test_a_catalog_in_sync_and_holding_exits_0(tmp_path: Path, capsys) -> None:
    body = "---\nname: plan-skill\ndescription: hostile case\n---\n\n" + QUOTE
    a = make_code_repo(tmp_path / "a", {"skills/plan-skill/SKILL.md": body})
    catalog = tmp_path / "catalog"
    (catalog / "components.d").mkdir(parents=True)
    _component(catalog / "components.d" / "a.yml", "owner-a/code-a", [("skills/plan-skill/", "plan-skill")])
    make_skill(catalog / "skills" / "plan-skill")
    assert (catalog / "skills" / "plan-skill" / "SKILL.md").read_text() == body
    assert main(["check", "--catalog", str(catalog), "--mirror", f"owner-a/code-a={a.path}"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "1 quote: 1 exact · 0 claims: none · exit 0 (all hold)"


def test_catalog_goes_with_check_only_and_alone(tmp_path: Path, capsys) -> None:
    assert main(["check", "--catalog", str(tmp_path), "somewhere"]) == 2
    assert "--catalog reads the skills and their repositories from the catalog" in capsys.readouterr().err
    assert main(["check", "--catalog", str(tmp_path)]) == 2
    assert capsys.readouterr().err == f"anchor-audit: error: {tmp_path}: not a skills catalog (no components.d/ folder)\n"


def test_many_skills_show_the_components_then_only_the_skills_that_drift(tmp_path: Path, capsys) -> None:
    names = [f"skill-{i}" for i in range(7)]
    files = {f"skills/{n}/SKILL.md": "---\nname: " + n + "\ndescription: hostile case\n---\n\n" + QUOTE for n in names}
    a = make_code_repo(tmp_path / "a", files)
    catalog = tmp_path / "catalog"
    (catalog / "components.d").mkdir(parents=True)
    _component(catalog / "components.d" / "a.yml", "owner-a/code-a", [(f"skills/{n}", n) for n in names])
    for n in names:
        make_skill(catalog / "skills" / n)
    (catalog / "skills" / "skill-3" / "SKILL.md").write_text(
        (catalog / "skills" / "skill-3" / "SKILL.md").read_text().replace("```3:6:", "```2:5:")
    )  # one quote that moved (and a copy out of sync)
    assert main(["check", "--catalog", str(catalog), "--mirror", f"owner-a/code-a={a.path}"]) == 1
    out = capsys.readouterr().out
    assert "7 skills in 1 component: 7 audited, 0 skipped, 0 unreadable; 1 with drift\n" in out
    row = next(line for line in out.splitlines() if line.startswith("owner-a/code-a @ main"))
    assert [cell.strip() for cell in row.split("│")][3:] == ["7", "7", "6", "1"]  # skills, audited, in sync, drift
    assert out.count("no entry in anchors.yaml") == 1 and "note: 7 skills: no entry in anchors.yaml" in out
    drifting = out[out.index("skills with drift (1)"):out.index("findings by class")]
    assert "skill-3" in drifting and "skill-2" not in drifting
    assert "1 quote moved · 1 file out of sync (ahead/diverged)" in drifting


def test_a_catalog_where_nothing_can_be_audited_is_exit_2(tmp_path: Path, capsys) -> None:
    catalog = tmp_path / "catalog"
    (catalog / "components.d").mkdir(parents=True)
    _component(catalog / "components.d" / "c.yml", "nobody/gone", [("skills/gone", "gone-skill")])
    make_skill(catalog / "skills" / "gone-skill")
    assert main(["check", "--catalog", str(catalog), "--mirror", f"nobody/gone={tmp_path / 'nothing'}"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("anchor-audit: skipped: cannot reach https://github.com/nobody/gone at main: ")
    assert err[1] == f"anchor-audit: error: {catalog}: nothing could be audited (every component was skipped or unreadable)"


def test_init_drafts_one_registry_for_a_catalog(tmp_path: Path, capsys, monkeypatch) -> None:
    import yaml

    a = make_code_repo(tmp_path / "a")
    catalog = tmp_path / "catalog"
    (catalog / "components.d").mkdir(parents=True)
    _component(catalog / "components.d" / "a.yml", "owner-a/code-a", [("skills/plan-skill", "plan-skill")])
    _component(catalog / "components.d" / "c.yml", "nobody/gone", [("skills/gone", "gone-skill")])
    card = "validation_status:\n  gate:\n    - code_verified  # plan.py:3-6\n"
    make_skill(catalog / "skills" / "plan-skill", card=card)
    monkeypatch.chdir(tmp_path)
    assert main(["init", "--catalog", "catalog", "--mirror", f"owner-a/code-a={a.path}",
                 "--mirror", f"nobody/gone={tmp_path / 'nothing'}"]) == 0  # fmt: skip
    out, err = capsys.readouterr()
    assert err.startswith("anchor-audit: skipped: cannot reach https://github.com/nobody/gone at main: ")
    data = yaml.safe_load(out)
    assert data["source"] == {"catalog": "catalog"}  # each skill's repository is its component's, not one for all
    assert data["skills"]["plan-skill"]["path"] == "catalog/skills/plan-skill"
    gate = data["skills"]["plan-skill"]["claims"]["gate"]
    assert gate["quotes"] == ["pkg/plan.py:3-6"]  # linked by its card comment, not proposed
    assert gate["conditions"][0]["if"] == "cfg.tp > 1"
    # The draft runs: a plain check with it is a catalog check, each skill against its own component.
    (tmp_path / "anchors.yaml").write_text(out)
    assert main(["check", "--format", "json", "--mirror", f"owner-a/code-a={a.path}",
                 "--mirror", f"nobody/gone={tmp_path / 'nothing'}"]) == 1  # fmt: skip (drift: absent upstream)
    audited = {s["name"]: s for s in json.loads(capsys.readouterr().out)["skills"]}
    assert audited["plan-skill"]["source"]["repo"] == "https://github.com/owner-a/code-a"
    assert audited["plan-skill"]["claims"][0]["verdict"] == "code_verified"
    # Commands that read one repository say why they cannot read this registry's source.
    assert main(["fix"]) == 2
    assert "anchors.yaml: its source is the catalog catalog: anchor-audit check reads it" in capsys.readouterr().err


FORMATS = {"terminal": "txt", "json": "json", "markdown": "md", "sarif": "sarif", "junit": "xml", "github": "github"}


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_golden_catalog_reports(fmt: str, tmp_path: Path, capsys, monkeypatch) -> None:
    """Every format on the catalog case (mirrored, unreachable, unreadable, stale, file_exists), checked by hand once."""
    import os

    a = make_code_repo(tmp_path / "a", {"skills/plan-skill/SKILL.md": "---\nname: plan-skill\ndescription: hostile case\n---\n\n" + QUOTE})
    catalog = tmp_path / "catalog"
    (catalog / "components.d").mkdir(parents=True)
    _component(catalog / "components.d" / "a.yml", "owner-a/code-a", [("skills/plan-skill", "plan-skill"), ("skills/broken", "broken")])
    _component(catalog / "components.d" / "c.yml", "nobody/gone", [("skills/gone", "gone-skill")])
    card = "validation_status:\n  files:\n    - file_exists\nevidence:\n  - pkg/plan.py\n  - docs/gone.md\n"
    make_skill(catalog / "skills" / "plan-skill", card=card)
    make_skill(catalog / "skills" / "broken", "```3:6:pkg/plan.py\nif cfg.tp > 1:\n")
    make_skill(catalog / "skills" / "gone-skill")
    monkeypatch.chdir(tmp_path)
    code = main(["check", "--catalog", "catalog", "--format", fmt, "--mirror", f"owner-a/code-a={os.path.relpath(a.path)}",
                 "--mirror", "nobody/gone=no-such-dir"])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 1
    assert_golden(f"catalog.{FORMATS[fmt]}", out)


@pytest.mark.parametrize("command", [["check", "--format", "json"], ["init"]])
def test_a_host_that_does_not_resolve_is_tried_once_per_run(command, tmp_path: Path, capsys, monkeypatch) -> None:
    # git is sent to a name that never resolves (RFC 2606 .invalid), as a user's insteadOf would send it; one
    # repository of the same host is sent to a local copy instead, and must still be fetched and audited.
    a = make_code_repo(tmp_path / "a")
    home = tmp_path / "home"
    home.mkdir()
    (home / ".gitconfig").write_text(
        '[url "https://anchor-audit-test.invalid/"]\n\tinsteadOf = https://github.com/\n'
        f'[url "file://{a.path}"]\n\tinsteadOf = https://github.com/owner-a/code-a\n'
    )
    monkeypatch.setenv("HOME", str(home))
    catalog = tmp_path / "catalog"
    (catalog / "components.d").mkdir(parents=True)
    _component(catalog / "components.d" / "a.yml", "nobody/first", [("skills/one", "one")])
    _component(catalog / "components.d" / "b.yml", "owner-a/code-a", [("skills/plan-skill", "plan-skill")])
    _component(catalog / "components.d" / "c.yml", "nobody/second", [("skills/two", "two")])
    for name in ("one", "plan-skill", "two"):
        make_skill(catalog / "skills" / name)
    main([*command, "--catalog", str(catalog)])
    out, err = capsys.readouterr()
    lines = err.splitlines()
    # One failed lookup, one cause: the first component's fetch found the name does not resolve, the second was
    # not tried; both are said in one line.
    assert lines == ["anchor-audit: skipped 2 components on anchor-audit-test.invalid (2 skills), which could not be "
                     "resolved (tried once): nobody/first, nobody/second"]  # fmt: skip
    if command[0] == "init":
        assert "  plan-skill:" in out and "  one:" not in out
        return
    audited = {s["name"]: s for s in json.loads(out)["skills"]}["plan-skill"]
    assert audited["source"]["repo"] == "https://github.com/owner-a/code-a" and audited["anchors"]


def test_components_fetched_side_by_side_keep_their_order_and_their_own_code(tmp_path: Path, capsys, monkeypatch) -> None:
    from .conftest import git

    # Five repositories, each served as its GitHub URL (insteadOf), each with the quoted code i lines lower.
    home = tmp_path / "home"
    home.mkdir()
    config = []
    catalog = tmp_path / "catalog"
    (catalog / "components.d").mkdir(parents=True)
    for i in range(5):
        repo = make_code_repo(tmp_path / f"code{i}", {"pkg/plan.py": "import os\n" * i + CODE})
        server = tmp_path / f"server{i}.git"
        git(tmp_path, "clone", "-q", "--bare", str(repo.path), str(server))
        git(server, "config", "uploadpack.allowFilter", "true")
        config.append(f'[url "file://{server}"]\n\tinsteadOf = https://github.com/owner/code{i}\n')
        _component(catalog / "components.d" / f"c{i}.yml", f"owner/code{i}", [("skills/s", f"skill-{i}")])
        make_skill(catalog / "skills" / f"skill-{i}")
    (home / ".gitconfig").write_text("".join(config))
    monkeypatch.setenv("HOME", str(home))
    main(["check", "--catalog", str(catalog), "--format", "json"])
    out, err = capsys.readouterr()
    assert err == ""
    skills = json.loads(out)["skills"]
    assert [s["name"] for s in skills] == [f"skill-{i}" for i in range(5)]
    assert [s["source"]["repo"] for s in skills] == [f"https://github.com/owner/code{i}" for i in range(5)]
    # The quote is at lines 3-6 of CODE: exact in code0, then i lines lower in code{i}.
    assert [(s["anchors"][0]["status"], s["anchors"][0]["found"]) for s in skills] == [
        ("exact", [3, 6]), *[("moved", [3 + i, 6 + i]) for i in range(1, 5)]]  # fmt: skip


def test_a_copy_compared_by_its_tree_says_what_a_file_by_file_comparison_says(make_repo, tmp_path: Path) -> None:
    """A copy in sync is known by its tree's sha; every other copy (a lost executable bit, an edit, a file more or
    fewer, a link) goes file by file, with the answers that comparison always gave."""
    repo = make_repo()
    repo.write("skills/kit/SKILL.md", "# kit\n")
    repo.write("skills/kit/tools/run.sh", "echo run\n")
    (repo.path / "skills/kit/tools/run.sh").chmod(0o755)
    repo.commit("a kit", tag="v9")
    tree = open_git(str(repo.path), "v9")

    def facts(change=lambda copy: None) -> tuple[str, ...]:
        copy = tmp_path / f"copy{len(list(tmp_path.iterdir()))}"
        shutil.copytree(repo.path / "skills/kit", copy)
        change(copy)
        found = sync_facts(copy, open_git(str(repo.path), "v9"), "skills/kit")
        assert not found.absent
        return found.files

    assert facts() == ()
    assert facts(lambda c: (c / "tools/run.sh").chmod(0o644)) == ()  # modes are not compared: the bytes are
    assert facts(lambda c: (c / "SKILL.md").write_text("# kit, edited\n")) == ("SKILL.md (differs)",)
    assert facts(lambda c: (c / "notes.md").write_text("n\n")) == ("notes.md (only in the catalog)",)
    assert facts(lambda c: (c / "tools/run.sh").unlink()) == ("tools/run.sh (only in the repository)",)
    assert facts(lambda c: (c / "link.md").symlink_to("SKILL.md")) == ()  # a link in the copy is not a file of it
    assert sync_facts(tmp_path, tree, "skills/none").absent


def test_a_skill_whose_repository_cannot_be_reached_still_has_its_own_links_checked(tmp_path: Path, capsys) -> None:
    """Links inside the skill's folder need no code: checked on disk, and the skip says only they were."""
    catalog = tmp_path / "catalog"
    (catalog / "components.d").mkdir(parents=True)
    _component(catalog / "components.d" / "c.yml", "nobody/gone", [("skills/gone", "gone-skill")])
    body = ("See [the guide](references/guide.md), [a missing page](references/nope.md), [a sibling](../other/SKILL.md),"
            " [the root's guide](../../docs/guide.md) and [above the catalog](../../../x.md).\n")
    skill = make_skill(catalog / "skills" / "gone-skill", body)
    (skill / "references").mkdir()
    (skill / "references" / "guide.md").write_text("# Guide\n\n[back](../SKILL.md#nowhere)\n")
    make_skill(catalog / "skills" / "other", "# other\n")
    code = main(["check", "--catalog", str(catalog), "--format", "json", "--mirror", f"nobody/gone={tmp_path / 'nothing'}"])
    (report,) = json.loads(capsys.readouterr().out)["skills"]
    assert code == 1
    assert report["skipped"].endswith("; only the checks that need no code ran: its links, in the catalog")
    assert [(p["path"], p["status"]) for p in report["promises"]] == [
        ("references/guide.md", "exists"), ("references/nope.md", "missing"), ("../other/SKILL.md", "exists"),
        ("../../docs/guide.md", "missing"), ("../../../x.md", "missing"), ("SKILL.md#nowhere", "missing"),
    ]  # a link out of the folder is broken in this copy wherever the repository has its target
    assert "whether its repository has it is not known" in report["promises"][3]["detail"]
    assert sorted(f["code"] for f in report["findings"]) == ["AA302", *["AA407"] * 4]


def test_a_page_a_skipped_skill_links_many_times_is_judged_anchor_by_anchor(tmp_path: Path, capsys) -> None:
    """A page linked again and again (its anchors) is looked for and read once; each link still gets its own
    answer: an anchor the page has, one it has not, the page itself, and a page that is not there."""
    catalog = tmp_path / "catalog"
    (catalog / "components.d").mkdir(parents=True)
    _component(catalog / "components.d" / "c.yml", "nobody/gone", [("skills/gone", "gone-skill")])
    body = ("[b](references/guide.md), [a](references/guide.md#guide), [c](references/guide.md#steps), "
            "[d](references/guide.md#gone), [e](references/nope.md#x), [f](references/nope.md), "
            "[g](references/guide.md#steps).\n")
    skill = make_skill(catalog / "skills" / "gone-skill", body)
    (skill / "references").mkdir()
    (skill / "references" / "guide.md").write_text("# Guide\n\n## Steps\n\n[back](../SKILL.md)\n")
    main(["check", "--catalog", str(catalog), "--format", "json", "--mirror", f"nobody/gone={tmp_path / 'nothing'}"])
    (report,) = json.loads(capsys.readouterr().out)["skills"]
    assert [(p["path"], p["status"]) for p in report["promises"] if p["kind"] == "link"] == [
        ("references/guide.md", "exists"), ("references/guide.md#guide", "exists"),
        ("references/guide.md#steps", "exists"), ("references/guide.md#gone", "missing"),
        ("references/nope.md", "missing"), ("references/nope.md", "missing"),
        ("references/guide.md#steps", "exists"), ("SKILL.md", "exists"),
    ]


def test_a_skill_whose_repository_cannot_be_reached_still_has_its_unreached_pages_said(tmp_path: Path, capsys) -> None:
    catalog = tmp_path / "catalog"
    (catalog / "components.d").mkdir(parents=True)
    _component(catalog / "components.d" / "c.yml", "nobody/gone", [("skills/gone", "gone-skill")])
    skill = make_skill(catalog / "skills" / "gone-skill", "See `references/used.md` and @skills/gone/rooted.md.\n")
    (skill / "references").mkdir()
    for page in ("references/used.md", "references/left.md", "rooted.md", "skill-card.md"):
        (skill / page).write_text("# A page\n")
    code = main(["check", "--catalog", str(catalog), "--format", "json", "--mirror", f"nobody/gone={tmp_path / 'nothing'}"])
    (report,) = json.loads(capsys.readouterr().out)["skills"]
    assert code == 1  # the skip itself (AA302); an unreached page is a note
    assert report["skipped"].endswith(
        "; only the checks that need no code ran: its paths in its folder and its pages no link reaches"
    )
    assert [(p["path"], p["status"], p["file"]) for p in report["promises"] if p["kind"] == "page"] == [
        ("references/left.md", "unreached", "skills/gone-skill/references/left.md")]  # fmt: skip


def test_a_skill_whose_repository_cannot_be_reached_still_has_the_paths_its_folder_holds_said_there(
    tmp_path: Path, capsys
) -> None:
    """A path the skill's folder holds needs no code: there, written from the skill's root, from the page it is
    written in, or from the root the folder lies in. One the folder does not hold may be the repository's:
    nothing is said of it."""
    catalog = tmp_path / "catalog"
    (catalog / "components.d").mkdir(parents=True)
    _component(catalog / "components.d" / "c.yml", "nobody/gone", [("skills/gone", "gone-skill")])
    body = "Run `scripts/run.sh`, read `skills/gone-skill/notes.md`, edit `src/pkg/core.py`.\n"
    skill = make_skill(catalog / "skills" / "gone-skill", body)
    (skill / "scripts").mkdir()
    (skill / "scripts" / "run.sh").write_text("echo\n")
    (skill / "notes.md").write_text("# Notes\n")
    (skill / "scripts" / "README.md").write_text("# Scripts\n\nStart with `run.sh`, then `scripts/absent.sh`.\n")
    code = main(["check", "--catalog", str(catalog), "--format", "json", "--mirror", f"nobody/gone={tmp_path / 'nothing'}"])
    (report,) = json.loads(capsys.readouterr().out)["skills"]
    assert code == 1  # the skip itself
    assert report["skipped"].endswith("; only the checks that need no code ran: its paths in its folder")
    assert [(p["kind"], p["path"], p["status"], p["file"], p["detail"]) for p in report["promises"]] == [
        ("path", "scripts/run.sh", "exists", "skills/gone-skill/SKILL.md", "in the skill's own folder"),
        ("path", "skills/gone-skill/notes.md", "exists", "skills/gone-skill/SKILL.md", "in the skill's own folder"),
    ]


def test_a_folder_no_component_names_still_has_its_links_checked_in_the_catalog(tmp_path: Path, capsys,
                                                                               monkeypatch) -> None:
    """A folder the catalog keeps on purpose (an exception file names it) is published all the same: the checks
    that need no code run on it, as on a skipped skill's, and a broken link of it fails the run."""
    catalog = tmp_path / "catalog"
    (catalog / "components.d").mkdir(parents=True)
    _component(catalog / "components.d" / "c.yml", "nobody/gone", [("skills/gone", "gone-skill")])
    make_skill(catalog / "skills" / "gone-skill", "See [this page](SKILL.md).\n")
    kept = make_skill(catalog / "skills" / "kept", "See [the guide](guide.md), [gone](nope.md), [up](../../ci/x.md).\n")
    (kept / "guide.md").write_text("# Guide\n")
    (catalog / "catalog-exceptions.yml").write_text("exceptions:\n  - dir: kept\n    reason: ours\n")
    code = main(["check", "--catalog", str(catalog), "--format", "json", "--mirror", f"nobody/gone={tmp_path / 'x'}"])
    report = json.loads(capsys.readouterr().out)
    assert code == 1
    (folder,) = report["unlisted"]
    assert [(p["path"], p["status"], p["file"]) for p in folder["promises"]] == [
        ("guide.md", "exists", "skills/kept/SKILL.md"), ("nope.md", "missing", "skills/kept/SKILL.md"),
        ("../../ci/x.md", "missing", "skills/kept/SKILL.md")]  # fmt: skip
    assert report["summary"]["findings"]["AA407"] == 2 and report["summary"]["promises"]["link"]["missing"] == 2
    assert report["summary"]["findings"]["AA304"] == 1
    main(["check", "--catalog", str(catalog), "--mirror", f"nobody/gone={tmp_path / 'x'}"])
    shown = capsys.readouterr().out.splitlines()  # a catalog this small: each skill, and each such folder, shown
    kept = shown.index("kept  skills/kept")
    assert shown[kept + 1] == "skipped: no components.d entry names it; listed in catalog-exceptions.yml: ours; " \
                              "only the checks that need no code ran"  # fmt: skip
    assert shown[kept + 3] == ("  link ../../ci/x.md (skills/kept/SKILL.md:6): missing: not in the catalog: the link "
                               "leaves the skill's folder")  # fmt: skip
    _component(catalog / "components.d" / "c.yml", "nobody/gone", [(f"skills/g{i}", f"g{i}") for i in range(6)])
    for i in range(6):
        make_skill(catalog / "skills" / f"g{i}", "See [this page](SKILL.md).\n")
    monkeypatch.setenv("COLUMNS", "300")
    main(["check", "--catalog", str(catalog), "--mirror", f"nobody/gone={tmp_path / 'x'}"])  # the catalog's view
    assert "): gone-skill, kept; the checks that need no code ran on them: 2 links broken" in capsys.readouterr().out
