"""Which deleted path a cited path was: the index answers as a scan of every deletion, newest first, would."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from anchor_audit.source.deletions import DeletionChain, named_by

NAMES = st.sampled_from(["a", "b", "src", "x.py", "b.py", "pkg"])
PATHS = st.lists(NAMES, min_size=1, max_size=4).map("/".join)
COMMITS = st.lists(st.lists(PATHS, max_size=4), min_size=1, max_size=6)  # newest first: each commit's deletions
WANTED = st.sets(PATHS | PATHS.map(lambda p: p.rsplit("/", 1)[0] + "/" if "/" in p else p), max_size=5)


def chain_of(commits: list[list[str]]) -> DeletionChain:
    """A chain whose one git question is answered with these deletions (nothing here runs git)."""
    line = [f"{i:040x}" for i in range(len(commits))]
    answer = {"line": line, "entries": [[sha, names] for sha, names in zip(line, commits, strict=True)]}

    def remember(question: str, shas: list[str], args: list[Any], ask: Any) -> Any:
        assert question == "deletion chain"
        return answer

    return DeletionChain(None, line[0], remember)  # type: ignore[arg-type]


def scanned(commits: list[list[str]], at: int, wanted: set[str]) -> dict[str, tuple[str, str]]:
    """The scan the index replaced: every deletion at or before commit ``at``, newest first."""
    removed: dict[str, tuple[str, str]] = {}
    for place, names in enumerate(commits):
        if place < at:
            continue
        for name in names:
            for cited, was in named_by(name, wanted):
                removed.setdefault(cited, (was, f"{place:040x}"))
    return removed


@given(COMMITS, st.data(), WANTED)
def test_the_index_answers_as_the_scan(commits: list[list[str]], data: st.DataObject, wanted: set[str]) -> None:
    chain = chain_of(commits)
    at = data.draw(st.integers(0, len(commits) - 1))
    assert chain.removed_up_to(f"{at:040x}", wanted) == scanned(commits, at, wanted)


def test_a_folder_and_a_tail_and_the_newest_deletion_win() -> None:
    commits = [["src/pkg/b.py"], ["a/src/pkg/x.py", "src/pkg/b.py"], ["pkg/b.py"]]
    chain = chain_of(commits)
    newest = chain.removed_up_to(f"{0:040x}", {"pkg/b.py", "pkg/", "src/pkg/"})
    assert newest == {"pkg/b.py": ("src/pkg/b.py", f"{0:040x}"), "pkg/": ("src/pkg/", f"{0:040x}"),
                      "src/pkg/": ("src/pkg/", f"{0:040x}")}  # fmt: skip
    assert chain.removed_up_to(f"{2:040x}", {"pkg/b.py", "src/"}) == {"pkg/b.py": ("pkg/b.py", f"{2:040x}")}
    assert chain.removed_up_to("f" * 40, {"pkg/b.py"}) is None  # not on the line
