"""Version bumps and history on real repositories: diff, bump, history, --in-repo, shared work."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from anchor_audit.audit.skills import Judge, audit
from anchor_audit.cli import main
from anchor_audit.runs.history import SkillSource, history
from anchor_audit.source.git import open_git
from anchor_audit.spec.registry import load_spec
from anchor_audit.spec.skill import load_skill, load_skill_from_tree
from anchor_audit.store.sqlite import ResultStore

from .conftest import DEMO, GitRepo, git

OVERLAP = "src/demo/overlap.py"
MOVE = ("from dataclasses import dataclass\n", "import os\nimport sys\nfrom dataclasses import dataclass\n")


@pytest.fixture
def timeline(make_repo) -> tuple[GitRepo, dict[str, str]]:
    """v1 -> docs -> v2 (quotes move) -> docs -> v4 (TP gate changes). Returns the repo and its shas."""
    repo = make_repo()
    shas = {"v1": git(repo.path, "rev-parse", "HEAD")}
    repo.write("docs/notes.md", "unrelated\n")
    shas["docs1"] = repo.commit("docs one")
    repo.edit(OVERLAP, *MOVE)
    shas["v2"] = repo.commit("add imports", tag="v2")
    repo.write("docs/notes.md", "still unrelated\n")
    shas["docs2"] = repo.commit("docs two")
    repo.edit(OVERLAP, "if model.tp_size < 2:", "if model.tp_size < 4:")
    shas["v4"] = repo.commit("raise the tp threshold", tag="v4")
    return repo, shas


def run_history(repo: GitRepo, since: str | None, until: str = "HEAD", judge: Judge | None = None):
    spec = load_spec(DEMO / "anchors.yaml")
    skill = load_skill(DEMO / "skills" / "demo-overlap")
    tree = open_git(str(repo.path), until)
    return history(tree, [SkillSource(skill.name, disk=skill)], spec, since, until, judge or Judge())


def test_history_names_the_first_commit_of_each_change(timeline) -> None:
    repo, shas = timeline
    result = run_history(repo, since="v1")
    assert (result.commits_in_range, result.commits_touching) == (4, 2)  # the docs commits are never audited
    events = [(e.commit.sha, e.change.kind, e.change.key, e.change.before, e.change.after) for e in result.events]
    baseline = [e for e in events if e[0] == shas["v1"]]
    assert len(baseline) == 4 + 5 and all(e[3] is None for e in baseline)  # 4 quotes, 5 claims appear
    assert [e[1:] for e in events if e[0] == shas["v2"]] == [
        ("anchor", f"{OVERLAP}:32-38", "exact", "moved"),
        ("anchor", f"{OVERLAP}:41-47", "exact", "moved"),
        ("anchor", f"{OVERLAP}:55-57", "exact", "moved"),
    ]
    assert [e[1:] for e in events if e[0] == shas["v4"]] == [
        ("anchor", f"{OVERLAP}:32-38", "moved", "changed"),
        ("claim", "tp_gate", "code_verified", "broken"),
    ]
    assert len(events) == 9 + 3 + 2
    moved = next(e for e in result.events if e.commit.sha == shas["v2"])
    suggested = moved.change.suggested
    assert suggested is not None and (suggested.start, suggested.end) == (34, 40)
    assert moved.commit.subject == "add imports"


def test_history_json_and_warm_cache_parses_nothing(timeline, cache_dir: Path, capsys) -> None:
    repo, shas = timeline
    args = ["history", "--spec", str(DEMO / "anchors.yaml"), "--repo", str(repo.path), "--since", "v1",
            "--format", "json", str(DEMO / "skills" / "demo-overlap")]  # fmt: skip
    assert main(args) == 0
    data = json.loads(capsys.readouterr().out)
    assert list(data) == ["events", "range"]
    first_change = next(e for e in data["events"] if e["from"] is not None)
    assert set(first_change) == {"kind", "skill", "key", "commit", "date", "subject", "from", "to", "suggested"}
    assert first_change["commit"] == shas["v2"] and first_change["date"].startswith("2026-01-01T00:00:00")
    # Everything is on disk now: a second history computes no match at all.
    store = ResultStore(cache_dir / "results.sqlite3")
    judge = Judge(store)
    run_history(repo, since="v1", judge=judge)
    store.close()
    assert judge.computed == 0 and store.hits > 0


def test_in_memory_sharing_by_blob(timeline) -> None:
    repo, _ = timeline
    judge = Judge()
    run_history(repo, since="v1", judge=judge)
    # launch.py never changes, overlap.py has three versions: 1 launch quote + 2 launch conditions once,
    # 3 overlap quotes + 4 overlap conditions per overlap.py version; and one search of the other files for the
    # quote that changed at v4 (kept by content too), and the facts of overlap.py that quote is judged by as a
    # claim's evidence (what it does, kept by the file's content).
    assert judge.computed == 3 + 3 * (3 + 4) + 1 + 1


def test_in_repo_skill_followed_across_a_folder_rename(make_repo) -> None:
    repo = make_repo()
    shutil.copytree(DEMO / "skills" / "demo-overlap", repo.path / "skills" / "overlap-guide")
    repo.commit("add the skill", tag="s1")
    git(repo.path, "mv", "skills/overlap-guide", "skills/demo-overlap")
    renamed = repo.commit("rename the skill folder")
    repo.edit(OVERLAP, *MOVE)
    moved = repo.commit("add imports")
    spec = load_spec(DEMO / "anchors.yaml")
    tree = open_git(str(repo.path), "HEAD")
    result = history(tree, [SkillSource("demo-overlap", in_repo="skills/demo-overlap")], spec, None, "HEAD", Judge())
    assert result.skill_paths == ["skills/overlap-guide", "skills/demo-overlap"]
    # The rename changes no status; the move does.
    assert not [e for e in result.events if e.commit.sha == renamed]
    assert {e.change.after for e in result.events if e.commit.sha == moved} == {"moved"}
    # check --in-repo reads the skill as it is at the ref.
    at_s1 = tree.at(git(repo.path, "rev-parse", "s1"))
    report = audit([(load_skill_from_tree(at_s1, "skills/overlap-guide"), spec.skills[0])], at_s1, spec)
    assert {m.status.value for m in report.skills[0].anchors} == {"exact"}


def test_diff_exit_codes_and_markdown(timeline, capsys) -> None:
    repo, _ = timeline
    base = ["diff", "--spec", str(DEMO / "anchors.yaml"), "--repo", str(repo.path)]
    assert main([*base, "v1", "v2"]) == 0  # quotes moved, no claim breaks
    out = capsys.readouterr().out
    assert "3 changes · no claim breaks · exit 0" in out
    assert main([*base, "v1", "v4", "--format", "markdown"]) == 1
    md = capsys.readouterr().out
    assert md.startswith("### anchor-audit: `v1` → `v4`\n")
    assert "| demo-overlap | `src/demo/overlap.py:32-38` | exact | changed |  |" in md
    assert "| demo-overlap | `src/demo/overlap.py:41-47` | exact | moved | `43:49` |" in md
    assert "| demo-overlap | claim `tp_gate` | code_verified | **broken** |  |" in md
    assert "**1 claim breaks at `v4`:**" in md
    assert main([*base, "v1", "v4", "--format", "json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["breaks"] == [{"skill": "demo-overlap", "claim": "tp_gate"}] and data["exit_code"] == 1


def test_bump_rewrites_the_pin_only_when_nothing_breaks(timeline, tmp_path: Path, capsys) -> None:
    repo, _ = timeline
    spec = tmp_path / "anchors.yaml"
    original = (DEMO / "anchors.yaml").read_text()
    original = original.replace("https://git.example.invalid/demo-trainer.git", str(repo.path))
    original = original.replace("path: skills/demo-overlap", f"path: {DEMO / 'skills' / 'demo-overlap'}")
    original = original.replace("  ref: v1\n", "  ref: v1   # pinned by the release engineer\n")
    spec.write_text(original)
    assert main(["bump", "v4", "--spec", str(spec)]) == 1
    assert "not bumped: claims break at v4" in capsys.readouterr().err
    assert spec.read_text() == original
    assert main(["bump", "v2", "--spec", str(spec)]) == 0
    assert spec.read_text() == original.replace("  ref: v1   #", "  ref: v2   #")
    assert main(["bump", "v4", "--spec", str(spec), "--force"]) == 1
    assert spec.read_text() == original.replace("  ref: v1   #", "  ref: v4   #")


def test_history_starts_where_the_skill_was_validated_by_default(make_repo, capsys) -> None:
    repo = make_repo()  # committed 2026-01-01; the demo card says validated_on 2026-01-10
    first = git(repo.path, "rev-parse", "HEAD")
    repo.edit("src/demo/overlap.py", "from dataclasses import dataclass\n", "import os\nfrom dataclasses import dataclass\n")
    repo.commit("add an import", date="2026-02-01T00:00:00")
    args = ["history", "--spec", str(DEMO / "anchors.yaml"), "--repo", str(repo.path), "--format", "json",
            str(DEMO / "skills" / "demo-overlap")]  # fmt: skip
    assert main(args) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["range"]["since"] == first and data["range"]["commits_in_range"] == 1


def test_bump_pins_the_commit_of_head_and_keeps_a_tag(make_repo, tmp_path: Path, capsys) -> None:
    repo = make_repo()
    spec = tmp_path / "anchors.yaml"
    spec.write_text((DEMO / "anchors.yaml").read_text().replace(
        "https://git.example.invalid/demo-trainer.git", str(repo.path)).replace(
        "path: skills/demo-overlap", f"path: {DEMO / 'skills' / 'demo-overlap'}"))  # fmt: skip
    head = git(repo.path, "rev-parse", "HEAD")
    assert main(["bump", "HEAD", "--spec", str(spec)]) == 0
    assert f"  ref: {head}\n" in spec.read_text()  # HEAD moves; its commit does not
    assert capsys.readouterr().err.endswith(f"source.ref v1 -> {head} (HEAD at bump time)\n")
    git(repo.path, "tag", "v1.2.0")
    assert main(["bump", "v1.2.0", "--spec", str(spec)]) == 0
    assert "  ref: v1.2.0\n" in spec.read_text()


def test_bump_in_repo_says_what_moved_in_the_repositorys_own_skills(make_repo, tmp_path: Path, capsys) -> None:
    repo = make_repo()
    shutil.copytree(DEMO / "skills" / "demo-overlap", repo.path / "skills" / "demo-overlap")
    repo.commit("add the skill", tag="s1")
    repo.edit(OVERLAP, *MOVE)
    repo.commit("add imports")
    spec = tmp_path / "anchors.yaml"
    spec.write_text((DEMO / "anchors.yaml").read_text().replace("https://git.example.invalid/demo-trainer.git",
                                                                 str(repo.path)).replace("ref: v1", "ref: s1"))  # fmt: skip
    assert main(["bump", "HEAD", "--spec", str(spec), "--in-repo", "skills/demo-overlap", "--force", "--fix"]) == 0
    err = capsys.readouterr().err
    assert "source.ref s1 -> " in err  # the pin moved
    assert "3 quotes moved at HEAD in the repository's own skills: --fix does not write into the repository" in err


def test_diff_in_repo_follows_the_skill_folder_renamed_between_the_refs(make_repo, capsys) -> None:
    repo = make_repo()
    shutil.copytree(DEMO / "skills" / "demo-overlap", repo.path / "skills" / "overlap-guide")
    repo.commit("add the skill", tag="s1")
    git(repo.path, "mv", "skills/overlap-guide", "skills/demo-overlap")
    repo.edit(OVERLAP, *MOVE)
    repo.commit("rename the skill folder; add imports", tag="s2")
    args = ["diff", "s1", "s2", "skills/demo-overlap", "--in-repo", "--repo", str(repo.path), "--format", "json"]
    assert main(args) == 0  # it read the skill at s1 from where it was then
    changes = json.loads(capsys.readouterr().out)["changes"]
    assert {(c["skill"], c["from"], c["to"]) for c in changes if c["kind"] == "anchor"} == {("demo-overlap", "exact", "moved")}
