"""A claim nothing else links, decided by the file or the definition its id names.

Some claims are about a thing, not a gate: ``translation_script``, ``recompute_modules_enum``,
``megatron_fsdp_runtime_smoke``.  Where neither anchors.yaml, a card comment, a SKILL.md caption nor a
validation links a ``code_verified`` claim, the files the skill names (card.yaml's evidence, the quoted files,
the paths of the prose) and the definitions of its Python evidence files (functions, classes, a class's
fields) are read on the card's validation day, and the one whose name says the claim best is its evidence:

* the claim's telling words (:func:`anchor_audit.checks.claimgates.telling`, less ``script``, ``launch``,
  ``enum`` and the like) that the skill's own name does not say must all be in the name (the same word, a
  longer form, one of the same stem: ``translation`` and ``translate_...``, or what an abbreviation stands
  for); at least one of them a word of four letters or more, or two words; where no name says them all, the
  short ones (``dp``, ``ddp``: which strategy the claim is about) are left out if two words or more are left;
* the best name says the most of the claim's words, then the fewest others (a file that ties with what it
  defines is the one); more than :data:`MAX_NAMED` best names: too vague, no evidence.

A thing that says the claim at the ref but was not there on the validation day is no evidence: unverifiable,
naming the first commit after that day that changed its file (the card was validated before its code landed).

At the ref, a file named is there (or, gone, exactly one file of its name is elsewhere: moved), and a definition
is still defined in its file (or in another evidence file; a class's member in a class of the same name): the
claim holds.  A file gone with nothing of its
name left, or a name no Python file of the ref says any more: broken.  A definition gone from its file but
defined in another file of the ref (one of the first :data:`MAX_READ` that name it), or a class's member its class
now inherits from a base defined in another file (a field moved up into a base of another package or of a
submodule): it holds, moved.  A
definition no file of the ref defines while some still name it: unverifiable (renamed? re-verify).
"""

from __future__ import annotations

import functools
import os
import re
from dataclasses import dataclass

from ..errors import BoundExceeded, NotCarried, UnreadableFile
from ..model import Evidence, EvidenceKind, PromiseStatus, ReferenceKind
from ..source import SourceTree
from ..source.listing import module_file
from .attrchains import class_fields
from .captions import words
from .claimgates import telling
from .evidencefiles import evidence_files
from .gates import definitions_in
from .protocol import Context
from .sentencewords import ABBREVIATIONS, stem
from .symbols import module_path

MAX_NAMED = 2
MAX_ABBREVIATION = 3  # a claim id's word this short that no name says (``dp``, ``ddp``) may be left out
MAX_READ = 12  # files that name a definition gone from its own, read for where it is defined now
# Words of a claim id that say what kind of thing it is about, not which one.
_KIND = frozenset("launch script enum entry entrypoint file class method smoke flag option".split())


@dataclass(frozen=True)
class Named:
    """A file or a definition the skill names, as the claim's evidence."""

    name: str  # the file's path, or the definition's name
    path: str  # the file; for a definition, the file defining it
    is_file: bool


def named_evidence(claim_id: str, ctx: Context) -> list[Evidence]:
    """The claim's evidence from the file or definition its id names (none where it names too little or too
    much, or the card has no validation day)."""
    then = ctx.validated()
    if then is None:
        return []
    day = f"the validation day ({(then.info.commit or '')[:10]})"
    chosen = _best(claim_id, then, ctx)
    if chosen:
        return [_at_ref(thing, ctx, day) for thing in chosen]
    landed = [_landed(thing, ctx, then, day) for thing in _best(claim_id, ctx.tree, ctx)]
    return landed or _landing_later(claim_id, ctx, day)


def _landing_later(claim_id: str, ctx: Context, day: str) -> list[Evidence]:
    """Audited at a commit behind the default branch (its validation day): the card's evidence files the claim's
    id names that are not there and that the branch gains later, each no evidence, saying when its code landed."""
    need = _needed(claim_id, ctx)[1]
    evidence = ctx.skill.card.evidence if ctx.skill.card else ()
    named = [p for p in evidence if need and all(says(w, _last(Named(p, p, True))) for w in need)]
    absent = [p for p in named if _absent(ctx.tree, p)]
    return [_not_there(path, "file the claim's id names", day, landed)
            for path, landed in ctx.tree.added_after(absent).items()]  # fmt: skip


def _best(claim_id: str, tree: SourceTree, ctx: Context) -> list[Named]:
    """The things the skill names in ``tree`` whose names say the claim best (none: too few words, no name says
    them, or too many do)."""
    wanted, need = _needed(claim_id, ctx)
    if not need:
        return []
    scored = _scored(tree, ctx, claim_id, wanted, need)
    short = frozenset(w for w in need if len(w) <= MAX_ABBREVIATION)
    if not scored and len(need - short) >= 2 and short:  # "dp", "ddp": which strategy, where no name says them
        scored = _scored(tree, ctx, claim_id, wanted - short, need - short)
    best = max((score for score, _ in scored), default=None)
    chosen = [thing for score, thing in scored if score == best]
    files = {thing.path for thing in chosen if thing.is_file}
    chosen = [thing for thing in chosen if thing.is_file or thing.path not in files]  # a file holds its own
    return chosen if len(chosen) <= MAX_NAMED else []


def _scored(tree: SourceTree, ctx: Context, claim_id: str, wanted: frozenset[str], need: frozenset[str]
            ) -> list[tuple[tuple[int, int], Named]]:  # fmt: skip
    """Each thing whose name says every one of ``need``, scored by how many of ``wanted`` it says, then by how few
    words it says besides the claim's and the skill's."""
    own = words(ctx.skill.name)
    scored = []
    for thing in _named_things(tree, ctx, need):
        last = _last(thing)
        if all(says(w, last) for w in need):
            others = len(words(last) - wanted - own - words(claim_id))
            scored.append(((sum(says(w, last) for w in wanted), -others), thing))
    return scored


def _needed(claim_id: str, ctx: Context) -> tuple[frozenset[str], frozenset[str]]:
    """The claim's telling words less those of kind, and those of them a name must say (none where too few): the
    words the skill's own name does not say, at least one of four letters or more or two words."""
    wanted = telling(claim_id) - _KIND
    need = (wanted - words(ctx.skill.name)) or (wanted if len(wanted) >= 2 else frozenset())
    if not need or (len(need) < 2 and max(len(w) for w in need) < 4):
        return wanted, frozenset()
    return wanted, need


def _landed(thing: Named, ctx: Context, then: SourceTree, day: str) -> Evidence:
    """A thing the claim's id names at the ref that was not there on its validation day: no evidence, and the
    first commit after that day that changed its file (where the tree can say), when its code landed."""
    ref = thing.path if thing.is_file else f"{thing.path}: {thing.name}"
    what = f"{'file' if thing.is_file else 'definition'} the claim's id names at the ref"
    landed = ctx.tree.changes_since(thing.path, then.info.commit or "", 1) if then.info.commit else None
    return _not_there(ref, what, day, landed[0] if landed else None)


def _not_there(ref: str, what: str, day: str, landed: tuple[str, str] | None) -> Evidence:
    """No evidence: ``ref`` (the ``what``) was not there on ``day``; where ``landed`` (commit, day) says when
    its code came, the card was validated before it."""
    stale = f"{ref}, the {what}, is not there on {day}"
    if landed:
        stale += f"; the card was validated before its code landed: {landed[0][:10]} on {landed[1]}"
    return Evidence(EvidenceKind.NAMED, ref, False, PromiseStatus.UNVERIFIABLE, f"{stale}: re-verify the claim",
                    stale=stale)  # fmt: skip


def _absent(tree: SourceTree, path: str) -> bool:
    """Whether ``path`` is not in ``tree`` (a path this tree cannot know, in a submodule out of reach, is not
    said to be absent)."""
    try:
        return tree.blob_id(path) is None
    except (NotCarried, UnreadableFile):
        return False


def _last(thing: Named) -> str:
    """What a thing is called: a file's name without its extension, a definition's own name."""
    return re.sub(r"\.\w+$", "", thing.name.rsplit("/", 1)[-1]) if thing.is_file else thing.name.rsplit(".", 1)[-1]


@functools.lru_cache(maxsize=65536)
def says(word: str, name: str) -> bool:
    """Whether ``name`` says ``word``: the word itself, a longer form, one of its stem, or what an abbreviation
    stands for (a definition's every name of an evidence file is asked of every claim's words: remembered)."""
    said = words(name)
    if word in said or name in ABBREVIATIONS.get(word, ()):
        return True
    stemmed = stem(word)
    return any((len(word) >= 4 and w.startswith(word)) or stem(w) == stemmed or _kin(w, word) for w in said)


def _kin(one: str, other: str) -> bool:
    """Two forms of one word: at least six letters in common from the start, no more than three left over from
    the shorter (``translation``, ``translate``)."""
    common = len(os.path.commonprefix([one, other]))
    return common >= 6 and common >= min(len(one), len(other)) - 3


def _named_things(tree: SourceTree, ctx: Context, need: frozenset[str] = frozenset()) -> list[Named]:
    """The files the skill names that are in ``tree``, and the definitions of its Python evidence files there
    (of those whose text could name every one of ``need``: the others are not parsed)."""
    skill = ctx.skill
    cited = [c.target for c in skill.citations if c.kind in (ReferenceKind.PATH, ReferenceKind.AT_PATH)]
    paths = [*(skill.card.evidence if skill.card else ()), *(q.path for q in skill.quotes), *cited]
    files = [p for p in dict.fromkeys(paths) if re.search(r"[^/]\.\w+$", p) and " " not in p]
    out = [Named(p, p, True) for p in files if _blob(tree, p) is not None]
    for path in evidence_files(skill):
        if _could_name(tree, path, need):
            out += [Named(name, path, False) for name in definitions_in(tree, path, ctx)]
    return out


def _could_name(tree: SourceTree, path: str, need: frozenset[str]) -> bool:
    """Whether the text of ``path`` holds, for each of ``need``, what every name that says it holds: its first
    letters up to its stem (at most six), or what it abbreviates (see :func:`_says`)."""
    try:
        source = tree.read(path)
    except (NotCarried, UnreadableFile):
        return False
    if source is None:
        return False
    text = source.text.lower()
    return all(word[: min(6, len(stem(word)))] in text or any(spelt.lower() in text for spelt in
               ABBREVIATIONS.get(word, ())) for word in need)  # fmt: skip


def _blob(tree: SourceTree, path: str) -> str | None:
    try:
        return tree.blob_id(path)
    except (NotCarried, UnreadableFile, ValueError):
        return None


def _at_ref(thing: Named, ctx: Context, day: str) -> Evidence:
    """What became of a file or definition the claim's id named on its validation day."""
    return _file_at_ref(thing, ctx, day) if thing.is_file else _definition_at_ref(thing, ctx, day)


def _file_at_ref(thing: Named, ctx: Context, day: str) -> Evidence:
    said = f"the file the claim's id names, there on {day}"
    if _blob(ctx.tree, thing.path) is not None:
        return Evidence(EvidenceKind.NAMED, thing.path, True, PromiseStatus.EXISTS, f"{said} and at the ref")
    elsewhere = [p for p in ctx.listing.named(thing.path.rsplit("/", 1)[-1]) if p != thing.path]
    if len(elsewhere) == 1:
        return Evidence(EvidenceKind.NAMED, thing.path, True, PromiseStatus.EXISTS,
                        f"{said}; at the ref it is {elsewhere[0]}")  # fmt: skip
    if elsewhere:
        return Evidence(EvidenceKind.NAMED, thing.path, False, PromiseStatus.UNVERIFIABLE,
                        f"{said}, is gone at the ref; {len(elsewhere)} files have its name: re-verify")  # fmt: skip
    return Evidence(EvidenceKind.NAMED, thing.path, False, PromiseStatus.MISSING,
                    f"{said}, is gone at the ref, and no file has its name")  # fmt: skip


def _definition_at_ref(thing: Named, ctx: Context, day: str) -> Evidence:
    ref = f"{thing.path}: {thing.name}"
    said = f"the definition the claim's id names, in {thing.path} on {day}"
    if thing.name in definitions_in(ctx.tree, thing.path, ctx):
        return Evidence(EvidenceKind.NAMED, ref, True, PromiseStatus.EXISTS, f"{said} and at the ref")
    for path in evidence_files(ctx.skill):
        if path != thing.path and thing.name in definitions_in(ctx.tree, path, ctx):
            return Evidence(EvidenceKind.NAMED, ref, True, PromiseStatus.EXISTS, f"{said}; at the ref in {path}")
    inherited = _inherited(thing, ctx)
    if inherited is not None:
        return Evidence(EvidenceKind.NAMED, ref, True, PromiseStatus.EXISTS, f"{said}; {inherited}")
    found = ctx.tree.search(_last(thing), ".py")
    defined = next((p for p in (found or [])[:MAX_READ] if thing.name in definitions_in(ctx.tree, p, ctx)), None)
    if defined is not None:
        return Evidence(EvidenceKind.NAMED, ref, True, PromiseStatus.EXISTS, f"{said}; at the ref in {defined}")
    if found is None:
        return Evidence(EvidenceKind.NAMED, ref, False, PromiseStatus.UNVERIFIABLE,
                        f"{said}, is not defined there at the ref, and this tree cannot be searched")  # fmt: skip
    if found:
        return Evidence(EvidenceKind.NAMED, ref, False, PromiseStatus.UNVERIFIABLE,
                        f"{said}, is not defined there at the ref; {len(found)} files name it: re-verify")  # fmt: skip
    return Evidence(EvidenceKind.NAMED, ref, False, PromiseStatus.MISSING,
                    f"{said}, is named by no Python file at the ref")  # fmt: skip


def _inherited(thing: Named, ctx: Context) -> str | None:
    """Where a class member gone from its class is now given by a base class the class has at the ref, defined in
    another file (a field moved up into a base of another package or of a submodule); None otherwise."""
    cls, _, member = thing.name.rpartition(".")
    if not cls or "." in cls or cls not in definitions_in(ctx.tree, thing.path, ctx):
        return None

    def locate(dotted: str) -> str | None:  # a package of the repository or of a submodule, else a usual root
        found = module_file(ctx.tree, dotted, ctx.listing.package_roots(dotted.split(".")[0]))
        return found[0] if found is not None else module_path(ctx.tree, dotted)

    try:
        field = class_fields(ctx.tree, thing.path, cls, locate).get(member)
    except (NotCarried, UnreadableFile, BoundExceeded):  # a base out of reach, or nested past reading: not said
        return None
    if field is None or field.path == thing.path:
        return None
    return f"at the ref {cls} inherits it from {field.path}:{field.line}"


def paths_named(claim_id: str, paths: list[str]) -> list[str]:
    """The paths among ``paths`` (a card's evidence, which ``file_exists`` claims share) whose folders and names
    say the most of the claim's words (``nvrx_straggler_functional_test``:
    ``tests/functional/test_nvrx_straggler.py``); all of them where none says any."""
    wanted = words(claim_id)
    scored = [(sum(any(says(w, part) for part in _parts(path)) for w in wanted), path) for path in paths]
    best = max((score for score, _ in scored), default=0)
    return [path for score, path in scored if score == best] if best else list(paths)


def _parts(path: str) -> list[str]:
    return [re.sub(r"\.\w+$", "", part) for part in path.split("/") if part]
