"""Healing at the source: a validated_on day the history contradicts, who can heal a skill upstream,
fix --catalog's patches for the upstream repositories, a folder rename written into the paths, and advisory
thresholds per class of finding."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from anchor_audit.cli import main

from .hostile.conftest import make_code_repo, make_skill


@pytest.fixture
def removed_in_february(tmp_path: Path):
    """pkg/gone.py, added on 2026-01-01, removed on 2026-02-10; pkg/plan.py stays."""
    repo = make_code_repo(tmp_path / "code", {"pkg/gone.py": "x = 1\n"})
    (repo.path / "pkg" / "gone.py").unlink()
    sha = repo.commit("drop gone.py", date="2026-02-10T12:00:00")
    return repo, sha


def _card(day: str) -> str:
    return f'validated_on: "{day}"\nvalidation_status:\n  files:\n    - file_exists\nevidence:\n  - pkg/plan.py\n  - pkg/gone.py\n'


def test_a_card_validated_after_its_evidence_was_removed_is_one_finding_naming_the_commit(removed_in_february,
                                                                                         tmp_path, capsys) -> None:  # fmt: skip
    repo, sha = removed_in_february
    skill = make_skill(tmp_path / "late", card=_card("2026-03-01"))
    assert main(["check", str(skill), "--repo", str(repo.path), "--ref", "HEAD", "--format", "json"]) == 1
    data = json.loads(capsys.readouterr().out)["skills"][0]
    said = f"validated_on 2026-03-01, but pkg/gone.py was removed in {sha[:9]} on 2026-02-10"
    (finding,) = [f for f in data["findings"] if f["code"] == "AA206"]
    assert finding["message"] == said and finding["file"].endswith("card.yaml")
    assert data["contradicted"] == [{"path": "pkg/gone.py", "commit": sha, "date": "2026-02-10",
                                     "validated_on": "2026-03-01", "changed": False}]  # fmt: skip
    assert main(["check", str(skill), "--repo", str(repo.path), "--ref", "HEAD"]) == 1
    assert f"card.yaml: {said}\n" in capsys.readouterr().out


@pytest.mark.parametrize("day", ["2026-02-09", "not a date"])
def test_a_card_validated_before_the_removal_is_not_contradicted(day, removed_in_february, tmp_path, capsys) -> None:
    repo, _ = removed_in_february
    skill = make_skill(tmp_path / "early", card=_card(day))
    main(["check", str(skill), "--repo", str(repo.path), "--ref", "HEAD", "--format", "json"])
    data = json.loads(capsys.readouterr().out)["skills"][0]
    assert "contradicted" not in data and not [f for f in data["findings"] if f["code"] == "AA206"]
    assert [f["code"] for f in data["findings"] if f["code"] == "AA401"] == ["AA401"]  # still missing, said once


def test_several_paths_one_commit_removed_are_said_together(tmp_path, capsys) -> None:
    repo = make_code_repo(tmp_path / "code", {"pkg/a.py": "a = 1\n", "pkg/b.py": "b = 1\n"})
    for name in ("a", "b"):
        (repo.path / "pkg" / f"{name}.py").unlink()
    sha = repo.commit("drop a and b", date="2026-02-10T12:00:00")
    card = 'validated_on: "2026-02-10"\nvalidation_status:\n  files: [file_exists]\nevidence:\n  - pkg/a.py\n  - pkg/b.py\n'
    skill = make_skill(tmp_path / "s", card=card)
    assert main(["check", str(skill), "--repo", str(repo.path), "--ref", "HEAD", "--format", "markdown"]) == 1
    out = capsys.readouterr().out
    assert (f"> **card.yaml**: validated\\_on 2026-02-10, but 2 paths it relies on were removed in `{sha[:9]}` on "
            "2026-02-10: pkg/a.py, pkg/b.py") in out  # on the same day counts: validated against code already gone


# ------------------------------------------------------------------ who to ask

from anchor_audit.checks.owners import owning_rule, parse_codeowners  # noqa: E402

OWNED = [  # (pattern, path, owned): GitHub's documented CODEOWNERS cases
    ("*", "skills/a/SKILL.md", True),
    ("*.md", "skills/a/SKILL.md", True),
    ("*.py", "skills/a/SKILL.md", False),
    ("/skills/", "skills/a/SKILL.md", True),
    ("skills/", "lib/skills/a/SKILL.md", True),  # no slash but the last: at any depth
    ("skills/a", "skills/a/SKILL.md", True),  # a slash inside: from the root, and what lies under it
    ("skills/a", "lib/skills/a/SKILL.md", False),
    ("skills/*", "skills/SKILL.md", True),
    ("skills/*", "skills/a/SKILL.md", False),  # `docs/*` owns docs/ itself, not deeper
    ("**/a", "x/y/a/SKILL.md", True),
    ("skills/**/SKILL.md", "skills/a/b/SKILL.md", True),
    ("/skills/b/", "skills/a/SKILL.md", False),
]


@pytest.mark.parametrize(("pattern", "path", "owned"), OWNED)
def test_a_codeowners_pattern_owns_the_paths_github_says(pattern: str, path: str, owned: bool) -> None:
    rule = owning_rule(parse_codeowners(f"{pattern} @team\n"), path)
    assert (rule is not None) is owned


def test_the_last_matching_codeowners_line_wins_and_emails_are_left_out() -> None:
    rules = parse_codeowners("# owners\n* @everyone\nskills/ @skills-team dev@example.com  # the skills\n"
                             "skills/private/ \n")  # fmt: skip
    rule = owning_rule(rules, "skills/a/SKILL.md")
    assert rule is not None and (rule.owners, rule.line) == (("@skills-team",), 3)
    unowned = owning_rule(rules, "skills/private/SKILL.md")
    assert unowned is not None and unowned.owners == ()  # a line without owners: nobody, not @skills-team


def _in_repo_skill_with_drift(tmp_path: Path, codeowners: str | None):
    from .conftest import git

    repo = make_code_repo(tmp_path / "code", {"skills/plan/SKILL.md": "---\nname: plan\ndescription: d\n---\n\n"
                                                                       "See `pkg/gone.py`.\n"})  # fmt: skip
    if codeowners is not None:
        repo.write(".github/CODEOWNERS", codeowners)
    for name, email in (("Ada Lovelace", "ada@example.com"), ("Grace Hopper", "grace@example.com")):
        repo.write("skills/plan/SKILL.md", (repo.path / "skills/plan/SKILL.md").read_text() + f"{name}.\n")
        git(repo.path, "add", "-A")
        git(repo.path, "commit", "-qm", f"by {name}", f"--author={name} <{email}>")
    return repo


@pytest.mark.parametrize("fmt", ["json", "markdown", "terminal"])
def test_a_drifting_skill_names_its_codeowners(fmt: str, tmp_path: Path, capsys) -> None:
    repo = _in_repo_skill_with_drift(tmp_path, "* @everyone\nskills/ @org/skill-authors\n")
    args = ["check", "skills/plan", "--in-repo", "--repo", str(repo.path), "--ref", "HEAD", "--format", fmt]
    assert main(args) == 1
    out = capsys.readouterr().out
    if fmt == "json":
        assert json.loads(out)["skills"][0]["owners"] == {"names": ["@org/skill-authors"],
                                                          "from": ".github/CODEOWNERS:2"}  # fmt: skip
    elif fmt == "markdown":  # a mention in a report is code: the report never pings a team by itself
        assert "> **who can heal it**: `@org/skill-authors` (.github/CODEOWNERS:2)\n" in out
    else:
        assert "who can heal it: @org/skill-authors (.github/CODEOWNERS:2)\n" in out


def test_without_a_rule_the_folders_recent_committers_are_named_never_mailed(tmp_path: Path, capsys) -> None:
    repo = _in_repo_skill_with_drift(tmp_path, None)
    for fmt in ("json", "jsonl", "markdown", "terminal", "sarif", "github", "junit"):
        main(["check", "skills/plan", "--in-repo", "--repo", str(repo.path), "--ref", "HEAD", "--format", fmt])
        out = capsys.readouterr().out
        assert "example.com" not in out, fmt
        if fmt != "json":  # JSON says it once per skill, as data (below)
            assert "Grace Hopper, Ada Lovelace, Test Author (recent commits to skills/plan)" in out, fmt
        if fmt == "json":
            owners = json.loads(out)["skills"][0]["owners"]
            assert owners == {"names": ["Grace Hopper", "Ada Lovelace", "Test Author"], "from": "recent commits to skills/plan"}


# ------------------------------------------------------------------ fix --catalog: patches for upstream


def test_fix_catalog_makes_one_patch_per_upstream_repository_that_git_apply_takes_there(tmp_path: Path, capsys,
                                                                                        monkeypatch) -> None:  # fmt: skip
    from .catalog_fixture import build_catalog
    from .conftest import git

    catalog, mirrors = build_catalog(tmp_path)
    before = {p: p.read_bytes() for p in catalog.rglob("*") if p.is_file()}
    monkeypatch.chdir(tmp_path)
    out_dir = tmp_path / "patches"
    assert main(["fix", "--catalog", str(catalog), *mirrors, "--output-dir", str(out_dir)]) == 1
    out = capsys.readouterr().out
    assert {p: p.read_bytes() for p in catalog.rglob("*") if p.is_file()} == before  # nothing written in the catalog
    assert sorted(p.name for p in out_dir.iterdir()) == ["acme--alpha.patch", "summary.md"]  # beta: nothing heals
    assert "# https://github.com/acme/alpha @ main (" in out and ": acme--alpha.patch" in out
    assert "#   heals skills/a-moved/SKILL.md:10: pkg/plan.py:3-4 moved: range -> 4:5" in out
    # a copy behind its upstream is said to be so; its patch would be made against upstream's text
    assert "#   note: a-behind: the catalog's copy is out of sync (1 file differs; the copy is upstream's of" in out
    assert "fix --catalog: 1 upstream file to change in 1 repository, patches in" in out
    # The patch applies to the upstream repository at the component's ref, and heals what it says there.
    alpha = tmp_path / "alpha"
    in_alpha = ["check", "skills/a-moved", "--in-repo", "--repo", str(alpha), "--ref", "HEAD"]
    assert main(in_alpha) == 1  # the moved quote, upstream
    git(alpha, "apply", "--check", str(out_dir / "acme--alpha.patch"))
    git(alpha, "apply", str(out_dir / "acme--alpha.patch"))
    git(alpha, "commit", "-qam", "heal a-moved")
    assert main(in_alpha) == 0, capsys.readouterr().out
    summary = (out_dir / "summary.md").read_text()
    assert "\n## `https://github.com/acme/alpha` @ `main` (`" in summary and "`acme--alpha.patch`: 1 file;" in summary
    assert "- skills/a-moved/SKILL.md:10: pkg/plan.py:3-4 moved: range -\\> 4:5\n" in summary  # Markdown-escaped


def test_fix_catalog_never_writes_inside_the_catalog(tmp_path: Path, capsys) -> None:
    from .catalog_fixture import build_catalog

    catalog, mirrors = build_catalog(tmp_path)
    assert main(["fix", "--catalog", str(catalog), *mirrors, "--write"]) == 2
    assert "fix --catalog never writes inside the catalog" in capsys.readouterr().err


# ------------------------------------------------------------------ a folder rename applied inside the paths


def _renamed_skill_repo(tmp_path: Path):
    """skills/plan renamed to skills/acme-plan in a later commit, its paths rewritten too: the code kept plan."""
    from .conftest import git

    body = "---\nname: plan\ndescription: d\n---\n\nHelpers: `pkg/plan_helpers.py`.\n"
    card = "validation_status:\n  helpers: [file_exists]\nevidence:\n  - pkg/plan_helpers.py\n"
    repo = make_code_repo(tmp_path / "code", {"pkg/plan_helpers.py": "x = 1\n", "skills/plan/SKILL.md": body,
                                              "skills/plan/card.yaml": card})  # fmt: skip
    git(repo.path, "mv", "skills/plan", "skills/acme-plan")
    for name in ("SKILL.md", "card.yaml"):
        path = repo.path / "skills" / "acme-plan" / name
        path.write_text(path.read_text().replace("plan_helpers", "acme-plan_helpers"))
    sha = repo.commit("rename the skill with the acme prefix", date="2026-03-03T00:00:00")
    return repo, sha


def test_a_folder_rename_written_into_the_paths_is_one_finding_naming_the_commit(tmp_path: Path, capsys) -> None:
    repo, sha = _renamed_skill_repo(tmp_path)
    args = ["check", "skills/acme-plan", "--in-repo", "--repo", str(repo.path), "--ref", "HEAD", "--format", "json"]
    assert main(args) == 1
    skill = json.loads(capsys.readouterr().out)["skills"][0]
    codes = [f["code"] for f in skill["findings"]]
    assert codes.count("AA410") == 1 and "AA401" not in codes and "AA406" not in codes  # one fact, not one per path
    (finding,) = [f for f in skill["findings"] if f["code"] == "AA410"]
    assert finding["message"] == (
        f"the rename of the skill's folder plan -> acme-plan in {sha[:9]} on 2026-03-03 also rewrote 1 path in "
        "card.yaml and SKILL.md, where the code kept plan: pkg/acme-plan_helpers.py -> pkg/plan_helpers.py"
    )
    assert skill["folder_rename"]["paths"] == [{"cited": "pkg/acme-plan_helpers.py", "there": "pkg/plan_helpers.py"}]


def test_fix_heals_the_paths_a_folder_rename_rewrote(tmp_path: Path, capsys) -> None:
    import shutil

    repo, _ = _renamed_skill_repo(tmp_path)
    copy = tmp_path / "acme-plan"
    shutil.copytree(repo.path / "skills" / "acme-plan", copy)
    args = [str(copy), "--repo", str(repo.path), "--ref", "HEAD"]
    assert main(["fix", *args, "--write"]) == 0, capsys.readouterr().out
    assert "`pkg/plan_helpers.py`" in (copy / "SKILL.md").read_text()
    assert "  - pkg/plan_helpers.py\n" in (copy / "card.yaml").read_text()
    capsys.readouterr()
    assert main(["check", *args]) == 0


# ------------------------------------------------------------------ advisory mode: a threshold per class of finding


def test_fail_on_codes_sets_a_threshold_per_class_of_finding(removed_in_february, tmp_path, capsys,
                                                             monkeypatch) -> None:  # fmt: skip
    repo, _ = removed_in_february
    skill = make_skill(tmp_path / "late", card=_card("2026-03-01"))  # AA201, AA203, AA206, AA401: all errors
    monkeypatch.chdir(tmp_path)
    args = ["check", str(skill), "--repo", str(repo.path), "--ref", "HEAD"]
    (tmp_path / "anchor-audit.toml").write_text('fail-on-codes = {AA2 = "never", AA4 = "never"}\n')
    assert main(args) == 0  # staleness as a signal: reported, not failing
    out = capsys.readouterr().out
    assert out.rstrip().endswith("exit 0 (no drift that fail-on-codes fails on)")
    (tmp_path / "anchor-audit.toml").write_text('fail-on-codes = {AA2 = "never", AA206 = "error", AA4 = "never"}\n')
    assert main(args) == 1  # the longer prefix wins: a contradicted date still fails
    capsys.readouterr()
    (tmp_path / "anchor-audit.toml").write_text('fail-on-codes = {AA2 = "sometimes"}\n')
    assert main(args) == 2
    assert "anchor-audit.toml:1: fail-on-codes: expected a table of finding codes" in capsys.readouterr().err


def test_fix_catalog_format_issue_gives_each_upstream_repository_a_tracking_issue_body(tmp_path: Path, capsys) -> None:
    from .catalog_fixture import build_catalog

    catalog, mirrors = build_catalog(tmp_path)
    out_dir = tmp_path / "out"
    assert main(["fix", "--catalog", str(catalog), *mirrors, "--format", "issue", "--output-dir", str(out_dir)]) == 1
    assert sorted(p.name for p in out_dir.iterdir()) == ["acme--alpha.issue.md", "acme--alpha.patch", "acme--beta.issue.md",
                                                         "summary.md"]  # fmt: skip
    body = (out_dir / "acme--alpha.issue.md").read_text()
    lines = body.splitlines()
    assert lines[0] == "<!-- anchor-audit issue: https://github.com/acme/alpha -->"  # what a workflow searches for
    assert lines[2].startswith("## anchor-audit: 3 skills of acme/alpha drift from the code at `main` (`")
    assert "| `a-moved` (`skills/a-moved`) | 1 quote moved | Test Author (recent commits to skills/a-moved) |" in lines
    patch = (out_dir / "acme--alpha.patch").read_text()
    assert f"````diff\n{patch}````\n" in body  # a fence longer than the skill's own: its text cannot close it
    assert "### Left for a person\n\n- skills/a-changed/SKILL.md:10: pkg/plan.py:3-4 is changed; not rewritten" in body
    assert main(["fix", "--format", "issue"]) == 2  # the format is fix --catalog's
    assert "--format issue go with fix --catalog" in capsys.readouterr().err


def test_a_catalogs_skills_name_their_upstream_owners_codeowners_or_committers(tmp_path: Path, capsys) -> None:
    from .catalog_fixture import build_catalog
    from .conftest import GitRepo

    catalog, mirrors = build_catalog(tmp_path)
    beta = GitRepo(tmp_path / "beta")
    beta.write(".github/CODEOWNERS", "* @acme/beta-maintainers\n/skills/ @acme/beta-skills\n")
    beta.commit("owners", date="2026-01-02T00:00:00")
    assert main(["check", "--catalog", str(catalog), *mirrors, "--format", "json"]) == 1
    owners = {s["name"]: s.get("owners") for s in json.loads(capsys.readouterr().out)["skills"]}
    assert owners["b-cli"] == {"names": ["@acme/beta-skills"], "from": ".github/CODEOWNERS:2"}  # the last match
    assert owners["a-moved"] == {"names": ["Test Author"], "from": "recent commits to skills/a-moved"}
    assert owners["a-clean"] is None and owners["b-clean"] is None  # no drift, nobody to ask


@pytest.mark.parametrize("fmt", ["terminal", "markdown"])
def test_group_by_owner_gives_one_section_per_owner(fmt: str, tmp_path: Path, capsys) -> None:
    from .catalog_fixture import build_catalog
    from .conftest import GitRepo

    catalog, mirrors = build_catalog(tmp_path)
    beta = GitRepo(tmp_path / "beta")
    beta.write(".github/CODEOWNERS", "/skills/ @acme/beta-skills @acme/tooling\n")
    beta.commit("owners", date="2026-01-02T00:00:00")
    assert main(["check", "--catalog", str(catalog), *mirrors, "--group-by", "owner", "--format", fmt]) == 1
    out = capsys.readouterr().out
    if fmt == "terminal":
        heads = [line for line in out.splitlines() if line.endswith("with drift")]
        assert heads == ["Test Author: 3 skills with drift", "@acme/beta-skills: 1 skill with drift",
                         "@acme/tooling: 1 skill with drift", "no owner known: 6 skills with drift"]  # fmt: skip
        assert "  b-cli: 1 version differs · 1 command fails to parse (.github/CODEOWNERS:1)" in out
    else:
        assert "\n## `@acme/beta-skills`: 1 skill with drift\n" in out and "\n## no owner known: 6 skills" in out
    assert main(["check", "--catalog", str(catalog), *mirrors, "--group-by", "owner", "--format", "json"]) == 2
    assert "--group-by shapes the terminal and Markdown reports" in capsys.readouterr().err


def test_the_issue_says_since_which_commit_a_quote_has_its_status(tmp_path: Path, capsys) -> None:
    from .catalog_fixture import build_catalog
    from .conftest import GitRepo

    catalog, mirrors = build_catalog(tmp_path)
    alpha = GitRepo(tmp_path / "alpha")
    alpha.write("skills/a-moved/card.yaml", 'validated_on: "2026-01-15"\n')  # the walk starts at that day
    alpha.commit("a-moved: its card", date="2026-04-02T00:00:00")
    out_dir = tmp_path / "out"
    main(["fix", "--catalog", str(catalog), *mirrors, "--format", "issue", "--output-dir", str(out_dir)])
    capsys.readouterr()
    body = (out_dir / "acme--alpha.issue.md").read_text()
    since = body[body.index("Since (where the history says):"):body.index("### The patch")]
    assert "- `a-moved`: pkg/plan.py:3-4: moved since `" in since
    assert "(2026-04-01): plan: import os; a-behind: version three\n" in since  # the commit that moved the code


@pytest.mark.parametrize(("day", "contradicted"), [("2026-03-01", True), ("2026-01-15", False)])
def test_a_quote_that_had_changed_by_the_validation_day_contradicts_it(day, contradicted, tmp_path, capsys) -> None:
    from .conftest import git

    repo = make_code_repo(tmp_path / "code")  # the quote holds at the first commit (2026-01-01)
    repo.edit("pkg/plan.py", "cfg.overlap = True", "cfg.overlap = cfg.tp > 2")
    sha = repo.commit("gate the overlap", date="2026-02-10T12:00:00")
    skill = make_skill(tmp_path / "s", card=f'validated_on: "{day}"\nvalidation_status:\n  gate: [doc_only]\n')
    assert main(["check", str(skill), "--repo", str(repo.path), "--ref", "HEAD", "--format", "json"]) == 1
    found = json.loads(capsys.readouterr().out)["skills"][0].get("contradicted", [])
    if contradicted:
        assert found == [{"path": "pkg/plan.py:3-6", "commit": sha, "date": "2026-02-10", "validated_on": day,
                          "changed": True}]  # fmt: skip
    else:
        assert found == []  # it held on that day: the change came after the validation
    assert git(repo.path, "rev-parse", "HEAD") == sha


def test_two_repositories_never_share_a_patch_file() -> None:
    from anchor_audit.runs.catalogfix import RepoPatch, unique_names

    patches = unique_names([RepoPatch("https://github.com/acme/b-c", "main", None),
                            RepoPatch("https://github.com/acme-b/c", "main", None),
                            RepoPatch("https://github.com/acme/x", "main", None),
                            RepoPatch("https://github.com/acme/x", "v2", None)])  # fmt: skip
    names = [p.file_name for p in patches]
    assert names == ["acme--b-c.patch", "acme-b--c.patch", "acme--x@main.patch", "acme--x@v2.patch"]
    # Names that are still one (one repository spelt twice, at one ref): the second is numbered.
    clash = unique_names([RepoPatch("https://github.com/acme/Tool", "main", None),
                          RepoPatch("https://github.com/acme/tool", "main", None)])  # fmt: skip
    assert [p.file_name for p in clash] == ["acme--tool@main.patch", "acme--tool@main-2.patch"]


def test_a_link_already_in_the_output_folder_is_replaced_never_written_through(tmp_path: Path, capsys) -> None:
    """The patch's name is anchor-audit's choice: a link of that name left in --output-dir (by a cloned repository,
    by anyone) is replaced by the patch; the file it pointed at is left as it was."""
    from .catalog_fixture import build_catalog

    catalog, mirrors = build_catalog(tmp_path)
    out_dir = tmp_path / "patches"
    out_dir.mkdir()
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me\n")
    (out_dir / "acme--alpha.patch").symlink_to(victim)
    (out_dir / "summary.md").symlink_to(victim)
    assert main(["fix", "--catalog", str(catalog), *mirrors, "--output-dir", str(out_dir)]) == 1
    capsys.readouterr()
    assert victim.read_text() == "keep me\n"
    assert not (out_dir / "acme--alpha.patch").is_symlink() and "pkg/plan.py" in (out_dir / "acme--alpha.patch").read_text()
    assert not (out_dir / "summary.md").is_symlink()


def test_a_repository_with_no_patch_counts_its_out_of_sync_copies_in_one_line(tmp_path: Path, capsys) -> None:
    """Notes on what a patch is made against say nothing where there is no patch: one line counts them, after the
    repositories that have something to heal."""
    from .catalog_fixture import build_catalog

    catalog, mirrors = build_catalog(tmp_path)
    for name in ("b-clean", "b-cli"):
        skill_md = catalog / "skills" / name / "SKILL.md"
        skill_md.write_text(skill_md.read_text() + "\nA line only the catalog's copy has.\n")
    main(["fix", "--catalog", str(catalog), *mirrors])
    out = capsys.readouterr().out
    beta = out[out.index("# https://github.com/acme/beta"):].split("\n# https")[0]
    assert out.index("# https://github.com/acme/alpha") < out.index("# https://github.com/acme/beta")
    assert "#   2 copies out of sync with upstream; no patch here (summary.md and --format json list them)" in beta
    assert "the patch is made against the upstream text" not in beta


def test_a_bot_is_never_named_as_who_can_heal_a_skill(tmp_path: Path, capsys) -> None:
    """The folder's latest commits by automation (a formatter, a catalog sync) pass over to the people before them."""
    from .conftest import git

    repo = _in_repo_skill_with_drift(tmp_path, None)
    for name in ("pre-commit-ci[bot]", "Catalog Sync Bot"):
        repo.write("skills/plan/SKILL.md", (repo.path / "skills/plan/SKILL.md").read_text() + "x\n")
        git(repo.path, "add", "-A")
        git(repo.path, "commit", "-qm", "automated", f"--author={name} <bot@example.com>")
    main(["check", "skills/plan", "--in-repo", "--repo", str(repo.path), "--ref", "HEAD", "--format", "json"])
    owners = json.loads(capsys.readouterr().out)["skills"][0]["owners"]
    assert owners["names"] == ["Grace Hopper", "Ada Lovelace", "Test Author"]
