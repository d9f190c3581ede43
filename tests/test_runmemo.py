"""A remembered check: the same bytes and exit code as a run that computes everything, or no replay at all.

Each test changes one input a check depends on between two runs and compares
the second run with a ``--no-cache`` run of the same command line: a replay
that missed the change would print the first run's report.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from anchor_audit.cli import main
from anchor_audit.runs import remembered as runmemo

from .conftest import DEMO, GitRepo, git


@pytest.fixture
def work(make_repo, tmp_path: Path) -> tuple[GitRepo, Path, Path]:
    """The demo code (v1, then an edit on main), and a copy of the demo registry and skill to edit."""
    repo = make_repo()
    repo.edit("src/demo/overlap.py", "from dataclasses import dataclass\n", "import os\nfrom dataclasses import dataclass\n")
    repo.commit("an import on top")
    spec = tmp_path / "registry" / "anchors.yaml"
    shutil.copytree(DEMO / "skills", tmp_path / "registry" / "skills")
    shutil.copy(DEMO / "anchors.yaml", spec)
    return repo, spec, tmp_path / "registry" / "skills" / "demo-overlap"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def check(capsys, repo: GitRepo, spec: Path, skill: Path, *more: str) -> tuple[int, str, str]:
    return run(capsys, "check", "--spec", str(spec), "--repo", str(repo.path), str(skill), "--format", "json", *more)


def stored_runs(cache: Path) -> list[str]:
    with sqlite3.connect(cache / "results.sqlite3") as db:
        return [k for (k,) in db.execute("SELECT key FROM results WHERE key LIKE 'run/%'")]


def test_a_second_run_replays_the_first_byte_for_byte(work, capsys, cache_dir: Path) -> None:
    repo, spec, skill = work
    first = check(capsys, repo, spec, skill, "--ref", "main")
    assert len(stored_runs(cache_dir)) == 1
    assert check(capsys, repo, spec, skill, "--ref", "main") == first
    assert first[0] == 1 and json.loads(first[1])["summary"]["anchors"]["moved"] == 2


@pytest.mark.parametrize(
    "change",
    ["new commit", "skill text", "new file in the skill", "registry", "card"],
)
def test_each_input_a_check_read_is_witnessed(work, capsys, change: str) -> None:
    repo, spec, skill = work
    text = (skill / "SKILL.md").read_text()
    (skill / "SKILL.md").write_text(text + "\nMore in [the notes](references/more.md).\n")  # not there yet
    check(capsys, repo, spec, skill, "--ref", "main")  # remembered
    if change == "new commit":
        repo.edit("src/demo/overlap.py", "import os\n", "")
        repo.commit("the import goes")
    elif change == "skill text":
        text = (skill / "SKILL.md").read_text()
        (skill / "SKILL.md").write_text(text.replace("```32:38:src/demo/overlap.py", "```33:39:src/demo/overlap.py"))
    elif change == "new file in the skill":  # SKILL.md as it was: the link now finds its file
        (skill / "references").mkdir()
        (skill / "references" / "more.md").write_text("Notes.\n")
    elif change == "registry":
        spec.write_text(spec.read_text().replace("src/demo/overlap.py:32-38", "src/demo/overlap.py:33-39"))
    elif change == "card":
        card = skill / "card.yaml"
        card.write_text(card.read_text().replace("code_verified", "doc_only", 1))
    again = check(capsys, repo, spec, skill, "--ref", "main")
    fresh = check(capsys, repo, spec, skill, "--ref", "main", "--no-cache")
    assert again == fresh


def test_head_and_the_repository_config_are_witnessed(work, capsys, cache_dir: Path) -> None:
    """A card's validated_on day is read on the default branch, and a shallow or lean history answers less."""
    repo, spec, skill = work
    check(capsys, repo, spec, skill, "--ref", "v1")
    with sqlite3.connect(cache_dir / "results.sqlite3") as db:
        (value,) = db.execute("SELECT value FROM results WHERE key LIKE 'run/%'").fetchone()
    witnesses = json.loads(value.split(" ", 1)[1])["witnesses"]
    assert runmemo.holds(witnesses)
    git(repo.path, "checkout", "-q", "-b", "other", "v1")
    assert not runmemo.holds(witnesses)
    git(repo.path, "checkout", "-q", "main")
    assert runmemo.holds(witnesses)
    git(repo.path, "config", "extensions.partialclone", "origin")
    assert not runmemo.holds(witnesses)


def test_the_replay_of_a_changed_input_differs_from_the_first_run(work, capsys) -> None:
    """The witnesses are not only checked: a change of the code is seen in the report."""
    repo, spec, skill = work
    first = check(capsys, repo, spec, skill, "--ref", "main")
    repo.edit("src/demo/overlap.py", "import os\n", "")
    repo.commit("the import goes")
    second = check(capsys, repo, spec, skill, "--ref", "main")
    assert first[0] == 1 and second[0] == 0 and first[1] != second[1]


def test_an_output_file_is_written_again_and_stdout_stays_empty(work, capsys, tmp_path: Path) -> None:
    repo, spec, skill = work
    target = tmp_path / "out" / "report.sarif"
    target.parent.mkdir()
    first = check(capsys, repo, spec, skill, "--ref", "v1", "--format", "sarif", "--output", str(target))
    written = target.read_bytes()
    target.unlink()
    assert check(capsys, repo, spec, skill, "--ref", "v1", "--format", "sarif", "--output", str(target)) == first
    assert first[1] == "" and target.read_bytes() == written


def test_a_run_that_warned_is_not_remembered(work, capsys, tmp_path: Path, cache_dir: Path) -> None:
    repo, spec, skill = work
    baseline = tmp_path / "baseline.yaml"
    baseline.write_text("version: 1\naccepted:\n  - key: AA101:demo-overlap:nowhere\n    reason: a test\n")
    first = check(capsys, repo, spec, skill, "--ref", "v1", "--baseline", str(baseline))
    assert "no finding AA101:demo-overlap:nowhere any more" in first[2]
    assert stored_runs(cache_dir) == []
    assert check(capsys, repo, spec, skill, "--ref", "v1", "--baseline", str(baseline)) == first


def test_a_terminal_report_is_never_remembered(work, capsys, cache_dir: Path) -> None:
    repo, spec, skill = work
    run(capsys, "check", "--spec", str(spec), "--repo", str(repo.path), "--ref", "v1", str(skill))
    assert stored_runs(cache_dir) == []


def test_a_row_someone_else_wrote_is_not_replayed(work, capsys, cache_dir: Path) -> None:
    repo, spec, skill = work
    first = check(capsys, repo, spec, skill, "--ref", "v1")
    with sqlite3.connect(cache_dir / "results.sqlite3") as db:
        (key, value), = db.execute("SELECT key, value FROM results WHERE key LIKE 'run/%'")
        tag, body = value.split(" ", 1)
        forged = json.loads(body)
        forged["stdout"], forged["code"] = [None, forged["stdout"][1]], 0  # "nothing to say, all good"
        db.execute("UPDATE results SET value = ? WHERE key = ?", (f"{tag} {json.dumps(forged, sort_keys=True)}", key))
    assert check(capsys, repo, spec, skill, "--ref", "v1") == first


def test_a_kept_report_someone_changed_is_not_replayed(work, capsys, cache_dir: Path) -> None:
    """The report is kept in the cache's runs/ folder; the signed row holds its hash."""
    repo, spec, skill = work
    first = check(capsys, repo, spec, skill, "--ref", "v1")
    (kept,) = (cache_dir / "runs").glob("*.out")
    assert kept.read_text() == first[1]
    kept.write_text("\x1b]52;c;Zm9yZ2Vk\x07" + first[1])
    assert check(capsys, repo, spec, skill, "--ref", "v1") == first
    kept.unlink()
    assert check(capsys, repo, spec, skill, "--ref", "v1") == first


def test_a_replay_imports_neither_git_nor_the_parser_nor_rich(work, tmp_path: Path, cache_dir: Path) -> None:
    repo, spec, skill = work
    argv = ["check", "--spec", str(spec), "--repo", str(repo.path), "--ref", "v1", str(skill), "--format", "json"]
    probe = (
        "import sys, io, contextlib\nfrom anchor_audit.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()) as out:\n    code = main(sys.argv[1:])\n"
        "heavy = sorted({m.split('.')[0] for m in sys.modules} & {'git', 'libcst', 'rich', 'yaml', 'markdown_it'})\n"
        "print(code, len(out.getvalue()), heavy)\n"
    )
    env = {"ANCHOR_AUDIT_CACHE": str(cache_dir), "XDG_CONFIG_HOME": str(tmp_path / "config"), "PATH": "/usr/bin:/bin"}
    first = subprocess.run([sys.executable, "-c", probe, *argv], capture_output=True, text=True, env=env, check=True)
    second = subprocess.run([sys.executable, "-c", probe, *argv], capture_output=True, text=True, env=env, check=True)
    assert "'git'" in first.stdout and "'libcst'" not in second.stdout
    code, size, heavy = second.stdout.split(" ", 2)
    assert (code, size) == tuple(first.stdout.split(" ", 2)[:2]) and heavy.strip() == "[]"


def test_a_report_with_something_left_unchecked_is_not_settled() -> None:
    from anchor_audit.model import (
        AuditReport,
        LineRange,
        Quote,
        SkillReport,
        SourceInfo,
        SourceKind,
        Unchecked,
        UncheckedReason,
    )

    quote = Quote("src/a.py", LineRange(1, 2), ("x = 1",), 3)
    info = SourceInfo("repo", "v1", "0" * 40, SourceKind.GIT)

    def report(reason: UncheckedReason, detail: str = "") -> AuditReport:
        skill = SkillReport("s", "s", (Unchecked(quote, reason, detail),), ())
        return AuditReport(info, (skill,))

    assert runmemo.unsettled(report(UncheckedReason.INCOMPLETE)) == "s: a result is incomplete"
    assert runmemo.unsettled(report(UncheckedReason.ERROR)) == "s: a result is error"
    assert runmemo.unsettled(report(UncheckedReason.UNVERIFIABLE, "the wheel has no docs/")) is None
    not_opened = "submodule 3rdparty/x at 0123456789ab: cannot fetch (--submodule 3rdparty/x=URL_OR_DIR)"
    assert runmemo.unsettled(report(UncheckedReason.UNVERIFIABLE, not_opened)) == "s: a submodule could not be opened"


def test_a_mirrored_repository_is_witnessed_in_the_mirror(work, capsys, cache_dir: Path) -> None:
    """A URL is read from the cache's mirror: the ref is asked there, as the run asked it (its fetched name first)."""
    repo, spec, skill = work
    url = f"file://{repo.path}"
    argv = ("check", "--spec", str(spec), "--repo", url, "--ref", "v1", str(skill), "--format", "json")
    first = run(capsys, *argv)
    assert len(stored_runs(cache_dir)) == 1
    assert run(capsys, *argv) == first
    with sqlite3.connect(cache_dir / "results.sqlite3") as db:
        (value,) = db.execute("SELECT value FROM results WHERE key LIKE 'run/%'").fetchone()
    (mirror,) = json.loads(value.split(" ", 1)[1])["witnesses"]["git"]
    assert Path(mirror["git_dir"]).is_relative_to(cache_dir) and mirror["state"]["commit"] == git(repo.path, "rev-parse", "v1")


def small_catalog(tmp_path: Path) -> tuple[Path, list[str], GitRepo]:
    """One component with two skills, its repository given by --mirror; a catalog that is not a git checkout."""
    from .conftest import empty_repo

    repo = empty_repo(tmp_path / "upstream")
    repo.write("pkg/plan.py", "class Planner:\n    def plan(self, cfg):\n        if cfg.tp > 1:\n            cfg.on = True\n")
    catalog = tmp_path / "catalog"
    lines = ["name: acme", "repo: acme/upstream", "skills:"]
    for name in ("one", "two"):
        text = f"---\nname: {name}\ndescription: a skill\n---\n\nThe gate lives in `pkg/plan.py`.\n"
        for where in (repo.path / "skills" / name, catalog / "skills" / name):
            where.mkdir(parents=True)
            (where / "SKILL.md").write_text(text)
        lines.append(f"  - path: skills/{name}\n    catalog_dir: {name}")
    (catalog / "components.d").mkdir()
    (catalog / "components.d" / "acme.yml").write_text("\n".join(lines) + "\n")
    repo.commit("code and skills")
    return catalog, ["--mirror", f"acme/upstream={repo.path}"], repo


@pytest.mark.parametrize("change", ["none", "a copy", "upstream", "a new folder"])
def test_a_catalog_run_is_remembered_with_its_folder_and_each_component(
    tmp_path: Path, capsys, cache_dir: Path, change: str
) -> None:
    catalog, mirrors, repo = small_catalog(tmp_path)
    argv = ("check", "--catalog", str(catalog), *mirrors, "--format", "json")
    first = run(capsys, *argv)
    assert first[2] == "" and len(stored_runs(cache_dir)) == 1
    if change == "a copy":
        (catalog / "skills" / "two" / "SKILL.md").write_text("---\nname: two\ndescription: a skill\n---\n\nSee `pkg/gone.py`.\n")
    elif change == "upstream":
        repo.write("pkg/plan.py", "# moved\n" + repo.read("pkg/plan.py"))
        repo.write("skills/one/SKILL.md", repo.read("skills/one/SKILL.md") + "More.\n")
        repo.commit("upstream moves on")
    elif change == "a new folder":
        (catalog / "skills" / "three").mkdir()
        (catalog / "skills" / "three" / "SKILL.md").write_text("---\nname: three\ndescription: unlisted\n---\n")
    again = run(capsys, *argv)
    fresh = run(capsys, *argv, "--no-cache")
    assert again == fresh
    assert (again == first) is (change == "none")


def test_a_catalog_with_a_component_out_of_reach_is_not_remembered(tmp_path: Path, capsys, cache_dir: Path) -> None:
    """gamma's repository cannot be reached: the next run may reach it, so nothing is kept."""
    from .catalog_fixture import build_catalog

    catalog, mirrors = build_catalog(tmp_path)
    code, _, err = run(capsys, "check", "--catalog", str(catalog), *mirrors, "--format", "json")
    assert code == 1 and "gamma" in err
    assert stored_runs(cache_dir) == []


def test_a_catalog_checkouts_head_is_witnessed_and_its_git_folder_is_not_hashed(
    tmp_path: Path, capsys, cache_dir: Path
) -> None:
    """The dates of a checkout's copies come from its history: a new commit there is a change, a gc is not."""
    catalog, mirrors, _ = small_catalog(tmp_path)
    git(catalog, "init", "-q", "-b", "main")
    git(catalog, "add", "-A")
    git(catalog, "commit", "-q", "-m", "sync")
    run(capsys, "check", "--catalog", str(catalog), *mirrors, "--format", "json")
    with sqlite3.connect(cache_dir / "results.sqlite3") as db:
        (value,) = db.execute("SELECT value FROM results WHERE key LIKE 'run/%'").fetchone()
    witnesses = json.loads(value.split(" ", 1)[1])["witnesses"]
    git(catalog, "gc", "-q")  # the .git folder changes, the checkout does not
    assert runmemo.holds(witnesses)
    git(catalog, "commit", "-q", "--allow-empty", "-m", "another sync")
    assert not runmemo.holds(witnesses)


@pytest.mark.parametrize("kind", ["one ref", "catalog"])
def test_a_file_changed_while_the_run_reads_is_not_replayed(
    kind: str, work, tmp_path: Path, capsys, monkeypatch, cache_dir: Path
) -> None:
    """The run read a skill folder before it was edited, mid-run: what it keeps must not pass for the edited
    folder's report (a witness hashed at the end would)."""
    import anchor_audit.audit.skills

    if kind == "one ref":
        repo, spec, skill = work
        argv: tuple[str, ...] = ("check", "--spec", str(spec), "--repo", str(repo.path), str(skill), "--ref", "main",
                                 "--format", "json", "--jobs", "1")  # fmt: skip
        edited = skill / "SKILL.md"
    else:
        catalog, mirrors, _ = small_catalog(tmp_path / "cat")
        argv = ("check", "--catalog", str(catalog), *mirrors, "--format", "json", "--jobs", "1")
        edited = catalog / "skills" / "one" / "SKILL.md"  # audited first: read before the edit
    audited = anchor_audit.audit.skills.check_promises

    def edit_then_check(*args, **kwargs):  # the edit lands after the skill was read, before the run ends
        if "gone.md" not in edited.read_text():
            edited.write_text(edited.read_text() + "\nSee [the notes](gone.md).\n")
        return audited(*args, **kwargs)

    monkeypatch.setattr(anchor_audit.audit.skills, "check_promises", edit_then_check)
    first = run(capsys, *argv)
    monkeypatch.setattr(anchor_audit.audit.skills, "check_promises", audited)
    again, fresh = run(capsys, *argv), run(capsys, *argv, "--no-cache")
    assert "gone.md" in fresh[1] and "gone.md" not in first[1]
    assert again == fresh


def test_a_skill_folder_added_under_all_is_seen(work, tmp_path: Path, capsys) -> None:
    """``--all ROOT`` audits every skill folder under ROOT: a new one is a change, though no old folder changed."""
    repo, spec, skill = work
    root = tmp_path / "many"
    shutil.copytree(skill, root / "first")
    argv = ("check", "--spec", str(spec), "--repo", str(repo.path), "--ref", "main", "--all", str(root),
            "--format", "json")  # fmt: skip
    first = run(capsys, *argv)
    shutil.copytree(skill, root / "second")
    again, fresh = run(capsys, *argv), run(capsys, *argv, "--no-cache")
    assert again == fresh and again != first


@pytest.fixture
def story(make_repo) -> GitRepo:
    """The demo code with its skill inside (tagged s1), then the gate edited."""
    repo = make_repo()
    shutil.copytree(DEMO / "skills" / "demo-overlap", repo.path / "skills" / "demo-overlap")
    repo.commit("the skill", tag="s1")
    repo.edit("src/demo/overlap.py", "if model.tp_size < 2:", "if model.tp_size < 4:")
    repo.commit("the gate moves")
    return repo


def history(capsys, repo: GitRepo, *more: str) -> tuple[int, str, str]:
    return run(capsys, "history", "--in-repo", "skills/demo-overlap", "--spec", str(DEMO / "anchors.yaml"),
               "--repo", str(repo.path), "--format", "json", "--jobs", "1", *more)  # fmt: skip


@pytest.fixture
def replays(monkeypatch) -> list[bool]:
    """For each run, whether it was a replay of a remembered one."""
    import anchor_audit.cli as cli

    said: list[bool] = []
    replay = cli.replay.replay

    def counted(*args: object) -> int | None:
        code = replay(*args)  # type: ignore[arg-type]
        said.append(code is not None)
        return code

    monkeypatch.setattr(cli.replay, "replay", counted)
    return said


def test_a_history_is_replayed_until_its_until_or_since_ref_moves(story, capsys, cache_dir: Path, replays) -> None:
    first = history(capsys, story, "--since", "s1")
    assert len(stored_runs(cache_dir)) == 1 and json.loads(first[1])["events"]
    assert history(capsys, story, "--since", "s1") == first and replays == [False, True]
    story.edit("src/demo/overlap.py", "if model.tp_size < 4:", "if model.tp_size < 8:")
    story.commit("the gate moves again")  # HEAD, the history's --until, moved
    again = history(capsys, story, "--since", "s1")
    assert again != first and again == history(capsys, story, "--since", "s1", "--no-cache")
    git(story.path, "tag", "-f", "s1", "HEAD~1")  # the tag --since names moved
    moved = history(capsys, story, "--since", "s1")
    assert moved != again and moved == history(capsys, story, "--since", "s1", "--no-cache")
    assert replays == [False, True, False, False]  # a --no-cache run asks for no replay


def test_a_history_of_a_skill_on_disk_is_never_remembered(story, capsys, cache_dir: Path) -> None:
    """Read from where it lies now at every commit, such a skill is no commit's."""
    run(capsys, "history", str(story.path / "skills" / "demo-overlap"), "--spec", str(DEMO / "anchors.yaml"),
        "--repo", str(story.path), "--format", "json", "--since", "s1")  # fmt: skip
    assert stored_runs(cache_dir) == []


def test_a_history_with_a_commit_left_unsettled_is_not_remembered(story, capsys, cache_dir: Path, monkeypatch) -> None:
    """A commit whose audit a bound cut short (a result ``incomplete``) is not the code's whole answer: the history
    is worked out again next time."""
    import anchor_audit.audit.skills as skills
    from anchor_audit.model import LineRange, Quote, Unchecked, UncheckedReason

    audit_skill = skills.audit_skill

    def cut_short(*args, **kwargs):  # type: ignore[no-untyped-def]
        report = audit_skill(*args, **kwargs)
        quote = Quote("src/demo/overlap.py", LineRange(1, 2), ("x",), 3)
        return replace(report, anchors=(*report.anchors, Unchecked(quote, UncheckedReason.INCOMPLETE, "a bound")))

    monkeypatch.setattr(skills, "audit_skill", cut_short)
    first = history(capsys, story, "--since", "s1")
    assert first[0] == 0 and stored_runs(cache_dir) == []
