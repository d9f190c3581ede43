"""A repository's tree objects, each read once: paths walked and folders listed in-process.

Most tree objects are the same from one commit to the next, so a history, a matrix or a catalog that asks
many commits (or one commit many times) for entries and listings reads each object once, with no
subprocess: a listing costs what changed, not the size of the tree.
"""

from __future__ import annotations

import git

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
            found = parse_tree(self.repo.odb.stream(sha).read())
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


_KINDS = (0o04, 0o10, 0o12, 0o16)  # tree, blob, link, gitlink: the kinds of entry a tree may hold


def parse_tree(data: bytes) -> dict[str, Entry]:
    """A tree object's entries (``MODE NAME\\0SHA`` records), name -> (mode, sha), in its own order.

    Written here rather than taken from GitPython, whose reader checks every name against the work-tree
    rules of every platform (most of a history's listing time): nothing here is ever checked out.  What no
    tree may hold is still refused with a ValueError: a bad or truncated record, a mode of no kind, a name
    that is empty, ``.``, ``..`` or holds ``/``.  Names decode as git's do in GitPython (UTF-8, bytes kept).
    """
    out: dict[str, Entry] = {}
    at, end = 0, len(data)
    while at < end:
        space = data.find(b" ", at)
        nul = data.find(b"\0", space + 1) if space >= 0 else -1
        if space <= at or nul < 0 or nul + 21 > end or data[at:space].strip(b"01234567"):
            raise ValueError("a truncated or malformed tree entry")
        mode = int(data[at:space], 8)
        name = data[space + 1 : nul].decode("utf-8", "surrogateescape")
        if mode >> 12 not in _KINDS or name in ("", ".", "..") or "/" in name:
            raise ValueError(f"a tree entry git would refuse: {name!r} (mode {mode:o})")
        out[name] = (mode, data[nul + 1 : nul + 21])
        at = nul + 21
    return out
