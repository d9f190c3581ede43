"""A repository's tree objects, each read once: paths walked and folders listed in-process.

Most tree objects are the same from one commit to the next, so a history, a matrix or a catalog that asks
many commits (or one commit many times) for entries and listings reads each object once, with no
subprocess: a listing costs what changed, not the size of the tree.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import subprocess
from typing import Iterable

import git

# An entry's kind is the top bits of its mode, as git reads it (a tree written with odd bits is still a tree).
SYMLINK_KIND, TREE_KIND, GITLINK_KIND = 0o12, 0o04, 0o16
TREE_MODE = 0o040000
MIN_BATCH = 32  # trees asked at once worth a git process of their own (its start costs ~40 reads one by one)
MAX_RECENT_TREES = 4_096  # tree objects read from git kept between two turnovers (at most twice this at once)
BLOB_MODE, EXECUTABLE_MODE = 0o100644, 0o100755

Entry = tuple[int, bytes]  # (mode, binary sha)


class TreeObjects:
    """Tree objects by sha: those read from git, the most recently used (two generations: a tree used since the
    last turnover survives the next; a replay over a long history meets tens of thousands of trees), and those
    built in-process, all of them (git does not have them to read again)."""

    def __init__(self, repo: git.Repo) -> None:
        self.repo = repo
        self._recent: dict[bytes, dict[str, Entry]] = {}
        self._older: dict[bytes, dict[str, Entry]] = {}
        self._built: dict[bytes, dict[str, Entry]] = {}
        self._listed: tuple[bytes, list[str], list[str]] | None = None  # the last whole tree: root, paths, gitlinks

    def entries(self, sha: bytes) -> dict[str, Entry]:
        """The entries of tree object ``sha``, name -> (mode, sha), in the tree's own order."""
        found = self._known(sha)
        if found is None:
            found = parse_tree(self.repo.odb.stream(sha).read())
            self._keep(sha, found)
        return found

    def held(self) -> set[bytes]:
        """The shas of the tree objects held now (read or built)."""
        return {*self._recent, *self._older, *self._built}

    def _known(self, sha: bytes) -> dict[str, Entry] | None:
        found = self._recent.get(sha)
        if found is None:
            found = self._older.pop(sha, None)
            if found is not None:
                self._keep(sha, found)
            else:
                found = self._built.get(sha)
        return found

    def _keep(self, sha: bytes, entries: dict[str, Entry]) -> None:
        if len(self._recent) >= MAX_RECENT_TREES:  # a turnover: what was not used since the last one goes
            self._older, self._recent = self._recent, {}
        self._recent[sha] = entries

    def preload(self, roots: Iterable[bytes], paths: Iterable[str]) -> None:
        """Read the tree objects a walk of each of ``paths`` (its folders) from each of ``roots`` needs, a depth at
        a time, each depth in one ``git cat-file --batch``: a history asks the same few paths of a hundred
        commits, which one object at a time is a round trip to git each."""
        folders = {tuple(p.strip("/").split("/")[:-1]) for p in paths}
        frontier = {(root, rest) for root in roots for rest in folders}
        while frontier:
            self.read_many(node for node, _ in frontier)
            deeper = set()
            for node, rest in frontier:
                found = (self._known(node) or {}).get(rest[0]) if rest else None
                if found is not None and found[0] >> 12 == TREE_KIND:
                    deeper.add((found[1], rest[1:]))
            frontier = deeper

    def read_many(self, shas: Iterable[bytes]) -> None:
        """Read each tree object of ``shas`` not read yet, in one ``git cat-file --batch``.  One that git does not
        give (absent, not a tree) is left to :meth:`entries`, which says what is wrong as it always did."""
        wanted = [sha for sha in dict.fromkeys(shas) if self._known(sha) is None]
        if len(wanted) < MIN_BATCH:  # the open cat-file process answers a few sooner than a new process starts
            for sha in wanted:
                with contextlib.suppress(ValueError, OSError, git.GitError):
                    self.entries(sha)
            return
        env = {**os.environ, **self.repo.git.environment(), "GIT_NO_LAZY_FETCH": "1"}  # never a fetch per object
        asked = b"".join(sha.hex().encode() + b"\n" for sha in wanted)
        try:
            done = subprocess.run(["git", "cat-file", "--batch"], input=asked, capture_output=True, timeout=120,
                                  env=env, cwd=str(self.repo.working_dir))  # fmt: skip
        except (OSError, subprocess.SubprocessError):
            return
        out, at = done.stdout, 0
        for sha in wanted:
            end = out.find(b"\n", at)
            header = out[at:end].split(b" ") if end >= 0 else []
            if header == [sha.hex().encode(), b"missing"]:
                at = end + 1
                continue
            if len(header) != 3 or header[0] != sha.hex().encode():
                return  # an answer out of step: the rest are read one by one, as they are asked
            size = int(header[2])
            data, at = out[end + 1 : end + 1 + size], end + 2 + size
            if header[1] == b"tree" and len(data) == size:
                try:
                    self._keep(sha, parse_tree(data))
                except ValueError:
                    pass  # entries() reads it again and refuses it there

    def holds(self, entry: Entry | None, files: dict[str, tuple[str, int]]) -> bool:
        """Whether ``entry`` is a tree of exactly ``files`` (path -> (blob sha, mode)), compared by the tree
        object git would write for them: equal shas, equal trees, and nothing read.  The objects built are
        kept by their sha (content-addressed: whatever asks for one later gets the tree it is)."""
        root, built = tree_objects(files)
        for sha, entries in built.items():
            self._built.setdefault(sha, entries)
        return entry is not None and entry[0] >> 12 == TREE_KIND and entry[1] == root

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
        level = [start[1]]
        while level:  # every tree below, a depth at a time (a whole repository's: a dozen git round trips, not 700)
            self.read_many(level)
            level = [child for sha in level for mode, child in (self._known(sha) or {}).values()
                     if mode >> 12 == TREE_KIND and self._known(child) is None]  # fmt: skip
        out: list[tuple[str, int, bytes]] = []
        self._visit(folder.strip("/") + "/" if folder.strip("/") else "", start[1], out)
        return out

    def paths(self, root: bytes, folder: str) -> list[str]:
        """Every file path under ``folder`` (``""``: the whole tree), as :meth:`under` lists them.  A whole tree's
        list is the very list of the last whole tree listed when no path was added, removed or made a folder or
        a gitlink between the two (compared tree object by tree object, an unchanged folder not entered): a
        history's commits mostly change what files say, not which files there are, and what a caller works out
        from a listing it can then keep by the list's identity."""
        if folder.strip("/"):
            return [path for path, _, _ in self.under(root, folder)]
        return self._whole(root)[1]

    def gitlinks(self, root: bytes) -> list[tuple[str, bytes]]:
        """(path, commit sha) of every gitlink (a submodule's commit) of the tree ``root``, in listing order."""
        found = [(path, self.walk(root, path)) for path in self._whole(root)[2]]
        return [(path, entry[1]) for path, entry in found if entry is not None]

    def _whole(self, root: bytes) -> tuple[bytes, list[str], list[str]]:
        last = self._listed
        if last is None or (last[0] != root and not self._same_paths(last[0], root)):
            entries = self.under(root, "")
            links = [path for path, mode, _ in entries if mode >> 12 == GITLINK_KIND]
            last = (root, [path for path, _, _ in entries], links)
        self._listed = (root, last[1], last[2])
        return self._listed

    def _same_paths(self, old: bytes, new: bytes) -> bool:
        """Whether the trees ``old`` and ``new`` list the same paths in the same order, the same of them gitlinks."""
        pairs = [(old, new)]
        while pairs:
            old, new = pairs.pop()
            try:
                before, after = self.entries(old), self.entries(new)
            except (ValueError, OSError, git.GitError):  # unreadable: the caller lists the tree, says what is wrong
                return False
            if list(before) != list(after):
                return False
            for name, now in after.items():
                was = before[name]
                if was == now:
                    continue
                kinds = (was[0] >> 12, now[0] >> 12)
                if kinds == (TREE_KIND, TREE_KIND):
                    pairs.append((was[1], now[1]))
                elif kinds[0] != kinds[1] and (TREE_KIND in kinds or GITLINK_KIND in kinds):
                    return False  # a file made a folder or a gitlink, or back (a file's content, mode or link: same)
        return True

    def files_in(self, root: bytes, folder: str) -> dict[str, str]:
        """Every entry under ``folder`` but trees: its path under the folder -> its sha, as ``git ls-tree -r``."""
        cut = len(folder.strip("/")) + 1
        return {path[cut:]: sha.hex() for path, _, sha in self.under(root, folder)}

    def _visit(self, base: str, sha: bytes, out: list[tuple[str, int, bytes]]) -> None:
        """Every entry but trees under the tree ``sha``, depth first in each tree's order, as ``git ls-tree -r``
        lists them; a stack of the trees begun, not recursion (a repository may nest folders thousands deep)."""
        begun = [(base, iter(self.entries(sha).items()))]
        while begun:
            base, entries = begun[-1]
            for name, (mode, child) in entries:
                if mode >> 12 == TREE_KIND:  # its entries come here: the rest of this tree's after them
                    begun.append((f"{base}{name}/", iter(self.entries(child).items())))
                    break
                out.append((base + name, mode, child))
            else:
                begun.pop()


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


def tree_objects(files: dict[str, tuple[str, int]]) -> tuple[bytes, dict[bytes, dict[str, Entry]]]:
    """The tree objects git writes for ``files`` (``/``-joined path -> (blob sha hex, mode)): the root's sha,
    and each tree's entries by its sha.  Entries sort as git sorts them, by name's bytes with a tree's name
    read as ending in ``/``."""
    nested: dict[str, object] = {}
    for path, (sha, mode) in files.items():
        *folders, name = path.split("/")
        where = nested
        for part in folders:
            where = where.setdefault(part, {})  # type: ignore[assignment]
        where[name] = (mode, bytes.fromhex(sha))
    built: dict[bytes, dict[str, Entry]] = {}
    return _tree_object(nested, built), built


def _tree_object(folder: dict[str, object], built: dict[bytes, dict[str, Entry]]) -> bytes:
    """The sha of the tree object of ``folder`` (name -> entry, or a folder's own dict), each tree below it built
    first: a stack, not recursion (a catalog's copy may nest folders thousands deep)."""
    done: dict[int, bytes] = {}  # id of a folder's dict -> its tree's sha, once built
    todo = [folder]
    while todo:
        here = todo[-1]
        waiting = [item for item in here.values() if isinstance(item, dict) and id(item) not in done]
        if waiting:
            todo += waiting
            continue
        todo.pop()
        entries: list[tuple[bytes, str, Entry]] = []
        for name, item in here.items():
            raw = name.encode("utf-8", "surrogateescape")
            if isinstance(item, dict):
                entries.append((raw + b"/", name, (TREE_MODE, done[id(item)])))
            else:
                entries.append((raw, name, item))  # type: ignore[arg-type]
        entries.sort()
        body = b"".join(b"%o %s\0%s" % (mode, name.encode("utf-8", "surrogateescape"), sha)
                        for _, name, (mode, sha) in entries)  # fmt: skip
        sha = hashlib.sha1(b"tree %d\0%s" % (len(body), body)).digest()
        built[sha] = {name: entry for _, name, entry in entries}
        done[id(here)] = sha
    return done[id(folder)]
