"""A skill directory -> :class:`~anchor_audit.model.Skill`.

SKILL.md is YAML front matter, then Markdown.  A line-anchored quote is a
fenced code block whose info string is ``START:END:PATH``; Markdown is parsed
with markdown-it-py (CommonMark), so ``~~~`` fences, longer fences and fences
inside lists are found like any other.  card.yaml, when present, gives each
claim's tags (``validation_status``) and the evidence paths.
"""

from __future__ import annotations

import bisect
import functools
import json
import os
import re
import stat
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import NotCarried, SpecError, UnreadableFile
from ..model import (
    Citation,
    Example,
    LineRange,
    Quote,
    ReferenceKind,
    Skill,
    TestPromise,
)
from ..store.recent import Recent
from ..text.fsutil import read_input
from ..text.lines import split_lines
from .card import Content, Memo, remembered_card
from .citations import MAKES, parse_citations
from .codeexamples import caption, fenced_examples, prose_settings
from .pages import disk_pages, tree_pages, with_folder
from .repopath import normalize, repo_path_problem

if TYPE_CHECKING:  # markdown-it is imported where a SKILL.md is really parsed: a remembered one needs none of it
    from markdown_it import MarkdownIt
    from markdown_it.rules_core import StateCore
    from markdown_it.token import Token

    from ..source import SourceTree
from .yamldoc import load_yaml

MAX_SKILL_BYTES = 2 * 1024 * 1024
MAX_QUOTES = 2_000
MAX_BUILT = 1_024  # skills kept built, the latest of a run (a history meets the same texts at every commit)
MAX_LINE_DIGITS = 9  # int() of thousands of digits is slow, and Python refuses past 4,300
_ANCHOR = re.compile(r"^(-?\d+):(-?\d+):(.*)$")

# A persistent memo by content key: (key, compute) -> the computed mapping, stored or remembered.


def load_skill(
    path: Path, shown_as: str | None = None, memo: Memo | None = None, real: Path | None = None
) -> Skill:
    """Read the skill directory at ``path``; ``shown_as`` is how reports name it (``memo``: as for a tree's);
    ``real``: ``path`` resolved, where the caller has it."""
    shown = shown_as if shown_as is not None else str(path)
    skill_md, card_path = path / "SKILL.md", path / "card.yaml"
    # One lstat each says what SKILL.md and card.yaml are (a file, a link, nothing); a catalog reads thousands.
    found = {name: _lstat(path / name) for name in ("SKILL.md", "card.yaml")}
    if not _is_file(skill_md, found["SKILL.md"]):
        if not path.is_dir():
            raise SpecError(f"{shown}: not a skill directory (no such folder)")
        raise SpecError(f"{shown}: not a skill directory (no SKILL.md)")
    real = real or path.resolve()
    for name, info in found.items():
        if info is not None and stat.S_ISLNK(info.st_mode) and not (path / name).resolve().is_relative_to(real):
            raise SpecError(f"{shown}/{name}: a link to a file outside the skill folder; not read")
    card = _read_text(card_path) if _is_file(card_path, found["card.yaml"]) else None
    skill = skill_from_text(real.name, shown, _read_text(skill_md), skill_md, card, card_path, memo)
    return with_folder(replace(skill, disk=str(real), disk_root=str(real)), list(disk_pages(real)), memo)


def _lstat(path: Path) -> os.stat_result | None:
    try:
        return os.lstat(path)
    except OSError:
        return None


def _is_file(path: Path, info: os.stat_result | None) -> bool:
    """``path.is_file()`` (a link followed) from its ``lstat``: no second look unless it is a link."""
    return info is not None and (stat.S_ISREG(info.st_mode) or (stat.S_ISLNK(info.st_mode) and path.is_file()))


def load_skill_from_tree(tree: SourceTree, path: str, memo: Memo | None = None) -> Skill:
    """Read the skill directory ``path`` inside the repository, from the tree at its ref.

    ``memo`` (the result cache's): what SKILL.md says is remembered by its text, so a history that meets the
    same SKILL.md at many commits, or in many runs, parses it once.
    """
    path = path.strip("/")

    def content(name: str) -> Content | None:
        blob = tree.blob_id(f"{path}/{name}")  # reads nothing: the text is read only if its parse is not known
        if blob is None:
            return None
        return Content(blob, lambda: _tree_text(tree, f"{path}/{name}"), blob=True)

    try:
        skill_md, card = content("SKILL.md"), content("card.yaml")
        if skill_md is None:
            raise SpecError(f"{path}: no SKILL.md there at {tree.info.ref}")
        name = path.rsplit("/", 1)[-1]
        skill = skill_from_text(name, path, skill_md, Path(path) / "SKILL.md", card, Path(path) / "card.yaml", memo)
    except (UnreadableFile, NotCarried) as exc:  # a link, a binary, a huge file: this skill cannot be read
        raise SpecError(f"{exc} (at {tree.info.ref}); the skill cannot be read") from None
    return with_folder(replace(skill, repo_folder=path), list(tree_pages(tree, path)), memo, keep_pages=True)


def _tree_text(tree: SourceTree, path: str) -> str:
    source = tree.read(path)
    if source is None:  # listed a moment ago: the tree of one commit does not change
        raise UnreadableFile(f"{path} could not be read")
    return source.text


def skill_from_text(
    name: str,
    shown: str,
    skill_md: str | Content,
    skill_md_path: Path,
    card: str | Content | None,
    card_path: Path,
    memo: Memo | None = None,
) -> Skill:
    """A skill from the text of its files, or their :class:`~.card.Content` (``card`` None: it has no card.yaml)."""
    where = f"{shown.rstrip('/')}/SKILL.md"  # messages name the skill as reports do
    content = skill_md if isinstance(skill_md, Content) else Content.of(skill_md)
    card_content = card if card is None or isinstance(card, Content) else Content.of(card)
    card_said = [card_content.blob, card_content.identity] if card_content is not None else None
    same = json.dumps([name, shown, str(skill_md_path), str(card_path), content.blob, content.identity, card_said])
    built = _BUILT.get(same)
    if built is None:
        built = _built(name, shown, where, content, card_content, card_path, memo)
        _BUILT.put(same, built, len(content.identity) + (len(card_content.identity) if card_content else 0))
    return built


_BUILT: Recent[Skill] = Recent(MAX_BUILT, 16 * 1024 * 1024)


def forget_built_skills() -> None:
    """Drop the skills kept built (a test of what the memo alone rebuilds)."""
    global _BUILT
    _BUILT = Recent(MAX_BUILT, 16 * 1024 * 1024)


def _built(
    name: str, shown: str, where: str, content: Content, card: Content | None, card_path: Path, memo: Memo | None
) -> Skill:
    """:func:`skill_from_text`, built (its parse remembered by ``memo``, by content)."""

    def read() -> dict[str, Any]:
        skill_md = content.load()
        quotes = parse_skill_md(skill_md, where)
        references, tests = parse_promises(skill_md)
        body = _blank_front_matter(skill_md.replace("\r\n", "\n"), where)
        citations, cut = parse_citations(_tokens(body), body.split("\n"))
        return {
            "quotes": [[q.path, q.declared.as_list(), list(q.body), q.skill_line, q.caption] for q in quotes],
            "references": [list(r) for r in references],
            "tests": [[t.path, t.promised, t.line] for t in tests],
            "examples": [list(e) for e in fenced_examples(_tokens(body))],
            "settings": [list(e) for e in prose_settings(_tokens(body))],
            "clones": list(dict.fromkeys(_CLONE.findall(skill_md)))[:MAX_CLONES],
            "citations": [
                [str(c.kind), c.text, c.target, c.line, c.fragment, c.repo, list(c.flags), list(c.positionals)]
                for c in citations
            ],
            "citations_cut": cut,
        }

    said = memo(content.key("skill-md/14", where), read) if memo is not None else read()
    return Skill(
        name=name,
        path=shown,
        quotes=tuple(Quote(p, LineRange(*lines), tuple(body), at, cap) for p, lines, body, at, cap in said["quotes"]),
        card=remembered_card(card, card_path, memo) if card is not None else None,
        references=tuple((ref, line) for ref, line in said["references"]),
        test_promises=tuple(TestPromise(p, n, line) for p, n, line in said["tests"]),
        examples=tuple(Example(*e) for e in said["examples"]),
        prose_settings=tuple(Example(*e) for e in said["settings"]),
        clones=tuple(said["clones"]),
        citations=tuple(
            Citation(ReferenceKind(k), text, target, line, fragment, repo, tuple(flags), tuple(words))
            for k, text, target, line, fragment, repo, flags, words in said["citations"]
        ),
        citations_cut=said["citations_cut"],
    )


# `git clone [--options] URL`: a repository the skill works in besides the one it is audited against.
_CLONE = re.compile(r"\bgit\s+clone\s+(?:-{1,2}[\w-]+(?:[ =]\S+)?\s+)*(https://[\w.-]+/[\w.-]+/[\w.-]+|git@[\w.-]+:[\w.-]+/[\w.-]+)")
MAX_CLONES = 8


@functools.lru_cache(maxsize=2)  # one SKILL.md's readers ask in turn (its text, and with "\r\n" made "\n")
def _tokens(text: str) -> tuple[Token, ...]:
    """The CommonMark tokens of ``text``, parsed once however many readers ask (quotes, promises, examples); the
    last two texts only: a skill's tokens are some fifty times its text, and what it says is remembered."""
    return tuple(_markdown().parse(text))


@functools.lru_cache(maxsize=1)
def _markdown() -> MarkdownIt:
    """A CommonMark parser whose lines end at ``\n`` only.

    markdown-it's own normalisation also ends a line at a bare ``\r``;
    git and the line numbers in fences do not, so that rule is replaced.
    """
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark").enable("table")  # GitHub renders tables; a table's Default column is read

    def normalize(state: StateCore) -> None:
        state.src = state.src.replace("\r\n", "\n").replace("\x00", "\ufffd")

    md.core.ruler.at("normalize", normalize)
    return md


def python_examples(text: str) -> tuple[Example, ...]:
    """The plain Python code blocks of a SKILL.md (not quotes), with the line of their first code line and their
    caption."""
    return fenced_examples(_tokens(_blank_front_matter(text.replace("\r\n", "\n"), "SKILL.md")))


_REFERENCE = re.compile(r"(?<![\w@`])@([A-Za-z0-9_.-]+/[A-Za-z0-9_./-]*[A-Za-z0-9_-])")
_PYTEST_FILE = re.compile(r"(?:^|\s)((?:[\w.-]+/)*test_[\w-]*\.py|(?:[\w.-]+/)*[\w-]*_test\.py)\b")
_PASSED = re.compile(r"\b(\d{1,9}) passed\b")
_ORDINALS = {"first": 0, "second": 1, "third": 2, "fourth": 3}


def parse_promises(text: str) -> tuple[tuple[tuple[str, int], ...], tuple[TestPromise, ...]]:
    """The ``@path`` references in SKILL.md's prose, and its ``N passed`` promises for pytest files.

    A promise belongs to the pytest command its line names by ordinal ("first
    command reports 26 passed"), else to the nearest pytest command above it.
    """
    text = _blank_front_matter(text.replace("\r\n", "\n"), "SKILL.md")
    lines = text.split("\n")
    commands, in_code = _pytest_commands(text, lines)
    references: list[tuple[str, int]] = []
    promises: list[TestPromise] = []
    for number, line in enumerate(lines, 1):
        if in_code[number - 1]:
            continue
        if not MAKES.search(line):  # "Create @sandbox/results.md": a file to make, not one that is there
            references += [(m.group(1), number) for m in _REFERENCE.finditer(line)]
        for match in _PASSED.finditer(line):
            path = _promised_of(line[: match.start()].lower(), number, commands)
            if path is not None:
                promises.append(TestPromise(path, int(match.group(1)), number))
    return tuple(references), tuple(promises)


def _pytest_commands(text: str, lines: list[str]) -> tuple[list[tuple[str, int]], list[bool]]:
    """The pytest commands of SKILL.md (the file each runs, and its line), in order; and which lines are code."""
    in_code = [False] * len(lines)
    commands: list[tuple[str, int]] = []
    for token in _tokens(text):
        if token.type in ("fence", "code_block") and token.map:
            for i in range(token.map[0], token.map[1]):
                in_code[i] = True
            if "pytest" in token.content:
                for offset, line in enumerate(split_lines(token.content)):
                    if "pytest" in line and (found := _PYTEST_FILE.search(line)):
                        commands.append((found.group(1), token.map[0] + 2 + offset))
        elif token.type == "inline" and token.map and "pytest" in token.content:  # `pytest tests/x.py` in prose
            for child in token.children or ():
                if child.type == "code_inline" and (found := _PYTEST_FILE.search(child.content)):
                    at = next((n for n in range(*token.map) if child.content in lines[n]), token.map[0])
                    commands.append((found.group(1), at + 1))
    commands.sort(key=lambda command: command[1])
    return commands, in_code


def _promised_of(before: str, number: int, commands: list[tuple[str, int]]) -> str | None:
    """The file of the pytest command a promise on line ``number`` belongs to: the one ``before`` names by ordinal,
    else the nearest above it (None: no command above)."""
    ordinal = next((i for word, i in _ORDINALS.items() if word in before), None)
    if ordinal is not None and ordinal < len(commands):
        return commands[ordinal][0]
    above = bisect.bisect_right([line for _, line in commands], number)  # commands above this line, or on it
    return commands[above - 1][0] if above else None


def _read_text(path: Path) -> str:
    return _decode(read_input(path, MAX_SKILL_BYTES, "a skill file"), path)


def _decode(raw: bytes, path: Path) -> str:
    if len(raw) > MAX_SKILL_BYTES:
        raise SpecError(f"{path}: larger than {MAX_SKILL_BYTES // (1024 * 1024)} MiB; not a skill file")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise SpecError(f"{path}:{line}: not UTF-8 (byte {exc.start})") from None


def parse_skill_md(text: str, name: str = "SKILL.md") -> tuple[Quote, ...]:
    """The line-anchored quotes of a SKILL.md, in document order."""
    text = text.replace("\r\n", "\n")
    text = _blank_front_matter(text, name)
    quotes: list[Quote] = []
    lines = text.split("\n")
    tokens = _tokens(text)
    for at, token in enumerate(tokens):
        if token.type != "fence" or token.map is None:
            continue
        info = token.info.strip().split()
        match = _ANCHOR.match(info[0]) if info else None
        if not match:
            continue
        line = token.map[0] + 1
        where = f"{name}:{line}: quote {info[0][:80]}"
        if max(len(match.group(1)), len(match.group(2))) > MAX_LINE_DIGITS:
            raise SpecError(f"{where}: a line number of more than {MAX_LINE_DIGITS} digits")
        start, end, qpath = int(match.group(1)), int(match.group(2)), match.group(3)
        if start < 1 or end < 1:
            raise SpecError(f"{where}: line numbers start at 1")
        if start > end:
            raise SpecError(f"{where}: START {start} is greater than END {end}")
        problem = repo_path_problem(qpath)
        if problem:
            raise SpecError(f"{where}: {problem}")
        last = lines[token.map[1] - 1].strip() if token.map[1] - 1 < len(lines) else ""
        if token.map[1] - token.map[0] < 2 or not (last.startswith(token.markup) and not last.strip(token.markup[0])):
            raise SpecError(f"{where}: the fence is never closed (it runs to the end of the file)")
        body = tuple(split_lines(token.content))
        if not any(s.strip() and s.strip() != "..." for s in body):
            raise SpecError(f"{where}: the quote is empty")
        quotes.append(Quote(normalize(qpath), LineRange(start, end), body, line, caption(tokens, at)))
        if len(quotes) > MAX_QUOTES:
            raise SpecError(f"{name}:{line}: more than {MAX_QUOTES} quotes; not auditing this file")
    return tuple(quotes)




def _blank_front_matter(text: str, name: str) -> str:
    """Check the YAML front matter parses, and blank it so Markdown line numbers stay true.

    The readers of one SKILL.md (quotes, promises, examples, citations) each ask; a text that passed is
    remembered (by its text alone: only a failure names the file), so its YAML is parsed once."""
    done = _BLANKED.get(text)
    if done is None:
        done = _blank(text, name)
        if len(_BLANKED) >= 64:
            _BLANKED.clear()
        _BLANKED[text] = done
    return done


_BLANKED: dict[str, str] = {}


def _blank(text: str, name: str) -> str:
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---":
        return text
    for i in range(1, len(lines)):
        if lines[i].strip() in ("---", "..."):
            front = "\n".join(lines[1:i])
            doc = load_yaml("\n" + front, name)  # the leading newline keeps line numbers true
            if doc.data is not None and not isinstance(doc.data, dict):
                raise SpecError(f"{name}:2: front matter must be a YAML mapping")
            return "\n" * (i + 1) + "\n".join(lines[i + 1 :])
    raise SpecError(f"{name}:1: front matter opened with '---' is never closed")
