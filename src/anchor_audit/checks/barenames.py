"""Where a bare name the prose cites is defined: ``make_batch()`` by a ``def`` or ``class``, ``MeshContext`` by a
``class``, ``SMALL_PRESET_V1`` by an assignment at a line's start (a module's constant, or a class's).

What is searched for is text (``def make_batch(``), so that a skill's names, and a catalog component's skills',
are found in one ``git grep`` of a tree; a constant by its name as a whole word, and the files that write it
are read for its assignment (``UNTUNED_PRESET = 3`` does not assign ``TUNED_PRESET``).
"""

from __future__ import annotations

import functools
import json
import re

from ..errors import NotCarried, UnreadableFile
from ..model import PromiseStatus
from ..source import SourceTree
from ..source.listing import is_test
from ..spec.citations import is_constant_name
from ..store.memo import Memo, no_memo

MAX_DEFINED_KEPT = 65536  # (blob, constant) answers of defined_in kept, the oldest first out
_DEFINED: dict[tuple[str, str], bool] = {}


def bare_searches(name: str, call: bool = True) -> list[str]:
    """What is searched for a bare name: its definitions, and its private one's."""
    public, private = definitions(name, call)
    return public + private


def definitions(name: str, call: bool) -> tuple[list[str], list[str]]:
    """(the texts that define ``name``, those that define ``_name``): a call may be a function's or a class's;
    a name written alone (``MeshContext``), a class's; a constant (``SMALL_PRESET_V1``), its name: the files that
    write it are read for its assignment (:func:`defined_in`)."""
    if call:
        return [f"def {name}(", f"class {name}(", f"class {name}:"], [f"def _{name}("]
    if is_constant_name(name):
        return [name], []  # searched as a whole word (:func:`search_all`), then the files read
    return [f"class {name}(", f"class {name}:"], [f"class _{name}(", f"class _{name}:"]


def search_all(tree: SourceTree, texts: list[str]) -> dict[str, list[str]] | None:
    """Where each text is written in the tree's Python files: a definition (``def make_batch(``) as written, a
    constant's name as a whole word, in one search (whole words overlap neither each other nor a definition
    but where it holds them whole, so many skills' share it); None where the tree cannot be searched cheaply."""
    return tree.search_many(texts, ".py", words=True) if texts else {}


def expect_all(tree: SourceTree, texts: list[str]) -> None:
    """Tell ``tree`` it will be asked :func:`search_all` of ``texts``."""
    tree.expect_search(texts, ".py", words=True)


def read_to_confirm(name: str, call: bool) -> bool:
    """Whether a file a search finds for ``name`` must be read to know it defines it (a constant)."""
    return _line(name, call) is not None


@functools.lru_cache(maxsize=16384)
def _line(name: str, call: bool) -> re.Pattern[str] | None:
    """The line that defines a constant (assigned at a line's start, indented in a class); None for a call or a
    class, whose search text says it all."""
    if call or not is_constant_name(name):
        return None
    return re.compile(rf"^[ \t]*{re.escape(name)}(?:[ \t]*:[^=\n]*|[ \t]+)=(?!=)", re.MULTILINE)


def defined_in(tree: SourceTree, paths: list[str], name: str, call: bool, memo: Memo = no_memo) -> list[str]:
    """Those of ``paths`` whose file defines the constant ``name`` (see :func:`_line`: ``NAME = ...`` or ``NAME:
    T = ...``, not ``NAME=1 cmd`` in a docstring, nor a longer name ending in it); each file's answer remembered
    by its blob (in this process, and across runs by ``memo``), so a history or an edited skill reads a file
    again only where it changed."""
    line = _line(name, call)
    if line is None:
        return paths
    blobs = []
    for path in paths:
        try:
            blobs.append(tree.blob_id(path))
        except (NotCarried, UnreadableFile, ValueError):
            blobs.append(None)
    if None in blobs:
        return _read_for(tree, paths, blobs, name, line)
    key = "defined-in/1|" + json.dumps([name, blobs])
    read = lambda: {"at": [paths.index(p) for p in _read_for(tree, paths, blobs, name, line)]}  # noqa: E731
    said: list[int] = memo(key, read)["at"]
    return [paths[i] for i in said]


def _read_for(
    tree: SourceTree, paths: list[str], blobs: list[str | None], name: str, line: re.Pattern[str]
) -> list[str]:
    out = []
    for path, blob in zip(paths, blobs, strict=True):
        if blob is None or (blob, name) not in _DEFINED:
            try:
                source = tree.read(path)
            except (NotCarried, UnreadableFile):
                continue
            said = source is not None and bool(line.search(source.text))
            if blob is None:
                out += [path] if said else []
                continue
            if len(_DEFINED) >= MAX_DEFINED_KEPT:
                _DEFINED.pop(next(iter(_DEFINED)))
            _DEFINED[(blob, name)] = said
        if _DEFINED[(blob, name)]:
            out.append(path)
    return out


def removal_pattern(name: str, call: bool) -> str:
    """What ``git log -G`` looks for in a diff where ``name`` stops being defined (extended regex)."""
    escaped = re.escape(name)
    if not call and is_constant_name(name):
        return f"^[[:space:]]*{escaped}[[:space:]]*[:=]"
    return f"(class|def) {escaped}[(:]"


def resolve_bare(
    name: str, tree: SourceTree, searched: dict[str, list[str]] | None, call: bool = True, memo: Memo = no_memo
) -> tuple[PromiseStatus, str] | None:
    """A bare name: found (in the package, only in its tests, only in private form), or None (not said: it may be
    anyone's).  The texts of its definitions are searched for (a skill's names all in one search, ``searched``);
    a file is read only for a constant's assignment."""
    found: dict[str, list[str]] = {}
    for text in bare_searches(name, call):
        answer = {text: searched[text]} if searched is not None and text in searched else search_all(tree, [text])
        hits = None if answer is None else answer[text]
        if hits is None:
            return None  # a tree that cannot be searched cheaply is not searched
        found[text] = hits
    public, private = definitions(name, call)
    defined = sorted({path for text in public for path in found[text]})
    if read_to_confirm(name, call):  # a test's constant is the tests' (a benchmark's list of backends)
        defined = defined_in(tree, defined, name, call, memo)
        return (PromiseStatus.EXISTS, defined[0]) if defined else None
    package = [p for p in defined if not is_test(p)]
    if package:
        return PromiseStatus.EXISTS, package[0]
    if defined:  # a test's helper of that name is not the package's function the prose means
        return PromiseStatus.UNVERIFIABLE, f"defined only in tests ({defined[0]}), not in the package"
    privately = sorted({path for text in private for path in found[text]})
    if privately and not name.startswith("_"):
        return PromiseStatus.PRIVATE, f"{privately[0]} has _{name}: the name became private"
    return None
