"""Names of the prose (``NAME``): a dotted name or a call in a code span, or a YAML example's ``_target_``.

A name is checked when it is this repository's (see :func:`anchor_audit.checks.symbols.resolve_name`); a bare
name the package defines nowhere is checked against the code when the line citing it was written
(:mod:`anchor_audit.checks.namehistory`).  The bare names of a skill are searched for together, once; a
catalog's skills, once for all the skills of a component.
"""

from __future__ import annotations

import re
from typing import Iterator, Sequence

from ..errors import BoundExceeded, NotCarried, UnreadableFile
from ..model import (
    Citation,
    PromiseKind,
    PromiseResult,
    PromiseStatus,
    Reference,
    ReferenceKind,
    Skill,
    SkillSpec,
    Tail,
)
from ..source import SourceTree
from ..spec.citations import setting_of
from .attrchains import member_of
from .barenames import bare_searches, search_all
from .namehistory import OwnLines, called, expect_gone_names, gone_names
from .paths import on_a_page, read_disk, read_tree, unverified_on_a_page
from .protocol import Checker, Context, citations_of
from .settingfields import annotated, skill_settings, where_annotated
from .symbols import resolve_name


def name_searches(skill: Skill) -> list[str]:
    """What is searched for the bare names ``skill`` cites (``def NAME(``, ``class NAME:``..., a constant's name),
    in one search: each text begins with ``def`` or ``class`` and ends with ``(`` or ``:``, so no two can
    overlap in a line, and one ``git grep -o`` for any number of them, a whole repository's skills' at once,
    names every one it finds; the constants' names, whole words, in one more."""
    names = {(c.target, called(c)) for c in skill.citations if c.kind is ReferenceKind.NAME and "." not in c.target
             and setting_of(c.text, c.target) is None}  # fmt: skip
    return sorted({text for name, call in names for text in bare_searches(name, call)})


def expect_names(skill: Skill, tree: SourceTree) -> None:
    """Tell the trees of other commits what the names' check will search them for (the past of the names the
    package defines nowhere), so that many skills' commits are searched together.  What goes wrong here the
    check meets again, and says."""
    try:
        searched = names_searched(skill, tree)
        if searched is not None:
            expect_gone_names(skill, tree, searched, _own_lines(skill, tree))
    except Exception:  # noqa: BLE001 - only a search gathered early is lost
        pass


def names_searched(skill: Skill, tree: SourceTree) -> dict[str, list[str]] | None:
    """Where the package defines each bare name ``skill`` cites, in one search, and where it or a submodule
    annotates each setting (by :func:`annotated` text); None where none is cited, or the search is over its bound
    (each name is then searched on its own, bounded as ever)."""
    bare, settings = name_searches(skill), skill_settings(skill)
    try:
        found = search_all(tree, bare) if bare else {}
    except BoundExceeded:
        return None
    if found is None or not (bare or settings):
        return None
    said = where_annotated(tree, settings)
    return {**found, **{annotated(s): said[s] for s in settings}}


def names_gone(skill: Skill, tree: SourceTree, searched: dict[str, list[str]] | None
               ) -> dict[Citation, tuple[PromiseStatus, str]]:  # fmt: skip
    """The cited names the package defined when their line was written, and defines nowhere now."""
    if searched is None:
        return {}
    gone = gone_names(skill, tree, searched, _own_lines(skill, tree))
    return {skill.citations[i]: said for i, said in gone.items()}


def _own_lines(skill: Skill, tree: SourceTree) -> OwnLines:
    """The lines of a file of the skill as it is where the skill is read (on disk, else in the tree), each file
    read once."""
    read: dict[str, list[str] | None] = {}

    def lines(file: str) -> list[str] | None:
        if file not in read:
            try:
                text = read_disk(skill, file) if skill.disk else read_tree(tree, skill.repo_folder, file)
            except (NotCarried, UnreadableFile):
                text = None
            read[file] = None if text is None else text.replace("\r\n", "\n").split("\n")
        return read[file]

    return lines


def _reads(c: Citation, skill: Skill, entry: SkillSpec | None) -> Iterator[Reference]:
    """pkg.mod.Name: the module's file, wherever the package's root is; a setting written with its value
    (``cfg.model.x = 1``): an object's attribute, no module's."""
    assigned = "=" in c.text and setting_of(c.text, c.target) is not None
    module = "/".join(c.target.split(".")[:-1]) if not assigned else ""
    yield Reference(c.kind, c.file, c.line, c.text, tail=Tail(f"{module}.py") if module else None)


_NOT_THERE = (PromiseStatus.MISSING, PromiseStatus.PRIVATE)


def _check(c: Citation, ctx: Context) -> list[PromiseResult]:
    """A name of the prose, when it is this repository's, or one it was when the line was written (missing, where
    the ref has it nowhere or only in tests)."""
    setting = setting_of(c.text, c.target)
    bare_setting = setting is not None and "." not in c.target  # `name=value` names a setting, not a class
    said = ctx.gone.get(c) or spec_key(c.target, called(c), ctx.skill.schema_keys)
    if said is None and not bare_setting:
        said = _with_member(c.target, resolve_name(c.target, called(c), ctx.tree, ctx.searched, ctx.memo), ctx.tree)
        # A page's table of math or another project's names (a configuration the skill ships is this one's).
        if said is not None and on_a_page(c) and c.file.endswith(".md") and said[0] in _NOT_THERE:
            said = unverified_on_a_page(said[1])
    if said is None and setting is not None:  # not a name of the package: a setting of one of its classes?
        said = _setting(setting, ctx)
    return [] if said is None else [PromiseResult(PromiseKind.SYMBOL, c.text, said[0], ctx.file(c.file), c.line,
                                                  said[1])]  # fmt: skip


def _setting(name: str, ctx: Context) -> tuple[PromiseStatus, str] | None:
    """A setting the prose writes (``overlap_p2p_comm=True``, ``model.seq_length``): there where a class of the
    repository or of a submodule annotates it (:mod:`.settingfields`); else not said (a key of a YAML file, another
    project's, or a field a class inherits from a package not at hand)."""
    found = ctx.searched.get(annotated(name)) if ctx.searched is not None else None
    paths = found if found is not None else where_annotated(ctx.tree, [name])[name]
    return (PromiseStatus.EXISTS, paths[0]) if paths else None


_FOUND_AT = re.compile(r"^(\S+\.py):\d+$")


def _with_member(target: str, said: tuple[PromiseStatus, str] | None, tree: SourceTree
                 ) -> tuple[PromiseStatus, str] | None:  # fmt: skip
    """A dotted name found as far as a class of a module (``pkg.mod.Press``), then the member it names past it
    (``.stamp``) looked up in the class (:func:`member_of`); as found where no class comes before a member."""
    found = _FOUND_AT.match(said[1]) if said is not None and said[0] is PromiseStatus.EXISTS else None
    if found is None:
        return said
    parts = target.split(".")
    for at in range(1, len(parts) - 1):  # the first part the module binds is the name it was found by
        member = member_of(tree, found.group(1), parts[at], parts[at + 1])
        if member is not None:
            return member
    return said


MAX_KEYS_SHOWN = 8  # a missing key's siblings a result names


def spec_key(name: str, call: bool, keys: Sequence[tuple[str, str]]) -> tuple[PromiseStatus, str] | None:
    """A dotted name whose first part is a top-level key of a JSON schema the skill ships (``train.num_gpus``,
    ``schemas/train.schema.json``) is a key of that spec, not a Python name: there if a schema has it, else
    unverifiable (the skill may name a key of another version to tell the agent to drop it), with the keys the
    nearest level it reaches has.  None for any other name, and where that level lists no keys (an open
    collection: the schema does not say)."""
    parts = name.split(".")
    if call or len(parts) < 2 or not keys:
        return None
    files, under = _key_index(keys)
    if parts[0] not in files:
        return None
    if name in files:
        more = f" (and {len(files[name]) - 1} more)" if len(files[name]) > 1 else ""
        return PromiseStatus.EXISTS, f"a key of {files[name][0]}{more}"
    level = next(".".join(parts[:i]) for i in range(len(parts) - 1, 0, -1) if ".".join(parts[:i]) in files)
    if not under.get(level):
        return None
    below = sorted(under[level])
    shown = ", ".join(below[:MAX_KEYS_SHOWN]) + (", ..." if len(below) > MAX_KEYS_SHOWN else "")
    return PromiseStatus.UNVERIFIABLE, f"not a key of the schemas the skill ships (`{level}` has {shown})"


_INDEXED: list[tuple[Sequence[tuple[str, str]], tuple[dict[str, list[str]], dict[str, set[str]]]]] = []


def _key_index(keys: Sequence[tuple[str, str]]) -> tuple[dict[str, list[str]], dict[str, set[str]]]:
    """(each key -> the schema files that have it, sorted; each key -> the names of the keys right under it), built
    once for a skill's keys (a skill's names all ask the same), the last few skills' kept."""
    for seen, index in _INDEXED:
        if seen is keys:
            return index
    files: dict[str, set[str]] = {}
    under: dict[str, set[str]] = {}
    for key, file in keys:
        files.setdefault(key, set()).add(file)
        parent, _, last = key.rpartition(".")
        if parent:
            under.setdefault(parent, set()).add(last)
    index = ({key: sorted(found) for key, found in files.items()}, under)
    _INDEXED[:] = [*_INDEXED[-3:], (keys, index)]
    return index


NAME: Checker[Citation, list[PromiseResult]] = Checker(
    ReferenceKind.NAME, citations_of(ReferenceKind.NAME), _reads, _check, PromiseKind.SYMBOL,
    subject=lambda c: c.text, unreadable_is_there=False,
)  # fmt: skip
