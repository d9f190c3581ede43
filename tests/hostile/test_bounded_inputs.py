"""Class 6: no single input exhausts the run. Each case ends in a result (or one line) within its bounds.

The promise: one pathological skill takes at most 30 s and 2 GB, then gets an ``incomplete`` result.  The
time bounds here are generous ceilings for a loaded 2-core machine, not performance goals (benchmarks/).
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from .conftest import CODE, QUOTE, GitRepo, make_code_repo, make_skill, registry, run_cli

GIB = 1024**3
CHAIN = "x = " + " and ".join(f"a{i}" for i in range(20_000)) + "\n"


def _checked(repo: GitRepo, skill: Path, *options: str) -> tuple[dict, float]:
    """``check`` of ``skill`` at v1 under 2 GiB: its report, and the seconds the run took."""
    start = time.monotonic()
    done = run_cli("check", "--repo", str(repo.path), "--ref", "v1", "--format", "json", *options, str(skill),
                   memory_bytes=2 * GIB, timeout=120)  # fmt: skip
    elapsed = time.monotonic() - start
    assert done.code in (0, 1), done.err[-1000:]
    return json.loads(done.out)["skills"][0], elapsed


@pytest.mark.parametrize("tail", ["", "def (:\n"], ids=["valid", "syntax-error"])
def test_an_expression_libcst_would_crash_on_is_never_handed_to_it(tmp_path: Path, tail: str) -> None:
    body = "class Planner:\n    def plan(self, cfg):\n        " + CHAIN + "        if cfg.tp > 1:\n            return 1\n" + tail
    repo = make_code_repo(tmp_path / "code", {"pkg/chain.py": body})
    quote = "```3:3:pkg/chain.py\nx = a0 and a1\n```\n"  # changed: the closest search runs over the chain
    moved = QUOTE.replace("pkg/plan.py", "pkg/gone.py")  # gone: the relocation search reads every file
    skill = make_skill(tmp_path / "skill", quote + moved)
    claims = "      gate:\n        conditions:\n          - {path: pkg/chain.py, in: Planner.plan, if: cfg.tp > 1}\n"
    spec = registry(tmp_path / "anchors.yaml", repo.path, skill, claims=claims)
    done = run_cli("check", "--spec", str(spec), "--format", "json", memory_bytes=2 * GIB, timeout=120)
    assert done.code == 1 and "Traceback" not in done.err, (done.code, done.err[-2000:])  # not -11: a crash
    skill_report = json.loads(done.out)["skills"][0]
    chain, moved_quote = skill_report["anchors"]
    # Parsed by ast (valid) the quote is compared and found changed; with a syntax error only libcst could read
    # the file, and it is not handed the chain: incomplete, never exact.
    assert chain["status"] == ("changed" if not tail else "incomplete"), chain
    assert moved_quote["status"] == "relocated" and moved_quote["found_path"] == "pkg/plan.py"
    (claim,) = skill_report["claims"]
    (condition,) = [e for e in claim["evidence"] if e["kind"] == "condition"]
    assert not condition["ok"] and "runs past 2000 terms; not parsed" in condition.get("detail", ""), condition


def test_a_registry_condition_past_the_chain_bound_is_one_line(tmp_path: Path) -> None:
    repo = make_code_repo(tmp_path / "code")
    skill = make_skill(tmp_path / "skill")
    claims = "      gate:\n        conditions:\n          - {path: pkg/plan.py, in: Planner.plan, if: " + " and ".join(["x"] * 8_000) + "}\n"
    spec = registry(tmp_path / "anchors.yaml", repo.path, skill, claims=claims)
    done = run_cli("check", "--spec", str(spec), memory_bytes=2 * GIB, timeout=120)
    assert done.code != -11 and "Traceback" not in done.err
    assert "runs past 2000 terms; not parsed" in done.err + done.out


def test_a_yaml_alias_bomb_of_long_strings_is_one_line(tmp_path: Path) -> None:
    repo = make_code_repo(tmp_path / "code")
    skill = make_skill(tmp_path / "skill")
    big = "x" * 1_500_000
    aliases = "\n".join("  - *big" for _ in range(60_000))
    spec = tmp_path / "anchors.yaml"
    spec.write_text(f"version: 1\nsource:\n  repo: {repo.path}\n  ref: v1\nbomb: &big {big}\nmore:\n{aliases}\n"
                    f"skills:\n  s:\n    path: {skill}\n")  # fmt: skip
    start = time.monotonic()
    line = run_cli("check", "--spec", str(spec), memory_bytes=2 * GIB, timeout=120).one_error_line()
    assert "document too large (more than 32 MiB of text after aliases)" in line, line
    assert time.monotonic() - start < 30


def test_a_card_and_a_skill_of_many_claims_and_promises_stay_linear(tmp_path: Path) -> None:
    repo = make_code_repo(tmp_path / "code")
    card = "validation_status:\n" + "".join(f"  claim{i}: [doc_only]\n" for i in range(60_000))
    commands = "".join(f"```bash\npytest tests/test_{i}.py\n```\n3 passed\n" for i in range(20_000))
    skill = make_skill(tmp_path / "skill", QUOTE + commands + "3 passed\n" * 60_000, card=card)
    report, elapsed = _checked(repo, skill)
    assert len(report["claims"]) == 60_000
    assert elapsed < 30, elapsed  # quadratic was 22 s at 20,000 claims alone


@pytest.mark.parametrize("joint", [" ", "\n"], ids=["one-line", "one-a-line"])
def test_a_paragraph_naming_forty_thousand_paths_is_read_up_to_the_cap_and_says_so(tmp_path: Path, joint: str) -> None:
    repo = make_code_repo(tmp_path / "code")
    # a making word after each span: every line is asked whether it makes a file (none of these spans is made)
    paragraph = joint.join(f"`p/{i}.py` saved, `--f{i}` default {i};" for i in range(40_000))  # 1.5 MB
    skill = make_skill(tmp_path / "skill", paragraph + "\n")
    report, elapsed = _checked(repo, skill)
    paths = [p for p in report["promises"] if p["kind"] == "path"]
    assert 0 < len(paths) <= 2_000 and any("were not read" in note for note in report["notes"])
    first = paths[0]["line"]
    assert [p["line"] for p in paths[:3]] == ([first] * 3 if joint == " " else [first, first + 1, first + 2])
    assert elapsed < 30, elapsed  # a lookup per code span over the whole paragraph took minutes


def test_a_huge_single_line_file_is_bounded_in_memory_and_time(tmp_path: Path) -> None:
    line = "x = [" + "1, " * 3_200_000 + "]\n"  # 9.6 MB on one line: under the 10 MiB file bound
    repo = make_code_repo(tmp_path / "code", {"pkg/wide.py": line + CODE})
    skill = make_skill(tmp_path / "skill", QUOTE.replace("pkg/plan.py", "pkg/wide.py").replace("3:6", "1:1").split("\n", 1)[0]
                       + "\nx = [1, 2]\n```\n")  # fmt: skip
    start = time.monotonic()
    done = run_cli("check", "--repo", str(repo.path), "--ref", "v1", "--format", "json", str(skill),
                   memory_bytes=2 * GIB, timeout=120)  # fmt: skip
    assert done.code in (0, 1), done.err[-1000:]
    (anchor,) = json.loads(done.out)["skills"][0]["anchors"]
    # refused before a parser holds gigabytes (the stdlib's alone took 3.1 GB and 10 s of it), not cut by the budget
    assert anchor["status"] == "incomplete" and "more than 250,000 Python tokens" in anchor["detail"], anchor
    assert time.monotonic() - start < 30


def _tree_and_skill(tmp_path: Path):
    from anchor_audit.source.git import open_git
    from anchor_audit.spec.skill import load_skill

    repo = make_code_repo(tmp_path / "code", {"pkg/other.py": CODE.replace("tp", "pp")})
    skill = make_skill(tmp_path / "skill", QUOTE + QUOTE.replace("pkg/plan.py", "pkg/other.py").replace("tp", "pp"))
    return open_git(str(repo.path), "v1"), load_skill(skill)


def test_the_skill_budget_starts_when_its_checks_start(tmp_path: Path) -> None:
    """A fetch, a listing or a history before the skill's checks takes none of its 20 s."""
    from anchor_audit.audit.budget import Budget
    from anchor_audit.audit.skills import Judge, audit_skill

    tree, skill = _tree_and_skill(tmp_path)
    now = [0.0]
    judge = Judge(budget=Budget(clock=lambda: now[0]))
    now[0] = 1_000.0  # a long fetch, before any check of this skill
    assert judge.memo.remember("git|question", lambda: {"answer": 1}) == {"answer": 1}  # run-level facts: never bounded
    report = audit_skill(skill, None, tree, judge)
    assert [a.status.value for a in report.anchors] == ["exact", "exact"]


def test_the_skill_budget_bounds_the_skills_own_checks(tmp_path: Path) -> None:
    from anchor_audit.audit.budget import Budget
    from anchor_audit.audit.skills import Judge, audit_skill

    tree, skill = _tree_and_skill(tmp_path)
    now = [0.0]

    def clock() -> float:  # each look at the clock finds 15 s gone
        now[0] += 15.0
        return now[0]

    report = audit_skill(skill, None, tree, Judge(budget=Budget(clock=clock)))
    # The first check starts within its 20 s; by the second, 30 s have gone: incomplete, never exact.
    assert [a.status.value for a in report.anchors] == ["exact", "incomplete"]
    assert report.anchors[1].detail == "this skill's checks ran past 20 s; not checked"


def test_matching_a_skills_quotes_before_its_checks_counts_against_its_budget(tmp_path: Path) -> None:
    """The run matches every skill's quotes up front (to search the tree once for those that left their files):
    that is the skill's work, under its budget; what it took is gone from the budget its checks start with."""
    from anchor_audit.audit.budget import Budget
    from anchor_audit.audit.skills import Judge
    from anchor_audit.errors import BoundExceeded
    from anchor_audit.source.git import open_git
    from anchor_audit.spec.skill import load_skill

    repo = make_code_repo(tmp_path / "code", {"pkg/plan.py": CODE.replace("True", "1").replace("False", "0")})
    tree = open_git(str(repo.path), "v1")
    skill = load_skill(make_skill(tmp_path / "skill", QUOTE + QUOTE.replace("3:6", "2:5")))  # both changed
    now = [0.0]

    def clock() -> float:  # each look at the clock finds 15 s gone
        now[0] += 15.0
        return now[0]

    judge = Judge(budget=Budget(clock=clock))
    judge.presearch([("skill", skill.quotes)], tree)
    judge.begin_skill("skill")
    with pytest.raises(BoundExceeded):
        judge.budget.check()  # the up-front matching took its 20 s
    judge.begin_skill("another")
    judge.budget.check()  # a skill matched nothing up front: its whole budget


def test_the_skill_budget_bounds_resident_memory(tmp_path: Path) -> None:
    from anchor_audit.audit.budget import Budget, resident_bytes
    from anchor_audit.audit.skills import Judge, audit_skill

    tree, skill = _tree_and_skill(tmp_path)
    assert resident_bytes() > 10 * 1024**2  # this platform says (a Python with libcst loaded holds more)
    judge = Judge(budget=Budget(max_rss=1024**2))  # 1 MiB: already past it
    report = audit_skill(skill, None, tree, judge)
    assert {a.status.value for a in report.anchors} == {"incomplete"}
    assert "more than 1 MiB of memory" in (report.anchors[0].detail or "")


def test_no_parser_is_given_a_text_of_more_tokens_than_the_bound() -> None:
    from anchor_audit.errors import BoundExceeded
    from anchor_audit.parse import PythonIndex, parse_ast
    from anchor_audit.parse.bounds import MAX_PARSED_TOKENS

    big = "x = [" + "1, " * (MAX_PARSED_TOKENS // 2) + "]\n"  # just past the bound: a comma and a 1 per element
    for parse in (parse_ast, PythonIndex):
        with pytest.raises(BoundExceeded, match="more than 250,000 Python tokens"):
            parse(big)
    as_large_as_real_files = "".join(f"value_{i} = compute({i}, key='k{i}')\n" for i in range(5_000))  # 60,000
    assert len(parse_ast(as_large_as_real_files).body) == 5_000 and PythonIndex(as_large_as_real_files).statements


def test_a_schema_the_skill_ships_is_read_within_bounds_and_shown_cut(tmp_path: Path) -> None:
    deep = "[" * 100_000 + "]" * 100_000  # past the JSON reader's recursion: no defaults, no crash
    huge = json.dumps({"properties": {"train": {"properties": {"mode": {"default": "x" * 100_000}}}}})
    repo = make_code_repo(tmp_path / "code")
    body = QUOTE + "\n| Key | Default |\n|---|---|\n| `train.mode` | `fast` |\n"
    skill = make_skill(tmp_path / "skill", body)
    (skill / "schemas").mkdir()
    (skill / "schemas" / "deep.schema.json").write_text(deep)
    (skill / "schemas" / "train.schema.json").write_text(huge)
    done = run_cli("check", "--repo", str(repo.path), "--ref", "v1", "--format", "json", str(skill), timeout=60)
    assert "Traceback" not in done.err
    (report,) = json.loads(done.out)["skills"]
    (said,) = [p for p in report["promises"] if p["path"] == "train.mode default fast"]
    assert said["status"] == "differs" and len(said["detail"]) < 200 and said["detail"].endswith("the skill says fast")


def test_a_page_citing_tens_of_thousands_of_paths_is_read_up_to_the_cap_and_says_so(tmp_path: Path) -> None:
    repo = make_code_repo(tmp_path / "code")
    skill = make_skill(tmp_path / "skill", QUOTE + "\nSee [the guide](references/guide.md).\n")
    (skill / "references").mkdir()
    line = " ".join(f"`pkg/m{i}.py`" for i in range(8)) + " and plan.py:3\n"
    (skill / "references" / "guide.md").write_text("# Guide\n\n" + line * 9_000)  # one paragraph, 81,000 citations
    report, elapsed = _checked(repo, skill, "--no-cache")
    assert elapsed < 60, "a generous ceiling: the scan is linear in the page"
    from_page = [p for p in report["promises"] if p["file"].endswith("references/guide.md")]
    assert len(from_page) == 2_000
    assert "references/guide.md cites more than 2,000 paths, links and names" in " ".join(report["notes"])


def test_a_card_sentence_of_one_long_word_is_read_in_linear_time(tmp_path: Path) -> None:
    """A known constraint written as one word of 200,000 letters: its line citations are looked for from each
    word's start, not from every letter (which backtracked over the word from each: hours)."""
    repo = make_code_repo(tmp_path / "code")
    word = "A" * 200_000
    card = f'validated_on: "2026-01-15"\nknown_constraints:\n  - {word}_x requires y_{word} > 1.\n'
    report, elapsed = _checked(repo, make_skill(tmp_path / "skill", card=card))
    (sentence,) = [p for p in report["promises"] if p["kind"] == "constraint"]
    assert sentence["status"] == "unverifiable"
    assert elapsed < 30, elapsed


def test_names_of_200000_letters_in_a_skill_are_no_search_git_refuses(tmp_path: Path) -> None:
    """A constant, a call and an import whose names are 200,000 letters long: git takes no argument past 128 KiB,
    so they are searched for nowhere (a name that long is no one's) and the run gives its report."""
    repo = make_code_repo(tmp_path / "code")
    word = "A" * 200_000
    body = (f"Use `{word}_CONFIG`, then call `plan_{word}(x)`.\n\n```python\nfrom pkg.plan import plan_{word}\n```\n")
    report, elapsed = _checked(repo, make_skill(tmp_path / "skill", body))
    assert report["name"] == "skill"
    assert elapsed < 30, elapsed


def test_a_card_of_seventy_thousand_constraint_sentences_ends_within_the_skills_bound(tmp_path: Path) -> None:
    """Each sentence of a card's constraints (here four requirements each) is decided under the skill's budget:
    past it, the rest say so, one result each; and the settings they name are searched for once for the card,
    not once per sentence (which was quadratic: 400 sentences took 8 s).  Unbounded, these took 45 s."""
    repo = make_code_repo(tmp_path / "code")
    sentences = "".join(f"  - a_{i}; b_c; d_e; f_g\n" for i in range(70_000))  # under card.yaml's 2 MiB
    card = f'validated_on: "2026-01-15"\nevidence:\n  - pkg/plan.py\nknown_constraints:\n{sentences}'
    report, elapsed = _checked(repo, make_skill(tmp_path / "skill", card=card))
    said = [p for p in report["promises"] if p["kind"] == "constraint"]
    assert len(said) == 70_000 and {p["status"] for p in said} == {"unverifiable"}
    assert elapsed < 30, elapsed


def test_the_skill_budget_bounds_its_constraint_sentences(tmp_path: Path) -> None:
    """With a clock that finds 15 s gone at each look, the sentences looked at past the skill's 20 s say so, one
    result each; with time enough, none does."""
    from anchor_audit.audit.budget import Budget
    from anchor_audit.audit.skills import Judge, audit_skill
    from anchor_audit.source.git import open_git
    from anchor_audit.spec.skill import load_skill

    repo = make_code_repo(tmp_path / "code")
    card = 'validated_on: "2026-01-15"\nknown_constraints:\n  - a_b must be None\n  - c_d must be None\n  - e_f\n'
    skill = load_skill(make_skill(tmp_path / "skill", card=card))
    now = [0.0]

    def clock() -> float:
        now[0] += 15.0
        return now[0]

    tree = open_git(str(repo.path), "v1")
    report = audit_skill(skill, None, tree, Judge(budget=Budget(clock=clock)))
    said = [p for p in report.promises if p.kind.value == "constraint"]
    assert len(said) == 3 and "this skill's checks ran past 20 s; not checked" in said[-1].detail, said
    in_time = audit_skill(skill, None, tree, Judge())
    assert not any("ran past" in p.detail for p in in_time.promises if p.kind.value == "constraint")


def test_the_files_a_cards_comments_point_into_are_found_once_for_its_sentences(tmp_path: Path) -> None:
    """Ten thousand claims with a card comment each and ten thousand sentences: each sentence's gate is looked for
    in the files the comments point into, found once for the card (once per sentence, the checks ran past the
    skill's bound with most sentences undecided)."""
    repo = make_code_repo(tmp_path / "code")
    claims = "".join(f"  c{i}:\n    - doc_only  # plan.py:{i % 3 + 1}\n" for i in range(10_000))
    sentences = "".join(f"  - a_{i}\n" for i in range(10_000))
    card = f'validated_on: "2026-01-15"\nvalidation_status:\n{claims}known_constraints:\n{sentences}'
    report, elapsed = _checked(repo, make_skill(tmp_path / "skill", card=card))
    said = [p for p in report["promises"] if p["kind"] == "constraint"]
    assert len(said) == 10_000 and not [p for p in said if "ran past" in p["detail"]]
    assert elapsed < 30, elapsed
