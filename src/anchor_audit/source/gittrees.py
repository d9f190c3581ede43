"""A repository's tree objects, each read once: paths walked and folders listed in-process.

Most tree objects are the same from one commit to the next, so a history, a matrix or a catalog that asks
many commits (or one commit many times) for entries and listings reads each object once, with no
subprocess: a listing costs what changed, not the size of the tree.
"""

from __future__ import annotations

import git
from git.objects.fun import tree_entries_from_data

# An entry's kind is the top bits of its mode, as git reads it (a tree written with odd bits is still a tree).
SYMLINK_KIND, TREE_KIND, GITLINK_KIND = 0o12, 0o04, 0o16
TREE_MODE = 0o040000

Entry = tuple[int, bytes]  # (mode, binary sha)


class TreeObjects:
    def __init__(self, repo: git.Repo) -> None:
        self.repo = repo
        self._read: dict[bytes, dict[str, Entry]] = {}

    def entries(self, sha: bytes) -> dict[str, Entry]:
        """The entries of tree object ``sha``, name -> (mode, sha), in the tree's own order."""
        found = self._read.get(sha)
        if found is None:
            data = self.repo.odb.stream(sha).read()
            found = {name: (mode, binsha) for binsha, mode, name in tree_entries_from_data(data)}
            self._read[sha] = found
        return found

    def walk(self, root: bytes, path: str) -> Entry | None:
        """(mode, sha) of the entry at ``path`` under the tree ``root``; None if there is none."""
        node: Entry | None = (TREE_MODE, root)
        for part in path.strip("/").split("/") if path.strip("/") else ():
            if node is None or node[0] >> 12 != TREE_KIND:
                return None
            node = self.entries(node[1]).get(part)
        return node

    def under(self, root: bytes, folder: str) -> list[tuple[str, int, bytes]]:
        """(path, mode, sha) of every entry under ``folder`` but trees, in ``git ls-tree -r``'s order."""
        start = self.walk(root, folder)
        if start is None or start[0] >> 12 != TREE_KIND:
            return []
        out: list[tuple[str, int, bytes]] = []
        self._visit(folder.strip("/") + "/" if folder.strip("/") else "", start[1], out)
        return out

    def _visit(self, base: str, sha: bytes, out: list[tuple[str, int, bytes]]) -> None:
        for name, (mode, child) in self.entries(sha).items():
            if mode >> 12 == TREE_KIND:
                self._visit(f"{base}{name}/", child, out)
            else:
                out.append((base + name, mode, child))
