"""Relocation in one search: the quotes of every skill that left their files are
searched for in one ``git grep``, and each finds where its code went, as when searched alone."""

from __future__ import annotations

import json

from anchor_audit.cli import main

from .conftest import git
from .hostile.conftest import make_code_repo, make_skill

F = "def plan_overlap(cfg):\n    cfg.overlap = cfg.tp > 1\n    return cfg\n"
G = "def plan_buckets(cfg):\n    cfg.bucket_size = 40_000_000\n    return cfg\n"


def _quote(start: int, body: str, path: str = "pkg/a.py") -> str:
    return f"```{start}:{start + 2}:{path}\n{body}```\n"


def test_every_skills_lost_quote_in_one_grep(tmp_path, monkeypatch, capsys) -> None:
    repo = make_code_repo(tmp_path / "code", {"pkg/a.py": F + "\n\n" + G})
    repo.write("pkg/a.py", "# the planners moved out\n")
    repo.write("pkg/overlap.py", "import os\n\n\n" + F)
    repo.write("pkg/buckets.py", G)
    repo.write("pkg/vendored/same.py", "X = 1\n")  # more files than the two that hold the quotes
    repo.commit("split the planners", tag="v2")
    one = make_skill(tmp_path / "overlap-skill", body=_quote(1, F))
    two = make_skill(tmp_path / "buckets-skill", body=_quote(5, G))
    trace = tmp_path / "trace"
    monkeypatch.setenv("GIT_TRACE", str(trace))
    args = ["check", str(one), str(two), "--repo", str(repo.path), "--ref", "v2", "--format", "json", "--no-cache"]
    assert main(args) == 1
    data = json.loads(capsys.readouterr().out)
    found = {s["name"]: [(a["status"], a.get("found_path")) for a in s["anchors"]] for s in data["skills"]}
    assert found == {"overlap-skill": [("relocated", "pkg/overlap.py")], "buckets-skill": [("relocated", "pkg/buckets.py")]}
    greps = [line for line in trace.read_text().splitlines() if "trace: built-in: git grep" in line]
    assert len(greps) == 1, greps


def test_a_catalog_components_skills_share_one_search_for_their_quotes_and_one_for_their_names(
    tmp_path, monkeypatch, capsys
) -> None:
    """A catalog audits each skill on its own (in workers, read where it is audited), yet the skills of one
    component are searched for together: one ``git grep`` for the quotes that left their files, one for the
    names the prose cites, however many skills ask."""
    bodies = {
        "overlap-skill": _quote(1, F) + "\nThe planner is `plan_overlap()`.\n",
        "buckets-skill": _quote(5, G) + "\nThe buckets come from `plan_buckets()`.\n",
        "both-skill": "Both: `plan_overlap()` and `plan_buckets()`, and `plan_gone()`.\n",
    }
    repo = make_code_repo(tmp_path / "code", {"pkg/a.py": F + "\n\n" + G})
    for name, body in bodies.items():
        repo.write(f"skills/{name}/SKILL.md", f"---\nname: {name}\ndescription: a catalog case\n---\n\n{body}")
    repo.commit("skills")
    repo.write("pkg/a.py", "# the planners moved out\n")
    repo.write("pkg/overlap.py", "import os\n\n\n" + F)
    repo.write("pkg/buckets.py", G)
    repo.commit("split the planners")
    catalog = tmp_path / "catalog"
    (catalog / "components.d").mkdir(parents=True)
    entries = "".join(f"  - path: skills/{name}\n    catalog_dir: {name}\n" for name in bodies)
    (catalog / "components.d" / "code.yml").write_text(f"name: code\nrepo: acme/code\nskills:\n{entries}")
    for name in bodies:
        (catalog / "skills" / name).mkdir(parents=True)
        (catalog / "skills" / name / "SKILL.md").write_bytes((repo.path / "skills" / name / "SKILL.md").read_bytes())
    trace = tmp_path / "trace"
    monkeypatch.setenv("GIT_TRACE", str(trace))
    args = ["check", "--catalog", str(catalog), "--mirror", f"acme/code={repo.path}", "--format", "json",
            "--no-cache", "--jobs", "1"]  # fmt: skip
    assert main(args) == 1
    data = json.loads(capsys.readouterr().out)
    found = {s["name"]: [(a["status"], a.get("found_path")) for a in s["anchors"]] for s in data["skills"]}
    assert found == {"overlap-skill": [("relocated", "pkg/overlap.py")], "buckets-skill": [("relocated", "pkg/buckets.py")],
                     "both-skill": []}  # fmt: skip
    names = {(p["path"], p["status"]) for s in data["skills"] for p in s["promises"] if p["kind"] == "symbol"}
    assert names == {("plan_overlap()", "exists"), ("plan_buckets()", "exists")}  # plan_gone(): anyone's, not said
    head = git(repo.path, "rev-parse", "HEAD").strip()
    greps = [line for line in trace.read_text().splitlines() if "trace: built-in: git grep" in line and head in line]
    assert len(greps) == 2, "\n".join(greps)  # (a name's past is searched at the commit that wrote it, too)
