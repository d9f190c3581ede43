"""A quote as evidence of a claim: judged by what the quoted code does, not by how its text reads.

A quote found at the ref (exact, moved, relocated) is evidence as it is.  A quote whose text drifted (changed,
or its file gone) is citation drift, reported and healed as such; as evidence of a claim it is judged by its
facts (:mod:`anchor_audit.match.quotefacts`: its gates, asserts, raises and values set under a gate), derived on the
card's validation day (those of the code the quote held that day, elided lines included, where it held; else the
fence's own, and what its comments say of the code it elides: :mod:`.fencecomments`) and looked for at the
ref, in the quoted file, in the helpers it calls read with the caller's arguments
(:mod:`anchor_audit.checks.helpers`), and then wherever in the tree they may have moved:

* every fact that held on the validation day is at the ref: the claim's behaviour holds (``ok``);
* an assert or a raise that held on the validation day is nowhere in the code at the ref, a gate's constants
  changed (``cfg.tp > 1`` is now ``cfg.tp > 2``), or a gate is gone with what it did: ``broken``, naming it;
* a gate is gone while what it did is still there (refactored into a helper?), only values set under a gate are
  gone (set another way?), the quote has no facts, or none of its facts was in the file on its own validation
  day (the anchor was stale on its own day): ``unverifiable``, with the reason.

Without a validation day (no ``validated_on``, or a tree with no history) nothing says the quoted code was ever
the code: its facts found at the ref hold the claim; a statement the code has with other constants breaks it
(what the skill says is not what the code does); any other not found makes it ``unverifiable``.
A quote of a file that is not Python has no facts: its changed text makes the claim ``unverifiable``.
"""

from __future__ import annotations

from dataclasses import astuple, dataclass, replace

from ..errors import NotCarried, UnreadableFile
from ..match.quote import match_quote
from ..match.quotefacts import (
    Fact,
    facts_in,
    facts_of,
    fewer_keywords,
    file_facts,
    holds_in,
    leaves,
    reshaped_in,
    widened,
)
from ..model import AnchorStatus, Evidence, EvidenceKind, Exact, Located, Missing, Moved, Quote, QuoteMatch, Unchecked
from ..source import SourceTree
from .fencecomments import commented_sets, elided
from .helpers import helper_facts
from .protocol import Context

MAX_MOVED_FILES = 8  # files a tree search names that are read to find where one fact moved
MAX_LANDING_COMMITS = 40  # commits to a quoted file read to find when the code a card cites landed


def quote_evidence(match: QuoteMatch, ctx: Context, key: str | None = None) -> Evidence:
    """The evidence a quote gives a claim (``key``: how the claim names it, the quote's key by default)."""
    key = key or match.quote.key
    if isinstance(match, Located):
        return Evidence(EvidenceKind.QUOTE, key, True, match.status, match.detail, match.location)
    if isinstance(match, Unchecked):
        return Evidence(EvidenceKind.QUOTE, key, False, match.status, match.detail)
    if (match.quote, key) not in ctx.judged:  # a quote several claims rest on is judged once
        try:
            ctx.judged[(match.quote, key)] = _by_behaviour(match, ctx, key)
        except (NotCarried, UnreadableFile) as exc:
            ctx.judged[(match.quote, key)] = Evidence(EvidenceKind.QUOTE, key, False, AnchorStatus.UNVERIFIABLE,
                                                          str(exc))  # fmt: skip
    found: Evidence = ctx.judged[(match.quote, key)]
    return found


@dataclass(frozen=True)
class _Judging:
    """One quote judged by its facts: how to say what it found."""

    match: QuoteMatch
    key: str
    day: str  # "the validation day (SHA)", or "" where there is none
    shorter: tuple[tuple[str, str], ...] = ()  # (as the quote writes it, as the code does) for each such statement
    moved: str = ""  # where the quote's file went before the validation day, said

    def holds(self, why: str) -> Evidence:
        if self.shorter:
            why += "; " + ", ".join(f"the quote writes `{q}` for `{c}`" for q, c in self.shorter)
        return Evidence(EvidenceKind.QUOTE, self.key, True, self.match.status, self._moved(why))

    def broken(self, why: str) -> Evidence:
        return Evidence(EvidenceKind.QUOTE, self.key, False, self.match.status, self._moved(why))

    def unverifiable(self, why: str) -> Evidence:
        return Evidence(EvidenceKind.QUOTE, self.key, False, AnchorStatus.UNVERIFIABLE, self._moved(why))

    def stale(self, why: str, stale: str) -> Evidence:
        """Unverifiable, and what the cited code was on the card's own validation day (a finding of its own)."""
        return Evidence(EvidenceKind.QUOTE, self.key, False, AnchorStatus.UNVERIFIABLE, self._moved(why), stale=stale)

    def _moved(self, why: str) -> str:
        return f"{self.moved}: {why}" if self.moved else why


def _by_behaviour(match: QuoteMatch, ctx: Context, key: str) -> Evidence:
    quote = match.quote
    say = _Judging(match, key, "")
    if not quote.path.endswith(".py"):
        return say.unverifiable(f"the quoted text changed, and {quote.path} has no gates to judge the claim by: "
                                "re-verify")  # fmt: skip
    then = ctx.validated()
    if then is not None:  # a file moved before that day: judged where it was that day, and is at the ref
        match, say = _where_it_went(match, then, ctx, say)
        quote = match.quote
    facts = _validated_facts(quote, then) if then is not None else ()
    if not facts:  # a paraphrase: its own statements, and the validations its comments say it elides
        facts = facts_of(quote.body).facts
        facts += elided(quote, then, facts)[0] if then is not None else ()
    deleted = _deleted(match, ctx)
    if deleted is not None and not facts:  # a file the claim names, removed
        return say.broken(f"{quote.path} was deleted in commit {deleted[:10]}, and the quoted code is nowhere in "
                          "the tree")  # fmt: skip
    if all(f.kind == "def" for f in facts) and _signature(quote.body):  # what a function sets is what it does
        facts += tuple(f for f in facts_of(quote.body, gated=True).facts if f.kind == "set")
    if all(f.kind == "def" for f in facts) and _signature(quote.body) and then is not None:
        facts += commented_sets(quote, facts, then)
    if not facts:
        return say.unverifiable("the quoted code changed and holds no gate, assert or raise to judge the claim by: "
                                "re-verify")  # fmt: skip
    if then is None:
        return _as_quoted(facts, ctx, say, deleted)
    say = replace(say, day=f"the validation day ({(then.info.commit or '')[:10]})")
    held, stale, say = _on_day(facts, then, ctx, say)
    if not held or (any(f.kind != "def" for f in facts) and all(f.kind == "def" for f in held)):
        return _stale_on_day(facts, ctx, say, then)
    return _at_ref(held, stale, ctx, say)


def _where_it_went(match: QuoteMatch, then: SourceTree, ctx: Context, say: _Judging) -> tuple[QuoteMatch, _Judging]:
    """The match of the quote at the path the history moved its file to before the card's validation day (not at
    its own path that day, and there at the path the ref has it at), said; as it is where it did not move."""
    path = match.quote.path
    if then.blob_id(path) is not None:
        return match, say
    removal = ctx.tree.removals([path]).get(path)
    if removal is None or removal.was != path or removal.now is None or then.blob_id(removal.now) is None:
        return match, say
    moved = replace(match, quote=replace(match.quote, path=removal.now))
    said = f"{path} was moved to {removal.now} in commit {removal.commit[:10]}, before the validation day"
    return moved, replace(say, match=moved, moved=said)


def _on_day(
    facts: tuple[Fact, ...], then: SourceTree, ctx: Context, say: _Judging
) -> tuple[tuple[Fact, ...], tuple[Fact, ...], _Judging]:
    """(the facts the quote's file held on the validation day, those it did not, how to say it): a fact in a
    helper the file calls counts, and a statement the quote writes shorter than the code is the code's."""
    path = say.match.quote.path
    keys_then = _keys(then, path, ctx) or frozenset()
    if not all(holds_in(f, keys_then) for f in facts):  # refactored into a helper by then?
        keys_then |= helper_facts(then, path, {f.needle for f in facts if not holds_in(f, keys_then)})
    held = tuple(f for f in facts if holds_in(f, keys_then))
    stale = tuple(f for f in facts if f not in held)
    shorter = _written_shorter(stale, then, path, ctx) if held and stale else {}
    if shorter:  # the code's own statements are the facts, said beside what the quote writes
        held += tuple(shorter.values())
        stale = tuple(f for f in stale if f not in shorter)
        say = replace(say, shorter=tuple((_shown(q), _shown(c)) for q, c in shorter.items()))
    return held, stale, say


_SHORTER = ("assert", "raise", "set")  # what a quote may write shorter than its code


def _shown(fact: Fact) -> str:
    return fact.text if fact.kind == "set" else f"{fact.kind} {fact.text}"


def _written_shorter(
    stale: tuple[Fact, ...] | list[Fact], then: SourceTree, path: str, ctx: Context, kinds: tuple[str, ...] = _SHORTER
) -> dict[Fact, Fact]:
    """For each assert, raise or value set of the quote (of ``kinds``) that its file did not hold in ``then``, the
    one statement of that kind the file held that says the same, written out in full: an assert or raise testing
    the same names and constants (``assert not nan_check`` for ``assert not self.nan_check``), a call set to the
    same target with the quote's arguments and more (:func:`fewer_keywords`); none where no one statement does."""
    wanted = [f for f in stale if f.kind in kinds]
    return _shorter_in(wanted, _code(then, path, ctx)) if wanted else {}


def _shorter_in(wanted: list[Fact], code: tuple[Fact, ...]) -> dict[Fact, Fact]:
    """:func:`_written_shorter` in a file whose facts are ``code``."""
    found: dict[Fact, Fact] = {}
    for fact in wanted:
        if fact.kind == "set":
            same = [c for c in code if c.kind == "set" and fewer_keywords(fact, c)]
        else:
            said = leaves(fact)
            same = [c for c in code if c.kind == fact.kind and leaves(c) == said] if said[0] else []
        if len(same) == 1:
            found[fact] = same[0]
    return found


def _code(tree: SourceTree, path: str, ctx: Context) -> tuple[Fact, ...]:
    """Every fact of the file at ``path`` in ``tree`` (none where it is not there or not Python), remembered by
    its blob: a drifted quote's file is read for them on every run."""
    blob = tree.blob_id(path)
    if blob is None or not path.endswith(".py"):
        return ()

    def compute() -> dict[str, list[list[str]]]:
        source = tree.read(path)
        return {"facts": [list(astuple(f)) for f in file_facts(source.text)] if source is not None else []}

    return tuple(Fact(*row) for row in ctx.memo(f"file-facts/2|{blob}", compute)["facts"])


def _written_otherwise(gone: list[Fact], tree: SourceTree, path: str, ctx: Context) -> dict[Fact, str]:
    """The facts gone at the ref that the file still does, written otherwise, with how: a call given an argument
    since, the quote's all passed alike, does what it did and more; a gate whose test is now one of two (``a`` is
    now ``a or b``, :func:`widened`) still checks what it did."""
    code = _code(tree, path, ctx) if any(f.kind in ("set", "gate") for f in gone) else ()
    more = _shorter_in([f for f in gone if f.kind == "set"], code)
    said = {f: f"is called with more arguments at the ref: {_said([now])}" for f, now in more.items()}
    for fact in (f for f in gone if f.kind == "gate"):
        wider = widened(fact, code)
        if wider is not None:
            said[fact] = f"is one of two tests at the ref: {_said([wider])}"
    return said


def _signature(body: tuple[str, ...]) -> bool:
    """Whether a quote opens with a function's signature (``def apply(...):``, paraphrased or not)."""
    first = next((line.strip() for line in body if line.strip()), "")
    return first.startswith(("def ", "async def "))


def _validated_facts(quote: Quote, then: SourceTree) -> tuple[Fact, ...]:
    """The facts of the code the quote held on the card's validation day, where it held there (exact, or moved
    within its file): what the card validated, with what the fence elides (``...``) between its lines; none where
    the quote did not hold that day (a paraphrase: the fence's own facts are judged)."""
    source = then.read(quote.path)
    held = match_quote(quote, source, closest=False) if source is not None else None
    if source is None or not isinstance(held, (Exact, Moved)):
        return ()
    return facts_of(source.lines[held.found.start - 1 : held.found.end]).facts


def _stale_on_day(facts: tuple[Fact, ...], ctx: Context, say: _Judging, then: SourceTree) -> Evidence:
    """A quote none of whose facts was in its file on the card's validation day: no evidence.  Where they are all
    there at the ref, the first commit after that day with all of them is when the code the card cites landed."""
    path = say.match.quote.path
    stale = f"none of the quote's gates, asserts or raises is in {path} on {say.day}"
    landed = _landed(facts, path, ctx, then)
    if landed is not None:
        stale += (f"; the card was validated before its code landed: they are first there in {landed[0][:10]} on "
                  f"{landed[1]}")  # fmt: skip
    return say.stale(f"{stale}: the anchor was stale on its own validation day; re-verify the claim", stale)


def _landed(facts: tuple[Fact, ...], path: str, ctx: Context, then: SourceTree) -> tuple[str, str] | None:
    """(commit, day) of the first commit after the validation day whose ``path`` holds every one of ``facts``, where
    the ref holds them all (at most :data:`MAX_LANDING_COMMITS` commits to the file are read)."""
    keys_now = _keys(ctx.tree, path, ctx) or frozenset()
    if not all(holds_in(f, keys_now) for f in facts) or not then.info.commit:
        return None
    for sha, day in ctx.tree.changes_since(path, then.info.commit, MAX_LANDING_COMMITS) or ():
        tree = ctx.tree.at_commit(sha)
        keys = _keys(tree, path, ctx) if tree is not None else None
        if keys is not None and all(holds_in(f, keys) for f in facts):
            return sha, day
    return None


def _at_ref(held: tuple[Fact, ...], stale: tuple[Fact, ...], ctx: Context, say: _Judging) -> Evidence:
    """What the facts that held on the validation day say at the ref."""
    keys_now = _keys(ctx.tree, say.match.quote.path, ctx) or frozenset()
    gone = [f for f in held if not holds_in(f, keys_now) and not _moved(f, ctx)]
    helpers = helper_facts(ctx.tree, say.match.quote.path, {f.needle for f in gone}) if gone else frozenset()
    inlined = [f for f in gone if holds_in(f, helpers)]
    gone = [f for f in gone if f not in inlined]
    otherwise = _written_otherwise(gone, ctx.tree, say.match.quote.path, ctx) if gone else {}
    gone = [f for f in gone if f not in otherwise]
    if gone:
        return _gone(held, gone, keys_now, say, ctx)
    if all(f.kind == "def" for f in held):
        return say.unverifiable(f"{_said(held)} is still defined, but the quote holds no gate, assert or raise to "
                                "judge what it does by: re-verify")  # fmt: skip
    if any(f.is_effect for f in stale) and not any(f.is_effect for f in held):
        return say.unverifiable(f"only {_said(held)} holds: what the quote says it does ({_said(stale)}) was not "
                                f"in the code on {say.day}; re-verify")  # fmt: skip
    why = f"the quote's text drifted; what it does holds: {_said(held)}"
    if inlined:
        why += f" ({_said(inlined)} in a helper the file calls, with the caller's arguments)"
    why += "".join(f" ({_said([quoted])} {how})" for quoted, how in otherwise.items())
    if stale:  # what the quote says that the code did not say on its own day is no evidence either way
        why += f" ({_said(stale)} was not in the code on {say.day}: no evidence)"
    return say.holds(why)


def _as_quoted(facts: tuple[Fact, ...], ctx: Context, say: _Judging, deleted: str | None) -> Evidence:
    """With no validation day: the quote as written stands for the facts."""
    path = say.match.quote.path
    keys_now = _keys(ctx.tree, path, ctx) or frozenset()
    gone = [f for f in facts if not holds_in(f, keys_now) and not _moved(f, ctx)]
    if not gone:
        if all(f.kind == "def" for f in facts):
            return say.unverifiable(f"{_said(facts)} is still defined, but the quote holds no gate, assert or raise "
                                    "to judge what it does by: re-verify")  # fmt: skip
        return say.holds(f"the quote's text drifted; what it does holds: {_said(facts)}")
    if deleted is not None:  # the history had the file: what it did is gone with it
        return say.broken(f"{path} was deleted in commit {deleted[:10]}, and {_said(gone)} is nowhere in the code")
    changed = [f for f in gone if reshaped_in(f, keys_now)]
    if changed:  # what the skill says, against what the code does: the same statement, other constants
        return say.broken(f"{_said(changed)} as quoted: the code at the ref has it with other constants")
    return say.unverifiable(f"{_said(gone)} as quoted is not in the code at the ref, and the code of the card's "
                            "validation day cannot be read here (no validated_on, or a source with no history): "
                            "re-verify")  # fmt: skip


def _gone(
    held: tuple[Fact, ...], gone: list[Fact], keys_now: frozenset[str], say: _Judging, ctx: Context
) -> Evidence:
    """What facts that held on the validation day and are not at the ref say of the claim: broken where a guard or
    a definition is gone, a gate's constants changed, a gate went with all it did, or a gate went with some of
    what it did and no code names what it tested (:func:`_unnamed`); else unverifiable."""
    redefined = [f for f in gone if f.kind == "def" and reshaped_in(f, keys_now)]
    if redefined:  # the same name with other parameters: what it does may be the same, or not
        return say.unverifiable(f"{_said(redefined)} held on {say.day} and is defined with other parameters at the "
                                "ref: re-verify")  # fmt: skip
    changed = [f for f in gone if reshaped_in(f, keys_now)]
    guards = [f for f in gone if f.kind in ("assert", "raise", "def")]
    kept_effects = [f for f in held if f.is_effect and f not in gone]
    if changed or guards or (not kept_effects and any(f.kind == "gate" for f in gone)):
        what = "changed its constants" if changed else "is nowhere in the code"
        return say.broken(f"{_said(changed or guards or gone)} held on {say.day} and {what} at the ref")
    unnamed = _unnamed(gone, ctx) if any(f.is_effect for f in gone) else None
    if unnamed is not None:
        return say.broken(f"{_said(gone)} held on {say.day} and is nowhere in the code at the ref: no code names "
                          f"{unnamed} at the ref")  # fmt: skip
    return say.unverifiable(f"{_said(gone)} held on {say.day} and is not in the code at the ref, while what it does "
                            "is (written another way?): re-verify")  # fmt: skip


def _unnamed(gone: list[Fact], ctx: Context) -> str | None:
    """The setting a gone gate tested, where no Python file of the tree names it at the ref (the feature left the
    code with the values it set); None where every such setting is still named somewhere, or the tree cannot be
    searched."""
    for fact in gone:
        if fact.kind == "gate" and fact.needle and ctx.tree.search(fact.needle, ".py") == []:
            return fact.needle
    return None


def _said(facts: list[Fact] | tuple[Fact, ...]) -> str:
    shown = [f"`if {f.text}`" if f.kind == "gate" else f"`{f.text}`" if f.kind in ("set", "def")
             else f"`{f.kind} {f.text}`" for f in facts[:3]]  # fmt: skip
    return ", ".join(shown) + (f" and {len(facts) - 3} more" if len(facts) > 3 else "")


def _deleted(match: QuoteMatch, ctx: Context) -> str | None:
    """The commit that deleted the quote's file, where its file is gone and the history says so."""
    if not isinstance(match, Missing):
        return None
    removal = ctx.tree.removals([match.quote.path]).get(match.quote.path)
    return removal.commit if removal is not None and removal.now is None else None


def _keys(tree: SourceTree, path: str, ctx: Context) -> frozenset[str] | None:
    """The facts a file holds (None: not there, or not Python), remembered by its blob."""
    blob = tree.blob_id(path)
    if blob is None or not path.endswith(".py"):
        return None

    def compute() -> dict[str, list[str] | None]:
        source = tree.read(path)
        found = facts_in(source.text) if source is not None else None
        return {"keys": sorted(found) if found is not None else None}

    keys = ctx.memo(f"facts/4|{blob}", compute)["keys"]
    return frozenset(keys) if keys is not None else None


def _moved(fact: Fact, ctx: Context) -> bool:
    """Whether ``fact`` is in some other file of the tree at the ref (a check moved into a helper): an assert, a
    raise or a definition, which say what they are wherever they stand (a gate's test or a value set is only
    meaningful where it was)."""
    if not fact.needle or fact.kind not in ("assert", "raise", "def"):
        return False
    found = ctx.tree.search(fact.needle, ".py") or []
    for path in found[:MAX_MOVED_FILES]:
        keys = _keys(ctx.tree, path, ctx)
        if keys is not None and holds_in(fact, keys):
            return True
    return False
