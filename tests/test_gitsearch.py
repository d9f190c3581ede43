"""A commit searched from the last one searched gives what a search of its whole tree gives (``source/gitsearch.py``)."""

from __future__ import annotations

import os
import shutil

from anchor_audit.source.git import open_git

from .conftest import GitRepo, empty_repo, git

TEXTS = ["def build(", "class Planner", "class Planner:"]  # the last holds the second: git -o names only the longer


def history(tmp_path) -> tuple[GitRepo, list[str]]:
    repo = empty_repo(tmp_path / "code")
    steps = [
        lambda: (repo.write("a/one.py", "def build(x):\n    pass\n"), repo.write("a/notes.md", "def build(\n")),
        lambda: repo.write("a/two.py", "class Planner:\n    pass\n"),  # added
        lambda: repo.write("a/one.py", "def other():\n    pass\n"),  # changed: the text leaves
        lambda: ((repo.path / "b").mkdir(), git(repo.path, "mv", "a/two.py", "b/two.py")),  # moved
        lambda: (repo.remove("a/one.py"), repo.write("a/one.py/inner.py", "def build(y):\n")),  # a file -> a folder
        lambda: (repo.write("c/bin.py", "x"), (repo.path / "c" / "bin.py").write_bytes(b"def build(\0\n")),  # binary
        lambda: shutil.rmtree(repo.path / "b"),  # a folder gone
        lambda: repo.write("c/deep/er/three.py", "class PlannerBase:\n    pass\n"),
    ]
    shas = []
    for i, step in enumerate(steps):
        step()
        shas.append(repo.commit(f"step {i}"))
    return repo, shas


def test_each_commit_from_the_last_searched_is_as_a_whole_search(tmp_path) -> None:
    repo, shas = history(tmp_path)
    walked = open_git(str(repo.path), shas[0])
    for order in (shas, list(reversed(shas)), [shas[0], shas[-1], shas[3], shas[3], shas[1]]):
        for sha in order:
            incremental = walked.at(sha).search_many(TEXTS, ".py")
            whole = open_git(str(repo.path), sha).search_many(TEXTS, ".py")  # a tree of its own: no last search
            assert incremental == whole, sha
    assert whole["def build("] == ["a/one.py"]  # (the first commit's, last in the last order) not notes.md


def test_a_later_commit_runs_git_grep_over_its_changed_files_only(tmp_path) -> None:
    repo, shas = history(tmp_path)
    tree = open_git(str(repo.path), shas[0])
    tree.search_many(TEXTS, ".py")
    trace = tmp_path / "trace"
    os.environ["GIT_TRACE"] = str(trace)
    try:
        tree.at(shas[1]).search_many(TEXTS, ".py")
        tree.at(shas[1]).search_many(TEXTS, ".py")  # the same tree again: no search at all
    finally:
        del os.environ["GIT_TRACE"]
    greps = [line for line in trace.read_text().splitlines() if "built-in: git grep" in line]
    assert len(greps) == 1 and ":(literal)a/two.py" in greps[0] and "*.py" not in greps[0]


def test_a_skills_names_are_answered_from_every_skills_search_of_the_same_tree(tmp_path) -> None:
    """audit() searches once for all skills' definitions; each skill's own question is then a part of it."""
    repo, shas = history(tmp_path)
    names = ["def build(", "class Planner:", "class PlannerBase:", "def other("]
    tree = open_git(str(repo.path), shas[-1])
    tree.search_many(names, ".py")
    trace = tmp_path / "trace"
    os.environ["GIT_TRACE"] = str(trace)
    try:
        part = tree.search_many(["class PlannerBase:", "def build("], ".py")
    finally:
        del os.environ["GIT_TRACE"]
    assert "git grep" not in (trace.read_text() if trace.exists() else "")
    assert part == open_git(str(repo.path), shas[-1]).search_many(["class PlannerBase:", "def build("], ".py")
    assert part["class PlannerBase:"] == ["c/deep/er/three.py"]


def test_texts_that_can_overlap_in_a_line_are_never_answered_from_a_wider_search(tmp_path) -> None:
    """``git grep -o`` names only "class Planner:" where both match: a part of TEXTS is searched on its own."""
    repo, shas = history(tmp_path)
    tree = open_git(str(repo.path), shas[1])
    assert tree.search_many(TEXTS, ".py")["class Planner"] == []  # hidden by the longer, in that search
    assert tree.search_many(["class Planner", "def build("], ".py")["class Planner"] == ["a/two.py"]


DEFINITIONS = ["def build(", "class Planner:", "def other(", "class PlannerBase:"]


def test_definitions_asked_along_a_walk_are_as_a_whole_search_of_each_commit(tmp_path) -> None:
    """One index of every definition asked so far follows the walk (forwards, back, out of order), questions
    growing as it goes: each answer is a whole search's of that commit."""
    repo, shas = history(tmp_path)
    walked = open_git(str(repo.path), shas[0])
    for order in (shas, list(reversed(shas)), [shas[0], shas[-1], shas[3], shas[3], shas[1]]):
        for i, sha in enumerate(order):
            asked = DEFINITIONS[: 1 + i % len(DEFINITIONS)]  # a new definition joins now and then
            incremental = walked.at(sha).search_many(asked, ".py")
            assert incremental == open_git(str(repo.path), sha).search_many(asked, ".py"), (sha, asked)
    assert walked.at(shas[-1]).search_many(DEFINITIONS, ".py") == {
        "def build(": ["a/one.py/inner.py"], "class Planner:": [], "def other(": [],
        "class PlannerBase:": ["c/deep/er/three.py"],
    }  # fmt: skip


def test_a_definition_index_greps_changed_files_for_all_it_knows_and_the_tree_for_what_is_new(tmp_path) -> None:
    repo, shas = history(tmp_path)
    tree = open_git(str(repo.path), shas[0])
    tree.search_many(["def build("], ".py")
    trace = tmp_path / "trace"
    os.environ["GIT_TRACE"] = str(trace)
    try:
        tree.at(shas[1]).search_many(["class Planner:"], ".py")  # a new one: its own whole search
        tree.at(shas[2]).search_many(["def build("], ".py")  # known: only the changed file, for both it knows
    finally:
        del os.environ["GIT_TRACE"]
    greps = [line for line in trace.read_text().splitlines() if "built-in: git grep" in line]
    assert len(greps) == 3
    moved, new, changed = greps  # shas[0] -> shas[1]: a/two.py added, searched for def build( alone
    assert ":(literal)a/two.py" in moved and "'def build('" in moved and "class Planner" not in moved
    assert "*.py" in new and "'class Planner:'" in new and "def build(" not in new
    assert ":(literal)a/one.py" in changed and "'def build('" in changed and "'class Planner:'" in changed


def test_definitions_share_one_expression_and_answer_only_what_was_asked(tmp_path) -> None:
    """One ``git grep -E`` for every definition (git tries each ``-e`` on every line): a kind not asked (``def
    Planner(`` where ``class Planner:`` was) is not reported, a name that begins another's is told apart, and a
    name outside ASCII is searched as a fixed string, as before."""
    repo = empty_repo(tmp_path / "code")
    repo.write("pkg/a.py", "def Planner(x):\n    pass\nclass build_all(object):\n    pass\n")
    repo.write("pkg/b.py", "class Planner:\n    pass\ndef build(y): return y\ndef größe(z):\n    pass\n")
    tree = open_git(str(repo.path), repo.commit("two files"))
    others = [f"def absent_{i}(" for i in range(20)]  # enough for one expression, not fixed strings
    asked = ["class Planner:", "class Planner(", "def build(", "class build_all(", "def build_all(", *others]
    trace = tmp_path / "trace"
    os.environ["GIT_TRACE"] = str(trace)
    try:
        found = tree.search_many(asked, ".py")
    finally:
        del os.environ["GIT_TRACE"]
    assert found == {
        "class Planner:": ["pkg/b.py"], "class Planner(": [], "def build(": ["pkg/b.py"],
        "class build_all(": ["pkg/a.py"], "def build_all(": [], **{text: [] for text in others},
    }  # fmt: skip
    (grep,) = [line for line in trace.read_text().splitlines() if "built-in: git grep" in line]
    assert " -E -e '(class|def) (Planner|absent_0|" in grep and "-F" not in grep
    again = open_git(str(repo.path), "HEAD")
    assert again.search_many(["def Planner(", "def größe("], ".py") == {"def Planner(": ["pkg/a.py"], "def größe(": ["pkg/b.py"]}


def test_thousands_of_definitions_are_searched_in_several_expressions(tmp_path) -> None:
    """No argument past the kernel's 128 KiB, and a name in any chunk found (the last chunk's too)."""
    repo = empty_repo(tmp_path / "code")
    names = [f"name_{i:05d}_{'x' * 130}" for i in range(2_500)]
    repo.write("pkg/a.py", f"def {names[0]}():\n    pass\nclass {names[-1]}:\n    pass\n")
    tree = open_git(str(repo.path), repo.commit("one file"))
    asked = [f"def {name}(" for name in names] + [f"class {names[-1]}:"]
    found = tree.search_many(asked, ".py")
    assert {text for text, paths in found.items() if paths} == {f"def {names[0]}(", f"class {names[-1]}:"}


def test_an_expression_finds_a_definition_on_a_line_that_is_not_utf8(tmp_path, monkeypatch) -> None:
    """Fixed strings match bytes; so must the expression, whatever the locale git runs in (C, C.UTF-8)."""
    repo = empty_repo(tmp_path / "code")
    repo.write("pkg/a.py", "placeholder\n")
    (repo.path / "pkg" / "a.py").write_bytes(b'x = "\xff\xfe"; class Planner(object):\n# caf\xe9\nclass Other(\xe9):\n')
    tree = open_git(str(repo.path), repo.commit("latin-1 and stray bytes"))
    asked = ["class Planner(", "class Other(", *(f"def absent_{i}(" for i in range(20))]
    for locale in ("C", "C.UTF-8"):
        monkeypatch.setenv("LC_ALL", locale)
        found = open_git(str(repo.path), "HEAD").search_many(asked, ".py")
        assert found["class Planner("] == ["pkg/a.py"] and found["class Other("] == ["pkg/a.py"], locale
    assert tree.search_many(asked, ".py")["class Planner("] == ["pkg/a.py"]


def _greps(trace) -> list[str]:
    return [line for line in trace.read_text().splitlines() if "built-in: git grep" in line] if trace.exists() else []


def test_expected_trees_are_searched_in_one_grep_when_the_first_is_asked_each_as_a_whole_search(tmp_path) -> None:
    """A name's past asks the trees of the commits that wrote the lines citing it (one per skill, far apart):
    told beforehand, all of them are searched in one ``git grep`` over every tree, for every definition any
    of them expects, when the first is asked; each tree's answer is its whole search's."""
    repo, shas = history(tmp_path)
    tree = open_git(str(repo.path), shas[-1])
    asked = {shas[0]: ["def build("], shas[2]: ["class Planner:", "def other("], shas[5]: ["def build("]}
    for sha, texts in asked.items():
        tree.at(sha).expect_search(texts, ".py")
    trace = tmp_path / "trace"
    os.environ["GIT_TRACE"] = str(trace)
    try:
        answers = {sha: tree.at(sha).search_many(texts, ".py") for sha, texts in reversed(asked.items())}
        again = tree.at(shas[0]).search_many(["class Planner:"], ".py")  # another's definition: searched already
    finally:
        del os.environ["GIT_TRACE"]
    (grep,) = _greps(trace)
    roots = [git(repo.path, "rev-parse", f"{sha}^{{tree}}").strip() for sha in asked]
    assert all(root in grep for root in roots) and "'*.py'" in grep
    for sha, texts in asked.items():
        assert answers[sha] == open_git(str(repo.path), sha).search_many(texts, ".py"), sha
    assert again == open_git(str(repo.path), shas[0]).search_many(["class Planner:"], ".py")
    assert answers[shas[5]]["def build("] == ["a/one.py/inner.py"]  # c/bin.py's is binary: skipped, as ever


def test_expected_trees_never_asked_are_never_searched(tmp_path) -> None:
    """A run whose answers are remembered asks no tree: what was expected costs nothing."""
    repo, shas = history(tmp_path)
    tree = open_git(str(repo.path), shas[-1])
    trace = tmp_path / "trace"
    os.environ["GIT_TRACE"] = str(trace)
    try:
        for sha in shas[:3]:
            tree.at(sha).expect_search(["def build("], ".py")
        tree.search_many(["class Planner:"], ".py")  # another tree, not expected
    finally:
        del os.environ["GIT_TRACE"]
    (grep,) = _greps(trace)
    assert shas[-1] in grep and not any(sha in grep for sha in shas[:3])


def test_a_tree_expected_alone_is_searched_as_any_tree_is(tmp_path) -> None:
    """With no other tree to share a search with, an expected tree is worked out from the nearest index, as if
    never expected (its changed files, not its whole tree)."""
    repo, shas = history(tmp_path)
    tree = open_git(str(repo.path), shas[0])
    tree.search_many(["def build("], ".py")
    tree.at(shas[1]).expect_search(["def build("], ".py")
    trace = tmp_path / "trace"
    os.environ["GIT_TRACE"] = str(trace)
    try:
        found = tree.at(shas[1]).search_many(["def build("], ".py")
    finally:
        del os.environ["GIT_TRACE"]
    (grep,) = _greps(trace)
    assert ":(literal)a/two.py" in grep and "*.py" not in grep
    assert found == {"def build(": ["a/one.py"]}


def test_a_tree_a_walks_index_holds_is_not_searched_again_with_the_expected(tmp_path) -> None:
    repo, shas = history(tmp_path)
    tree = open_git(str(repo.path), shas[0])
    tree.at(shas[4]).search_many(["def build("], ".py")  # a walk's index at shas[4]
    for sha in (shas[4], shas[6], shas[7]):
        tree.at(sha).expect_search(["def build("], ".py")
    trace = tmp_path / "trace"
    os.environ["GIT_TRACE"] = str(trace)
    try:
        found = {sha: tree.at(sha).search_many(["def build("], ".py") for sha in (shas[6], shas[4], shas[7])}
    finally:
        del os.environ["GIT_TRACE"]
    (grep,) = _greps(trace)
    roots = {sha: git(repo.path, "rev-parse", f"{sha}^{{tree}}").strip() for sha in (shas[4], shas[6], shas[7])}
    assert roots[shas[6]] in grep and roots[shas[7]] in grep and roots[shas[4]] not in grep
    assert all(found[sha] == open_git(str(repo.path), sha).search_many(["def build("], ".py") for sha in found)


def test_expected_trees_whose_search_runs_past_its_bound_are_each_searched_as_any_tree(tmp_path) -> None:
    """A search of many trees is bounded by the sum of their bounds; past it, each tree is searched when asked
    (and bounded) on its own, and none is expected again."""
    from functools import partial

    from anchor_audit.errors import BoundExceeded
    from anchor_audit.source.gitsearch import TreeSearch, git_grep

    repo, shas = history(tmp_path)
    tree = open_git(str(repo.path), shas[-1])
    tried: list[list[bytes]] = []

    def past_its_bound(roots: list[bytes], texts: list[str], suffix: str) -> dict:
        tried.append(roots)
        raise BoundExceeded(f"the search for {len(texts)} names ran past {20 * len(roots)} s")

    search = TreeSearch(tree._trees, past_its_bound)
    roots = {sha: tree.repo.commit(sha).tree.binsha for sha in shas[:3]}
    for sha in shas[:3]:
        search.expect(roots[sha], ["def build("], ".py")
    found = {sha: search.search_many(roots[sha], ["def build("], ".py", partial(git_grep, tree.repo, sha, ".py"))
             for sha in shas[:3]}  # fmt: skip
    assert len(tried) == 1 and sorted(tried[0]) == sorted(roots.values())  # tried once, for the three together
    assert all(found[sha] == open_git(str(repo.path), sha).search_many(["def build("], ".py") for sha in shas[:3])


def test_a_path_holding_a_colon_keeps_its_search_hits(tmp_path) -> None:
    """git grep names a hit TREE:PATH; a tree's name holds no colon, a path may (``conf/a:b.py``)."""
    repo = empty_repo(tmp_path / "code")
    repo.write("conf/a:b.py", "def build(x):\n    return x\n")
    repo.write("pkg/plain.py", "class Planner:\n    pass\n")
    sha = repo.commit("colon")
    tree = open_git(str(repo.path), sha)
    assert tree.search_many(["def build(", "class Planner:"], ".py") == {
        "def build(": ["conf/a:b.py"], "class Planner:": ["pkg/plain.py"]
    }


def test_whole_words_are_found_as_words_and_each_skills_are_answered_from_every_skills_search(tmp_path) -> None:
    """A whole-word search finds ``Planner`` in ``class Planner:`` but not inside ``PlannerBase`` or
    ``build_Planner``; a search for some of the words a wider one asked is answered from it, with no git grep
    (whole words never overlap in a line, so the answer is the same)."""
    repo, shas = history(tmp_path)
    repo.write("d/four.py", "build_Planner = PlannerBase\n")
    tree = open_git(str(repo.path), repo.commit("words"))
    every = tree.search_many(["Planner", "PlannerBase", "build", "other"], ".py", words=True)
    assert every == {"Planner": [], "PlannerBase": ["c/deep/er/three.py", "d/four.py"],
                     "build": ["a/one.py/inner.py"], "other": []}  # fmt: skip
    trace = tmp_path / "trace"
    os.environ["GIT_TRACE"] = str(trace)
    try:
        part = tree.search_many(["PlannerBase", "build"], ".py", words=True)
    finally:
        del os.environ["GIT_TRACE"]
    assert "git grep" not in (trace.read_text() if trace.exists() else "")
    assert part == open_git(str(repo.path), tree.info.commit).search_many(["PlannerBase", "build"], ".py", words=True)
    assert part["PlannerBase"] == ["c/deep/er/three.py", "d/four.py"]


def _traced(tmp_path, ask) -> tuple[object, int]:
    """What ``ask()`` answers, and how many ``git grep`` processes it started."""
    trace = tmp_path / f"trace{len(list(tmp_path.glob('trace*')))}"
    os.environ["GIT_TRACE"] = str(trace)
    try:
        answer = ask()
    finally:
        del os.environ["GIT_TRACE"]
    return answer, len(_greps(trace))


def test_definitions_and_whole_words_asked_together_share_one_search_with_the_answers_of_two(tmp_path) -> None:
    """Definitions beside whole words are one ``git grep``: a definition's match holds its name, so a name asked
    both ways (``class LIMIT:`` and ``LIMIT``) is found both ways; a word that could take the start of a
    definition's match (``subclass``) has the two searched apart.  Each answer is the separate searches' own."""
    repo = empty_repo(tmp_path / "code")
    repo.write("a.py", "class LIMIT:\n    pass\ndef build(x): return MAX_RANK\n")
    repo.write("b.py", "subclass Planner(x)\nMAX_RANKS = 2\nclass Planner:\n")
    repo.write("c.py", "MAX_RANK = 4  # def build(\n")
    (repo.path / "d.py").write_bytes("caféLIMIT = 1\n".encode() + b"\xff MAX_RANK\n")  # git's words: ASCII's
    tree = open_git(str(repo.path), repo.commit("names"))
    definitions, words = ["class LIMIT:", "def build(", "class Planner(", "class Planner:"], ["LIMIT", "MAX_RANK"]
    apart = {**tree.search_many(definitions, ".py"), **tree.search_many(words, ".py", words=True)}
    assert apart == {"class LIMIT:": ["a.py"], "def build(": ["a.py", "c.py"], "class Planner(": ["b.py"],
                     "class Planner:": ["b.py"], "LIMIT": ["a.py", "d.py"], "MAX_RANK": ["a.py", "c.py", "d.py"]}  # fmt: skip
    together, greps = _traced(tmp_path, lambda: open_git(str(repo.path), "HEAD").search_many(
        definitions + words, ".py", words=True))  # fmt: skip
    assert (together, greps) == (apart, 1)
    overlapping = [*definitions, "subclass"]
    together, greps = _traced(tmp_path, lambda: open_git(str(repo.path), "HEAD").search_many(
        overlapping + words, ".py", words=True))  # fmt: skip
    assert (together, greps) == ({**apart, "subclass": ["b.py"]}, 2)
