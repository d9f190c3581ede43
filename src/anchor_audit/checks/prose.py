"""The prose's citations judged at the ref: does each path, link and version pin still hold?

A path is looked up in the skill's own folder, then in the repository (as
written, then as the tail of a longer path: ``training/config.py`` may be
written from inside a package). It is ``missing`` only where the tree could
have it: its first folder is there, or it names no folder at all; a path
whose first folder is nowhere in the repository may be another tree's, and
is ``unverifiable``. A missing path names the files with its name elsewhere.

A relative link is resolved from SKILL.md: on disk, never above the skill's
folder (a catalog's copy: never above the catalog), and in the repository
from where the folder lies there. A link that resolves upstream but not in
the catalog's copy is broken by the catalog's layout. An ``#anchor`` is
checked against the target's headings, with GitHub's slug rules.
"""

from __future__ import annotations

import fnmatch
import functools
import os
import posixpath
import re
from pathlib import Path

from ..errors import BoundExceeded, NotCarried, UnreadableFile
from ..model import Citation, PromiseKind, PromiseResult, PromiseStatus, ReferenceKind, Skill
from ..source import SourceTree
from ..source.listing import Listing
from .command import check_command, check_default
from .namehistory import called, expect_gone_names, gone_names
from .pathcandidates import healed, healed_links, in_tree, namesakes
from .pyproject import conflict, normalize, project_meta
from .symbols import bare_searches, resolve_name


def name_searches(skill: Skill) -> list[str]:
    """What is searched for the bare names ``skill`` cites (``def NAME(``, ``class NAME:``...), in one search: each
    text begins with ``def`` or ``class`` and ends with ``(`` or ``:``, so no two can overlap in a line, and one
    ``git grep -o`` for any number of them, a whole repository's skills' at once, names every one it finds."""
    names = {(c.target, called(c)) for c in skill.citations if c.kind is ReferenceKind.NAME and "." not in c.target}
    return sorted({text for name, call in names for text in bare_searches(name, call)})


def expect_citations(skill: Skill, tree: SourceTree) -> None:
    """Tell the trees of other commits what :func:`check_citations` will search them for (the past of the names
    the package defines nowhere), so that many skills' commits are searched together.  What goes wrong here
    the check meets again, and says."""
    try:
        searched = _names_searched(skill, tree)
        if searched is not None:
            expect_gone_names(skill, tree, searched, _own_lines(skill, tree))
    except Exception:  # noqa: BLE001 - only a search gathered early is lost
        pass


def _names_searched(skill: Skill, tree: SourceTree) -> dict[str, list[str]] | None:
    """Where the package defines each bare name ``skill`` cites, in one search; None where none is cited, or
    the search ran past its bound (each name is then searched on its own, and bounded on its own)."""
    bare = name_searches(skill)
    try:
        return tree.search_many(bare, ".py") if bare else None
    except BoundExceeded:
        return None


def check_citations(skill: Skill, tree: SourceTree, listing: Listing) -> list[PromiseResult]:
    """A result for every citation of ``skill``'s prose (``listing``: every file of the tree, listed once)."""
    shown = f"{skill.path.rstrip('/')}/SKILL.md"
    out: list[PromiseResult] = []
    missing: list[tuple[int, Citation]] = []  # (where in out, the citation) of each missing path
    links: list[tuple[int, Citation]] = []  # and of each missing relative link
    commands = [c for c in skill.citations if c.kind is ReferenceKind.COMMAND]
    searched = _names_searched(skill, tree)
    gone = gone_names(skill, tree, searched, _own_lines(skill, tree)) if searched is not None else {}
    for index, c in enumerate(skill.citations):
        if c.kind is ReferenceKind.COMMAND:
            out += _guarded_command(c, tree, listing, shown)
            continue
        if c.kind is ReferenceKind.DEFAULT:
            out += _guarded_command(c, tree, listing, shown, commands)
            continue
        if c.kind is ReferenceKind.NAME:
            out += _named(c, tree, shown, searched, gone.get(index))
            continue
        try:
            status, target, detail = _judge(c, skill, tree, listing)
        except NotCarried as exc:
            status, target, detail = PromiseStatus.UNVERIFIABLE, c.target, str(exc)
        except UnreadableFile as exc:
            status, target, detail = PromiseStatus.EXISTS, c.target, str(exc)  # there, if not readable
        except Exception as exc:  # noqa: BLE001 - one citation's failure is its result, never the run's
            status, target, detail = PromiseStatus.ERROR, c.target, f"internal error: {type(exc).__name__}: {exc}"
        if c.kind is ReferenceKind.PIN and status is PromiseStatus.EXTERNAL:
            continue  # a pin of a package this repository does not declare says nothing about its code
        out.append(PromiseResult(_KINDS[c.kind], target, status, shown, c.line, detail))
        if c.kind in (ReferenceKind.PATH, ReferenceKind.LINES) and (
            status is PromiseStatus.MISSING or (status is PromiseStatus.UNVERIFIABLE and "another tree" in detail)
        ):
            missing.append((len(out) - 1, c))  # the history may know where it went, or that it was here
        elif c.kind is ReferenceKind.LINK and status is PromiseStatus.MISSING and c.target and skill.repo_folder:
            links.append((len(out) - 1, c))
    return healed_links(healed(out, missing, skill, tree, listing), links, skill, tree)


def _own_lines(skill: Skill, tree: SourceTree) -> list[str] | None:
    try:
        text = _read_disk(skill, "SKILL.md") if skill.disk else _read_tree(tree, skill.repo_folder, "SKILL.md")
    except (NotCarried, UnreadableFile):
        return None
    return None if text is None else text.replace("\r\n", "\n").split("\n")


def _named(
    c: Citation,
    tree: SourceTree,
    shown: str,
    searched: dict[str, list[str]] | None,
    gone: tuple[PromiseStatus, str] | None = None,
) -> list[PromiseResult]:
    """A name of the prose, when it is this repository's (see :func:`anchor_audit.checks.symbols.resolve_name`), or one
    it was when the line was written (``gone``: missing, where the ref has it nowhere or only in tests)."""
    try:
        said = gone or resolve_name(c.target, called(c), tree, searched)
    except NotCarried as exc:
        said = PromiseStatus.UNVERIFIABLE, str(exc)
    except Exception as exc:  # noqa: BLE001 - one citation's failure is its result, never the run's
        said = PromiseStatus.ERROR, f"internal error: {type(exc).__name__}: {exc}"
    return [] if said is None else [PromiseResult(PromiseKind.SYMBOL, c.text, said[0], shown, c.line, said[1])]


def _guarded_command(
    c: Citation, tree: SourceTree, listing: Listing, shown: str, commands: list[Citation] | None = None
) -> list[PromiseResult]:
    """A command's results, or (``commands``: the skill's) a flag's stated default's."""
    try:
        if commands is not None:
            return [check_default(c, commands, tree, listing, shown)]
        return check_command(c, tree, listing, shown)
    except NotCarried as exc:
        return [PromiseResult(PromiseKind.COMMAND, c.target, PromiseStatus.UNVERIFIABLE, shown, c.line, str(exc))]
    except Exception as exc:  # noqa: BLE001 - one citation's failure is its result, never the run's
        why = f"internal error: {type(exc).__name__}: {exc}"
        return [PromiseResult(PromiseKind.COMMAND, c.target, PromiseStatus.ERROR, shown, c.line, why)]


_KINDS = {
    ReferenceKind.PATH: PromiseKind.PATH,
    ReferenceKind.LINK: PromiseKind.LINK,
    ReferenceKind.REPO_LINK: PromiseKind.LINK,
    ReferenceKind.PIN: PromiseKind.VERSION,
    ReferenceKind.LINES: PromiseKind.PATH,
}
Judged = tuple[PromiseStatus, str, str]


def _judge(c: Citation, skill: Skill, tree: SourceTree, listing: Listing) -> Judged:
    if c.kind is ReferenceKind.PIN:
        return _pin(c, tree)
    if c.kind is ReferenceKind.REPO_LINK:
        return _repo_link(c, tree)
    if c.kind is ReferenceKind.LINK:
        return _link(c, skill, tree)
    if c.kind is ReferenceKind.LINES:
        return _lines(c, skill, tree, listing)
    return _path(c.target, skill, tree, listing)


def _path(path: str, skill: Skill, tree: SourceTree, listing: Listing) -> Judged:
    if _on_disk(skill, path, skill.disk) or (skill.repo_folder and in_tree(tree, f"{skill.repo_folder}/{path}")):
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
        return PromiseStatus.UNVERIFIABLE, path, f"no {first}/ in this repository: a path of another tree?"
    candidates = namesakes(path, listing)
    parent = path.rstrip("/").rsplit("/", 1)[0]
    if candidates is None and "*" not in parent and not in_tree(tree, parent):
        # Neither its folder nor its name is anywhere here: more likely another tree's path (a skill about
        # another repository, a run's output) than a file this one lost. Said, never called missing.
        why = f"neither {parent}/ nor a file of its name is in this repository: a path of another tree?"
        return PromiseStatus.UNVERIFIABLE, path, why
    return PromiseStatus.MISSING, path, candidates or "not at the ref, and no file of its name anywhere here"


def _lines(c: Citation, skill: Skill, tree: SourceTree, listing: Listing) -> Judged:
    """`file.py:10-20`: the file (a path, or the one file with that tail) is there, and has those lines."""
    status, _, detail = _path(c.target, skill, tree, listing)
    shown = f"{c.target}:{c.fragment}"
    if status is not PromiseStatus.EXISTS:
        return status, shown, detail
    tail = "/" + c.target
    found = [c.target] if tree.blob_id(c.target) is not None else listing.ending_in(tail)
    if len(found) != 1:
        return PromiseStatus.UNVERIFIABLE, shown, f"{len(found)} files end in {c.target}: which one is meant?"
    source = tree.read(found[0])
    start, _, end = c.fragment.partition("-")
    count = len(source.lines) if source is not None else 0
    if source is None or int(end or start) > count:
        return PromiseStatus.DIFFERS, shown, f"{found[0]} has {count} lines; the range ends past them"
    return PromiseStatus.EXISTS, shown, found[0] if found[0] != c.target else ""


def _link(c: Citation, skill: Skill, tree: SourceTree) -> Judged:
    if not c.target:  # "#section": a heading of SKILL.md itself
        text = _read_disk(skill, "SKILL.md") if skill.disk else _read_tree(tree, skill.repo_folder, "SKILL.md")
        return _anchor(c, "SKILL.md", text)
    on_disk = _on_disk(skill, c.target, skill.disk_root)
    upstream = posixpath.normpath(f"{skill.repo_folder}/{c.target}") if skill.repo_folder else None
    if upstream is not None and (upstream.startswith("../") or upstream == ".."):
        upstream = None  # above the repository's root
    in_repo = upstream is not None and in_tree(tree, upstream)
    if on_disk:
        return _anchor(c, c.target, _read_disk(skill, c.target) if c.fragment else None)
    if in_repo and skill.disk is not None and upstream is not None and skill.disk_root != skill.disk:
        # a copy of the skill elsewhere (a catalog's, whose root is the catalog), not the skill in the work tree
        if upstream.startswith(f"{skill.repo_folder}/"):
            why = f"the repository has it ({upstream}), but this copy does not ship it"
        else:
            why = f"resolves in the repository ({upstream}) but not in this copy: broken by the catalog's layout"
        return PromiseStatus.MISSING, c.target, why
    if in_repo and upstream is not None:
        return _anchor(c, upstream, _read_tree(tree, None, upstream) if c.fragment else None)
    if skill.disk is not None and skill.repo_folder is None and _leaves(c.target):
        why = "leaves the skill's folder, and where the folder lies in the repository is not known (--in-repo)"
        return PromiseStatus.UNVERIFIABLE, c.target, why
    return PromiseStatus.MISSING, c.target, "the link's target is not there"


def _repo_link(c: Citation, tree: SourceTree) -> Judged:
    owner_name, _, ref = c.repo.partition("@")
    if owner_name.lower() not in tree.info.repo.lower().removesuffix(".git"):
        return PromiseStatus.EXISTS, c.target, f"a link to {owner_name}, not the audited repository: not checked"
    path = c.target.removesuffix("/")
    if not in_tree(tree, path):
        return PromiseStatus.MISSING, path, f"the link names {ref}; at the audited ref {tree.info.ref} it is not there"
    return PromiseStatus.EXISTS, path, "" if ref == tree.info.ref else f"checked at {tree.info.ref}, not {ref}"


def _anchor(c: Citation, shown: str, text: str | None) -> Judged:
    fragment = c.fragment
    if not fragment or text is None or re.fullmatch(r"L\d+(?:-L\d+)?", fragment):
        return PromiseStatus.EXISTS, c.target or f"#{fragment}", ""
    if fragment.lower() in heading_slugs(text):
        return PromiseStatus.EXISTS, f"{c.target}#{fragment}", ""
    return PromiseStatus.MISSING, f"{c.target}#{fragment}", f"{shown} has no heading #{fragment}"


@functools.lru_cache(maxsize=256)
def heading_slugs(markdown: str) -> frozenset[str]:
    """The anchors GitHub makes for a Markdown file's headings (and its explicit ``id=``/``name=`` anchors);
    remembered by text: a catalog's skills link to the same files again and again."""
    slugs: set[str] = set()
    seen: dict[str, int] = {}
    fence = ""
    for line in markdown.split("\n"):
        stripped = line.strip()
        if stripped.startswith(("```", "~~~")):
            fence = "" if fence and stripped.startswith(fence) else fence or stripped[:3]
            continue
        heading = re.match(r"^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$", line)
        if heading and not fence:
            words = re.sub(r"`|\*\*|__|\[([^\]]*)\]\([^)]*\)", r"\1", heading.group(1)).strip().lower()
            slug = re.sub(r"[^\w\- ]", "", words).replace(" ", "-")
            count = seen.get(slug, 0)
            seen[slug] = count + 1
            slugs.add(slug if count == 0 else f"{slug}-{count}")
        slugs.update(m.lower() for m in re.findall(r"""(?:id|name)=["']([^"']+)["']""", line))
    return frozenset(slugs)


def _pin(c: Citation, tree: SourceTree) -> Judged:
    """A version the prose states (``Python 3.10+``, ``torch==2.5.1``) against pyproject.toml at the ref."""
    name, op, stated = re.fullmatch(r"(.+?)(==|>=|~=)(.+)", c.target).groups()  # type: ignore[union-attr]
    meta = project_meta(tree)
    if meta is None or meta.problem:
        return PromiseStatus.UNVERIFIABLE, c.target, meta.problem if meta else "the repository has no pyproject.toml"
    if normalize(name) == "python":
        if meta.requires_python is None:
            return PromiseStatus.UNVERIFIABLE, c.target, "the repository's pyproject.toml states no requires-python"
        specifiers, said = meta.requires_python, f"requires-python is {meta.requires_python}"
    elif normalize(name) in meta.dependencies:
        specifiers = meta.dependencies[normalize(name)]
        said = f"pyproject.toml asks for {name}{specifiers}" if specifiers else f"pyproject.toml asks for any {name}"
    else:
        return PromiseStatus.EXTERNAL, c.target, f"{name} is not a dependency pyproject.toml declares"
    problem = conflict(op, stated, specifiers.replace(" ", ""))
    if problem is not None:
        return PromiseStatus.DIFFERS, c.target, f"{said}; the skill says {c.text}: {problem}"
    return PromiseStatus.HOLDS, c.target, said


def _leaves(target: str) -> bool:
    return posixpath.normpath(target).startswith("..")


def _on_disk(skill: Skill, target: str, root: str | None) -> bool:
    """Whether ``target`` (relative to the skill's folder) is on disk, never looking above ``root``."""
    if skill.disk is None or root is None:
        return False
    # Most targets are not there at all: one lstat says so before the walk of every folder up to the root.
    if not os.path.lexists(os.path.normpath(os.path.join(skill.disk, target))):
        return False
    here = _inside(skill.disk, target, root)
    return here is not None and here.exists()


def _inside(folder: str, target: str, root: str) -> Path | None:
    """``folder/target`` when it (and what a link there points at) stays under ``root``; else None.  ``root`` is
    a real path (resolved when the skill was read), so a link put there since cannot widen it."""
    here = Path(os.path.normpath(os.path.join(folder, target)))
    if not here.is_relative_to(root) or not Path(os.path.realpath(here)).is_relative_to(root):
        return None
    return here


def _read_disk(skill: Skill, target: str) -> str | None:
    """A Markdown file a link names, to read its headings: under the skill's root only, 2 MiB at most."""
    if skill.disk is None or skill.disk_root is None:
        return None
    path = _inside(skill.disk, target, skill.disk_root)
    try:
        if path is None or not path.is_file() or path.stat().st_size > 2 * 1024 * 1024:
            return None
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def _read_tree(tree: SourceTree, folder: str | None, target: str) -> str | None:
    source = tree.read(f"{folder}/{target}" if folder else target)
    return source.text if source is not None else None

