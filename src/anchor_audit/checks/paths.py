"""Paths a skill names: in its prose (``PATH``), as ``@path`` (``AT_PATH``), as card.yaml ``evidence``.

A path of the prose is looked up in the skill's own folder, then in the
repository (as written, then as the tail of a longer path: ``training/config.py``
may be written from inside a package). It is ``missing`` only where the tree
could have it: its first folder is there, or it names no folder at all; a path
whose first folder is nowhere in the repository may be another tree's, and is
``unverifiable``. A missing path names the files with its name elsewhere.

The skill's own folder is read on disk, never above its root (a catalog's
copy: never above the catalog), or in the repository where the folder lies there.
"""

from __future__ import annotations

import fnmatch
import os
import posixpath
import re
from dataclasses import replace
from pathlib import Path
from typing import Iterator, Sequence

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
from ..source import SourceTree, url_key
from ..source.listing import Listing
from .diskreads import disk_read
from .pathcandidates import healed, in_tree, namesakes
from .protocol import Checker, Context, Heal, citations_of, judged

Judged = tuple[PromiseStatus, str, str]  # a status, the path it is of, and why


ANOTHER_TREE = "a path of another tree?"  # how path_in_prose says a path more likely names another repository's
NEVER_HERE = "not at the ref, and no file of its name anywhere here"
MIN_OTHER_TREE = 2  # another project's paths a skill names before one never here is read as one of them


def of_another_tree(status: PromiseStatus, detail: str) -> bool:
    """Whether :func:`path_in_prose` judged a path more likely another tree's than this one's."""
    return status is PromiseStatus.UNVERIFIABLE and detail.endswith(ANOTHER_TREE)


def unverified_on_a_page(detail: str) -> tuple[PromiseStatus, str]:
    """What a page's citation of something not here becomes: unverifiable, never missing (a page names the files
    a step makes, a sibling skill's, another project's names and programs as often as this repository's)."""
    return PromiseStatus.UNVERIFIABLE, f"{detail}; named in a page, not in SKILL.md: re-verify"


def on_a_page(c: Citation) -> bool:
    """Whether a citation is written in a page of the skill's folder (not SKILL.md, not card.yaml): said, never
    healed, and a path of another tree there says nothing of this one."""
    return c.file not in ("SKILL.md", "card.yaml")


def path_in_prose(path: str, skill: Skill, tree: SourceTree, listing: Listing) -> Judged:
    """Whether a path the prose names is here: in the skill's own folder, in the repository as written (a glob:
    any file it matches), or as the tail of a longer path; if not, missing or another tree's."""
    if _in_folder(path, skill, tree):
        return PromiseStatus.EXISTS, path, "in the skill's own folder"
    if "*" in path:
        found = [p for p in listing() if fnmatch.fnmatchcase(p, path) or fnmatch.fnmatchcase(p, f"*/{path}")]
        if found:
            return PromiseStatus.EXISTS, path, f"{len(found)} files match, e.g. {found[0]}"
    elif in_tree(tree, path):
        return PromiseStatus.EXISTS, path, ""
    else:
        tail = "/" + path.strip("/")
        if path.endswith("/"):
            longer = [p for p in listing() if p.endswith(tail) or f"{tail}/" in f"/{p}"]
        else:
            longer = listing.ending_in(tail)
        if longer:
            return PromiseStatus.EXISTS, path, f"as {min(longer, key=len)}"
    first = path.split("/", 1)[0]
    if "*" not in first and not in_tree(tree, first):
        return PromiseStatus.UNVERIFIABLE, path, f"no {first}/ in this repository: {ANOTHER_TREE}"
    candidates = namesakes(path, listing)
    parent = path.rstrip("/").rsplit("/", 1)[0]
    if candidates is None and "*" not in parent and not in_tree(tree, parent):
        # Neither its folder nor its name is anywhere here: more likely another tree's path (a skill about
        # another repository, a run's output) than a file this one lost. Said, never called missing.
        why = f"neither {parent}/ nor a file of its name is in this repository: {ANOTHER_TREE}"
        return PromiseStatus.UNVERIFIABLE, path, why
    other = (candidates is None or "*" in path) and _cloned_elsewhere(skill, tree)  # no namesake here either
    if other:  # the skill also works in a repository it clones: its paths may be that one's
        return PromiseStatus.UNVERIFIABLE, path, f"not here, and the skill clones {other}: {ANOTHER_TREE}"
    return PromiseStatus.MISSING, path, candidates or NEVER_HERE


def _cloned_elsewhere(skill: Skill, tree: SourceTree) -> str:
    """The first repository the skill clones (`git clone URL`) that is not the one audited (by name), or ""."""
    here = _repo_name(tree.info.repo)
    return next((url_key(url) for url in skill.clones if _repo_name(url) != here), "")


def _repo_name(url: str) -> str:
    return url_key(url).rsplit("/", 1)[-1].rsplit(":", 1)[-1]


def cited_path(c: Citation, skill: Skill, entry: SkillSpec | None) -> Iterator[Reference]:
    """What a path of the prose (or a line anchor's file) reads: the path, or any path it is the tail of."""
    path = c.target.strip("/")
    tail = Tail(path) if "*" not in path and c.kind in (ReferenceKind.PATH, ReferenceKind.LINES) else None
    yield Reference(c.kind, "SKILL.md", c.line, c.text, frozenset({path}), tail)


def _check_path(c: Citation, ctx: Context) -> list[PromiseResult]:
    beside = posixpath.normpath(posixpath.join(posixpath.dirname(c.file), c.target)) if "/" in c.file else None
    if beside is not None and not beside.startswith("../") and _in_folder(beside, ctx.skill, ctx.tree):
        return judged(PromiseKind.PATH, c, ctx, PromiseStatus.EXISTS, c.target, f"beside {c.file}")  # a page's own
    status, path, detail = path_in_prose(c.target, ctx.skill, ctx.tree, ctx.listing)
    if on_a_page(c) and of_another_tree(status, detail):
        return []  # a page about another project's files: nothing said of this one
    if on_a_page(c) and status is PromiseStatus.MISSING:  # a page names the files a step makes, a sibling's, ...
        status, detail = unverified_on_a_page(detail)
    return judged(PromiseKind.PATH, c, ctx, status, path, detail)


def folder_paths(skill: Skill, shown: str) -> tuple[PromiseResult, ...]:
    """The paths the prose of a catalog's copy whose code cannot be had names that its own folder holds (written
    from the skill's root, from the page they are written in, or from the root the folder lies in): there,
    which needs no code. One the folder does not hold may be the repository's: nothing is said of it."""
    out = []
    for c in skill.citations:
        if c.kind is not ReferenceKind.PATH or not c.target or "*" in c.target:
            continue
        beside = posixpath.normpath(posixpath.join(posixpath.dirname(c.file), c.target)) if "/" in c.file else None
        if beside is not None and not beside.startswith("../") and on_disk(skill, beside, skill.disk):
            detail = f"beside {c.file}"
        elif _on_own_disk(c.target, skill):
            detail = "in the skill's own folder"
        else:
            continue
        where = f"{shown.rstrip('/')}/{c.file}"
        out.append(PromiseResult(PromiseKind.PATH, c.target, PromiseStatus.EXISTS, where, c.line, detail))
    return tuple(out)


def _on_own_disk(path: str, skill: Skill) -> bool:
    """Whether the skill's folder on disk holds ``path``, written from its root or from the root it lies in."""
    own = own_part(path, skill)
    return on_disk(skill, path, skill.disk) or (own is not None and on_disk(skill, own, skill.disk))


def _in_folder(path: str, skill: Skill, tree: SourceTree) -> bool:
    return _on_own_disk(path, skill) or bool(skill.repo_folder and in_tree(tree, f"{skill.repo_folder}/{path}"))


def own_part(path: str, skill: Skill) -> str | None:
    """What ``path`` names in the skill's own folder where it names that folder as the folders it lies in on disk
    do (``skills/tuning/card.yaml`` for a skill at ``.../skills/tuning``: written from the root it lies in)."""
    if skill.disk is None:
        return None
    parts, mine = path.strip("/").split("/"), Path(skill.disk).parts
    for at, part in enumerate(parts[:-1]):
        if part == mine[-1] and at < len(mine) and tuple(parts[:at]) == mine[len(mine) - 1 - at : -1]:
            return "/".join(parts[at + 1 :])
    return None


def _missing(c: Citation, r: PromiseResult, skill: Skill) -> bool:
    """A path of SKILL.md the history may know of: where it went, or that it was here (a page's is said, never
    rewritten: ``fix`` writes SKILL.md)."""
    if c.file != "SKILL.md":
        return False
    return r.status is PromiseStatus.MISSING or of_another_tree(r.status, r.detail)


def _healed(out: list[PromiseResult], missing: list[tuple[int, Citation]], ctx: Context) -> list[PromiseResult]:
    """What the history says of each path not here; then a path the history never had, in a skill that names
    another project's files too (``tao-pytorch/setup.py``), is read as one of those: unverifiable, not missing."""
    out = healed(out, missing, ctx.skill, ctx.tree, ctx.listing)
    others = [r.path for r in out if r.kind is PromiseKind.PATH and of_another_tree(r.status, r.detail)]
    if len(others) < MIN_OTHER_TREE:
        return out
    said = f"; the skill names another project's files too ({', '.join(others[:2])}): one of them? re-verify"
    for at, _ in missing:
        r = out[at]
        if r.kind is PromiseKind.PATH and r.status is PromiseStatus.MISSING and r.detail == NEVER_HERE:
            out[at] = replace(r, status=PromiseStatus.UNVERIFIABLE, detail=r.detail + said)
    return out


PATH_HEAL = Heal(_missing, _healed)

PATH: Checker[Citation, list[PromiseResult]] = Checker(
    ReferenceKind.PATH, citations_of(ReferenceKind.PATH), cited_path, _check_path, PromiseKind.PATH, PATH_HEAL
)


# @path: a path of the prose, written to be read (looked up as any other); card.yaml evidence: a path of the
# repository, as written (or evidence in words).


def _at_paths(skill: Skill, entry: SkillSpec | None) -> Sequence[Citation]:
    return [Citation(ReferenceKind.AT_PATH, f"@{path}", path, line) for path, line in skill.references]


def _evidence(skill: Skill, entry: SkillSpec | None) -> Sequence[Citation]:
    card = skill.card
    if card is None:
        return ()
    lines = card.evidence_lines or (1,) * len(card.evidence)
    return [Citation(ReferenceKind.EVIDENCE, p, p, line) for p, line in zip(card.evidence, lines, strict=False)]


def _reads_at_path(c: Citation, skill: Skill, entry: SkillSpec | None) -> Iterator[Reference]:
    yield Reference(ReferenceKind.AT_PATH, "SKILL.md", c.line, c.text, frozenset({c.target}))


def _reads_evidence(c: Citation, skill: Skill, entry: SkillSpec | None) -> Iterator[Reference]:
    yield Reference(ReferenceKind.EVIDENCE, "card.yaml", c.line, c.text, frozenset({c.target}))


def _check_at_path(c: Citation, ctx: Context) -> list[PromiseResult]:
    status, path, detail = path_in_prose(c.target, ctx.skill, ctx.tree, ctx.listing)
    return judged(PromiseKind.REFERENCE, c, ctx, status, path, detail)


def _check_evidence(c: Citation, ctx: Context) -> list[PromiseResult]:
    if re.search(r"\s|#|\(|^[A-Z][\w-]* v?\d", c.target):
        # "PR #3107 (…)", "Megatron-Core v0.16 benchmarks": evidence in words, not a path of the repository
        status, detail = PromiseStatus.UNVERIFIABLE, "free text, not a repository path"
    else:
        status, detail = (PromiseStatus.EXISTS if in_tree(ctx.tree, c.target) else PromiseStatus.MISSING), ""
    return [PromiseResult(PromiseKind.EVIDENCE, c.target, status, ctx.card_yaml, c.line, detail)]


AT_PATH: Checker[Citation, list[PromiseResult]] = Checker(
    ReferenceKind.AT_PATH, _at_paths, _reads_at_path, _check_at_path, PromiseKind.REFERENCE, PATH_HEAL
)
EVIDENCE: Checker[Citation, list[PromiseResult]] = Checker(
    ReferenceKind.EVIDENCE, _evidence, _reads_evidence, _check_evidence, PromiseKind.EVIDENCE, PATH_HEAL,
    written_in="card.yaml",
)  # fmt: skip


# The skill's own folder, on disk.


def leaves(target: str) -> bool:
    return posixpath.normpath(target).startswith("..")


def on_disk(skill: Skill, target: str, root: str | None) -> bool:
    """Whether ``target`` (relative to the skill's folder) is on disk, never looking above ``root``."""
    if skill.disk is None or root is None:
        return False
    return _on_disk(skill.disk, target, root)


@disk_read("on_disk")
def _on_disk(folder: str, target: str, root: str) -> bool:
    # Most targets are not there at all: one lstat says so before the walk of every folder up to the root.
    if not os.path.lexists(os.path.normpath(os.path.join(folder, target))):
        return False
    here = _inside(folder, target, root)
    return here is not None and here.exists()


def _inside(folder: str, target: str, root: str) -> Path | None:
    """``folder/target`` when it (and what a link there points at) stays under ``root``; else None.  ``root`` is
    a real path (resolved when the skill was read), so a link put there since cannot widen it."""
    here = Path(os.path.normpath(os.path.join(folder, target)))
    if not here.is_relative_to(root) or not Path(os.path.realpath(here)).is_relative_to(root):
        return None
    return here


def read_disk(skill: Skill, target: str) -> str | None:
    """A Markdown file a link names, to read its headings: under the skill's root only, 2 MiB at most."""
    if skill.disk is None or skill.disk_root is None:
        return None
    return _read_disk(skill.disk, target, skill.disk_root)


@disk_read("read_disk")
def _read_disk(folder: str, target: str, root: str) -> str | None:
    path = _inside(folder, target, root)
    try:
        if path is None or not path.is_file() or path.stat().st_size > 2 * 1024 * 1024:
            return None
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def read_tree(tree: SourceTree, folder: str | None, target: str) -> str | None:
    source = tree.read(f"{folder}/{target}" if folder else target)
    return source.text if source is not None else None


def read_skill_md(skill: Skill, tree: SourceTree) -> str | None:
    """The skill's SKILL.md as it is where the skill is read (on disk, else in the tree)."""
    return read_disk(skill, "SKILL.md") if skill.disk else read_tree(tree, skill.repo_folder, "SKILL.md")
