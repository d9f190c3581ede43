"""Every file of a tree, listed once, and where each top-level Python package lies in it.

Path resolution, card-comment anchors and the command check ask for a tree's whole listing; the command check
only to know where a module's package lies (``src/``, ``python/cuopt/``).  Those roots are what a history asks
at every commit, so they are remembered by commit (the run's memo, across runs): a warm history lists no
tree for them.  Only the repository's own part is remembered; a submodule's part is listed each time, since
whether a submodule can be opened depends on where the run is.  What is worked out from a listing (its
indexes, its package roots) is shared by the next tree listed with the very same paths (:class:`ListedBefore`):
a replay meets a few hundred sets of paths in a thousand commits.
"""

from __future__ import annotations

import bisect
import weakref
from functools import cached_property
from typing import Iterable

from ..errors import NotCarried, UnreadableFile
from ..store.memo import Memo
from . import SourceTree

MAX_ROOTS = 3  # places one package may lie, nearest first


class Listing:
    """A tree's files, listed on first use; callable (every path, submodules' too) as path resolution wants."""

    def __init__(self, tree: SourceTree, memo: Memo | None = None, before: ListedBefore | None = None) -> None:
        # Held weakly: the judge keeps a listing for as long as its tree lives, and no longer.
        self._tree, self.memo = weakref.ref(tree), memo
        self._before = before or ListedBefore()
        self._own: Paths | None = None
        self._all: Paths | None = None
        self._submodule_files: list[str] | None = None
        self._submodules: dict[str, set[str]] | None = None

    @property
    def tree(self) -> SourceTree:
        tree = self._tree()
        if tree is None:  # a listing is asked for through its tree: it cannot outlive it
            raise ReferenceError("the tree of this listing is gone")
        return tree

    def __call__(self) -> list[str]:
        return self._every().paths

    def named(self, name: str) -> list[str]:
        """Every path (submodules' too) whose last part is ``name``, in listing order: what a scan of the listing
        for a file's name finds, from an index built on first use (a history judges a missing path at every
        commit)."""
        return self._every().indexes[0].get(name, [])

    def ending_in(self, tail: str) -> list[str]:
        """Every path that ends in ``tail`` (``/pkg/x.py``: a file of that name, at the end of a longer path), in
        listing order: those of its name looked at, not every path."""
        return [path for path in self.named(tail.rpartition("/")[2]) if path.endswith(tail)]

    def in_folder(self, folder: str) -> list[str]:
        """Every path right in ``folder`` (``""``: the top), in listing order."""
        return self._every().indexes[1].get(folder, [])

    def under_folders_named(self, name: str) -> set[str]:
        """Every path under a folder called ``name``, anywhere (``"/name/" in "/" + path``)."""
        every = self._every()
        ordered, out = every.sorted, set()
        for folder in every.folders_by_name.get(name, []):
            start = bisect.bisect_left(ordered, folder + "/")
            end = bisect.bisect_left(ordered, folder + "0")  # "0" sorts right after "/": the folder's paths end here
            out.update(ordered[start:end])
        return out

    def own(self) -> list[str]:
        return self._owned().paths

    def _owned(self) -> Paths:
        if self._own is None:
            self._own = self._before.own(self.tree.files_under(""))
        return self._own

    def _every(self) -> Paths:
        if self._all is None:
            self._all = self._before.every(self._owned(), self._inside_submodules())
        return self._all

    def _inside_submodules(self) -> list[str]:
        if self._submodule_files is None:
            self._submodule_files = self.tree.submodule_files()
        return self._submodule_files

    def package_roots(self, top: str) -> list[str]:
        """Where the package or module ``top`` lies (``""``, ``"src/"``, ``"python/cuopt/"``), nearest first."""
        if self._submodules is None:
            self._submodules = roots_of(self._inside_submodules())
        found = set(self._own_roots(top)) | self._submodules.get(top, set())
        kept = (r for r in found if not is_test(f"{r}__init__.py"))  # a root under a tests folder: a test's
        return sorted(kept, key=lambda r: (len(r), r))[:MAX_ROOTS]

    def _own_roots(self, top: str) -> list[str]:
        commit = self.tree.info.commit
        if self.memo is None or commit is None:
            return sorted(self._owned().roots.get(top, set()))
        key = f"package-roots|{commit}|{top}"
        return self.memo(key, lambda: {"roots": sorted(self._owned().roots.get(top, set()))})["roots"]


class Paths:
    """A listing's paths and what is worked out from them on first use, shared by the listings of every tree
    with the same paths (a history's commits mostly change what files say, not which files there are)."""

    def __init__(self, paths: list[str]) -> None:
        self.paths = paths

    @cached_property
    def indexes(self) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
        """(paths by their last part, paths by their folder), in listing order: one pass over the listing."""
        by_name: dict[str, list[str]] = {}
        by_folder: dict[str, list[str]] = {}
        for path in self.paths:
            folder, _, name = path.rpartition("/")
            by_name.setdefault(name, []).append(path)
            by_folder.setdefault(folder, []).append(path)
        return by_name, by_folder

    @cached_property
    def sorted(self) -> list[str]:
        return sorted(self.paths)

    @cached_property
    def folders_by_name(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        seen: set[str] = set()
        for folder in self.indexes[1]:  # each folder holding a file, and the folders above it
            while folder and folder not in seen:
                seen.add(folder)
                out.setdefault(folder.rpartition("/")[2], []).append(folder)
                folder = folder.rpartition("/")[0]
        return out

    @cached_property
    def roots(self) -> dict[str, set[str]]:
        return roots_of(self.paths)


class ListedBefore:
    """The paths of the last tree listed (one judge's, one run's): a tree whose source gives the very same list
    (``GitTree.files_under``: nothing added or removed since) shares what was worked out from it."""

    def __init__(self) -> None:
        self._own: Paths | None = None
        self._every: tuple[Paths, list[str], Paths] | None = None  # (own, submodules' files, both)

    def own(self, paths: list[str]) -> Paths:
        if self._own is None or self._own.paths is not paths:
            self._own = Paths(paths)
        return self._own

    def every(self, own: Paths, submodule_files: list[str]) -> Paths:
        if not submodule_files:
            return own
        last = self._every
        if last is None or last[0] is not own or last[1] != submodule_files:
            last = self._every = (own, submodule_files, Paths(own.paths + submodule_files))
        return last[2]


def roots_of(files: list[str]) -> dict[str, set[str]]:
    """For every top-level package or module name of a listing, the folders it lies in: one pass over the files."""
    roots: dict[str, set[str]] = {}
    packages = {path.rpartition("/")[0] for path in files if path.endswith("/__init__.py")}
    for path in files:
        folder, _, name = path.rpartition("/")
        if name == "__init__.py" and folder:  # folder/top/__init__.py: top lies at folder/
            parent, _, top = folder.rpartition("/")
            roots.setdefault(top, set()).add(f"{parent}/" if parent else "")
            if parent and parent not in packages:  # parent/ a namespace package (no __init__.py) holding top
                above, _, space = parent.rpartition("/")
                roots.setdefault(space, set()).add(f"{above}/" if above else "")
        elif name.endswith(".py"):
            roots.setdefault(name[:-3], set()).add(f"{folder}/" if folder else "")
    return roots


def is_test(path: str) -> bool:
    """Whether ``path`` is a test's file (under a ``tests/`` or ``test/`` folder, or ``test_*.py``): what it defines
    is not the package's, and a package root or a project under a tests folder is a test's."""
    parts = path.split("/")
    return any(p in ("tests", "test") for p in parts[:-1]) or parts[-1].startswith("test_")


def module_file(tree: SourceTree, dotted: str, roots: Iterable[str], runnable: bool = False) -> tuple[str, str] | None:
    """The one answer to "which file is module ``dotted`` at the ref": under the first of ``roots`` (where its top
    package may lie, nearest first) that has it, ``pkg/mod.py``, else (``runnable``: what ``python -m`` runs)
    ``pkg/mod/__main__.py``, else ``pkg/mod/__init__.py``; its path and blob, found from the tree alone.  A
    candidate the tree cannot answer for (a submodule out of reach) is passed over; where none is found and one
    was passed over, that is said (``NotCarried``), never taken for absent."""
    path = dotted.replace(".", "/")
    names = [f"{path}.py", *([f"{path}/__main__.py"] if runnable else []), f"{path}/__init__.py"]
    unknown: NotCarried | UnreadableFile | None = None
    for root in roots:
        for candidate in (f"{root}{name}" for name in names):
            try:
                blob = tree.blob_id(candidate)
            except (NotCarried, UnreadableFile) as exc:
                unknown = unknown or exc
                continue
            if blob is not None:
                return candidate, blob
    if unknown is not None:
        raise unknown
    return None
