"""Links of the prose: relative Markdown links and images (``LINK``), and links to the audited repository on
GitHub (``REPO_LINK``).

A relative link is resolved from the file it is written in (SKILL.md, or another page of the folder:
:mod:`anchor_audit.spec.pages`): on disk, never above the skill's
folder (a catalog's copy: never above the catalog), and in the repository
from where the folder lies there. A link that resolves upstream but not in
the catalog's copy is broken by the catalog's layout. An ``#anchor`` is
checked against the target's headings, with GitHub's slug rules.
"""

from __future__ import annotations

import functools
import posixpath
import re
from typing import Iterator

from ..model import Citation, PromiseKind, PromiseResult, PromiseStatus, Reference, ReferenceKind, Skill, SkillSpec
from .pathcandidates import healed_links, in_tree
from .paths import leaves, on_disk, read_disk, read_skill_md, read_tree
from .protocol import Checker, Context, Heal, citations_of, judged

Judged = tuple[PromiseStatus, str, str]


def _reads_link(c: Citation, skill: Skill, entry: SkillSpec | None) -> Iterator[Reference]:
    """A link's target in the repository, from where the skill's folder lies there (if that is known)."""
    folder = skill.repo_folder
    target = posixpath.normpath(f"{folder}/{c.target}") if folder and c.target else None
    yield Reference(c.kind, c.file, c.line, c.text, frozenset({target} if target else ()))


def _reads_repo_link(c: Citation, skill: Skill, entry: SkillSpec | None) -> Iterator[Reference]:
    yield Reference(c.kind, c.file, c.line, c.text, frozenset({c.target.strip("/")}))


def _check_link(c: Citation, ctx: Context) -> list[PromiseResult]:
    return judged(PromiseKind.LINK, c, ctx, *_link(c, ctx))


def _check_repo_link(c: Citation, ctx: Context) -> list[PromiseResult]:
    return judged(PromiseKind.LINK, c, ctx, *_repo_link(c, ctx))


def _link(c: Citation, ctx: Context) -> Judged:
    skill, tree = ctx.skill, ctx.tree
    if not c.target:  # "#section": a heading of SKILL.md itself
        return _anchor(c, "SKILL.md", read_skill_md(skill, tree))
    on_disk_ = on_disk(skill, c.target, skill.disk_root)
    upstream = posixpath.normpath(f"{skill.repo_folder}/{c.target}") if skill.repo_folder else None
    if upstream is not None and (upstream.startswith("../") or upstream == ".."):
        upstream = None  # above the repository's root
    in_repo = upstream is not None and in_tree(tree, upstream)
    if on_disk_:
        return _anchor(c, c.target, read_disk(skill, c.target) if c.fragment else None)
    if in_repo and skill.disk is not None and upstream is not None and skill.disk_root != skill.disk:
        # a copy of the skill elsewhere (a catalog's, whose root is the catalog), not the skill in the work tree
        if upstream.startswith(f"{skill.repo_folder}/"):
            why = f"the repository has it ({upstream}), but this copy does not ship it"
        else:
            why = f"resolves in the repository ({upstream}) but not in this copy: {BY_LAYOUT}"
        return PromiseStatus.MISSING, c.target, why
    if in_repo and upstream is not None:
        return _anchor(c, upstream, read_tree(tree, None, upstream) if c.fragment else None)
    if skill.disk is not None and skill.repo_folder is None and leaves(c.target):
        why = "leaves the skill's folder, and where the folder lies in the repository is not known (--in-repo)"
        return PromiseStatus.UNVERIFIABLE, c.target, why
    if c.file != "SKILL.md":  # a page in a subfolder: say what the link was resolved from
        return PromiseStatus.MISSING, c.target, f"the link's target is not there (resolved from {c.file})"
    return PromiseStatus.MISSING, c.target, "the link's target is not there"


def _repo_link(c: Citation, ctx: Context) -> Judged:
    tree = ctx.tree
    owner_name, _, ref = c.repo.partition("@")
    if owner_name.lower() not in tree.info.repo.lower().removesuffix(".git"):
        return PromiseStatus.EXISTS, c.target, f"a link to {owner_name}, not the audited repository: not checked"
    path = c.target.removesuffix("/")
    if not in_tree(tree, path):
        return PromiseStatus.MISSING, path, f"the link names {ref}; at the audited ref {tree.info.ref} it is not there"
    return PromiseStatus.EXISTS, path, "" if ref == tree.info.ref else f"checked at {tree.info.ref}, not {ref}"


BY_LAYOUT = "broken by the catalog's layout"  # a link of a catalog copy that holds upstream: one cause for all


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
            attribute = re.search(r"\s*\{#([^}\s]+)[^}]*\}\s*$", heading.group(1))
            if attribute:  # Pandoc's, MkDocs' and Docusaurus' {#id}; GitHub slugs the text with it (both count)
                slugs.add(attribute.group(1).lower())
                _slug_into(slugs, seen, heading.group(1)[: attribute.start()])
            words = re.sub(r"`|\*\*|__|\[([^\]]*)\]\([^)]*\)", r"\1", heading.group(1)).strip().lower()
            slug = re.sub(r"[^\w\- ]", "", words).replace(" ", "-")
            count = seen.get(slug, 0)
            seen[slug] = count + 1
            slugs.add(slug if count == 0 else f"{slug}-{count}")
        slugs.update(m.lower() for m in re.findall(r"""(?:id|name)=["']([^"']+)["']""", line))
    return frozenset(slugs)


def folder_links(skill: Skill, shown: str) -> tuple[PromiseResult, ...]:
    """The links of a catalog's copy whose code cannot be had (its repository unreachable), which need none: each
    is followed in the copy (never above the catalog, ``skill.disk_root``), its anchor too.  One out of the
    skill's folder that the catalog does not have is broken in this copy wherever the repository has its target,
    as with a copy whose repository could be read (``shown``: the folder as reports name it)."""
    out = []
    there: dict[str, bool] = {}  # a target linked many times (a page's anchors) is looked for and read once
    texts: dict[str, str | None] = {}
    for c in skill.citations:
        if c.kind is not ReferenceKind.LINK or not c.target:
            continue
        if c.target not in there:
            there[c.target] = on_disk(skill, c.target, skill.disk_root)
        if there[c.target]:
            if c.fragment and c.target not in texts:
                texts[c.target] = read_disk(skill, c.target)
            status, path, detail = _anchor(c, c.target, texts[c.target] if c.fragment else None)
        elif leaves(c.target):  # a folder no component names has no repository to ask
            status, path, detail = PromiseStatus.MISSING, c.target, _NOT_IN_COPY if skill.repo_folder else _LEAVES
        else:
            status, path, detail = PromiseStatus.MISSING, c.target, "not in the skill's folder"
        out.append(PromiseResult(PromiseKind.LINK, path, status, f"{shown.rstrip('/')}/{c.file}", c.line, detail))
    return tuple(out)


_LEAVES = "not in the catalog: the link leaves the skill's folder"
_NOT_IN_COPY = f"{_LEAVES}, and whether its repository has it is not known (it could not be reached)"


def _slug_into(slugs: set[str], seen: dict[str, int], text: str) -> None:
    """GitHub's slug of a heading's text (without its ``{#id}``), counted like the others."""
    words = re.sub(r"`|\*\*|__|\[([^\]]*)\]\([^)]*\)", r"\1", text).strip().lower()
    slug = re.sub(r"[^\w\- ]", "", words).replace(" ", "-")
    if slug not in seen:
        slugs.add(slug)


def _missing_link(c: Citation, r: PromiseResult, skill: Skill) -> bool:
    """A missing link of SKILL.md whose target the history may know (where the skill's folder lies in the
    repository); the links of the skill's other pages are reported, not healed."""
    return (r.status is PromiseStatus.MISSING and bool(c.target) and bool(skill.repo_folder)
            and c.file == "SKILL.md")  # fmt: skip


LINK_HEAL = Heal(_missing_link, lambda out, missing, ctx: healed_links(out, missing, ctx.skill, ctx.tree))

LINK: Checker[Citation, list[PromiseResult]] = Checker(
    ReferenceKind.LINK, citations_of(ReferenceKind.LINK), _reads_link, _check_link, PromiseKind.LINK, LINK_HEAL
)
REPO_LINK: Checker[Citation, list[PromiseResult]] = Checker(
    ReferenceKind.REPO_LINK, citations_of(ReferenceKind.REPO_LINK), _reads_repo_link, _check_repo_link,
    PromiseKind.LINK,
)  # fmt: skip
