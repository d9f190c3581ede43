"""The other files of a skill folder an agent reads: Markdown pages (``references/*.md``, ``skill-card.md``,
``TASKS.md``) for their links, and the YAML and JSON configurations it ships for the ``_target_`` names they
instantiate (``NAME``, checked like a YAML example's in SKILL.md).

SKILL.md is not the only page an agent reads: it links guides, task lists and cards of its own, whose links
break as often.  Every ``.md`` file under the skill's folder (but SKILL.md; at most :data:`MAX_PAGES` of them,
and as many configurations, each at most :data:`MAX_PAGE_BYTES`, no link followed, no hidden folder) is read
for its links and images (``LINK``) and its links to the repository on GitHub (``REPO_LINK``).  A relative
link is resolved from the file it is written in: ``references/guide.md`` linking ``../SKILL.md`` names the
skill's ``SKILL.md``, linking ``references/x.md`` names ``references/references/x.md``.  A bare ``#anchor``
names a heading of that file.

A page is scanned for links line by line, not parsed as CommonMark (a catalog has thousands of pages): inline
links and images ``[text](target)``, reference definitions ``[id]: target``, and HTML ``href``/``src``; fenced
code blocks and code spans are passed over.  Each citation keeps the file it is written in, so reports point
at that file and line; what is read is remembered by content, like SKILL.md.
"""

from __future__ import annotations

import bisect
import functools
import json
import os
import posixpath
import re
import stat
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Iterator

from ..errors import NotCarried, UnreadableFile
from ..model import Citation, ReferenceKind, Skill
from ..source import SourceTree
from .card import Content, Memo
from .citations import (
    MAX_CITATIONS,
    YAML_TARGET,
    code_span_paths,
    is_file_name,
    link_citations,
    made_here,
    prose_line_citations,
    shell_commands,
)

MAX_PAGES = 64
MAX_PAGE_BYTES = 1024 * 1024
_KINDS = (ReferenceKind.LINK, ReferenceKind.REPO_LINK, ReferenceKind.PATH, ReferenceKind.LINES, ReferenceKind.COMMAND,
          ReferenceKind.NAME)

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_LINE_NUMBER = re.compile(r"\w:\d")  # what every line citation of prose holds (``plan.py:9``)
_NEWLINE = re.compile("\n")
_NOT_NEWLINE = re.compile("[^\n]")
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1", re.DOTALL)
_INLINE = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\([ \t]*(<[^>\n]*>|[^\s)]+)(?:\s+(?:\"[^\"]*\"|'[^']*'))?\s*\)")
_DEFINITION = re.compile(r"^ {0,3}\[[^\]]+\]:[ \t]*(<[^>]*>|\S+)", re.MULTILINE)
_HTML = re.compile(r"""<(?:a|img)\b[^>]*?\b(?:href|src)\s*=\s*["']([^"']+)["']""", re.IGNORECASE)


def folder_files(folder: str | Path, suffixes: tuple[str, ...], limit: int) -> list[str]:
    """The files under ``folder`` on disk whose names end in one of ``suffixes`` (paths in the folder), walked in
    name order until past ``limit``; no hidden folder, and no link (to a file or a folder) followed."""
    found: list[str] = []
    for here, dirs, files in os.walk(folder, followlinks=False):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        rel = os.path.relpath(here, folder).replace(os.sep, "/")
        found += [posixpath.normpath(posixpath.join(rel, f)) for f in files
                  if f.endswith(suffixes) and not os.path.islink(os.path.join(here, f))]  # fmt: skip
        if len(found) > limit:
            break
    return found


def disk_pages(folder: Path) -> Iterator[tuple[str, Content]]:
    """The Markdown, YAML and JSON files under ``folder`` on disk but SKILL.md and the card, as (path in the folder,
    content), in name order; a link (to a file or a folder) is never followed."""
    for name in _bounded(folder_files(folder, _READ, 8 * MAX_PAGES)):
        path = folder / name
        try:
            info = os.lstat(path)
        except OSError:
            continue
        if stat.S_ISREG(info.st_mode) and info.st_size <= MAX_PAGE_BYTES:
            yield name, Content.of(_text(path))


def tree_pages(tree: SourceTree, folder: str) -> Iterator[tuple[str, Content]]:
    """The same of a skill folder in a tree, by blob; a page that cannot be read (too large, not text) is passed
    over: a page's links are not the skill."""
    names = [p[len(folder) + 1 :] for p in tree.files_under(folder) if p.endswith(_READ)]
    for name in _bounded([n for n in names if not n.startswith(".") and "/." not in n]):
        blob = tree.blob_id(f"{folder}/{name}")
        if blob is not None:
            yield name, Content(blob, functools.partial(_tree_text, tree, f"{folder}/{name}"), blob=True)


_CONFIGS = (".yaml", ".yml", ".json")
_JSON_TARGET = re.compile(r'"_target_"\s*:\s*"([A-Za-z_][\w.]*)"')


def config_targets(text: str, name: str) -> Iterator[Citation]:
    """The ``_target_`` values of a skill's own YAML or JSON file (``name``: its path in the folder), each on its
    line: the classes and functions a configuration it ships instantiates."""
    for number, line in enumerate(text.split("\n"), start=1):
        found = YAML_TARGET.match(line) or _JSON_TARGET.search(line)
        if found is not None and "." in found.group(1):
            yield Citation(ReferenceKind.NAME, line.strip()[:200], found.group(1), number, file=name)


_READ = (".md", *_CONFIGS)


def _bounded(names: list[str]) -> list[str]:
    """The pages and the configuration files to read, in name order: at most :data:`MAX_PAGES` of each; not
    SKILL.md or the card, which are read as themselves."""
    named = sorted(n for n in names if n not in ("SKILL.md", "card.yaml"))
    pages = [n for n in named if n.endswith(".md")][:MAX_PAGES]
    configs = [n for n in named if n.endswith(_CONFIGS)][:MAX_PAGES]
    return sorted(pages + configs)


def _tree_text(tree: SourceTree, path: str) -> str:
    try:
        source = tree.read(path)
    except (UnreadableFile, NotCarried):
        return ""
    return source.text if source is not None else ""


def _text(path: Path) -> str:
    try:
        return path.read_bytes().decode("utf-8", errors="replace")
    except OSError:
        return ""


def page_links(text: str, limit: int = MAX_CITATIONS + 1) -> list[Citation]:
    """The links and images of a Markdown text, the paths its code spans name (`` `scripts/run.sh` ``) and the
    lines of files it cites (`` `config.py:10-20` ``, ``config.py:1428`` in a sentence), on the lines they are
    written on (see the module's rule), the first ``limit`` of them; a path the line tells the agent to create
    is none."""
    out: list[Citation] = []
    lines = text.split("\n")
    fences: list[tuple[int, str, str]] = []  # read after the prose, for the commands of their shells
    for first, info, block in _blocks(lines):
        if info is not None:
            fences.append((first, info, block))
        elif len(out) >= limit:
            break
        else:
            out += _block_citations(first, block)
    for first, info, code in fences:
        if len(out) >= limit:
            break
        out += shell_commands(info, code, first)
    return out[:limit]


def _block_citations(first: int, block: str) -> list[Citation]:
    """:func:`page_links` of one paragraph starting on line ``first``."""
    breaks = [m.start() for m in _NEWLINE.finditer(block)]  # a position's line, by bisection: never a recount

    def line_of(at: int) -> int:
        return first + bisect.bisect_left(breaks, at)

    out: list[Citation] = []
    # Most paragraphs hold none of what each expression needs (a backtick, "](", "<", "]:"): it is not tried there.
    spans = list(_CODE_SPAN.finditer(block)) if "`" in block else []
    bare = _CODE_SPAN.sub(_blank, block) if spans else block
    found = [(m.start(1), m.group(1)) for m in _INLINE.finditer(bare)] if "](" in bare else []
    found += [(m.start(1), m.group(1)) for m in _HTML.finditer(bare)] if "<" in bare else []
    found += [(m.start(1), m.group(1)) for m in _DEFINITION.finditer(bare)] if "]:" in bare else []
    for at, target in sorted(found):
        out += link_citations(target.strip("<>"), line_of(at))
    if _LINE_NUMBER.search(bare):  # most paragraphs cite no line: the citation's pattern is not tried there
        out += [replace(c, line=line_of(at)) for at, c in prose_line_citations(bare)]
    for span in spans:
        cited = code_span_paths(span.group(0).strip("`"), 0)
        if cited:  # most spans name no path: the clause around one is read only where one does
            line = line_of(span.start())
            starts = breaks[line - first - 1] + 1 if line > first else 0
            ends = breaks[line - first] if line - first < len(breaks) else len(block)
            if not made_here(block[starts:ends], span.group(0), span.start() - starts):
                out += [replace(c, line=line) for c in cited]
    if any(c.kind is ReferenceKind.LINES for c in out):
        names = _names_by_line(spans, line_of)
        out = [replace(c, names=names[c.line]) if c.kind is ReferenceKind.LINES and c.line in names else c
               for c in out]  # fmt: skip
    return out


_SPAN_NAME = re.compile(r"[A-Za-z_][\w.]*[\w]")  # a code span that is a name (`mpi4py`, `np.vectorize`)
MAX_LINE_NAMES = 8


def _names_by_line(spans: list[re.Match[str]], line_of: Callable[[int], int]) -> dict[int, tuple[str, ...]]:
    """The names each line gives in code spans (a report's row: `` `job.py:3` | the `mpi4py` import``): what a
    line citation on it must find in the cited lines.  Not file names; at most :data:`MAX_LINE_NAMES` a line."""
    found: dict[int, dict[str, None]] = {}
    for span in spans:
        text = span.group(0).strip("`").strip()
        if _SPAN_NAME.fullmatch(text) and not is_file_name(text):
            names = found.setdefault(line_of(span.start()), {})
            if len(names) < MAX_LINE_NAMES:
                names[text] = None
    return {line: tuple(names) for line, names in found.items()}


def _blank(span: re.Match[str]) -> str:
    """A code span as spaces, its line ends kept (a span may run over lines)."""
    text = span.group(0)
    return " " * len(text) if "\n" not in text else _NOT_NEWLINE.sub(" ", text)


def _blocks(lines: list[str]) -> Iterator[tuple[int, str | None, str]]:
    """In the order written: (first line, None, text) of each run of non-blank lines outside fenced code blocks,
    and (first line of its code, info string, code) of each fenced code block that is closed."""
    fence, info, start = "", "", 0
    run: list[str] = []
    for number, line in enumerate(lines, 1):
        opening = _FENCE.match(line)
        if fence:
            if opening and opening.group(1)[0] == fence[0] and len(opening.group(1)) >= len(fence):
                yield start, info, "\n".join(lines[start - 1 : number - 1])
                fence = ""
            continue
        if opening or not line.strip():
            if run:
                yield start, None, "\n".join(run)
            run = []
            if opening:
                fence, info, start = opening.group(1), line.strip()[len(opening.group(1)) :], number + 1
            continue
        if not run:
            start = number
        run.append(line)
    if run:
        yield start, None, "\n".join(run)


MAX_SCHEMA_KEYS = 4096  # keys read from one schema file
MAX_SCHEMA_DEPTH = 16


MAX_SCHEMAS = 16  # schema files of one skill read for the defaults they give
SchemaDefaults = tuple[tuple[str, str, str], ...]  # (dotted key, the schema file, its default as JSON)


def with_folder(skill: Skill, files: list[tuple[str, Content]], memo: Memo | None, keep_pages: bool = False) -> Skill:
    """``skill`` with what the other files of its folder say: their citations (the first :data:`MAX_CITATIONS` of
    each page; the pages past it named in ``pages_cut``), the defaults its JSON schemas give, and (``keep_pages``:
    read from a tree) its Markdown pages, each with its text's loader."""
    read = [(name, page_citations(name, text, memo)) for name, text in files]
    citations = tuple(c for _, said in read for c in said[:MAX_CITATIONS])
    cut = tuple(name for name, said in read if len(said) > MAX_CITATIONS)
    markdown = tuple((name, text.load) for name, text in files if name.endswith(".md")) if keep_pages else ()
    shipped = [(name, text) for name, text in files if name.endswith(".schema.json")][:MAX_SCHEMAS]
    schemas = [(name, _schema(name, text, memo)) for name, text in shipped]
    defaults = tuple((key, name, value) for name, said in schemas for key, value in said["defaults"])
    keys = tuple((key, name) for name, said in schemas for key in said["keys"])
    return replace(skill, citations=skill.citations + citations, schema_defaults=defaults, schema_keys=keys,
                   tree_pages=markdown, pages_cut=cut)  # fmt: skip


def _schema(name: str, content: Content, memo: Memo | None) -> dict[str, Any]:
    """What a JSON schema the skill ships (``schemas/train.schema.json``) says of its keys: ``keys``, the dotted
    key of every property (nested ``properties`` walked; an object's whose only its ``default`` shows, from it),
    and ``defaults``, (dotted key, the default as JSON) for each with a scalar ``default``."""

    def read() -> dict[str, Any]:
        try:
            schema = json.loads(content.load())
        except (ValueError, RecursionError):
            return {"defaults": [], "keys": []}
        found: list[list[str]] = []
        keys: list[str] = []
        _walk_schema(schema, "", found, keys, 0)
        return {"defaults": found, "keys": keys}

    return memo(content.key("schema-keys/1", name), read) if memo is not None else read()


def _walk_schema(schema: object, prefix: str, found: list[list[str]], keys: list[str], depth: int) -> None:
    properties = schema.get("properties") if isinstance(schema, dict) else None
    if not isinstance(properties, dict) or depth > MAX_SCHEMA_DEPTH:
        return
    for key, value in properties.items():
        if len(keys) >= MAX_SCHEMA_KEYS or not isinstance(value, dict):
            continue
        dotted = f"{prefix}.{key}" if prefix else str(key)
        keys.append(dotted)
        default = value.get("default", ...)
        if default is None or isinstance(default, (str, int, float, bool)):
            found.append([dotted, json.dumps(default)])
        elif isinstance(default, dict) and not isinstance(value.get("properties"), dict):
            _default_keys(default, dotted, keys, depth + 1)  # an object whose keys only its default shows
        _walk_schema(value, dotted, found, keys, depth + 1)


def _default_keys(default: dict[str, Any], prefix: str, keys: list[str], depth: int) -> None:
    for key, value in default.items():
        if len(keys) >= MAX_SCHEMA_KEYS or depth > MAX_SCHEMA_DEPTH:
            return
        keys.append(f"{prefix}.{key}")
        if isinstance(value, dict):
            _default_keys(value, f"{prefix}.{key}", keys, depth + 1)


def page_citations(name: str, content: Content, memo: Memo | None) -> tuple[Citation, ...]:
    """The links of one page of the skill (``name``: its path in the folder), resolved from where it lies; of a
    YAML or JSON file it ships, the ``_target_`` names it instantiates."""
    if name.endswith(_CONFIGS):

        def targets() -> dict[str, Any]:
            return {"names": [[c.text, c.target, c.line] for c in config_targets(content.load(), name)]}

        said_targets = memo(content.key("config-targets/1", name), targets) if memo is not None else targets()
        return tuple(Citation(ReferenceKind.NAME, text, target, line, file=name)
                     for text, target, line in said_targets["names"])  # fmt: skip

    def read() -> dict[str, Any]:  # one past the bound kept: the page is then said to be cut
        said = [c for c in page_links(content.load()) if c.kind in _KINDS][: MAX_CITATIONS + 1]
        return {"links": [[str(c.kind), c.text, c.target, c.line, c.fragment, c.repo, list(c.flags),
                           list(c.positionals), list(c.names)] for c in said]}  # fmt: skip

    said = memo(content.key("page-links/8", name), read) if memo is not None else read()
    out = []
    for kind, text, target, line, fragment, repo, flags, positionals, names in said["links"]:
        citation = Citation(ReferenceKind(kind), text, target, line, fragment, repo, file=name, flags=tuple(flags),
                            positionals=tuple(positionals), names=tuple(names))  # fmt: skip
        out.append(_rebased(citation, name) if citation.kind is ReferenceKind.LINK else citation)
    return tuple(out)


def _rebased(link: Citation, name: str) -> Citation:
    """A relative link as a path in the skill's folder (``#anchor`` alone: the page itself)."""
    if not link.target:
        return replace(link, target=name)
    return replace(link, target=posixpath.normpath(posixpath.join(posixpath.dirname(name), link.target)))
