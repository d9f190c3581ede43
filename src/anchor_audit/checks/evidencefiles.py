"""Where and when a card sentence's gate is looked for: the card's evidence and the skill's quoted files, the files
its comments point into, the files that define the settings it names, and the commit that wrote a gate the
validation day lacked."""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any, Callable, TypeVar

from ..errors import NotCarried, UnreadableFile
from ..model import Card, Skill
from ..source import SourceTree
from ..source.listing import is_test
from .gates import Gate
from .protocol import Context
from .sentencewords import wanted

T = TypeVar("T")
MAX_FILES = 24  # evidence and quoted files a constraint is looked for in
MAX_LINE = 1000  # characters of a gate's line the history is searched for (git takes an argument of 128 KiB)


def evidence_files(skill: Skill) -> list[str]:
    """Where a constraint's gate is looked for: the card's evidence files, then the skill's quoted files (Python)."""
    evidence = skill.card.evidence if skill.card else ()
    found = [p for p in (*evidence, *(q.path for q in skill.quotes)) if p.endswith(".py") and not is_test(p)]
    return list(dict.fromkeys(found))[:MAX_FILES]


MAX_KEPT = 64  # cards (with their trees) whose once-per-card work is kept
_KEPT: dict[tuple[str, tuple[int, ...]], tuple[tuple[object, ...], Any]] = {}


def _once(what: str, owners: tuple[object, ...], compute: Callable[[], T]) -> T:
    """``compute()`` once for ``owners`` (a card, its tree's listing: known by identity and held, so that no other
    object takes their ids), not once per sentence; the latest :data:`MAX_KEPT` kept."""
    key = (what, tuple(id(o) for o in owners))
    kept = _KEPT.get(key)
    if kept is not None and all(a is b for a, b in zip(kept[0], owners, strict=True)):
        return kept[1]
    value = compute()
    if len(_KEPT) >= MAX_KEPT:
        _KEPT.pop(next(iter(_KEPT)))
    _KEPT[key] = (owners, value)
    return value


def comment_files(ctx: Context) -> list[str]:
    """The Python files the card's comments point into (``# MCore transformer_config.py:1928``), each where its
    name, and the folder its prefix word says, fit one file of the ref that is not a test: worked out once per
    card and tree."""
    return _once("comments", (ctx.skill.card, ctx.listing), lambda: _comment_files(ctx))


def _comment_files(ctx: Context) -> list[str]:
    card = ctx.skill.card
    prefixes = ctx.entry.card_prefixes if ctx.entry else ()
    tails = dict.fromkeys(a.tail(prefixes) for claim in (card.claims if card else ()) for a in claim.anchors)
    found: list[str] = []
    for tail in tails:
        name = tail.file.strip("/").rpartition("/")[2]
        if name.endswith(".py"):
            fits = [p for p in ctx.listing.named(name) if tail.matches(p) and not is_test(p)]
            found += fits if len(fits) == 1 else []
    return list(dict.fromkeys(found))[:MAX_FILES]


CONFIG_FILES = "config.py"  # where a class defining settings as fields is looked for: a name ending so
MAX_DEFINING = 4  # files of the repository and of each submodule that define a sentence's settings, most first


def defining_files(names: frozenset[str], tree: SourceTree, ctx: Context) -> list[str]:
    """The configuration files (``*config.py``, not tests) that define the settings ``names`` as fields of a class
    (``    name: ...``), those that define more of them first: where a setting's validations usually are.  One
    search of the tree and of its submodules for every setting the card's sentences name, remembered by the tree."""
    needles, digest = _field_needles(ctx.skill)
    content = tree.content_key()
    if content is None or not needles:
        return []

    def search() -> dict[str, Any]:
        found = dict(tree.search_many(needles, CONFIG_FILES) or {})
        for text, paths in tree.search_submodules(needles, CONFIG_FILES).items():
            found[text] = [*found.get(text, []), *paths]
        return {"found": found}

    found: dict[str, list[str]] = ctx.memo(f"defining/3|{content}|{digest}", search)["found"]
    counts: dict[str, int] = {}
    for name in names:
        for path in found.get(_needle(name), []):
            if not is_test(path):
                counts[path] = counts.get(path, 0) + 1
    return sorted(counts, key=lambda p: (-counts[p], p))[:MAX_DEFINING]


MAX_NEEDLES = 256  # settings of one card searched for where a class defines them


def _field_needles(skill: Skill) -> tuple[list[str], str]:
    """How each setting the card's sentences name is written where a class defines it as a field (the first
    :data:`MAX_NEEDLES`, in order), and a digest of them: worked out once per card, not once per sentence."""
    card = skill.card
    return ([], "") if card is None else _once("needles", (card,), lambda: _needles_of(card))


def _needles_of(card: Card) -> tuple[list[str], str]:
    needles = sorted({_needle(n) for text, _ in card.constraints for n in wanted(text, card.aliases)[0]})
    needles = needles[:MAX_NEEDLES]
    return needles, hashlib.sha256(json.dumps(needles).encode("utf-8", "surrogateescape")).hexdigest()


def _needle(name: str) -> str:
    return f"    {name.split('.')[-1]}:"


def gates_landing(gates: list[Gate], tree: SourceTree, since: SourceTree) -> tuple[str, str] | None:
    """(commit, day) of the newest commit after ``since``'s, up to ``tree``'s, that wrote the first line of one of
    ``gates`` (gates of ``tree``); None where the history cannot say it of one (a file of a submodule, a shallow
    history), or where a Python file of ``since`` already has one's line (its file moved since: its code did not
    land then)."""
    lines = [_first_line(gate, tree) for gate in gates]
    sha = since.info.commit
    if not sha or not all(0 < len(line) <= MAX_LINE for line in lines):  # a line too long to hand to git
        return None
    landings = [tree.definition_removed(gate.path, re.escape(line), sha)
                for gate, line in zip(gates, lines, strict=True)]
    known = [landing for landing in landings if landing is not None]
    there = since.search_many(lines, ".py") if known and len(known) == len(landings) else None
    if there is None or any(there.get(line) for line in lines):
        return None
    return max(known, key=lambda at: at[1])


def _first_line(gate: Gate, tree: SourceTree) -> str:
    """The first line of ``gate`` in ``tree``, stripped ("" where it cannot be read)."""
    try:
        source = tree.read(gate.path)
    except (NotCarried, UnreadableFile):
        return ""
    lines = source.text.splitlines() if source is not None else []
    return lines[gate.line - 1].strip() if 0 < gate.line <= len(lines) else ""


def same_files(paths: list[str], one: SourceTree, other: SourceTree) -> bool:
    """Whether each of ``paths`` is the same blob in both trees (absent from both counts as the same; one that a
    tree cannot read does not)."""
    try:
        return all(one.blob_id(path) == other.blob_id(path) for path in paths)
    except (NotCarried, UnreadableFile):
        return False
