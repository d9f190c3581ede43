"""Pages of a skill folder that nothing leads to (``PAGE``): an agent reads SKILL.md and follows its links; a page
no chain of links from SKILL.md reaches is never read.

The pages are the Markdown files under the skill's folder on disk (no hidden folder, no link followed; at most
:data:`MAX_PAGES` names).  SKILL.md reaches a page by a relative link or image (``[guide](references/guide.md)``,
a link to a folder reaches every page under it), or by naming it in its text without a link: its path (from
the folder or from the page that names it), its file name where no other page has that name
(```detailed-guide.md```), or a folder above it (```references/```); and so does every page it reaches, each
link resolved from the page it is written in.  A name may be read where it was not meant: a page is then taken
as reached, never said to be unreached by mistake.  A page reached is no
result; one that is not is ``unreached`` (``AA413``, a note: it fails no run), on its own first line.  The pages
at the folder's top that are for people, not the agent (:data:`FOR_PEOPLE`: ``skill-card.md``, ``BENCHMARK.md``,
``README.md``, ...), a folder's own ``README.md`` or ``NOTICE.md`` and the ``AGENTS.md`` an agent reads unlinked
(:data:`NOT_LINKED_ANYWHERE`), and the pages under folders of data for tools (:data:`DATA_FOLDERS`: ``evals/``,
``tests/``, ``fixtures/``, ``assets/``) are none of its business.

A skill read from disk is walked there (its folder is what ships); one read from a tree (``--in-repo``), in the
tree: its Markdown pages as the loader lists them (the first 64).
"""

from __future__ import annotations

import os
import posixpath
import re
from collections import Counter
from typing import Callable, Iterator, Sequence

from ..model import PromiseKind, PromiseResult, PromiseStatus, Reference, ReferenceKind, Skill, SkillSpec
from ..spec.pages import folder_files
from .diskreads import disk_read
from .paths import own_part
from .protocol import Checker, Context

MAX_PAGES = 1024
MAX_PAGE_BYTES = 1024 * 1024
_WORDS = re.compile(r"[\w./-]+")
# Pages at a folder's top that are for people, not the agent: a catalog's governance card and benchmark report
# (which its sync requires beside SKILL.md), a README shown when the folder is browsed, and the like.
FOR_PEOPLE = frozenset({"skill-card.md", "benchmark.md", "readme.md", "changelog.md", "license.md", "contributing.md"})
# Anywhere in the folder: a folder's own notes for people, and the files agents read by convention, unlinked.
NOT_LINKED_ANYWHERE = frozenset({"readme.md", "notice.md", "license.md", "changelog.md", "agents.md", "claude.md"})
# Folders of data for tools, not pages to read: evaluations, tests and their fixtures, assets a script loads.
DATA_FOLDERS = frozenset({"evals", "eval", "tests", "test", "fixtures", "assets"})
_LEADS = (ReferenceKind.LINK, ReferenceKind.PATH, ReferenceKind.AT_PATH)


def _written(skill: Skill, entry: SkillSpec | None) -> Sequence[str]:
    """The pages of the skill's folder that no chain of links from SKILL.md reaches, in name order."""
    if skill.disk is None and not skill.tree_pages:
        return []
    pages = _pages(skill.disk) if skill.disk is not None else sorted(name for name, _ in skill.tree_pages)
    reached = _reached(skill, pages)
    return [page for page in pages if page not in reached and _for_the_agent(page)]


def _for_the_agent(page: str) -> bool:
    """Whether the page is one an agent reads by following links (see the module's rule)."""
    parts = page.lower().split("/")
    return page.lower() not in FOR_PEOPLE and parts[-1] not in NOT_LINKED_ANYWHERE and parts[0] not in DATA_FOLDERS


@disk_read("pages")
def _pages(folder: str) -> list[str]:
    """The Markdown files under ``folder`` (paths in it), in name order; links and hidden folders not followed."""
    return sorted(folder_files(folder, (".md",), MAX_PAGES))[:MAX_PAGES]


def _reached(skill: Skill, pages: list[str]) -> set[str]:
    """The pages SKILL.md leads to, directly or through pages it leads to."""
    leads: dict[str, set[str]] = {}
    rooted = f"{skill.repo_folder.strip('/')}/" if skill.repo_folder else None  # @skills/x/guide.md: from the root
    written = [(c.file, c.target) for c in skill.citations if c.kind in _LEADS and c.target and "://" not in c.target]
    for file, target in [*written, *(("SKILL.md", path) for path, _ in skill.references)]:  # and its @paths
        target = target[len(rooted) :] if rooted and target.startswith(rooted) else own_part(target, skill) or target
        leads.setdefault(file, set()).update(_named(target, pages))
    reached = _walk({"SKILL.md"}, lambda page: leads.get(page, set()), set())
    if reached >= set(pages):
        return reached  # every page linked: no text needs reading for the names it writes
    names = Counter(posixpath.basename(p) for p in pages)
    looked: set[str] = set()  # the reached pages whose text was looked through
    while True:  # the pages the reached ones name without a link, and what those lead to, until none is new
        unreached = {p: _spellings(skill, p, names) for p in pages if p not in reached}
        named: set[str] = set()
        for page in sorted(reached - looked):
            looked.add(page)
            named |= _mentioned(skill, page, unreached)
        if not named:
            return reached
        reached = _walk(named, lambda page: leads.get(page, set()), reached)


def _walk(start: set[str], leads: Callable[[str], set[str]], reached: set[str]) -> set[str]:
    """``reached`` and the pages ``start`` leads to through ``leads``, ``start`` included."""
    reached, todo = reached | start, sorted(start)
    while todo:
        for led in leads(todo.pop()):
            if led not in reached:
                reached.add(led)
                todo.append(led)
    return reached


def _spellings(skill: Skill, page: str, names: Counter[str]) -> set[str]:
    """How a text names ``page`` without a link: its path (from the folder, or from the repository's root), its
    name alone where no other page has it (``names``: how many pages have each name), or a folder above it
    written as ``folder/``."""
    spelt = {page, *([f"{skill.repo_folder.strip('/')}/{page}"] if skill.repo_folder else [])}
    if names[posixpath.basename(page)] == 1:
        spelt.add(posixpath.basename(page))
    parts = page.split("/")[:-1]
    return spelt | {"/".join(parts[: i + 1]) + "/" for i in range(len(parts))}


def _mentioned(skill: Skill, page: str, unreached: dict[str, set[str]]) -> set[str]:
    """The pages of ``unreached`` (each with its spellings) that ``page``'s text names without a link, by one of
    those spellings or by its path from ``page``'s folder."""
    text = _text(skill, page)
    here = posixpath.dirname(page)
    forms = {other: spelt | {posixpath.relpath(other, here)} if here else spelt for other, spelt in unreached.items()}
    maybe = {other for other, spelt in forms.items() if text and any(form in text for form in spelt)}
    if not maybe:
        return set()  # no such page's name is even part of the text: no word of it needs reading
    # Every word written alone, once: a path, a file name, a folder ("references/"); a sentence's full stop off.
    said = {word.rstrip(".") if not word.endswith("/.") else word[:-1] for word in _WORDS.findall(text)}
    return {other for other in maybe if forms[other] & said}


def _text(skill: Skill, page: str) -> str:
    """A page's text as written (at most 1 MiB; none where it cannot be read)."""
    if skill.disk is None:
        load = dict(skill.tree_pages).get(page)
        text = load() if load is not None else ""
        return text if len(text) <= MAX_PAGE_BYTES else ""
    return _page_text(skill.disk, page)


@disk_read("page_text")
def _page_text(folder: str, page: str) -> str:
    path = os.path.join(folder, page)
    try:
        if os.path.islink(path) or os.path.getsize(path) > MAX_PAGE_BYTES:
            return ""
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read()
    except OSError:
        return ""


def _named(target: str, pages: list[str]) -> Iterator[str]:
    """The pages a link's or a path's target names: the page itself, or every page under a folder."""
    written = target.split("#", 1)[0]
    path = posixpath.normpath(written.lstrip("/")) if written else ""
    if not path or path.startswith(".."):
        return
    folder = path.rstrip("/") + "/"
    yield from (p for p in pages if p == path or p.startswith(folder))


def _reads(page: str, skill: Skill, entry: SkillSpec | None) -> Iterator[Reference]:
    return iter(())  # the skill's own folder: nothing of the code


_UNREACHED = "no chain of links from SKILL.md reaches this page: an agent reading the skill never opens it"


def _check(page: str, ctx: Context) -> list[PromiseResult]:
    return [PromiseResult(PromiseKind.PAGE, page, PromiseStatus.UNREACHED, ctx.file(page), 1, _UNREACHED)]


def folder_pages(skill: Skill, shown: str) -> tuple[PromiseResult, ...]:
    """The unreached pages of a skill whose code cannot be had (its repository unreachable): they need none
    (``shown``: the folder as reports name it)."""
    file = f"{shown.rstrip('/')}/"
    return tuple(PromiseResult(PromiseKind.PAGE, page, PromiseStatus.UNREACHED, file + page, 1, _UNREACHED)
                 for page in _written(skill, None))  # fmt: skip


PAGE: Checker[str, list[PromiseResult]] = Checker(ReferenceKind.PAGE, _written, _reads, _check, PromiseKind.PAGE)
