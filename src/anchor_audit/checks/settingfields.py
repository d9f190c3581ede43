"""Where a setting the prose writes is annotated: ``overlap_p2p_comm=True`` and ``model.seq_length`` name settings
that some class of the repository, or of one of its submodules, annotates as a field (``    overlap_p2p_comm:
bool``; or a function as a parameter written on its own line).

The annotations of all the settings a run's skills write are searched for as written, once in the repository and
once in each submodule (what a class of the repository inherits from one there is annotated there); a later
skill's new settings are searched for alone.  A setting no class annotates is not said: a class may inherit it
from a package not at hand (a submodule not supplied), and a YAML file's key or another project's keyword has the
same shape.
"""

from __future__ import annotations

import json

from ..model import ReferenceKind, Skill
from ..source import SourceTree
from ..source.listing import is_test
from ..spec.citations import setting_of
from ..store.memo import Memo, no_memo

MAX_TREES = 8  # trees whose settings' annotations are kept in a process


def annotated(setting: str) -> str:
    """How a class annotates a setting (a field; or a function a parameter on its own line): searched as written."""
    return f"    {setting}:"


def skill_settings(skill: Skill) -> list[str]:
    """The settings ``skill``'s prose writes, in order of name."""
    return sorted({s for c in skill.citations if c.kind is ReferenceKind.NAME and (s := setting_of(c.text, c.target))})


_FOUND: dict[str, tuple[frozenset[str], dict[str, list[str]]]] = {}  # by tree: the settings searched, where found


def where_annotated(tree: SourceTree, settings: list[str], memo: Memo = no_memo) -> dict[str, list[str]]:
    """Where ``tree`` and its submodules annotate each of ``settings`` (the files, not tests, those of
    configurations first): searched once for all the settings asked of the tree so far in this process, only the
    new ones searched again (``memo``: the answer remembered by the tree's content and the settings asked)."""
    content = tree.content_key()
    key = content or f"tree {id(tree)}"
    asked, found = _FOUND.get(key, (frozenset(), {}))
    new = sorted(set(settings) - asked)
    if new:
        search = lambda: {"paths": _searched(tree, new)}  # noqa: E731
        paths = memo(f"annotated/1|{content}|{json.dumps(new)}", search)["paths"] if content else search()["paths"]
        found = {**found, **paths}
        _FOUND.pop(key, None)
        _FOUND[key] = (asked | set(new), found)
        while len(_FOUND) > MAX_TREES:
            del _FOUND[next(iter(_FOUND))]
    return {s: found.get(s, []) for s in settings}


def _searched(tree: SourceTree, settings: list[str]) -> dict[str, list[str]]:
    """Where the repository annotates each of ``settings``, else where its submodules do."""
    found = tree.search_many([annotated(s) for s in settings], ".py") or {}
    here = {s: _ordered(found.get(annotated(s), [])) for s in settings}
    elsewhere = [annotated(s) for s in settings if not here[s]]
    inner = tree.search_submodules(elsewhere, ".py") if elsewhere else {}
    return {s: here[s] or _ordered(inner.get(annotated(s), [])) for s in settings}


def _ordered(paths: list[str]) -> list[str]:
    """``paths`` but tests, those of configurations first."""
    return sorted((p for p in paths if not is_test(p)), key=lambda p: ("config" not in p.rpartition("/")[2], p))
