"""What became of a name the prose cites that the package no longer defines: when was the line citing it written,
and what did the code define then?

A bare name (``CombinedQKVAttentionMixin``, ``setup_qkv_projection()``) that the package defines nowhere at the
ref may be anyone's, so on its own it is not said.  But the line citing it was written at some commit (``git
blame`` of the file it is written in, SKILL.md or a page, in the repository, matched by the line's text, since a
catalog's copy may have its lines elsewhere; else the day the card says it was validated): if the package
defined the name then, the skill cites something that is gone, and the commit that removed it is named.  Only
in a repository that is a Python package at its root: elsewhere the names a skill calls are other projects'.
One search of that commit's tree for all the names its lines cite; none where the history is shallow or lean
(``SourceTree.line_commits`` says None).
"""

from __future__ import annotations

from typing import Callable

from ..errors import NotCarried, UnreadableFile
from ..model import Citation, PromiseStatus, ReferenceKind, Skill
from ..source import SourceTree
from ..source.listing import is_test
from ..spec.citations import setting_of
from .barenames import (
    bare_searches,
    defined_in,
    definitions,
    expect_all,
    read_to_confirm,
    removal_pattern,
    search_all,
)

Said = tuple[PromiseStatus, str]
OwnLines = Callable[[str], "list[str] | None"]  # a file of the skill (``SKILL.md``, ``references/x.md``): its lines


def gone_names(skill: Skill, tree: SourceTree, searched: dict[str, list[str]], own: OwnLines) -> dict[int, Said]:
    """The bare names the package defines nowhere at the ref that it defined when the line citing them was written
    (``git blame`` of the file it is written in, in the repository; else the day its card says it was validated),
    by the line's index in ``skill.citations``: missing, with where they were defined and the commit that removed
    them.
    A name defined nowhere then either may be anyone's: not said."""
    written, by_commit = _asked(skill, tree, searched, own)
    out: dict[int, Said] = {}
    for sha, cited in by_commit.items():
        then = tree.at_commit(sha)
        if then is None or then.info.commit == tree.info.commit:
            continue
        found = search_all(then, _wanted(cited)) or {}
        for i, c in cited:
            paths = sorted({p for t in definitions(c.target, called(c))[0] for p in found.get(t, [])
                            if not is_test(p)})  # fmt: skip
            if paths and read_to_confirm(c.target, called(c)):
                paths = defined_in(then, paths, c.target, called(c))
            if paths:
                out[i] = _gone(c, tree, paths[0], sha, f"{then.info.date}), {written[(c.file, c.line)][1]}")
    return out


def _gone(c: Citation, tree: SourceTree, path: str, sha: str, when: str) -> Said:
    """A name ``path`` defined at ``sha`` that the package defines nowhere now: missing, with the commit that
    removed it."""
    removed = tree.definition_removed(path, removal_pattern(c.target, called(c)), sha)
    detail = f"the package defines it nowhere now; {path} defined it at {sha[:10]} ({when}"
    return PromiseStatus.MISSING, detail + (f"; removed in {removed[0][:10]} ({removed[1]})" if removed else "")


def expect_gone_names(skill: Skill, tree: SourceTree, searched: dict[str, list[str]], own: OwnLines) -> None:
    """Tell the tree of each commit :func:`gone_names` will search (asked alike) what it will search it for, so
    that the trees of many skills' commits are searched together (:meth:`SourceTree.expect_search`)."""
    for sha, cited in _asked(skill, tree, searched, own)[1].items():
        then = tree.at_commit(sha)
        if then is not None and then.info.commit != tree.info.commit:
            expect_all(then, _wanted(cited))


Cited = list[tuple[int, Citation]]  # (index in skill.citations, the citation)


def _asked(
    skill: Skill, tree: SourceTree, searched: dict[str, list[str]], own: OwnLines
) -> tuple[dict[tuple[str, int], tuple[str, str]], dict[str, Cited]]:
    """(when each line citing a name defined nowhere was written, by its file and line; the names cited by each
    such commit)."""
    nowhere = [(i, c) for i, c in enumerate(skill.citations) if c.kind is ReferenceKind.NAME and "." not in c.target
               and setting_of(c.text, c.target) is None and not _in_package(c, searched)]  # fmt: skip
    if not nowhere or not _is_a_package(tree):
        return {}, {}
    written: dict[tuple[str, int], tuple[str, str]] = {}
    for file in dict.fromkeys(c.file for _, c in nowhere):
        lines = [c.line for _, c in nowhere if c.file == file]
        written |= {(file, n): said for n, said in _written(skill, tree, file, lines, own).items()}
    by_commit: dict[str, Cited] = {}
    for i, c in nowhere:
        if written.get((c.file, c.line)):
            by_commit.setdefault(written[(c.file, c.line)][0], []).append((i, c))
    return written, by_commit


def _wanted(cited: Cited) -> list[str]:
    """What a commit's tree is searched for: the definitions of the names its lines cite."""
    return sorted({t for _, c in cited for t in definitions(c.target, called(c))[0]})


def called(c: Citation) -> bool:
    """Whether the prose writes the name as a call (``make_batch()``, ``VolumeMapping(source, dest)``)."""
    return c.text.rstrip().endswith(")")


def _is_a_package(tree: SourceTree) -> bool:
    """Whether the repository is a Python package at its root (``pyproject.toml`` or ``setup.py`` there): in a
    repository of skills or of C code, the names a skill calls are other projects', and their lines are not
    dated (a ``git blame`` each)."""
    try:
        return any(tree.blob_id(name) is not None for name in ("pyproject.toml", "setup.py"))
    except (NotCarried, UnreadableFile):
        return False


def _in_package(c: Citation, searched: dict[str, list[str]]) -> bool:
    """Whether the package (not its tests: a test's helper of that name is not what the prose means) defines the
    name, or its private form, at the ref; a constant, whether any Python file writes it (``PACKED, OTHER = 1,
    2``, a key of a table, an alias: not said gone, and its line not dated)."""
    texts = bare_searches(c.target, called(c))
    tests_too = read_to_confirm(c.target, called(c))
    return any(tests_too or not is_test(path) for text in texts for path in searched.get(text, []))


def _written(
    skill: Skill, tree: SourceTree, file: str, lines: list[int], own: OwnLines
) -> dict[int, tuple[str, str]]:
    """For each of ``lines`` of the skill's ``file``, (the commit its code was read at, in words when): the commit
    that wrote that line in the repository (matched by its text: a copy's lines may sit elsewhere), else the
    card's ``validated_on`` day's."""
    mine = own(file) if skill.repo_folder else None
    if skill.repo_folder and mine is not None:
        path = f"{skill.repo_folder}/{file}"
        commits, upstream = tree.line_commits(path), tree.read(path)
        if commits is not None and upstream is not None:
            at = {text: commits[n] for n, text in enumerate(upstream.text.split("\n")) if n < len(commits)}
            return {n: (at[mine[n - 1]], f"when that line of {path} was written")
                    for n in lines if 0 < n <= len(mine) and mine[n - 1] in at}  # fmt: skip
    day = skill.card.validated_on if skill.card else None
    then = tree.validated_on(str(day)) if day else None
    if then is None or then.info.commit is None:
        return {}
    return {n: (then.info.commit, "on the day its card says it was validated") for n in lines}
