"""Searching a repository's commits for many texts at once, each commit worked out from the last one searched.

A history, a matrix or an impact asks the same question (where are these names defined? where did these
quotes go?) of many commits that differ in a few files.  The first commit is searched whole, with one
``git grep``; each later one is compared with the last searched, tree object by tree object in-process (a
subtree whose sha did not change is not entered), and only its changed files are searched again, with one
``git grep`` over just those paths, so the answer is git's own, as if the whole tree had been searched.
"""

from __future__ import annotations

import re
from typing import Callable

import git

from ..errors import BoundExceeded
from .gittrees import GITLINK_KIND, TREE_KIND, TreeObjects

SEARCH_TIMEOUT = 20  # seconds one search (git grep over a tree) may take

# Past this many changed files one search of the whole tree costs less than naming each (and the command line
# stays short).
MAX_CHANGED = 200
_DEFINITION = re.compile(r"(?:def|class) \w+[(:]")  # a name's definition, as symbols searches it
MAX_REMEMBERED = 512  # questions (texts, suffix) remembered at once: each holds only the files that matched

Grep = Callable[[list[str] | None], dict[str, set[str]]]  # paths (None: the whole tree) -> path -> texts found


class TreeSearch:
    """One repository's last answer to each question, and the tree it was for (shared by the trees ``at()``
    opens, as their tree objects are)."""

    def __init__(self, trees: TreeObjects) -> None:
        self.trees = trees
        self._last: dict[tuple[tuple[str, ...], str], tuple[bytes, dict[str, set[str]]]] = {}

    def search_many(self, root: bytes, texts: list[str], suffix: str, grep: Grep) -> dict[str, list[str]]:
        """For each of ``texts``, the paths of files ending in ``suffix`` under the tree ``root`` that hold it."""
        key = (tuple(texts), suffix)
        wider = self._wider(root, texts, suffix) if key not in self._last else None
        if wider is not None:  # asked of this tree with more texts (every skill's names at once): a part of that
            return {text: sorted(path for path, hits in wider.items() if text in hits) for text in texts}
        last = self._last.get(key)
        found: dict[str, set[str]] | None = None
        if last is not None and last[0] != root:
            changed, removed = changes(self.trees, last[0], root, suffix)
            if len(changed) <= MAX_CHANGED:
                found = {path: hits for path, hits in last[1].items() if path not in changed and path not in removed}
                found.update(grep(sorted(changed)) if changed else {})
        elif last is not None:
            found = last[1]
        if found is None:
            found = grep(None)
        self._last.pop(key, None)
        self._last[key] = (root, found)
        while len(self._last) > MAX_REMEMBERED:
            del self._last[next(iter(self._last))]
        return {text: sorted(path for path, hits in found.items() if text in hits) for text in texts}


    def _wider(self, root: bytes, texts: list[str], suffix: str) -> dict[str, set[str]] | None:
        """The answer, at ``root``, to a question that asked every one of ``texts`` and more, when its answer holds
        for a part of it; None if none did.  ``git grep -o`` names one of two matches that overlap in a line, so
        only a question whose texts cannot overlap is taken apart: definitions (``def NAME(``, ``class NAME:``)
        begin with ``def``/``class`` and end at ``(``/``:``, so no two overlap and none holds another."""
        wanted = set(texts)
        for (asked, asked_suffix), (at, found) in reversed(self._last.items()):
            if at == root and asked_suffix == suffix and len(asked) > len(wanted) and wanted.issubset(asked):
                if all(_DEFINITION.fullmatch(text) for text in asked):
                    return found
        return None


def changes(trees: TreeObjects, old: bytes, new: bytes, suffix: str) -> tuple[set[str], set[str]]:
    """(paths ending in ``suffix`` whose content is new or changed in ``new``, those gone from it) between two
    root trees; subtrees with the same sha are not entered."""
    changed: set[str] = set()
    removed: set[str] = set()
    _compare(trees, old, new, "", suffix, changed, removed)
    return changed, removed


def _compare(
    trees: TreeObjects, old: bytes | None, new: bytes | None, base: str, suffix: str, changed: set[str],
    removed: set[str],
) -> None:  # fmt: skip
    before = trees.entries(old) if old is not None else {}
    after = trees.entries(new) if new is not None else {}
    for name in before.keys() | after.keys():
        was, now = before.get(name), after.get(name)
        if was == now:
            continue
        path = base + name
        was_tree = was is not None and was[0] >> 12 == TREE_KIND
        now_tree = now is not None and now[0] >> 12 == TREE_KIND
        if was_tree or now_tree:  # a folder on either side: its files are compared with what stands there now
            _compare(trees, was[1] if was_tree and was else None, now[1] if now_tree and now else None,
                     f"{path}/", suffix, changed, removed)  # fmt: skip
        if not path.endswith(suffix):
            continue
        if now is not None and not now_tree and now[0] >> 12 != GITLINK_KIND:
            changed.add(path)
        elif was is not None and not was_tree:
            removed.add(path)


def git_grep(repo: git.Repo, sha: str, texts: list[str], suffix: str, paths: list[str] | None) -> dict[str, set[str]]:
    """Path -> which of ``texts`` it holds, for the files ending in ``suffix`` of commit ``sha`` (``paths``: only
    these, named literally), from one ``git grep -F -o`` (binary files skipped, as ``-I`` does)."""
    patterns = [arg for text in texts for arg in ("-e", text)]
    where = [f"*{suffix}"] if paths is None else [f":(literal){path}" for path in paths]
    try:
        out = repo.git.grep(
            "-F", "-o", "-z", "-I", "--no-color", *patterns, sha, "--", *where,
            kill_after_timeout=SEARCH_TIMEOUT, with_extended_output=False,
        )  # fmt: skip
    except git.GitCommandError as exc:
        if exc.status is None or (isinstance(exc.status, int) and exc.status < 0) or "Timeout" in str(exc):
            raise BoundExceeded(f"the search for {len(texts)} names ran past {SEARCH_TIMEOUT} s") from None
        out = ""  # status 1: no file holds any of them
    found: dict[str, set[str]] = {}
    for record in out.split("\n"):
        at, _, text = record.partition("\0")
        if ":" in at and text:
            found.setdefault(at.split(":", 1)[1], set()).add(text)
    return found
