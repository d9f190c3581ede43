"""SKILL.md quotes and card.yaml claims, parsed as a maintainer writes them."""

from __future__ import annotations

import json
from pathlib import Path
from textwrap import dedent

import pytest

from anchor_audit.errors import SpecError
from anchor_audit.model import LineRange
from anchor_audit.spec.card import parse_card
from anchor_audit.spec.skill import load_skill, parse_skill_md

from .conftest import DEMO


def test_demo_skill_fences_of_every_kind() -> None:
    skill = load_skill(DEMO / "skills" / "demo-overlap")
    assert [(q.path, q.declared, q.skill_line) for q in skill.quotes] == [
        ("src/demo/overlap.py", LineRange(32, 38), 10),  # ``` fence
        ("src/demo/overlap.py", LineRange(41, 47), 22),  # ~~~ fence
        ("src/demo/overlap.py", LineRange(55, 57), 36),  # ```` fence inside a list item
        ("src/demo/launch.py", LineRange(10, 13), 44),  # ``` fence inside a list item
    ]
    # The list item's indentation is not part of the quote body.
    assert skill.quotes[2].body[0] == "if self.world.dp_size > 1:"
    assert skill.quotes[3].body[1] == "..."
    assert skill.name == "demo-overlap"
    assert skill.card is not None and [c.id for c in skill.card.claims][:2] == ["tp_gate", "pp_selection"]


def test_front_matter_keeps_line_numbers_and_info_words_after_the_anchor() -> None:
    text = dedent(
        """\
        ---
        name: x
        ---
        ```3:4:a.py python
        x = 1
        ```
        """
    )
    (quote,) = parse_skill_md(text)
    assert quote.skill_line == 4 and quote.path == "a.py" and quote.body == ("x = 1",)


def test_fence_inside_a_longer_fence_is_not_a_quote() -> None:
    text = "````markdown\n```1:2:a.py\nx = 1\n```\n````\n"
    assert parse_skill_md(text) == ()


def test_crlf_skill() -> None:
    (quote,) = parse_skill_md("```1:1:a.py\r\nx = 1\r\n```\r\n")
    assert quote.body == ("x = 1",)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("```9:3:a.py\nx\n```\n", "SKILL.md:1: quote 9:3:a.py: START 9 is greater than END 3"),
        ("\n```0:3:a.py\nx\n```\n", "SKILL.md:2: quote 0:3:a.py: line numbers start at 1"),
        ("```1:3:/etc/passwd\nx\n```\n", "SKILL.md:1: quote 1:3:/etc/passwd: path '/etc/passwd' is absolute"),
        ("```1:3:src/../../x.py\nx\n```\n", "climbs out of the repository with '..'"),
        ("```1:3:a.py\n...\n\n```\n", "SKILL.md:1: quote 1:3:a.py: the quote is empty"),
        ("---\nname: [x\n---\n", "SKILL.md:2: not valid YAML"),
        ("---\nname: x\n", "SKILL.md:1: front matter opened with '---' is never closed"),
    ],
)
def test_bad_skill_md(text: str, message: str) -> None:
    with pytest.raises(SpecError) as err:
        parse_skill_md(text, "SKILL.md")
    assert message in str(err.value)
    assert "\n" not in str(err.value)


def test_card_keeps_unknown_tags_and_reports_bad_shapes(tmp_path: Path) -> None:
    card = parse_card("validation_status:\n  a: [code_verified, benchmarked]\n  b: doc_only\n", tmp_path / "card.yaml")
    assert [(c.id, c.tags) for c in card.claims] == [("a", ("code_verified", "benchmarked")), ("b", ("doc_only",))]
    with pytest.raises(SpecError, match=r"card.yaml:2: validation_status.a: expected a list of tags"):
        parse_card("validation_status:\n  a: {x: 1}\n", tmp_path / "card.yaml")


def test_not_a_skill_directory(tmp_path: Path) -> None:
    with pytest.raises(SpecError, match="no SKILL.md"):
        load_skill(tmp_path)


def test_a_remembered_skill_md_is_the_skill_md_parsed() -> None:
    """What a memo keeps of a SKILL.md (quotes, @references, test promises, code examples) rebuilds it whole."""
    from anchor_audit.spec.skill import forget_built_skills, parse_promises, python_examples, skill_from_text

    folder = Path(__file__).resolve().parent.parent / "fixtures" / "reference" / "tp-dp-comm-overlap-reference"
    text = (folder / "SKILL.md").read_text() + dedent("""
        See @src/pkg/tool.py for the entry point.

        ```bash
        pytest tests/unit/test_tool.py
        ```

        The command reports 12 passed.

        ```python
        print("an example, not a quote")
        ```
        """)  # fmt: skip
    card = (folder / "card.yaml").read_text().replace("- code_verified", "- code_verified  # MCore x.py:10-12, 40", 1)
    card += 'validated_versions:\n  tp_overlap_gating: [">=0.2.0,<0.3.0", ">=0.4.0"]\n'
    card += 'feature_meaning:\n  impl: "Which backend: local (MC) or engine (TE)."\n'
    store: dict[str, dict] = {}
    calls: list[str] = []

    def memo(key, compute):  # type: ignore[no-untyped-def]
        calls.append(key)
        if key not in store:
            store[key] = compute()
        return store[key]

    def read(memo=None):  # type: ignore[no-untyped-def]
        forget_built_skills()  # what the memo alone gives back, not the skill kept built
        return skill_from_text("ref", "skills/ref", text, Path("skills/ref/SKILL.md"), card, Path("card.yaml"), memo)

    fresh = read()
    references, tests = parse_promises(text)
    assert fresh.quotes == parse_skill_md(text, "skills/ref/SKILL.md")  # what the parsers themselves say
    assert (fresh.references, fresh.test_promises, fresh.examples) == (references, tests, python_examples(text))
    assert fresh.quotes and references and tests and fresh.examples  # every part is exercised
    assert read(memo) == fresh  # computed and stored
    assert fresh.card is not None and fresh.card.validated_versions and any(c.anchors for c in fresh.card.claims)
    assert fresh.card.aliases == (("MC", ("local",)), ("TE", ("engine",)))
    for key in store:  # as the on-disk cache gives them back
        store[key] = json.loads(json.dumps(store[key]))
    assert read(memo) == fresh  # rebuilt from what was stored: SKILL.md's parts and the card's
    assert sorted(k.split("|")[0] for k in store) == ["card/5", "skill-md/14"] and calls[:2] == calls[2:4]


def test_a_skill_kept_built_is_the_one_its_texts_and_names_make() -> None:
    """A history meets the same SKILL.md and card.yaml at every commit: the skill is built once, and never given
    for another card, another name or another folder."""
    from anchor_audit.spec.skill import skill_from_text

    text = "# S\n\n```1:2:src/a.py\nx = 1\ny = 2\n```\n"
    cards = ["validation_status:\n  one: [doc_only]\n", "validation_status:\n  two: [doc_only]\n"]

    def read(card: str | None, name: str = "s", shown: str = "skills/s"):  # type: ignore[no-untyped-def]
        return skill_from_text(name, shown, text, Path(f"{shown}/SKILL.md"), card, Path(f"{shown}/card.yaml"))

    first = read(cards[0])
    assert [c.id for c in first.card.claims] == ["one"] and read(cards[0]) is first  # kept, not built again
    assert [c.id for c in read(cards[1]).card.claims] == ["two"] and read(None).card is None
    assert read(cards[0], name="t").name == "t" and read(cards[0], shown="skills/u").path == "skills/u"
    assert read(cards[0]) == first


def test_a_skill_in_a_tree_whose_parse_is_remembered_is_not_read(make_repo, monkeypatch) -> None:
    """Known by git's blob ids, a remembered SKILL.md and card.yaml are not read again (impact, history)."""
    from anchor_audit.audit.judge import Judge
    from anchor_audit.source.git import open_git
    from anchor_audit.spec.skill import load_skill_from_tree

    repo = make_repo()
    repo.write("skills/demo/SKILL.md", (DEMO / "skills" / "demo-overlap" / "SKILL.md").read_text())
    repo.write("skills/demo/card.yaml", (DEMO / "skills" / "demo-overlap" / "card.yaml").read_text())
    repo.commit("the skill")
    judge = Judge()
    first = load_skill_from_tree(open_git(str(repo.path), "HEAD"), "skills/demo", judge.memo.remember)
    again = open_git(str(repo.path), "HEAD")
    reads: list[str] = []
    real_read = again.read
    monkeypatch.setattr(again, "read", lambda path: reads.append(path) or real_read(path))
    assert load_skill_from_tree(again, "skills/demo", judge.memo.remember) == first and reads == []
    repo.edit("skills/demo/SKILL.md", "# Demo overlap skill", "# Demo overlap skill, edited")
    repo.commit("an edit")
    edited = open_git(str(repo.path), "HEAD")
    real_edited = edited.read
    monkeypatch.setattr(edited, "read", lambda path: reads.append(path) or real_edited(path))
    load_skill_from_tree(edited, "skills/demo", judge.memo.remember)
    assert reads == ["skills/demo/SKILL.md"]  # the card is the same blob: still not read


def test_a_skill_folder_is_read_as_what_it_is(tmp_path: Path) -> None:
    """What load_skill says of each thing that may stand where a skill folder, its SKILL.md or its card is."""
    from anchor_audit.errors import SpecError
    from anchor_audit.spec.skill import load_skill

    def said(folder: Path) -> str:
        with pytest.raises(SpecError) as caught:
            load_skill(folder, shown_as="s")
        return str(caught.value)

    text = "---\nname: s\ndescription: d\n---\n\n# s\n"
    card = "validation_status:\n  gate:\n    - doc_only\n"
    (tmp_path / "outside.md").write_text(text)
    assert said(tmp_path / "nope") == "s: not a skill directory (no such folder)"
    (tmp_path / "a-file").write_text("x")
    assert said(tmp_path / "a-file") == "s: not a skill directory (no such folder)"
    folder = tmp_path / "s"
    folder.mkdir()
    assert said(folder) == "s: not a skill directory (no SKILL.md)"
    (folder / "SKILL.md").mkdir()
    assert said(folder) == "s: not a skill directory (no SKILL.md)"
    (folder / "SKILL.md").rmdir()
    (folder / "SKILL.md").symlink_to(tmp_path / "gone.md")  # a link to nothing
    assert said(folder) == "s: not a skill directory (no SKILL.md)"
    (folder / "SKILL.md").unlink()
    (folder / "SKILL.md").symlink_to(tmp_path / "outside.md")
    assert said(folder) == "s/SKILL.md: a link to a file outside the skill folder; not read"
    (folder / "SKILL.md").unlink()
    (folder / "SKILL.md").write_text(text)
    (folder / "card.yaml").symlink_to(tmp_path / "outside.md")
    assert said(folder) == "s/card.yaml: a link to a file outside the skill folder; not read"
    (folder / "card.yaml").unlink()
    (folder / "card.yaml").mkdir()  # a folder named card.yaml: no card
    assert load_skill(folder, shown_as="s").card is None
    (folder / "card.yaml").rmdir()
    (folder / "real-card.yaml").write_text(card)
    (folder / "card.yaml").symlink_to("real-card.yaml")  # a link inside the folder is an ordinary file
    skill = load_skill(folder, shown_as="s")
    assert skill.card is not None and [c.id for c in skill.card.claims] == ["gate"]
    assert skill.disk == str(folder.resolve()) and skill.name == "s"


def test_each_citation_of_a_paragraph_is_on_its_own_line_when_the_same_text_comes_earlier() -> None:
    """A link target or path written twice in one paragraph, or ending an earlier longer one, is placed on the
    line where this very citation is written, not on the first line holding its text."""
    from anchor_audit.spec.skill import skill_from_text

    text = ("# S\n\nSee [the guide](../other/TASKS.md#debug)\nand [ours](TASKS.md#debug), then\n"
            "[again](TASKS.md#debug) and `pkg/a.py`\nor `pkg/a.py` here.\n")  # fmt: skip
    skill = skill_from_text("s", "skills/s", text, Path("skills/s/SKILL.md"), None, Path("skills/s/card.yaml"))
    assert [(c.text, c.line) for c in skill.citations] == [
        ("../other/TASKS.md#debug", 3), ("TASKS.md#debug", 4), ("TASKS.md#debug", 5), ("pkg/a.py", 5),
        ("pkg/a.py", 6),
    ]  # fmt: skip


def test_a_setting_a_sentence_writes_as_code_is_read_with_its_line_and_caption() -> None:
    """One assignment of a word to a name or an attribute chain is a setting written in prose; a name alone, a
    comparison, a call, a number, or a span in a fence is not."""
    from anchor_audit.spec.skill import skill_from_text

    text = ("# Title\n\n## Fast path\n\nFirst turn it on.\n\nThen set `engine.mode = \"fast\"` and\n"
            "`backend = \"lane\"`, never `mode == \"slow\"`, `run(mode=\"x\")`, `depth = 2` or `mode`.\n\n"
            "```python\nmode = \"fenced\"\n```\n")  # fmt: skip
    skill = skill_from_text("s", "skills/s", text, Path("skills/s/SKILL.md"), None, Path("skills/s/card.yaml"))
    assert [(e.code, e.line, e.caption) for e in skill.prose_settings] == [
        ('engine.mode = "fast"', 7, "Fast path First turn it on."), ('backend = "lane"', 8, "Fast path First turn it on."),
    ]  # fmt: skip
    assert [e.code for e in skill.examples] == ['mode = "fenced"\n']
