"""Where a quote went: the other files of the tree that hold it, when its own file no longer does."""

from __future__ import annotations

from typing import Callable

from ..errors import BoundExceeded
from ..model import Exact, Moved, Quote, Relocated, Unchecked, UncheckedReason
from ..source import SourceTree
from ..spec.repopath import unwritable
from .quote import match_quote
from .shape import shape_of

MAX_RELOCATION_CANDIDATES = 50  # files holding the quote's line that relocation reads and matches


Search = Callable[[str, str], "list[str] | None"]  # (text, suffix) -> the files holding it, as SourceTree.search


def needle_of(quote: Quote) -> tuple[str, str] | None:
    """What relocation searches the tree for: the quote's most specific (longest) line, and its file's suffix."""
    lines = shape_of(quote.body).lines
    if not lines:
        return None
    suffix = "." + quote.path.rsplit(".", 1)[-1] if "." in quote.path.rsplit("/", 1)[-1] else ""
    return max(lines, key=len), suffix


def relocate(quote: Quote, tree: SourceTree, search: Search | None = None) -> Relocated | Unchecked | None:
    """Look for a changed or missing quote in the other files of ``tree``.

    git grep finds the files holding the quote's most specific line (its
    longest); the full match runs on those.  The first file where the whole
    quote is found wins (in path order).  A skill's own files (any folder holding a SKILL.md)
    are never candidates: a quote "found" in the document that quotes it
    checks nothing.  At most :data:`MAX_RELOCATION_CANDIDATES` files are
    tried; more is :class:`~anchor_audit.errors.BoundExceeded` (incomplete).
    ``search``: where the answer of a search made for many quotes at once is read (default: the tree's own).
    A file whose name cannot be written into the fence's header (:func:`~anchor_audit.spec.repopath.unwritable`:
    the code repository's author chose it) makes the quote unverifiable, naming why, never a heal.
    """
    wanted = needle_of(quote)
    if wanted is None:
        return None
    needle, suffix = wanted
    skill_folders: dict[str, bool] = {}
    found = (search or tree.search)(needle, suffix)
    if found is None:
        return None  # a tree that cannot be searched cheaply (a lean mirror) is not searched
    candidates = [p for p in found if p != quote.path and not _in_skill(tree, p, skill_folders)]
    for tried, path in enumerate(candidates):
        if tried == MAX_RELOCATION_CANDIDATES:
            raise BoundExceeded(
                f"not in {quote.path}; {len(candidates)} other files hold its line {needle[:60]!r}, "
                f"more than the {MAX_RELOCATION_CANDIDATES} searched"
            )
        source = tree.read(path)
        if source is None:
            continue
        moved = Quote(path, quote.declared, quote.body, quote.skill_line)
        match = match_quote(moved, source, closest=False)  # only where it is matters here
        if isinstance(match, (Exact, Moved)):
            suggested = match.suggested if isinstance(match, Moved) else match.found
            detail = f"the quoted code is now in {path}, lines {match.found}"
            problem = unwritable(path)
            if problem is not None:
                return Unchecked(quote, UncheckedReason.UNVERIFIABLE, f"{detail}; not healed: {problem}")
            return Relocated(quote, match.found, suggested, match.region, match.runs, detail, found_path=path)
    return None


def _in_skill(tree: SourceTree, path: str, folders: dict[str, bool]) -> bool:
    """Whether ``path`` is a skill's own file: a SKILL.md, or anything in a folder (or below one) holding one."""
    parts = path.split("/")
    if parts[-1] == "SKILL.md":
        return True
    for depth in range(len(parts)):
        folder = "/".join(parts[:depth])
        if folder not in folders:
            try:
                folders[folder] = tree.blob_id(f"{folder}/SKILL.md" if folder else "SKILL.md") is not None
            except Exception:  # noqa: BLE001 - a SKILL.md that cannot be read (a link) still marks a skill
                folders[folder] = True
        if folders[folder]:
            return True
    return False
