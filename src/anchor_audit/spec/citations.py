"""The citations of SKILL.md's prose that are not quotes: repository paths, links, Python version pins.

Read from markdown-it's tokens, so code spans, links and fences are what
CommonMark says they are. What is *not* a citation matters as much as what
is (a false "missing" costs more than a miss): URLs to other sites,
placeholders (``path/to/x``, ``<dir>``, ``my_op.py``), paths a line tells the
agent to create or a command writes, version numbers and dates, and anything
without a ``/`` (a bare ``config.py`` names no place).
"""

from __future__ import annotations

import builtins
import itertools
import re
from typing import TYPE_CHECKING, Iterator, Sequence

from ..model import Citation, ReferenceKind
from .shellcommands import PLACEHOLDER, command_of, logical_lines
from .stateddefaults import FLAG, DefaultsTable, stated_default

if TYPE_CHECKING:
    from markdown_it.token import Token

MAX_CITATIONS = 2_000  # per SKILL.md: past it, the rest are not read (a generated file, not prose)

# a relative path of at least two parts, ending in a file with an extension or in a folder's "/"
_PATH = re.compile(r"(?:\./)?[A-Za-z0-9_@+-][\w.@+-]*(?:/[\w.@+{},*-]+)+/?")
_PROSE_PATH = re.compile(r"(?<![\w/:.@-])[A-Za-z0-9_][\w.-]*(?:/[\w.{},*-]+)+/?")
_EXTENSION = re.compile(r"\.[A-Za-z][A-Za-z0-9]{0,7}$")
# a line telling the agent to make the file, or a command writing it: not a promise that it exists
MAKES = re.compile(
    r"\b(?:create[sd]?|creating|mkdir|touch|save[sd]?|saving|writes?|written|generate[sd]?|outputs?|produce[sd]?)\b",
    re.I,
)
# a command that makes, moves or fetches files: what it names need not exist yet
_WRITES = re.compile(r"(?:^|[;&|(]\s*)(?:sudo\s+)?(?:mkdir|touch|cp|mv|ln|rm|rsync|wget|curl|git\s+clone|tar)\b")
_OUTPUT_FLAG = re.compile(r"^(?:-o|>>?|tee|--?[\w-]*(?:out|output|save|log|result|dest|dump)[\w-]*)$")
_SHELL = {"", "bash", "sh", "shell", "console", "zsh", "shell-session", "text"}
_PIN = re.compile(
    r"\bPython\s*(?:(?:>=|≥)\s*(?P<at_least>3\.\d{1,2})\b"
    r"|(?P<plus>3\.\d{1,2})\s*(?:\+|or (?:later|newer|higher|above)))",
    re.I,
)
# a package pinned in a code span or a pip command: `transformers>=4.45`, "torch==2.5.1"
PACKAGE_PIN = re.compile(
    r"^(?P<name>[A-Za-z][\w.-]*)(?:\[[\w,.-]+\])?\s*(?P<op>==|>=|~=)\s*(?P<version>\d+(?:\.\d+){1,3})$"
)
_PIP_INSTALL = re.compile(r"^(?:uv\s+)?(?:python3?\s+-m\s+)?pip3?\s+install\s")
_BRANCH = re.compile(r"(?:[├└]──|[|`]--)[─-]*\s*")  # a drawn tree's branch: "├── ", "└── ", "|-- "
_GITHUB = re.compile(r"^https?://github\.com/([\w.-]+)/([\w.-]+?)(?:\.git)?/(?:blob|tree)/([^/]+)/([^#?]+)(?:#(.*))?$")
_BRACES = re.compile(r"\{([^{}]*,[^{}]*)\}")


def parse_citations(tokens: Sequence[Token], lines: Sequence[str]) -> tuple[tuple[Citation, ...], bool]:
    """Every path, link and version pin of SKILL.md (its tokens and its lines), in file order; and whether the
    :data:`MAX_CITATIONS` cut the rest."""
    out: list[Citation] = []
    table = DefaultsTable()
    for token in tokens:
        if len(out) >= MAX_CITATIONS:
            break
        out += table.read(token)
        if token.type == "inline" and token.map:  # a paragraph of a million paths is read up to the cap only
            out += itertools.islice(_inline(token, lines), MAX_CITATIONS - len(out))
        elif token.type == "fence" and token.map and token.info.strip().split(" ")[0].lower() in ("yaml", "yml"):
            out += _targets(token.content, token.map[0] + 2)
        elif token.type == "fence" and token.map and _BRANCH.search(token.content):
            if not any(MAKES.search(lines[n]) for n in range(max(token.map[0] - 3, 0), token.map[0])):
                out += _drawn_tree(token.content, token.map[0] + 2)
        elif token.type == "fence" and token.map and token.info.strip().split(" ")[0].lower() in _SHELL:
            if not re.match(r"^-?\d+:-?\d+:", token.info.strip()):  # a quote's fence is not a command
                out += _commands(token.content, token.map[0] + 2)
    made = _made_paths(lines)  # a file the skill has the agent create is no citation where it is named again
    kept = tuple(c for c in out[:MAX_CITATIONS] if not (c.kind is ReferenceKind.PATH and c.target in made))
    return kept, len(out) >= MAX_CITATIONS


_CLAUSE = re.compile(r"[;,:]\s|\.\s|\b(?:and|then|or)\b", re.I)
_SPAN = re.compile(r"`([^`\n]+)`")


# How far back the clause before a citation is read: a clause is a few words, and a line of a million
# characters is read once, not once per citation on it.
_CLAUSE_REACH = 400


def made_here(line: str, cited: str, at: int | None = None) -> bool:
    """Whether ``cited`` (as written on ``line``, at column ``at`` where known) is what the clause before it
    tells the agent to create: "Create `a.py`, then add it to `b.rst`" makes ``a.py`` and names ``b.rst``, which
    must exist."""
    if at is None or at < 0:
        at = line.find(cited)
    end = at if at >= 0 else len(line)
    before = line[max(0, end - _CLAUSE_REACH) : end]
    return bool(MAKES.search(_CLAUSE.split(before)[-1]))


def _made_paths(lines: Sequence[str]) -> frozenset[str]:
    """The paths a line tells the agent to create (a code span right in a making clause), as later lines name
    them."""
    made: set[str] = set()
    for line in lines:
        if MAKES.search(line):
            made.update(m.group(1).strip().removeprefix("./") for m in _SPAN.finditer(line)
                        if made_here(line, m.group(0), m.start()))  # fmt: skip
    return frozenset(made)


class _Cursor:
    """Where a paragraph's inline parts are in its source lines: each is looked for after the one before, so a
    paragraph is read once however many parts it has; a part not found (its source had escapes) leaves the
    cursor where it was, having looked at most :data:`_REACH` characters ahead."""

    _REACH = 16_384

    def __init__(self, lines: Sequence[str], first: int, last: int) -> None:
        self.lines, self.row, self.col, self.last = lines, first, 0, last
        self._makes: dict[int, bool] = {}

    def find(self, text: str, advance: bool = True) -> tuple[int, int]:
        """(1-based line, column or -1) of ``text`` at or after the cursor; past it, unless not ``advance``."""
        row, col, budget = self.row, self.col, self._REACH
        while row < self.last and budget > 0:
            line = self.lines[row]
            at = line.find(text, col, col + budget + len(text))
            if at >= 0:
                if advance:
                    self.row, self.col = row, at + len(text)
                return row + 1, at
            budget -= len(line) - col
            row, col = row + 1, 0
        return self.row + 1, -1

    def makes(self, line: int) -> bool:
        """Whether the 1-based ``line`` tells the agent to make something (asked once per line)."""
        if line not in self._makes:
            self._makes[line] = bool(MAKES.search(self.lines[line - 1]))
        return self._makes[line]


def _code_span(content: str, cursor: _Cursor) -> Iterator[Citation]:
    """A code span's citation: a flag's stated default, a pin, a file's lines, a name, or a path."""
    line, at = cursor.find(f"`{content}`")
    if at < 0:
        line, at = cursor.find(content)
    text, written = content.strip(), cursor.lines[line - 1]
    anchored = _LINE_ANCHOR.fullmatch(text)
    named = _NAME.fullmatch(text)
    pinned = PACKAGE_PIN.fullmatch(text)
    if FLAG.fullmatch(text) is not None:
        yield from stated_default(text, written, line, at)
    elif pinned is not None:
        yield _package_pin(pinned, text, line)
    elif anchored is not None:  # `transformer_config.py:2001-2005`: a file and lines of it
        yield _anchored(anchored, text, line)
    elif named is not None and _is_name(named):
        yield Citation(ReferenceKind.NAME, text, named.group("name"), line)
    elif (assigned := _ASSIGNED.fullmatch(text)) is not None and setting_of(text, ""):
        yield Citation(ReferenceKind.NAME, text, assigned.group("left"), line)  # a setting and its value
    elif not (cursor.makes(line) and made_here(written, f"`{content}`", at)):
        yield from _paths(text, line, whole=True)


def _inline(token: Token, lines: Sequence[str]) -> Iterator[Citation]:
    assert token.map is not None
    cursor = _Cursor(lines, *token.map)
    for child in token.children or ():
        if child.type == "code_inline":
            yield from _code_span(child.content, cursor)
        elif child.type in ("link_open", "image"):
            target = str(child.attrs.get("href" if child.type == "link_open" else "src") or "")
            if target:  # written after the link's text, which comes next: the cursor stays
                yield from link_citations(target, cursor.find(target, advance=False)[0])
        elif child.type == "text":
            line = cursor.find(child.content[:40])[0] if child.content else cursor.row + 1
            if "://" not in child.content and not cursor.makes(line):
                cited = list(_PROSE_LINES.finditer(child.content))  # `config.py:1428` with no code span around it
                yield from (_anchored(m, m.group(0), line) for m in cited)
                starts = {m.start() for m in cited}
                for word in _PROSE_PATH.finditer(child.content):  # a path in prose, with no code span around it
                    if word.start() not in starts:
                        yield from _paths(word.group(0).rstrip("."), line, whole=False)
            for match in _PIN.finditer(child.content):
                version = match.group("at_least") or match.group("plus")
                yield Citation(ReferenceKind.PIN, match.group(0), f"python>={version}", line)


_LINE_ANCHOR = re.compile(r"(?P<file>[\w./-]+\.[A-Za-z]\w{0,7}):(?P<start>\d{1,7})(?:-(?P<end>\d{1,7}))?")
# The same in prose, for a source file only (``12:30`` is a time, ``v1.2:3`` nothing).
_PROSE_LINES = re.compile(r"(?<![\w/.:@-])(?P<file>[\w./-]*\w\.(?:pyi?|sh|cuh?|cc|cpp|c|hpp|h|rs|go|ts|js|ya?ml|toml))"
                          r":(?P<start>\d{1,7})(?:-(?P<end>\d{1,7}))?(?![\w:.-]*\w)")


# A name, or a call with its arguments written (`make_batch()`, `VolumeMapping(source, dest)`): the name is cited.
_NAME = re.compile(r"(?P<name>[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)(?P<call>\([^()]{0,200}\))?")
_NOT_NAMES = {  # the last part of a file name, not of a dotted Python name
    "py", "md", "mdx", "rst", "yaml", "yml", "json", "toml", "sh", "txt", "cfg", "ini", "ipynb", "log", "so", "h",
    "hpp", "c", "cc", "cpp", "cu", "cuh", "dll", "dylib", "a", "o", "whl", "gz", "zip", "tar", "tgz", "csv", "parquet",
    "html", "xml", "lock", "env", "pt", "pth", "bin", "safetensors", "onnx", "engine", "ckpt", "jsonl",
}  # fmt: skip
YAML_TARGET = re.compile(r"^\s*_target_\s*:\s*['\"]?([A-Za-z_][\w.]*)['\"]?\s*(?:#.*)?$")


# A class's name written alone: two or more capitalised parts (`MeshContext`, `MoEFSDPSyncMixin`), not one word
# (`Engine`), not a constant or an environment variable (`WORLD_SIZE`), not a builtin (`ValueError`).
_CLASS_NAME = re.compile(r"_?[A-Z][a-z0-9]*[A-Z]\w*")
# A module's constant (`SMALL_PRESET_V1`): capitals and digits in two or more parts; checked only where the package
# assigns it, or did when its line was written (an environment variable of the same spelling never was).
_CONSTANT_NAME = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")
_BUILTINS = frozenset(dir(builtins))


# A setting the prose writes: assigned (`overlap_p2p_comm=True`, `cfg.model.seq_length = 4096`), or reached through
# its section (`model.seq_length`); its last part in snake case of two words or more.
_SETTING = re.compile(r"(?:[a-z_][a-z0-9_]*\.)*(?P<name>[a-z][a-z0-9]*(?:_[a-z0-9]+)+)")
_ASSIGNED = re.compile(r"(?P<left>[a-z_][\w.]*)\s*=\s*[^=\s].*")


def setting_of(text: str, target: str) -> str | None:
    """The setting a name of the prose writes: the last part of ``a.b.name = value`` (``text``) or of a dotted
    ``section.name`` (``target``); None for any other name."""
    assigned = _ASSIGNED.fullmatch(text.strip())
    written = assigned.group("left") if assigned else target if "." in target and "(" not in text else None
    found = _SETTING.fullmatch(written) if written else None
    return found.group("name") if found else None


def is_file_name(text: str) -> bool:
    """Whether a dotted word reads as a file's name (``job.py``, ``model.safetensors``), not a Python name."""
    return text.rsplit(".", 1)[-1] in _NOT_NAMES if "." in text else False


def _is_name(match: re.Match[str]) -> bool:
    """A dotted name (`pkg.mod.Name`), a call (`make_batch()`), a class's name or a constant's: not a file name,
    not a word."""
    name = match.group("name")
    parts = name.split(".")
    if parts[-1] in _NOT_NAMES or PLACEHOLDER.search(name):
        return False
    return len(parts) > 1 or match.group("call") is not None or is_class_name(name) or is_constant_name(name)


def is_class_name(name: str) -> bool:
    """Whether a bare word reads as a class's name (see ``_CLASS_NAME``)."""
    return bool(_CLASS_NAME.fullmatch(name)) and not name.isupper() and any(c.islower() for c in name) \
        and name not in _BUILTINS  # fmt: skip


def is_constant_name(name: str) -> bool:
    """Whether a bare word reads as a module's constant (see ``_CONSTANT_NAME``)."""
    return bool(_CONSTANT_NAME.fullmatch(name))


def _targets(code: str, first_line: int) -> Iterator[Citation]:
    """The ``_target_:`` values of a YAML example: the classes and functions a config instantiates."""
    for offset, line in enumerate(code.split("\n")):
        found = YAML_TARGET.match(line)
        if found is not None and "." in found.group(1):
            yield Citation(ReferenceKind.NAME, line.strip(), found.group(1), first_line + offset)


def _package_pin(match: re.Match[str], text: str, line: int) -> Citation:
    return Citation(ReferenceKind.PIN, text, f"{match.group('name')}{match.group('op')}{match.group('version')}", line)


def _drawn_tree(code: str, first_line: int) -> Iterator[Citation]:
    """The paths a drawn tree names (``pkg/`` then ``├── core/``, ``│   └── x.py``): each entry's folders are
    the entries above it at smaller indents, under the tree's root line if it has one."""
    root = ""
    open_folders: list[tuple[int, str]] = []  # (column of its branch, its name), outermost first
    for offset, raw in enumerate(code.split("\n")):
        branch = _BRANCH.search(raw)
        words = raw[branch.end() :].split() if branch else raw.split()
        name = words[0] if words else ""
        if branch is None and not raw.strip(" │|"):
            continue  # a drawing's blank or vertical-only line
        if branch is None:  # a root line ("src/acme/"), or a line that is not part of a drawing
            root, open_folders = (name if name.endswith("/") and name not in ("./", "/") else ""), []
            continue
        while open_folders and open_folders[-1][0] >= branch.start():
            open_folders.pop()
        path = "/".join(part.strip("/") for part in [root, *(f for _, f in open_folders), name] if part.strip("/"))
        if name.endswith("/"):
            open_folders.append((branch.start(), name))
            path += "/"
        if name and not MAKES.search(raw[branch.end() :]):
            yield from _paths(path, first_line + offset, whole=False)


def _anchored(match: re.Match[str], text: str, line: int) -> Citation:
    lines = match.group("start") + (f"-{match.group('end')}" if match.group("end") else "")
    return Citation(ReferenceKind.LINES, text, match.group("file").removeprefix("./"), line, lines)


def code_span_paths(text: str, line: int) -> list[Citation]:
    """A page's code span: the file and lines it cites (`` `config.py:10-20` ``), else the repository paths it
    names, whole (no clause of a making sentence is read here)."""
    if anchored := _LINE_ANCHOR.fullmatch(text.strip()):
        return [_anchored(anchored, text.strip(), line)]
    named = _NAME.fullmatch(text.strip())
    if named is not None and _is_name(named):
        return [Citation(ReferenceKind.NAME, text.strip(), named.group("name"), line)]
    return list(_paths(text, line, whole=True)) if "." in text or "/" in text else []  # a word names no file


def prose_line_citations(text: str) -> list[tuple[int, Citation]]:
    """The ``file.py:N`` citations of prose (its code spans blanked), each with where it starts in ``text``."""
    return [(m.start(), _anchored(m, m.group(0), 0)) for m in _PROSE_LINES.finditer(text)]


def _paths(text: str, line: int, whole: bool) -> Iterator[Citation]:
    """A code span (``whole``: all of it must be a path) or a command's word, as repository paths."""
    candidate = text.strip("'\"`,;:()").removeprefix("@")  # @path: the reference convention, a path all the same
    match = _PATH.fullmatch(candidate)
    if match is None or (whole and candidate != text.strip()):
        return
    if "://" in candidate or PLACEHOLDER.search(candidate) or not re.search(r"[A-Za-z]", candidate):
        return
    if not candidate.endswith("/") and not _EXTENSION.search(candidate):
        return  # `a/b` may be a module, a branch, a ratio: no place
    for path in _expand(candidate.removeprefix("./")):
        yield Citation(ReferenceKind.PATH, text, path, line)


def _expand(path: str) -> list[str]:
    """Brace expansion, as a shell does it: ``a/{b,c}.py`` is ``a/b.py`` and ``a/c.py``."""
    found = _BRACES.search(path)
    if found is None:
        return [path]
    head, tail = path[: found.start()], path[found.end() :]
    return [p for part in found.group(1).split(",") for p in _expand(head + part.strip() + tail)][:64]


def shell_commands(info: str, code: str, first_line: int) -> list[Citation]:
    """The commands of a fenced block (``info``: its info string) that a shell runs, none where the block is
    not a shell's or is a quote (``12:20:pkg/x.py``)."""
    words = info.strip().split(" ")
    if words[0].lower() not in _SHELL or re.match(r"^-?\d+:-?\d+:", info.strip()):
        return []
    return [c for c in _commands(code, first_line) if c.kind is ReferenceKind.COMMAND]


def _commands(code: str, first_line: int) -> Iterator[Citation]:
    """The scripts and files a shell block's commands name (``python scripts/x.py --config c.yaml``)."""
    for offset, line in logical_lines(code):
        if not line or line.startswith("#") or _WRITES.search(line):
            continue
        words = line.split()
        if _PIP_INSTALL.match(line):
            pins = ((w, PACKAGE_PIN.fullmatch(w.strip("'\""))) for w in words)
            yield from (_package_pin(m, w.strip("'\""), first_line + offset) for w, m in pins if m is not None)
            continue
        command = command_of(words, line, first_line + offset)
        if command is not None:
            yield command
        for i, word in enumerate(words):
            if i and _OUTPUT_FLAG.match(words[i - 1]):
                continue
            value = word.split("=", 1)[1] if word.startswith("--") and "=" in word else word
            if _OUTPUT_FLAG.match(word.split("=", 1)[0]):
                continue
            yield from _paths(value, first_line + offset, whole=False)


def link_citations(target: str, line: int) -> Iterator[Citation]:
    """A link or image: relative (resolved from SKILL.md), an own-repository GitHub URL, or nothing."""
    github = _GITHUB.match(target)
    if github is not None:
        owner, name, ref, path, fragment = github.groups()
        yield Citation(ReferenceKind.REPO_LINK, target, path.rstrip("/"), line, fragment or "", f"{owner}/{name}@{ref}")
        return
    if re.match(r"^[A-Za-z][\w+.-]*:", target) or target.startswith("//"):
        return  # another site, mailto:, data:
    path, _, fragment = target.partition("#")
    if PLACEHOLDER.search(path):
        return
    yield Citation(ReferenceKind.LINK, target, path.split("?", 1)[0], line, fragment)
