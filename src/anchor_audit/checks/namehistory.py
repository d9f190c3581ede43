"""What became of a name the prose cites that the package no longer defines: when was the line citing it written,
and what did the code define then?

A bare name (``CombinedQKVAttentionMixin``, ``setup_qkv_projection()``) that the package defines nowhere at the
ref may be anyone's, so on its own it is not said.  But the line citing it was written at some commit (``git
blame`` of SKILL.md in the repository, matched by the line's text, since a catalog's copy may have its lines
elsewhere; else the day the card says it was validated): if the package defined the name then, the skill cites
something that is gone, and the commit that removed it is named.  One search of that commit's tree for all the
names its lines cite; none where the history is shallow or lean (``SourceTree.line_commits`` says None).
"""

from __future__ import annotations

from ..model import Citation, PromiseStatus, ReferenceKind, Skill
from ..source import SourceTree
from ..source.listing import is_test
from .symbols import bare_searches, definitions

Said = tuple[PromiseStatus, str]


def gone_names(
    skill: Skill, tree: SourceTree, searched: dict[str, list[str]], own: list[str] | None
) -> dict[int, Said]:
    """The bare names the package defines nowhere at the ref that it defined when the line citing them was written
    (``git blame`` of SKILL.md in the repository; else the day its card says it was validated), by the line's
    index in ``skill.citations``: missing, with where they were defined and the commit that removed them.
    A name defined nowhere then either may be anyone's: not said."""
    written, by_commit = _asked(skill, tree, searched, own)
    out: dict[int, Said] = {}
    for sha, cited in by_commit.items():
        then = tree.at_commit(sha)
        if then is None or then.info.commit == tree.info.commit:
            continue
        found = then.search_many(_wanted(cited), ".py") or {}
        for i, c in cited:
            paths = sorted({p for t in definitions(c.target, called(c))[0] for p in found.get(t, [])
                            if not is_test(p)})  # fmt: skip
            if paths:
                removed = tree.definition_removed(paths[0], c.target, sha)
                detail = f"the package defines it nowhere now; {paths[0]} defined it at {sha[:10]} ({then.info.date}), "
                detail += written[c.line][1] + (f"; removed in {removed[0][:10]} ({removed[1]})" if removed else "")
                out[i] = PromiseStatus.MISSING, detail
    return out


def expect_gone_names(skill: Skill, tree: SourceTree, searched: dict[str, list[str]], own: list[str] | None) -> None:
    """Tell the tree of each commit :func:`gone_names` will search (asked alike) what it will search it for, so
    that the trees of many skills' commits are searched together (:meth:`SourceTree.expect_search`)."""
    for sha, cited in _asked(skill, tree, searched, own)[1].items():
        then = tree.at_commit(sha)
        if then is not None and then.info.commit != tree.info.commit:
            then.expect_search(_wanted(cited), ".py")


Cited = list[tuple[int, Citation]]  # (index in skill.citations, the citation)


def _asked(
    skill: Skill, tree: SourceTree, searched: dict[str, list[str]], own: list[str] | None
) -> tuple[dict[int, tuple[str, str]], dict[str, Cited]]:
    """(when each line citing a name defined nowhere was written, the names cited by each such commit)."""
    nowhere = [(i, c) for i, c in enumerate(skill.citations) if c.kind is ReferenceKind.NAME and "." not in c.target
               and not _in_package(c, searched)]  # fmt: skip
    if not nowhere:
        return {}, {}
    written = _written(skill, tree, [c.line for _, c in nowhere], own)
    by_commit: dict[str, Cited] = {}
    for i, c in nowhere:
        if written.get(c.line):
            by_commit.setdefault(written[c.line][0], []).append((i, c))
    return written, by_commit


def _wanted(cited: Cited) -> list[str]:
    """What a commit's tree is searched for: the definitions of the names its lines cite."""
    return sorted({t for _, c in cited for t in definitions(c.target, called(c))[0]})


def called(c: Citation) -> bool:
    """Whether the prose writes the name as a call (``make_batch()``, ``VolumeMapping(source, dest)``)."""
    return c.text.rstrip().endswith(")")


def _in_package(c: Citation, searched: dict[str, list[str]]) -> bool:
    """Whether the package (not its tests: a test's helper of that name is not what the prose means) defines the
    name, or its private form, at the ref."""
    texts = bare_searches(c.target, called(c))
    return any(not is_test(path) for text in texts for path in searched.get(text, []))


def _written(skill: Skill, tree: SourceTree, lines: list[int], own: list[str] | None) -> dict[int, tuple[str, str]]:
    """For each of SKILL.md's ``lines``, (the commit its code was read at, in words when): the commit that wrote
    that line in the repository (matched by its text: a copy's lines may sit elsewhere), else the card's
    ``validated_on`` day's."""
    if skill.repo_folder and own is not None:
        path = f"{skill.repo_folder}/SKILL.md"
        commits, upstream = tree.line_commits(path), tree.read(path)
        if commits is not None and upstream is not None:
            at = {text: commits[n] for n, text in enumerate(upstream.text.split("\n")) if n < len(commits)}
            return {n: (at[own[n - 1]], f"when that line of {path} was written")
                    for n in lines if 0 < n <= len(own) and own[n - 1] in at}  # fmt: skip
    day = skill.card.validated_on if skill.card else None
    then = tree.validated_on(str(day)) if day else None
    if then is None or then.info.commit is None:
        return {}
    return {n: (then.info.commit, "on the day its card says it was validated") for n in lines}
