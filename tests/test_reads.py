"""What a skill reads is one answer: check, diff, impact and history see the same edits (and ignore the same)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from anchor_audit.checks.cardanchors import card_tail
from anchor_audit.checks.reads import Reads, Tail, reads
from anchor_audit.errors import SpecError
from anchor_audit.model import CardAnchor, LineRange
from anchor_audit.spec.skill import load_skill

from .hostile.conftest import QUOTE, make_code_repo, make_skill, run_cli

OTHER = "def helper(x):\n    if x > 1:\n        return 1\n    return 0\n"
CARD = 'validated_on: "2026-01-01"\nvalidation_status:\n  helper_gate:\n    - code_verified  # other.py:1-3\n'


@pytest.fixture
def linked(tmp_path: Path):
    """v1; v2 edits the gate of the lines a card comment links (other.py); v3 edits a file the skill does not read."""
    repo = make_code_repo(tmp_path / "code", {"pkg/other.py": OTHER})
    repo.edit("pkg/other.py", "x > 1", "x > 2")
    repo.commit("edit the linked file", tag="v2", date="2026-02-01T00:00:00")
    repo.write("pkg/unread.py", "x = 1\n")
    repo.commit("a file nobody reads", tag="v3", date="2026-03-01T00:00:00")
    skill = make_skill(tmp_path / "skill", QUOTE, card=CARD)
    return repo, skill


def claim_verdicts(out: str) -> dict[str, str]:
    return {c["id"]: c["verdict"] for s in json.loads(out)["skills"] for c in s["claims"]}


def test_a_card_linked_file_is_read_by_every_command(linked) -> None:
    repo, skill = linked
    base = ["--repo", str(repo.path), "--format", "json"]
    assert claim_verdicts(run_cli("check", *base, "--ref", "v1", str(skill)).out) == {"helper_gate": "code_verified"}
    assert claim_verdicts(run_cli("check", *base, "--ref", "v2", str(skill)).out) == {"helper_gate": "broken"}
    assert run_cli("diff", "v1", "v2", str(skill), *base).code == 1

    impact = run_cli("impact", "v1", "v2", str(skill), *base)
    assert impact.code == 1, impact.out
    assert [(i["kind"], i["key"], i["from"], i["to"]) for i in json.loads(impact.out)["impacts"]] == [
        ("claim", "helper_gate", "code_verified", "broken")
    ]
    history = json.loads(run_cli("history", *base, "--until", "v3", str(skill)).out)
    claim_events = [(e["key"], e["from"], e["to"]) for e in history["events"] if e["kind"] == "claim"]
    assert claim_events == [("helper_gate", None, "code_verified"), ("helper_gate", "code_verified", "broken")]
    until_v2 = json.loads(run_cli("history", *base, "--until", "v2", str(skill)).out)
    assert history["range"]["commits_touching"] == until_v2["range"]["commits_touching"]  # v3 touches nothing read


def test_an_edit_outside_what_a_skill_reads_changes_nothing(linked) -> None:
    repo, skill = linked
    base = ["--repo", str(repo.path), "--format", "json"]
    impact = run_cli("impact", "v2", "v3", str(skill), *base)
    assert (impact.code, json.loads(impact.out)["impacts"]) == (0, [])
    assert run_cli("diff", "v2", "v3", str(skill), *base).code == 0
    assert run_cli("check", *base, "--ref", "v3", str(skill)).out.replace("v3", "v2").split('"commit"')[0] == \
        run_cli("check", *base, "--ref", "v2", str(skill)).out.split('"commit"')[0]


def test_reads_names_every_kind_of_reference(tmp_path: Path) -> None:
    body = QUOTE + "See @docs/guide.md.\n\n```bash\npytest tests/test_plan.py\n```\n\n3 passed\n"
    card = CARD + "evidence:\n  - pkg/evidence.py\n"
    skill = load_skill(make_skill(tmp_path / "skill", body, card=card))
    got = reads(skill, None)
    assert got.paths == {"pkg/plan.py", "docs/guide.md", "tests/test_plan.py", "pkg/evidence.py"}
    assert got.tails == {Tail("other.py"), Tail("tests/test_plan.py")}  # a path in a command: its tails too
    assert got.matching(["pkg/other.py", "pkg/another.py", "docs/guide.md", "x/y.py"]) == {"pkg/other.py", "docs/guide.md"}
    assert got.resolve(["a/other.py", "b/notother.py"]) == got.paths | {"a/other.py"}


def test_a_setting_written_with_its_value_reads_no_module(tmp_path: Path) -> None:
    """``cfg.model.fused_norms = False`` writes an object's attribute, not ``cfg/model.py``: a history does not walk
    the commits that change every ``model.py``; ``pkg.ops.fuse()`` still reads its module."""
    body = "Set `cfg.model.fused_norms = False`, then call `pkg.ops.fuse()`.\n"
    skill = load_skill(make_skill(tmp_path / "skill", body))
    assert reads(skill, None).tails == {Tail("pkg/ops.py")}


def test_a_tail_is_the_card_comment_rule() -> None:
    anchor = CardAnchor("config.py", (LineRange(1, 2),), "MCore", 3)
    tail = card_tail(anchor, None)  # the built-in prefix
    assert tail.matches("3rdparty/lm/megatron/core/config.py")
    assert not tail.matches("megatron/training/config.py") and not tail.matches("x/myconfig.py")
    assert Reads(frozenset()).touched_by(["a.py"]) is False


def test_a_registry_adds_card_prefixes_of_its_own(tmp_path: Path) -> None:
    """Kills: the prefix table hard-coded where card.yaml is parsed (a catalog could not add a word)."""
    from anchor_audit.spec.registry import parse_spec

    text = "version: 1\nsource: {repo: r, ref: v1}\ncard_prefixes: {TE: transformer_engine/pytorch/}\nskills: {s: {}}\n"
    (entry,) = parse_spec(text, tmp_path / "anchors.yaml").skills
    te = CardAnchor("module.py", (LineRange(1, 2),), "TE", 3)
    assert card_tail(te, entry).matches("3rdparty/te/transformer_engine/pytorch/module.py")
    assert not card_tail(te, entry).matches("megatron/core/module.py")
    assert card_tail(te, None).matches("megatron/core/module.py")  # without the registry, TE is just a word
    assert card_tail(CardAnchor("config.py", (), "MCore"), entry).within == "megatron/core/"  # the defaults stay
    bad = text.replace("transformer_engine/pytorch/", "/abs")
    with pytest.raises(SpecError, match="card_prefixes.TE"):
        parse_spec(bad, tmp_path / "anchors.yaml")


def test_markdown_counts_and_links_a_relocated_quote_where_it_is_now(tmp_path: Path) -> None:
    from .conftest import git

    repo = make_code_repo(tmp_path / "code")
    git(repo.path, "mv", "pkg/plan.py", "pkg/planner.py")
    repo.commit("rename", tag="v2")
    skill = make_skill(tmp_path / "skill")
    md = run_cli("check", "--repo", str(repo.path), "--ref", "v2", "--format", "markdown",
                 "--link-base", "https://github.com/example/code", str(skill)).out  # fmt: skip
    row = next(line for line in md.splitlines() if line.startswith("| `skill` |"))
    quotes, exact, moved, changed, missing, unchecked = (int(c) for c in row.split("|")[2:8])
    assert (quotes, exact, moved, changed, missing, unchecked) == (1, 0, 1, 0, 0, 0)
    assert "/blob/" in md and "/pkg/planner.py#L3-L6" in md and "pkg/plan.py#L" not in md
    assert "Not found or not verified" not in md
    assert "`3:6:pkg/plan.py` → `3:6:pkg/planner.py`" in md


FILES = {  # a repository in which each file is read by one kind of reference, or by none
    "pkg/other.py": OTHER,  # a card comment's tail
    "docs/guide.md": "# Guide\n",  # an @path
    "tests/test_plan.py": "def test_one():\n    pass\n",  # a test-count promise
    "pkg/evidence.py": "E = 1\n",  # a card evidence path
    "pkg/unread.py": "x = 1\n",  # nothing
    "README.md": "# Code\n",  # nothing
}
READ = {"pkg/plan.py", "pkg/other.py", "docs/guide.md", "tests/test_plan.py", "pkg/evidence.py"}


@pytest.fixture(scope="module")
def every_edit(tmp_path_factory: pytest.TempPathFactory):
    """v1, then one branch per file of the repository, each editing only that file (a line inserted on top)."""
    from .conftest import git

    root = tmp_path_factory.mktemp("reads")
    repo = make_code_repo(root / "code", FILES)
    body = QUOTE + "See @docs/guide.md.\n\n```bash\npytest tests/test_plan.py\n```\n\n1 passed\n"
    skill = make_skill(root / "skill", body, card=CARD + "evidence:\n  - pkg/evidence.py\n")
    heads = {}
    for path in ["pkg/plan.py", *FILES]:
        git(repo.path, "checkout", "-q", "-b", f"edit-{len(heads)}", "v1")
        repo.write(path, "# an edit\n" + repo.read(path))
        heads[path] = repo.commit(f"edit {path}", date="2026-02-01T00:00:00")
    return repo, skill, heads


@pytest.mark.parametrize("path", ["pkg/plan.py", *FILES])
def test_check_impact_and_history_see_an_edit_exactly_when_reads_names_its_file(every_edit, path: str) -> None:
    """The property reads() promises: an edit outside it never changes the audit, and an edit inside it is
    seen alike by check (the audit may change), impact (the skill is audited) and history (the commit is walked)."""
    from anchor_audit.audit.skills import Judge, audit
    from anchor_audit.runs.history import SkillSource, history
    from anchor_audit.runs.impact import impact
    from anchor_audit.source.git import open_git

    repo, skill_dir, heads = every_edit
    skill = load_skill(skill_dir)
    assert reads(skill, None).resolve(["pkg/other.py", "pkg/unread.py"]) == READ  # the files, as the table says
    inside = path in READ
    base, head = open_git(str(repo.path), "v1"), open_git(str(repo.path), heads[path])
    text = (skill_dir / "SKILL.md").read_text()
    concerned = impact(base, head, [(skill, None, text)], Judge())
    assert concerned.audited == (1 if inside else 0)
    walked = history(head, [SkillSource(skill.name, disk=skill)], None, "v1", heads[path], Judge())
    assert walked.commits_touching == (1 if inside else 0)
    if not inside:
        before, after = (audit([(skill, None)], tree, None, Judge()) for tree in (base, head))
        assert before.skills == after.skills
