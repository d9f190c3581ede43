"""The paths a repository's first-parent line deleted, commit by commit, and which of them a citation names.

One ``git log --diff-filter=D`` lists every deletion up to a tip; the trees of the commits on that line
share it (a history of a thousand commits asks git once).  Which deleted path a cited path or folder was is
answered from an index of the deletions by their last name (a file) or by each folder name along them (a
folder): a question costs the deletions of that name, not a scan of every deleted path.
"""

from __future__ import annotations

import bisect
from typing import Any, Callable, Iterator

import git

MAX_DELETIONS = 200_000  # deleted paths remembered of a history (a monorepo's whole past is not needed)

Remember = Callable[[str, list[str], list[Any], Callable[[], Any]], Any]
# (place on the line: 0 is the tip, the commit, its deleted path, the place of that path in its commit's list)
Deleted = tuple[int, str, str, int]


def named_by(removed: str, wanted: set[str]) -> Iterator[tuple[str, str]]:
    """(cited path, the path it was) for each of ``wanted`` that ``removed`` is (exactly, or as its tail) or
    lies under (a folder ending in ``/``): the path's "/"-aligned pieces looked up, not every wanted path."""
    parts = removed.split("/")
    for start in range(len(parts)):
        tail = "/".join(parts[start:])
        if tail in wanted:
            yield tail, removed
        for end in range(start + 1, len(parts)):  # folders: parts[start:end] + "/"
            folder = "/".join(parts[start:end]) + "/"
            if folder in wanted:
                yield folder, "/".join(parts[:end]) + "/"


class DeletionChain:
    """The paths each first-parent commit up to ``tip`` deleted, listed by one ``git log`` when first asked, and
    shared by the trees of the commits on that line: a history of a thousand commits asks git once, not once per
    commit."""

    def __init__(self, repo: git.Repo, tip: str, remember: Remember) -> None:
        self.repo, self.tip, self.remember = repo, tip, remember
        self._position: dict[str, int] | None = None
        self._entries: list[tuple[str, int, list[str]]] = []  # (commit, its place on the line, paths), newest first
        self._by_name: dict[str, list[Deleted]] | None = None  # a path's last name or a folder's name -> deletions

    def removed_up_to(self, sha: str, wanted: set[str]) -> dict[str, tuple[str, str]] | None:
        """For each of ``wanted`` (a path, or the tail of a longer one; a folder ending in ``/``) that ``sha`` or a
        commit before it on the line deleted: (the path it was, the newest commit deleting it); None if ``sha`` is
        not on the line.  The same answer as scanning every deletion newest first with :func:`named_by`."""
        if self._position is None:
            self._load()
        assert self._position is not None
        at = self._position.get(sha)
        if at is None:
            return None
        if self._by_name is None:
            self._by_name = {}
            for commit, place, names in self._entries:
                for i, name in enumerate(names):
                    parts = name.split("/")
                    for key in dict.fromkeys(parts):  # its last name (a file), and each folder's name
                        self._by_name.setdefault(key, []).append((place, commit, name, i))
        found: dict[str, tuple[str, str]] = {}
        for path in wanted:
            best: tuple[int, int, int, str, str] | None = None  # (place, order in its commit, order of the match)
            key = path.rstrip("/").rsplit("/", 1)[-1]
            deleted = self._by_name.get(key, [])
            for place, commit, name, i in deleted[bisect.bisect_left(deleted, (at,)) :]:
                if best is not None and (place, i) > best[:2]:
                    break  # newest first, then the commit's own order: nothing later can win
                for order, (_, was) in enumerate(named_by(name, {path})):
                    if best is None or (place, i, order) < best[:3]:
                        best = (place, i, order, was, commit)
            if best is not None:
                found[path] = (best[3], best[4])
        return found

    def _load(self) -> None:
        def ask() -> dict[str, Any]:
            line = self.repo.git.rev_list("--first-parent", self.tip).split()
            out = self.repo.git.log("-z", "--first-parent", "--diff-merges=first-parent", "--no-renames",
                                    "--diff-filter=D", "--name-only", "--format=%x01%H", self.tip)  # fmt: skip
            entries, count = [], 0
            for chunk in out.split("\x01")[1:]:  # \x01SHA \0 \n name \0 name \0 ...
                sha, _, names = chunk.partition("\0")
                deleted = [n for n in names.removeprefix("\n").split("\0") if n][: MAX_DELETIONS - count]
                count += len(deleted)
                entries.append([sha, deleted])
            return {"line": line, "entries": entries}

        answer = self.remember("deletion chain", [self.tip], [], ask)
        self._position = {sha: i for i, sha in enumerate(answer["line"])}
        self._entries = [(sha, self._position.get(sha, 0), list(names)) for sha, names in answer["entries"]]
