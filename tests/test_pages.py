"""The other Markdown files of a skill folder: their links checked, resolved from the file they are written in."""

from __future__ import annotations

import json
import os
from pathlib import Path

from anchor_audit.checks.names import spec_key
from anchor_audit.cli import main
from anchor_audit.model import PromiseStatus
from anchor_audit.spec.card import Content
from anchor_audit.spec.pages import MAX_SCHEMA_KEYS, _schema

from .hostile.conftest import make_code_repo, make_skill

SKILL_MD = "See [the guide](references/guide.md) and [the card](skill-card.md#usage).\n"
GUIDE = ("# Guide\n\nBack to [the skill](../SKILL.md), [here](#guide), [nowhere](#nope).\n"
         "Also [written as from the root](references/other.md), [a sibling](other.md), [repo](../../AGENTS.md).\n")
CARD = "# Card\n\n## Usage\n\nSee [docs](docs/training/x.md), [the code](pkg/plan.py), [climbing](../../pkg/plan.py).\n"


def _skill(tmp_path: Path) -> Path:
    skill = make_skill(tmp_path / "skills" / "demo", SKILL_MD)
    (skill / "references").mkdir()
    (skill / "references" / "guide.md").write_text(GUIDE)
    (skill / "references" / "other.md").write_text("# Other\n")
    (skill / "skill-card.md").write_text(CARD)
    return skill


def _links(data: dict) -> list[tuple[str, str, str]]:
    return [(p["file"].split("demo/", 1)[1], p["path"], p["status"])
            for p in data["skills"][0]["promises"] if p["kind"] == "link"]  # fmt: skip


def test_a_pages_links_are_checked_from_the_file_they_are_written_in(tmp_path: Path, capsys) -> None:
    repo = make_code_repo(tmp_path / "code")
    skill = _skill(tmp_path)
    assert main(["check", "--repo", str(repo.path), "--ref", "v1", "--format", "json", str(skill)]) == 1
    links = _links(json.loads(capsys.readouterr().out))
    assert links == [
        ("SKILL.md", "references/guide.md", "exists"),
        ("SKILL.md", "skill-card.md#usage", "exists"),
        ("references/guide.md", "SKILL.md", "exists"),
        ("references/guide.md", "references/guide.md#guide", "exists"),
        ("references/guide.md", "references/guide.md#nope", "missing"),
        ("references/guide.md", "references/references/other.md", "missing"),  # written as if from the root
        ("references/guide.md", "references/other.md", "exists"),
        ("references/guide.md", "../AGENTS.md", "unverifiable"),  # above the folder, which lies nowhere known
        ("skill-card.md", "docs/training/x.md", "missing"),
        ("skill-card.md", "pkg/plan.py", "missing"),  # a repository path written as a link inside the skill
        ("skill-card.md", "../../pkg/plan.py", "unverifiable"),  # where the folder lies is not known here
    ]


def test_the_pages_of_a_skill_read_from_the_repository_are_checked_too(tmp_path: Path, capsys) -> None:
    repo = make_code_repo(tmp_path / "code")
    skill = _skill(tmp_path / "work")
    for path in skill.rglob("*"):
        if path.is_file():
            repo.write(f"skills/demo/{path.relative_to(skill)}", path.read_text())
    repo.commit("the skill in the repository", tag="v2")
    code = main(["check", "--repo", str(repo.path), "--ref", "v2", "--in-repo", "--format", "json", "skills/demo"])
    links = _links(json.loads(capsys.readouterr().out))
    assert code == 1
    # From skills/demo/ in the repository: pkg/plan.py written from the root points inside the folder (missing);
    # climbing two folders reaches it.
    assert ("skill-card.md", "pkg/plan.py", "missing") in links
    assert ("skill-card.md", "../../pkg/plan.py", "exists") in links
    assert ("references/guide.md", "references/references/other.md", "missing") in links


def test_a_page_behind_a_link_or_in_a_hidden_folder_is_not_read(tmp_path: Path, capsys) -> None:
    repo = make_code_repo(tmp_path / "code")
    skill = make_skill(tmp_path / "skill", "Nothing to see.\n")
    outside = tmp_path / "outside.md"
    outside.write_text("[x](nowhere.md)\n")
    os.symlink(outside, skill / "linked.md")
    (skill / ".hidden").mkdir()
    (skill / ".hidden" / "notes.md").write_text("[y](nowhere.md)\n")
    assert main(["check", "--repo", str(repo.path), "--ref", "v1", "--format", "json", str(skill)]) == 0
    assert json.loads(capsys.readouterr().out)["skills"][0]["promises"] == []


def test_a_page_is_scanned_for_links_outside_code_and_on_the_line_each_is_written() -> None:
    from anchor_audit.spec.pages import page_links

    text = ("Intro\n\n```md\n[in a fence](fenced.md)\n```\n\nSee [real](real.md) and `[in code](code.md)`,\n"
            "a span `that runs\ninto the next line [no](spanned.md)` then [after](after.md \"title\").\n"
            "![img](img/a.png) <a href=\"html.md\">h</a> [site](https://example.com/x.md)\n\n[ref]: defined.md\n"
            "| `a | b` | [in a table](table.md) |\n")  # fmt: skip
    assert [(c.line, c.target) for c in page_links(text)] == [
        (7, "real.md"), (9, "after.md"), (10, "img/a.png"), (10, "html.md"), (12, "defined.md"), (13, "table.md")
    ]


def test_the_configurations_a_skill_ships_have_their_targets_checked(tmp_path: Path, capsys) -> None:
    repo = make_code_repo(tmp_path / "code")
    skill = make_skill(tmp_path / "skills" / "demo", "Run it with `configs/train.yaml`.\n")
    (skill / "configs").mkdir()
    (skill / "configs" / "train.yaml").write_text("model:\n  _target_: pkg.plan.Planner\nplan:\n"
                                                  "  _target_: pkg.plan.Scheduler  # renamed away\n")  # fmt: skip
    (skill / "configs" / "serve.json").write_text('{\n  "engine": {"_target_": "pkg.plan.Planner"}\n}\n')
    assert main(["check", "--repo", str(repo.path), "--ref", "v1", "--format", "json", str(skill)]) == 1
    data = json.loads(capsys.readouterr().out)
    names = [(p["file"].split("demo/", 1)[1], p["line"], p["path"], p["status"])
             for p in data["skills"][0]["promises"] if p["kind"] == "symbol"]  # fmt: skip
    assert ("configs/train.yaml", 2, "_target_: pkg.plan.Planner", "exists") in names  # on its own file's line
    assert ("configs/serve.json", 2, '"engine": {"_target_": "pkg.plan.Planner"}', "exists") in names
    assert ("configs/train.yaml", 4, "_target_: pkg.plan.Scheduler  # renamed away", "missing") in names


def _promises(repo: Path, skill: Path, capsys, kind: str) -> tuple[dict, list[tuple[str, int, str, str]]]:
    """The JSON report of ``skill`` checked against ``repo`` at v1, and its promises of ``kind``: (file in the
    skill, line, what, status)."""
    main(["check", "--repo", str(repo), "--ref", "v1", "--format", "json", str(skill)])
    data = json.loads(capsys.readouterr().out)
    return data, [(p["file"].split("demo/", 1)[1], p["line"], p["path"], p["status"])
                  for p in data["skills"][0]["promises"] if p["kind"] == kind]  # fmt: skip


def test_the_paths_a_pages_code_spans_name_are_looked_up_and_never_called_missing(tmp_path: Path, capsys) -> None:
    repo = make_code_repo(tmp_path / "code")
    skill = make_skill(tmp_path / "skills" / "demo", "See [the guide](references/guide.md).\n")
    (skill / "references").mkdir()
    (skill / "scripts").mkdir()
    (skill / "scripts" / "run.sh").write_text("echo\n")
    (skill / "references" / "examples").mkdir()
    (skill / "references" / "examples" / "a.py").write_text("x = 1\n")
    (skill / "references" / "guide.md").write_text(
        "# Guide\n\nRun `scripts/run.sh` on `pkg/plan.py` as `examples/a.py` shows; the old `pkg/gone.py` and "
        "`other/project/x.py`.\nThen create `pkg/new.py` for the step.\n"
    )
    data, paths = _promises(repo.path, skill, capsys, "path")
    assert paths == [
        ("references/guide.md", 3, "scripts/run.sh", "exists"),  # in the skill's folder
        ("references/guide.md", 3, "pkg/plan.py", "exists"),
        ("references/guide.md", 3, "examples/a.py", "exists"),  # beside the page
        ("references/guide.md", 3, "pkg/gone.py", "unverifiable"),  # not here: said, never missing
    ]  # another project's path says nothing of this one; a path the step creates is none
    (gone,) = [p for p in data["skills"][0]["promises"] if p["path"] == "pkg/gone.py"]
    assert gone["detail"].endswith("named in a page, not in SKILL.md: re-verify")


def test_the_line_citations_of_a_page_are_checked_and_its_own_files_by_their_range(tmp_path: Path, capsys) -> None:
    skill = "skills/demo/"
    guide = ("# Guide\n\nThe gate is `pkg/plan.py:3-4`; see `SKILL.md:3`, `references/notes.md:40` and the\n"
             "vendored `vendor/lib.py:4` (another project's), as plan.py:9 says.\n")  # fmt: skip
    repo = make_code_repo(tmp_path / "code", {
        f"{skill}SKILL.md": "---\nname: demo\ndescription: d\n---\n\nSee [the guide](references/guide.md).\n",
        f"{skill}references/guide.md": guide, f"{skill}references/notes.md": "# Notes\n",
    })  # fmt: skip
    main(["check", "--repo", str(repo.path), "--ref", "v1", "--in-repo", "--format", "json", skill])
    data = json.loads(capsys.readouterr().out)
    lines = [(p["line"], p["path"], p["status"]) for p in data["skills"][0]["promises"] if p["kind"] == "lines"]
    assert lines == [
        (4, "plan.py:9", "differs"),  # in a sentence: pkg/plan.py has 7 lines
        (3, "pkg/plan.py:3-4", "exists"),
        (3, "SKILL.md:3", "exists"),  # the skill's own file, by its range
        (3, "references/notes.md:40", "differs"),  # it has one line
    ]  # vendor/lib.py is another tree's: nothing said


def test_the_commands_of_a_pages_shell_blocks_are_checked_and_a_program_not_here_is_not_called_missing(
    tmp_path: Path, capsys
) -> None:
    """A page's ``bash`` block runs this repository's script with a flag it defines and one it does not (the
    same findings as in SKILL.md, on the page's line), and a module not here (another project's, or a fork's:
    unverifiable, never missing); a ``python`` block is not a shell's commands."""
    cli = ("import argparse\n\ndef main():\n    p = argparse.ArgumentParser()\n    p.add_argument('config')\n"
           "    p.add_argument('--dry-run', action='store_true')\n    p.parse_args()\n")  # fmt: skip
    repo = make_code_repo(tmp_path / "code", {"pkg/__init__.py": "", "scripts/run.py": cli})
    skill = make_skill(tmp_path / "skills" / "demo", "See [the guide](references/guide.md).\n")
    (skill / "references").mkdir()
    (skill / "references" / "guide.md").write_text(
        "# Guide\n\n```bash\npython scripts/run.py c.yaml --dry-run --fast\npython -m pkg.tools.absent --x 1\n```\n\n"
        "```python\nimport os  # python -m pkg.nothing\n```\n"
    )
    data, commands = _promises(repo.path, skill, capsys, "command")
    assert commands == [
        ("references/guide.md", 4, "scripts/run.py --dry-run", "exists"),
        ("references/guide.md", 4, "scripts/run.py --fast", "missing"),
        ("references/guide.md", 5, "python -m pkg.tools.absent", "unverifiable"),
    ], commands
    (absent,) = [p for p in data["skills"][0]["promises"] if p["path"] == "python -m pkg.tools.absent"]
    assert absent["detail"] == "no module pkg.tools.absent here (its package pkg is); named in a page, not in SKILL.md: re-verify"


def test_a_spec_key_the_schema_lacks_names_what_its_level_has_and_a_schema_is_read_once_a_bound(tmp_path) -> None:
    """The result of a key no schema of the skill has says which keys its nearest level lists (the agent picks
    the right one); a schema of more keys than the bound is read up to it, never past."""
    keys = (("train", "s.json"), ("train.num_gpus", "s.json"), ("train.seed", "s.json"), ("train.amp", "t.json"))
    assert spec_key("train.num_nodes", False, keys) == (
        PromiseStatus.UNVERIFIABLE, "not a key of the schemas the skill ships (`train` has amp, num_gpus, seed)")
    assert spec_key("train.seed", False, keys) == (PromiseStatus.EXISTS, "a key of s.json")
    assert spec_key("train.seed", True, keys) is None and spec_key("model.seed", False, keys) is None  # a call; not a spec
    wide = {"properties": {f"k{i}": {"default": {"a": 1, "b": {"c": 2}}} for i in range(MAX_SCHEMA_KEYS)}}
    said = _schema("wide.schema.json", Content.of(json.dumps(wide)), None)
    assert len(said["keys"]) == MAX_SCHEMA_KEYS and said["keys"][:4] == ["k0", "k0.a", "k0.b", "k0.b.c"]


def test_a_line_citation_of_the_skills_own_file_holds_the_names_its_line_gives(tmp_path: Path, capsys) -> None:
    """A page's row cites ``job.py:3`` beside `` `mpi4py` ``: the cited lines must hold it (a line that no
    longer does differs, naming the line that does); a name the file never writes says nothing of it; of two
    files of the skill with that name, the one whose cited lines hold the name is meant."""
    skill = "skills/demo/"
    report = ("# Report\n\n| where | what |\n|---|---|\n| `job.py:3` | the `mpi4py` import |\n"
              "| `job.py:5` | `np.vectorize` in a loop |\n| `job.py:4` | see `legate_run` |\n"
              "| `twin.py:2` | the `mpi4py` import |\n| `twin.py:1` | the `sys` import |\n")  # fmt: skip
    repo = make_code_repo(tmp_path / "code", {
        f"{skill}SKILL.md": "---\nname: demo\ndescription: d\n---\n\nSee [the report](assets/report.md).\n",
        f"{skill}assets/report.md": report,
        f"{skill}assets/job.py": '"""Job."""\nimport numpy as np\nimport mpi4py\nx = 1\ny = 2\nf = np.vectorize(abs)\n',
        f"{skill}assets/examples/twin.py": "import os\nimport sys\n",
        f"{skill}evals/twin.py": "import os\nimport mpi4py\nimport sys\n",
    })  # fmt: skip
    main(["check", "--repo", str(repo.path), "--ref", "v1", "--in-repo", "--format", "json", skill])
    data = json.loads(capsys.readouterr().out)
    lines = {p["path"]: (p["status"], p["detail"]) for p in data["skills"][0]["promises"] if p["kind"] == "lines"}
    assert lines["job.py:3"] == ("exists", "skills/demo/assets/job.py")
    assert lines["job.py:5"] == ("differs", "skills/demo/assets/job.py:5 holds none of np.vectorize; line 6 does")
    assert lines["job.py:4"][0] == "exists"  # `legate_run`: a name job.py never writes
    assert lines["twin.py:2"] == ("exists", "skills/demo/evals/twin.py")  # not its namesake in assets/examples/
    assert lines["twin.py:1"] == ("differs", "none of the 2 files named twin.py holds sys there: "
                                  "skills/demo/assets/examples/twin.py at line 2, skills/demo/evals/twin.py at line 3")
