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
_IDENTIFIER = re.compile(r"\w+")  # a name asked as a whole word
_WORDS = " words"  # after a suffix: the questions and answers of whole-word searches
_PLAIN_DEFINITION = re.compile(r"(def|class) ([A-Za-z0-9_]+)[(:]")  # one whose name needs no locale to match
FIXED_AT_MOST = 16  # texts searched as fixed strings all the same (as fast as an expression up to about here)
NAMES_AT_ONCE = 1_000  # names in one expression (the fastest chunk, measured at 250 to 2,000)
MAX_EXPRESSION_CHARS = 60_000  # and characters: the kernel refuses one argument past 128 KiB
MAX_TEXT = 512  # characters of a text searched for; a longer one (a skill's word of 200,000 letters) is found nowhere
MAX_REMEMBERED = 512  # questions (texts, suffix) remembered at once: each holds only the files that matched

Grep = Callable[[list[str], list[str] | None], dict[str, set[str]]]  # texts, paths (None: all) -> path -> texts
TreesGrep = Callable[..., dict[bytes, dict[str, set[str]]]]  # roots, texts, suffix[, words] -> root -> path -> texts
EXPECTED_AT_ONCE = 16  # trees one search serves together (an expected tree past it is searched when asked)
MAX_EXPECTED_INDEXES = 64  # expected trees' indexes kept (apart from a walk's, which they never push out)
MAX_DEFINITIONS = 20_000  # definitions an index follows at once (past it, the next tree's starts again)
MAX_INDEXES = 16  # trees a repository keeps a definition index at (the nearest is moved to the tree asked)
NEAR_ENOUGH = 20  # changed files within which an index is taken without comparing the others


class TreeSearch:
    """One repository's last answer to each question, and the tree it was for (shared by the trees ``at()``
    opens, as their tree objects are); and one index of every definition asked so far, kept at the last tree
    it was asked of."""

    def __init__(self, trees: TreeObjects, grep_trees: TreesGrep | None = None) -> None:
        self.trees = trees
        self._grep_trees = grep_trees
        self._last: dict[tuple[tuple[str, ...], str], tuple[bytes, dict[str, set[str]]]] = {}
        self._definitions: dict[str, list[tuple[bytes, dict[str, set[str]]]]] = {}  # suffix -> [(root, text -> paths)]
        self._expected: dict[str, dict[bytes, set[str]]] = {}  # suffix -> root -> definitions it will be asked
        self._searched_expected: dict[str, dict[bytes, dict[str, set[str]]]] = {}  # suffix -> root -> index
        self._changed: dict[tuple[bytes, bytes, str, int], tuple[set[str], set[str]]] = {}  # see _changes

    def expect(self, root: bytes, texts: list[str], suffix: str, words: bool = False) -> None:
        """The definitions the tree ``root`` will be asked for (a name's past, at the commit that wrote the line
        citing it): the first expected tree asked is searched in one ``git grep`` together with the others, each
        for all the definitions expected of any (what each tree holds is git's answer for that tree, whoever
        asked).  Nothing is searched until a tree is asked: a run whose answers are remembered searches none.
        With ``words``, the texts that are identifiers are asked as whole words (a constant's name), beside the
        definitions."""
        if self._grep_trees is None or not all(
            _DEFINITION.fullmatch(t) or (words and _IDENTIFIER.fullmatch(t)) for t in texts
        ):
            return
        kind = suffix + _WORDS if words else suffix
        walked = next((index for at, index in self._definitions.get(kind, []) if at == root), {})
        known = self._searched_expected.get(kind, {}).get(root) or walked
        wanted = {text for text in texts if text not in known}
        if wanted:
            self._expected.setdefault(kind, {}).setdefault(root, set()).update(wanted)

    def search_many(
        self, root: bytes, texts: list[str], suffix: str, grep: Grep, words: bool = False
    ) -> dict[str, list[str]]:
        """For each of ``texts``, the paths of files ending in ``suffix`` under the tree ``root`` that hold it (with
        ``words``: each identifier among them written as a whole word, each other text a definition)."""
        if all(_DEFINITION.fullmatch(text) or (words and _IDENTIFIER.fullmatch(text)) for text in texts):
            # none can hide another in a line
            known = self._defined(root, texts, suffix, grep, suffix + _WORDS if words else suffix)
            return {text: sorted(known[text]) for text in texts}
        found = self._as_asked(root, texts, suffix, grep)
        return {text: sorted(path for path, hits in found.items() if text in hits) for text in texts}

    def _as_asked(self, root: bytes, texts: list[str], suffix: str, grep: Grep) -> dict[str, set[str]]:
        """Path -> which of ``texts`` it holds at ``root``: the last answer to the same question, its changed files
        searched again where it was of another tree; else a search of the whole tree."""
        key = (tuple(texts), suffix)
        last = self._last.get(key)
        found: dict[str, set[str]] | None = None
        if last is not None and last[0] != root:
            changed, removed = changes(self.trees, last[0], root, suffix)
            if len(changed) <= MAX_CHANGED:
                found = {path: hits for path, hits in last[1].items() if path not in changed and path not in removed}
                found.update(grep(texts, sorted(changed)) if changed else {})
        elif last is not None:
            found = last[1]
        if found is None:
            found = grep(texts, None)
        self._last.pop(key, None)
        self._last[key] = (root, found)
        while len(self._last) > MAX_REMEMBERED:
            del self._last[next(iter(self._last))]
        return found

    def _defined(
        self, root: bytes, texts: list[str], suffix: str, grep: Grep, kind: str | None = None
    ) -> dict[str, set[str]]:
        """Where each definition asked so far lies at ``root`` (``texts`` among them): from the nearest tree an
        index was kept at (a history, an impact and a name's past ask of commits far apart), by a search of the
        files changed since for every definition it holds, and a search of the whole tree for the definitions new
        to it.  Definitions may share one ``git grep -o``: each begins with ``def`` or ``class`` and ends at ``(``
        or ``:``, so no two overlap in a line and none hides another (texts that can, such as quoted lines, are
        searched as asked, above).  Identifiers asked as whole words overlap neither each other nor a definition
        but where it holds them whole (:func:`_search`): ``kind`` keeps the indexes of searches with and without
        words apart (the suffix, and " words")."""
        kind = kind or suffix
        states = self._definitions.setdefault(kind, [])
        here = next((known for at, known in states if at == root), None)
        if here is None:
            here = self._expected_index(root, kind)
        else:  # a walk's index has it: what it lacks is searched below, with no other tree
            self._expected.get(kind, {}).pop(root, None)
        if here is None:
            nearest: tuple[dict[str, set[str]], set[str], set[str]] | None = None
            for at, known in reversed(states):  # the most recent first: a walk's last commit is most often nearest
                most = MAX_CHANGED if nearest is None else len(nearest[1]) - 1  # no farther than the nearest yet
                changed, removed = self._changes(at, root, suffix, most)
                if len(changed) <= most:
                    nearest = known, changed, removed
                if len(changed) <= NEAR_ENOUGH:
                    break
            here = {}
            if nearest is not None and len(nearest[0]) <= MAX_DEFINITIONS:
                known, changed, removed = nearest
                here = {text: paths - changed - removed for text, paths in known.items()}
                for path, hits in (grep(sorted(here), sorted(changed)) if changed and here else {}).items():
                    for text in hits:
                        here[text].add(path)
            states.append((root, here))
            del states[:-MAX_INDEXES]
        new = sorted({text for text in texts if text not in here})
        if new:
            here.update((text, set()) for text in new)
            for path, hits in grep(new, None).items():
                for text in hits:
                    here[text].add(path)
        return here

    def _changes(self, at: bytes, root: bytes, suffix: str, most: int) -> tuple[set[str], set[str]]:
        """:func:`changes`, each answer remembered: the definitions' and the whole words' indexes of one walk ask
        the same."""
        key = (at, root, suffix, most)
        if key not in self._changed:
            if len(self._changed) >= MAX_INDEXES * 4:
                del self._changed[next(iter(self._changed))]
            self._changed[key] = changes(self.trees, at, root, suffix, most)
        return self._changed[key]

    def _expected_index(self, root: bytes, kind: str) -> dict[str, set[str]] | None:
        """The index of an expected tree: searched, with up to ``EXPECTED_AT_ONCE - 1`` other expected trees, in
        one ``git grep`` for every definition expected of any of them, when the first of them is asked.  None
        where ``root`` was not expected, or was the only tree expected, or the search ran past its bound (each
        is then searched as any tree is).  ``kind``: the suffix, and whether whole words were expected."""
        indexes = self._searched_expected.setdefault(kind, {})
        expected = self._expected.get(kind, {})
        if root in expected and len(expected) == 1:  # no other tree to share a search with: as if never expected
            del expected[root]
        elif root in expected and self._grep_trees is not None:
            roots = [root] + [at for at in expected if at != root][: EXPECTED_AT_ONCE - 1]
            texts = sorted(set().union(*(expected.pop(at) for at in roots)))
            try:
                suffix = kind.removesuffix(_WORDS)
                words = (True,) if kind.endswith(_WORDS) else ()
                found = self._grep_trees(roots, texts, suffix, *words)
            except BoundExceeded:
                return None
            for at in roots:
                index = indexes.setdefault(at, {})
                index.update((text, set()) for text in texts)
                for path, hits in found.get(at, {}).items():
                    for text in hits:
                        index[text].add(path)
            while len(indexes) > MAX_EXPECTED_INDEXES:
                del indexes[next(iter(indexes))]
        return indexes.get(root)


class _TooMany(Exception):
    pass


def changes(
    trees: TreeObjects, old: bytes, new: bytes, suffix: str, most: int | None = None
) -> tuple[set[str], set[str]]:
    """(paths ending in ``suffix`` whose content is new or changed in ``new``, those gone from it) between two
    root trees; subtrees with the same sha are not entered.  Past ``most`` changed paths the walk stops (the
    caller searches the whole tree instead) and what it found so far, more than ``most``, is returned."""
    changed: set[str] = set()
    removed: set[str] = set()
    try:
        _compare(trees, old, new, suffix, changed, removed, most)
    except _TooMany:
        pass
    return changed, removed


def _compare(
    trees: TreeObjects, old: bytes, new: bytes, suffix: str, changed: set[str], removed: set[str],
    most: int | None = None,
) -> None:  # fmt: skip
    """Fill ``changed`` and ``removed`` for the trees ``old`` and ``new``: a stack of the folders to compare
    (either side None: absent there), not recursion (a repository may nest folders thousands deep)."""
    todo: list[tuple[bytes | None, bytes | None, str]] = [(old, new, "")]
    while todo:
        old_tree, new_tree, base = todo.pop()
        before = trees.entries(old_tree) if old_tree is not None else {}
        after = trees.entries(new_tree) if new_tree is not None else {}
        for name in before.keys() | after.keys():
            was, now = before.get(name), after.get(name)
            if was == now:
                continue
            path = base + name
            was_tree = was is not None and was[0] >> 12 == TREE_KIND
            now_tree = now is not None and now[0] >> 12 == TREE_KIND
            if was_tree or now_tree:  # a folder on either side: its files are compared with what stands there now
                todo.append((was[1] if was_tree and was else None, now[1] if now_tree and now else None, f"{path}/"))
            if not path.endswith(suffix):
                continue
            if now is not None and not now_tree and now[0] >> 12 != GITLINK_KIND:
                changed.add(path)
                if most is not None and len(changed) > most:
                    raise _TooMany
            elif was is not None and not was_tree:
                removed.add(path)


def git_grep(
    repo: git.Repo, sha: str, suffix: str, texts: list[str], paths: list[str] | None, words: bool = False
) -> dict[str, set[str]]:
    """Path -> which of ``texts`` it holds, for the files ending in ``suffix`` of commit ``sha`` (``paths``: only
    these, named literally), from one ``git grep -o`` (binary files skipped, as ``-I`` does; ``words``: each text
    an identifier, matched as a whole word)."""
    where = [f"*{suffix}"] if paths is None else [f":(literal){path}" for path in paths]
    return _search(repo, [sha], texts, where, words).get(sha, {})


def git_grep_trees(
    repo: git.Repo, roots: list[bytes], texts: list[str], suffix: str, words: bool = False
) -> dict[bytes, dict[str, set[str]]]:
    """For each tree of ``roots``: path -> which of ``texts`` it holds, for its files ending in ``suffix``, from
    one ``git grep -o`` over all of the trees (git names each hit by its tree; ``words``: identifiers as whole
    words)."""
    found = _search(repo, [root.hex() for root in roots], texts, [f"*{suffix}"], words)
    return {bytes.fromhex(tree): hits for tree, hits in found.items()}


def _search(
    repo: git.Repo, trees: list[str], texts: list[str], where: list[str], words: bool
) -> dict[str, dict[str, set[str]]]:
    """:func:`_grep` of ``texts``; with ``words``, those that are identifiers matched as whole words and the
    others as definitions, in one ``git grep`` where no word can take the start of a definition's match (one
    ending in ``def`` or ``class``: ``subclass`` in ``subclass Planner(``), else in two.  A definition's match
    holds its name whole, so a name asked both ways is answered both ways from it."""
    texts = [text for text in texts if len(text) <= MAX_TEXT]  # longer: no name nor definition, never held
    if not texts:
        return {}
    names = [text for text in texts if _IDENTIFIER.fullmatch(text)] if words else []
    asked_as_words = set(names)
    written = [text for text in texts if text not in asked_as_words]
    if not names:
        return _grep(repo, trees, written, where)
    if not written:
        return _grep(repo, trees, names, where, _words(names))
    if not all(_PLAIN_DEFINITION.fullmatch(text) for text in written) or any(
        name.endswith(("def", "class")) for name in names
    ):
        found = _grep(repo, trees, written, where)
        for tree, paths in _grep(repo, trees, names, where, _words(names)).items():
            for path, hits in paths.items():
                found.setdefault(tree, {}).setdefault(path, set()).update(hits)
        return found
    # GitPython runs git with LC_ALL=C, where \< and \> bound ASCII words, as -w does (a test holds them to it)
    bounded = (arg for chunk in _chunks(names) for arg in ("-e", rf"\<({'|'.join(chunk)})\>"))
    return _grep(repo, trees, texts, where, ["-E", *_definition_patterns(written), *bounded], frozenset(names))


def _grep(
    repo: git.Repo, trees: list[str], texts: list[str], where: list[str], patterns: list[str] | None = None,
    names: frozenset[str] = frozenset(),
) -> dict[str, dict[str, set[str]]]:  # fmt: skip
    """Tree (as given) -> path -> which of ``texts`` it holds: one ``git grep -o`` of ``trees`` over ``where``,
    bounded by :data:`SEARCH_TIMEOUT` a tree (as many searches of one tree each would be).  ``names``: words
    asked beside definitions, each also found where a definition's match (``class LIMIT:``) is its name."""
    bound = SEARCH_TIMEOUT * len(trees)
    try:
        out = repo.git.grep(
            "-o", "-z", "-I", "--no-color", *(patterns or _patterns(texts)), *trees, "--", *where,
            kill_after_timeout=bound, with_extended_output=False,
        )  # fmt: skip
    except git.GitCommandError as exc:
        if exc.status is None or (isinstance(exc.status, int) and exc.status < 0) or "Timeout" in str(exc):
            raise BoundExceeded(f"the search for {len(texts)} names ran past {bound} s") from None
        out = ""  # status 1: no file holds any of them
    asked = set(texts)
    found: dict[str, dict[str, set[str]]] = {}
    for record in out.split("\n"):
        at, _, text = record.partition("\0")
        named = text[text.find(" ") + 1 : -1] if names and " " in text else None
        if ":" in at and (text in asked or named in names):
            tree, _, path = at.partition(":")  # a tree's name holds no colon; a path may
            hits = found.setdefault(tree, {}).setdefault(path, set())
            hits.update(hit for hit in (text, named) if hit in asked)
    return found


def _words(names: list[str]) -> list[str]:
    """``git grep``'s patterns for identifiers written as whole words: expressions of up to ``NAMES_AT_ONCE``
    names each (``-w``: a match bounded by what is no word character)."""
    if not all(re.fullmatch(r"\w+", name) for name in names):
        raise ValueError("a whole-word search is for identifiers")
    return ["-w", "-E", *(arg for chunk in _chunks(names) for arg in ("-e", f"({'|'.join(chunk)})"))]


def _patterns(texts: list[str]) -> list[str]:
    """``git grep``'s patterns for ``texts``: definitions as extended expressions naming up to ``NAMES_AT_ONCE``
    names each, since git tries each ``-e`` in turn on every line (252 definitions over Megatron-Bridge's tree:
    0.40 s as fixed strings, 0.08 s as one expression; 5,000 names: 0.32 s in chunks of 1,000, 0.96 s as one). An
    expression may match a kind of definition not asked (``def X(`` where ``class X(`` was), which the caller
    drops; none hides another (each starts at its keyword and ends at ``(`` or ``:``).  A few, and anything else,
    are searched as fixed strings."""
    if len(texts) <= FIXED_AT_MOST or not all(_PLAIN_DEFINITION.fullmatch(text) for text in texts):
        return ["-F", *(arg for text in texts for arg in ("-e", text))]
    return ["-E", *_definition_patterns(texts)]


def _definition_patterns(texts: list[str]) -> list[str]:
    """The ``-e`` expressions of plain definitions (``def build(``, ``class Planner:``): their keywords, then
    their names in chunks (:func:`_chunks`), then ``(`` or ``:``."""
    parts = [part for part in map(_PLAIN_DEFINITION.fullmatch, texts) if part]
    kinds = "|".join(sorted({part.group(1) for part in parts}))
    chunks = _chunks(sorted({part.group(2) for part in parts}))
    return [arg for chunk in chunks for arg in ("-e", f"({kinds}) ({'|'.join(chunk)})[(:]")]


def _chunks(names: list[str]) -> list[list[str]]:
    """``names`` in chunks of up to ``NAMES_AT_ONCE`` names and ``MAX_EXPRESSION_CHARS`` characters, one
    expression each."""
    chunks: list[list[str]] = [[]]
    size = 0
    for name in names:
        if chunks[-1] and (len(chunks[-1]) >= NAMES_AT_ONCE or size + len(name) > MAX_EXPRESSION_CHARS):
            chunks.append([])
            size = 0
        chunks[-1].append(name)
        size += len(name) + 1
    return chunks
