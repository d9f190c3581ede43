"""Line citations of the prose (``LINES``): `config.py:1524-1531` names a file, and the lines it had.

The file is looked up like any path of the prose (a tail such as ``config.py`` names the one file ending so).
Its lines are checked by what they said: the cited lines are read on the card's validation day (the code the
skill was written against) and found at the ref as a quote is:

* there at the same lines: ``exists``;
* the same lines elsewhere in the file: ``differs``, "moved to 1530-1537", and ``fix`` rewrites the range;
* changed or gone: ``differs`` or ``missing``, naming the validation day's commit;
* the range ends past the file on the validation day itself, or the cited lines are blank: ``unverifiable``
  (the citation was stale on its own day).

A sentence of card.yaml's ``known_constraints`` cites lines too (``(MCore transformer_config.py:1928, 1934)``):
each range is checked the same way, and on the validation day its lines must name one of the identifiers the
sentence names, else the citation was stale on its own day.  A file name several files end in is narrowed to
those that are not tests, then to those the skill quotes, its card lists as evidence or its card comments
name, then to those under a card prefix written before it (``MCore``: ``megatron/core/``).  Only SKILL.md's
ranges are rewritten by ``fix``.

Without a validation day (no card, no ``validated_on``, a source with no history) only the range is checked:
past the end of the file at the ref it ``differs``.
"""

from __future__ import annotations

import posixpath
import re

from ..errors import NotCarried, UnreadableFile
from ..model import (
    DEFAULT_CARD_PREFIXES,
    Changed,
    Citation,
    Exact,
    LineRange,
    Missing,
    Moved,
    PromiseKind,
    PromiseResult,
    PromiseStatus,
    Quote,
    ReferenceKind,
    Relocated,
)
from ..source import SourceTree
from ..source.listing import is_test
from ..spec.cardwords import Aliases
from .captions import mentions
from .paths import cited_path, of_another_tree, on_a_page, path_in_prose
from .protocol import Checker, Context, citations_of
from .sentencewords import ABBREVIATIONS, wanted

# A card sentence's line citations: an optional prefix word, a file, and one or more ranges (``1428, 1697``).
# Each part begins where a word does (the look-behinds): tried from every letter of a long word, the file's
# ``[\w./-]*`` would run over the rest of it from each, quadratic in the word's length.
CITED_LINES = re.compile(r"(?:(?<![\w./-])(?P<prefix>[A-Z][A-Za-z]+) )?"
                         r"(?<![\w./-])(?P<file>[\w./-]*\w\.(?:py|sh|cu|cuh|cc|cpp|h|yaml))"
                         r":(?P<ranges>\d{1,7}(?:-\d{1,7})?(?:, ?\d{1,7}(?:-\d{1,7})?)*)")


def card_lines(sentence: str, line: int) -> list[Citation]:
    """The line citations of a card.yaml sentence (a known constraint), each range its own; a prefix word before
    the file (``MCore``) is kept as the citation's ``repo``."""
    out = []
    for match in CITED_LINES.finditer(sentence):
        for fragment in re.split(r", ?", match.group("ranges")):
            out.append(Citation(ReferenceKind.LINES, sentence, match.group("file"), line, fragment,
                                repo=match.group("prefix") or "", file="card.yaml"))  # fmt: skip
    return out


def check_lines(c: Citation, ctx: Context) -> list[PromiseResult]:
    """The one result of a line citation (the prose's, or a card sentence's)."""
    return _check(c, ctx)

Said = tuple[PromiseStatus, str, str | None]  # status, detail, the range to write instead (a heal)


def _check(c: Citation, ctx: Context) -> list[PromiseResult]:
    """The file (a path, or the one file with that tail) is there, and has the lines it had."""
    shown = f"{c.target}:{c.fragment}"
    own = _in_skill_folder(c, ctx) if on_a_page(c) else None
    if own is not None:  # a page citing the skill's own file: written with it, not against the validation day
        cited = _range(c)
        status, detail, _ = _range_only(own, cited, ctx.tree, c.target)
        if status is PromiseStatus.EXISTS:
            status, detail = _names_held(own, cited, c.names, ctx.tree) or (status, detail)
        return [PromiseResult(PromiseKind.LINES, shown, status, ctx.file(c.file), c.line, detail)]
    stale = _stale_in_every_namesake(c, ctx) if on_a_page(c) and c.names else None
    if stale is not None:
        return [PromiseResult(PromiseKind.LINES, shown, PromiseStatus.DIFFERS, ctx.file(c.file), c.line, stale)]
    status, _, detail = path_in_prose(c.target, ctx.skill, ctx.tree, ctx.listing)
    if on_a_page(c) and of_another_tree(status, detail):
        return []  # a page about another project's files: nothing said of this one
    heal = None
    if status is PromiseStatus.EXISTS:
        status, detail, heal = _lines(c, ctx)
    heal = heal if c.file == "SKILL.md" else None  # card.yaml's sentences are said, not rewritten
    return [PromiseResult(PromiseKind.LINES, shown, status, ctx.file(c.file), c.line, detail,
                          heal=f"{c.target}:{heal}" if heal else None)]  # fmt: skip


def _in_skill_folder(c: Citation, ctx: Context) -> str | None:
    """The one file of the skill's own folder in the repository a page's citation names: beside the page, from the
    folder, or the one file of the folder with that tail; None where the folder holds none (or several)."""
    folder = (ctx.skill.repo_folder or "").strip("/")
    if not folder:
        return None
    page_folder = posixpath.dirname(c.file)
    for path in (posixpath.normpath(f"{folder}/{page_folder}/{c.target}"), f"{folder}/{c.target}"):
        if path.startswith(f"{folder}/") and ctx.tree.blob_id(path) is not None:
            return path
    mine = _namesakes(c, ctx)
    if len(mine) > 1 and c.names:  # namesakes: the one whose cited lines hold what the line names
        mine = [p for p in mine if _named_lines(p, _range(c), c.names, ctx.tree)[0]]
    return mine[0] if len(mine) == 1 else None


def _namesakes(c: Citation, ctx: Context) -> list[str]:
    folder = (ctx.skill.repo_folder or "").strip("/")
    return [p for p in ctx.listing.ending_in("/" + c.target) if p.startswith(f"{folder}/")] if folder else []


def _stale_in_every_namesake(c: Citation, ctx: Context) -> str | None:
    """Where the skill's folder has several files of the cited name and none holds what the citation's line names
    at the cited lines, though each writes it elsewhere: whichever is meant, the citation is stale."""
    found = [(p, _named_lines(p, _range(c), c.names, ctx.tree)) for p in _namesakes(c, ctx)]
    if len(found) < 2 or any(held or where is None for _, (held, where) in found):
        return None
    at = ", ".join(f"{p} at line {where}" for p, (_, where) in found[:3])
    return f"none of the {len(found)} files named {c.target} holds {', '.join(c.names[:3])} there: {at}"


def _range(c: Citation) -> LineRange:
    start, _, end = c.fragment.partition("-")
    return LineRange(int(start), int(end or start))


def _names_held(
    path: str, cited: LineRange, names: tuple[str, ...], tree: SourceTree
) -> tuple[PromiseStatus, str] | None:
    """None where the cited lines of ``path`` hold one of the names the citation's line gives (a report's row:
    `` `job.py:3` | the `mpi4py` import``), or where the file writes none of them (the names are not this file's
    to say); else ``differs``, naming the first line that does."""
    held, where = _named_lines(path, cited, names, tree)
    if held or where is None:
        return None
    span = f"{cited.start}-{cited.end}" if cited.end != cited.start else str(cited.start)
    return PromiseStatus.DIFFERS, f"{path}:{span} holds none of {', '.join(names[:3])}; line {where} does"


def _named_lines(path: str, cited: LineRange, names: tuple[str, ...], tree: SourceTree) -> tuple[bool, int | None]:
    """(whether the cited lines of ``path`` write one of ``names`` as a word, the first line of the file that
    does); (False, None) for a file that cannot be read or names none."""
    try:
        source = tree.read(path) if names else None
    except (NotCarried, UnreadableFile):
        source = None
    if source is None:
        return False, None
    said = [re.compile(rf"(?<![\w.]){re.escape(name)}(?!\w)") for name in names]
    if any(pattern.search(line) for line in source.lines[cited.start - 1 : cited.end] for pattern in said):
        return True, cited.start
    for pattern in said:  # the first name the line gives that the file writes: what the citation is about
        where = next((i for i, line in enumerate(source.lines, 1) if pattern.search(line)), None)
        if where is not None:
            return False, where
    return False, None


def cited_file(c: Citation, ctx: Context) -> str | None:
    """The one file of the ref a line citation means (its path, or the one file its name narrows to)."""
    found = [c.target] if ctx.tree.blob_id(c.target) is not None else _narrowed(c, ctx)
    return found[0] if len(found) == 1 else None


def _lines(c: Citation, ctx: Context) -> Said:
    found = [c.target] if ctx.tree.blob_id(c.target) is not None else _narrowed(c, ctx)
    if len(found) != 1:
        return PromiseStatus.UNVERIFIABLE, f"{len(found)} files end in {c.target}: which one is meant?", None
    path = found[0]
    start, _, end = c.fragment.partition("-")
    cited = LineRange(int(start), int(end or start))
    then = ctx.validated()
    if then is None:
        return _range_only(path, cited, ctx.tree, c.target)
    try:
        old = then.read(path)
    except (NotCarried, UnreadableFile) as exc:
        return PromiseStatus.UNVERIFIABLE, str(exc), None
    day = f"the validation day ({(then.info.commit or '')[:10]})"
    if old is None or cited.end > len(old.lines):
        had = f"had {len(old.lines)} lines" if old is not None else "was not there"
        return PromiseStatus.UNVERIFIABLE, f"{path} {had} on {day}: the citation was stale on its own day", None
    body = tuple(old.lines[cited.start - 1 : cited.end])
    if not any(line.strip() for line in body):
        return PromiseStatus.UNVERIFIABLE, f"the cited lines were blank on {day}", None
    stale = _names_nothing(c, "\n".join(body), ctx.skill.card.aliases if ctx.skill.card else ())
    if stale:
        why = f"{path}:{c.fragment} named none of {stale} on {day}: the citation was stale on its own day"
        return PromiseStatus.UNVERIFIABLE, why, None
    match = ctx.quote(Quote(path, cited, body, c.line), ctx.tree)
    where = "" if path == c.target else f"{path}: "
    if isinstance(match, Exact):
        return PromiseStatus.EXISTS, where.rstrip(": "), None
    if isinstance(match, Moved):
        new = match.found
        written = str(new.start) if new.start == new.end else f"{new.start}-{new.end}"
        return PromiseStatus.DIFFERS, f"{where}the lines cited on {day} moved to {new.start}-{new.end}", written
    if isinstance(match, Relocated):
        moved_to = f"{match.found_path}:{match.found.start}-{match.found.end}"
        return PromiseStatus.DIFFERS, f"the lines cited on {day} moved to {moved_to}", None
    if isinstance(match, Changed):
        return PromiseStatus.DIFFERS, f"{where}the lines cited on {day} changed: {match.detail}", None
    if isinstance(match, Missing):
        return PromiseStatus.MISSING, f"{where}the lines cited on {day} are gone: {match.detail}", None
    return PromiseStatus.UNVERIFIABLE, match.detail, None


def _names_nothing(c: Citation, code: str, aliases: Aliases = ()) -> str:
    """For a card sentence's citation, what the sentence names that the cited code does not (its identifiers; with
    none, its telling words: "CPU offloading" is ``cpu_offloading``); "" where the code names some of it."""
    if c.file != "card.yaml":
        return ""
    names = {n for n in wanted(c.text, aliases)[0] if not re.search(r"[./]", n)}  # identifiers, not files it cites
    if names:
        return "" if any(name in code for name in names) else ", ".join(sorted(names)[:3])
    prose = re.sub(r"\s*\([^)]*\)", "", c.text).strip().rstrip(".")  # the sentence without its citations
    return "" if mentions(prose, code, ABBREVIATIONS) else f"what '{prose[:60]}' says"


def _narrowed(c: Citation, ctx: Context) -> list[str]:
    """The files a cited name may be (see the module's rule)."""
    found = ctx.listing.ending_in("/" + c.target)
    for narrower in (_not_tests, _named_by_skill, _under_prefix):
        if len(found) <= 1:
            break
        kept = narrower(found, c, ctx)
        found = kept or found
    return found


def _not_tests(found: list[str], c: Citation, ctx: Context) -> list[str]:
    return [f for f in found if not is_test(f)]


def _named_by_skill(found: list[str], c: Citation, ctx: Context) -> list[str]:
    skill = ctx.skill
    named = {q.path for q in skill.quotes} | set(skill.card.evidence if skill.card else ())
    prefixes = ctx.entry.card_prefixes if ctx.entry else ()
    tails = [a.tail(prefixes) for claim in (skill.card.claims if skill.card else ()) for a in claim.anchors]
    return [f for f in found if f in named or any(t.matches(f) for t in tails if t.file == c.target and t.within)]


def _under_prefix(found: list[str], c: Citation, ctx: Context) -> list[str]:
    prefixes = dict(DEFAULT_CARD_PREFIXES + (ctx.entry.card_prefixes if ctx.entry else ()))
    folder = prefixes.get(c.repo, "") if c.repo else ""
    return [f for f in found if folder and f"/{folder}" in f"/{f}"]


def _range_only(path: str, cited: LineRange, tree: SourceTree, written: str) -> Said:
    source = tree.read(path)
    count = len(source.lines) if source is not None else 0
    if source is None or cited.end > count:
        return PromiseStatus.DIFFERS, f"{path} has {count} lines; the range ends past them", None
    return PromiseStatus.EXISTS, path if path != written else "", None


LINES: Checker[Citation, list[PromiseResult]] = Checker(
    ReferenceKind.LINES, citations_of(ReferenceKind.LINES), cited_path, _check, PromiseKind.LINES
)
