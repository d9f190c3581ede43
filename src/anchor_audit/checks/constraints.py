"""Known constraints (``CONSTRAINT``): each sentence of card.yaml's ``known_constraints`` and ``interactions``,
decided by a gate.

A sentence names what it constrains: identifiers (``tensor_model_parallel_size``, ``comm_overlap.tp_comm_overlap``,
anything in backticks), words the code spells otherwise (:data:`SYNONYMS`: "TP" is ``tensor_model_parallel_size``,
"Transformer Engine" is ``HAVE_TE``), and literals (``> 1``, ``True``).  The gate that decides it is the first ``if``,
``elif``, ``while`` or ``assert`` of the files the sentence cites (``transformer_config.py:1303``), the card's
evidence files, the skill's quoted files and the files its comments point into (not tests) whose test
names every one of those identifiers and states every literal (a whole number as itself or its neighbour: ``> 1``
is decided by ``< 2``).  It is looked for on the card's validation day
(where there is one; else at the ref), then at the ref:

* the same gate is there (in any of those files): ``holds``, naming it and where;
* the gate has other constants (``< 2`` is now ``< 4``): ``broken``;
* the gate is gone and no gate names what the sentence names: ``broken`` (only against a validation day);
* the gate is gone but another names the same things: ``unverifiable`` (rewritten? re-verify);
* only a gate that also tests something the sentence leaves out names it: ``unverifiable``, naming what it
  leaves out (the code refuses less than the sentence says);
* no gate names it on the validation day, one added after it does at the ref: ``holds``, naming the commit that
  wrote it and its day (the card was validated before its code landed);
* no gate names it: ``unverifiable`` ("advice, no gate in the evidence").
"""

from __future__ import annotations

import re
from typing import Iterator, Sequence

from ..errors import BoundExceeded
from ..model import Citation, PromiseKind, PromiseResult, PromiseStatus, Reference, ReferenceKind, Skill, SkillSpec
from ..source import SourceTree
from ..spec.cardwords import Aliases
from .cardfeature import aliased, aliases_of, feature_said, featured, of_the_feature
from .evidencefiles import comment_files, defining_files, evidence_files, gates_landing, same_files
from .gateleaves import PREDICATES, stated, switched_on
from .gates import Gate, accepted_values, compared_values, gates_in, loose
from .lineanchors import CITED_LINES, card_lines, check_lines, cited_file
from .paths import cited_path
from .polarity import all_of, clauses, contradicts, required, stance_said
from .protocol import Checker, Context
from .sentencewords import said_words, spelt_out, spoken, stem, wanted


def _written(skill: Skill, entry: SkillSpec | None) -> Sequence[Citation]:
    card = skill.card
    return [Citation(ReferenceKind.CONSTRAINT, text, text, line) for text, line in card.constraints] if card else []


def _reads(c: Citation, skill: Skill, entry: SkillSpec | None) -> Iterator[Reference]:
    yield Reference(ReferenceKind.CONSTRAINT, "card.yaml", c.line, c.text, frozenset(evidence_files(skill)))
    for cited in card_lines(c.text, c.line):  # the files its line citations name
        yield from cited_path(cited, skill, entry)


# Words that say how, not what: a sentence is decided by a gate only where, beside these, its identifiers, the words
# the code spells otherwise and the gate's own constants, at most one word is left (``TP overlap requires ...``).
_HOW = frozenset(
    "a an the to of and or not no is are be been must should requires require required requiring needs need only "
    "when if with without for by than greater less more at least most equal equals does do set enabled disabled "
    "true false none it its available used contains contain mutually exclusive incompatible compatible support "
    "supports supported unsupported cannot can together conditional in on as have has may so from into per each also "
    "which that this then but both either".split()
)
MAX_LEFT_WORDS = 1
MAX_SAID_LEFT = 4  # of the words left, those a result names


def _left(sentence: str, names: frozenset[str], gates: list[Gate], feature: frozenset[str] = frozenset(),
          aliases: Aliases = ()) -> list[str]:  # fmt: skip
    """The words of ``sentence`` that say more than ``gates`` decide, in its order: none where it names nothing
    beyond what they test (the words of the card's ``feature``, where they test that it is on, counted as said;
    its ``aliases`` spelt out); at most :data:`MAX_LEFT_WORDS` of them leave it decided."""
    bare = re.sub(r"`[^`]*`", " ", CITED_LINES.sub(" ", sentence))  # its line citations say where, not what
    words = re.findall(r"[A-Za-z][A-Za-z0-9_-]*", spelt_out(bare, aliases)[0])  # "TP overlap": the code's spelling
    said = {w.lower() for g in gates for c in g.constants for w in (c, *re.findall(r"[A-Za-z][A-Za-z0-9_-]*", c))}
    runs = said_words(sentence) | feature  # a setting said in words ("async save"; "granularity" on a recompute card)
    said |= {part for g in gates for n in g.names if _word_said(n, runs) for part in n.lower().split("_")}
    stems = frozenset().union(*(spoken(n, runs) for g in gates for n in g.names))  # "offline packed"
    said |= {w.lower() for w in words if all(stem(part) in stems for part in w.lower().split("-"))}
    said |= feature
    left = [w.lower() for w in words if w.lower() not in _HOW and w not in names and w.lower() not in said
            and w.split(".")[-1] not in names]  # fmt: skip
    return list(dict.fromkeys(left))  # a word the sentence says twice, "X scope and Y scope", is one word left


def _check(c: Citation, ctx: Context) -> list[PromiseResult]:
    """The sentence's result (of each requirement it joins, where it joins several: :func:`clauses`), then one for
    each line it cites (``transformer_config.py:1928``); past the skill's budget, that it was not checked."""
    try:
        ctx.bound()
    except BoundExceeded as exc:
        return [PromiseResult(PromiseKind.CONSTRAINT, c.text, PromiseStatus.UNVERIFIABLE, ctx.card_yaml, c.line,
                              str(exc))]  # fmt: skip
    parts = clauses(c.text)
    status, detail = _decide(c.text, ctx) if len(parts) == 1 else all_of([(p, *_decide(p, ctx)) for p in parts])
    lines = [r for cited in card_lines(c.text, c.line) for r in check_lines(cited, ctx)]
    return [PromiseResult(PromiseKind.CONSTRAINT, c.text, status, ctx.card_yaml, c.line, detail), *lines]


def _decide(sentence: str, ctx: Context) -> tuple[PromiseStatus, str]:
    names, constants = wanted(sentence, aliases_of(ctx.skill))
    if not names:
        return PromiseStatus.UNVERIFIABLE, "advice: it names nothing the code can be searched for"
    cited = [cited_file(c, ctx) for c in card_lines(sentence, 0)]
    files = list(dict.fromkeys([*(f for f in cited if f and f.endswith(".py")), *evidence_files(ctx.skill),
                                *comment_files(ctx)]))  # fmt: skip
    then = ctx.validated()
    day = f"the validation day ({(then.info.commit or '')[:10]})" if then is not None else "the ref"
    tree = then if then is not None else ctx.tree
    found = _found(sentence, names, constants, gates_in(tree, files, ctx), ctx)
    defining: list[str] = []
    if found is None and len(names) >= 2:  # no gate of the evidence names it: the files defining what it names may
        defining = defining_files(names, tree, ctx)
        found = _found(sentence, names, constants, gates_in(tree, defining, ctx), ctx) if defining else None
    if found is None and then is not None:  # validated before its code landed?
        return _landed(sentence, names, constants, files, then, ctx, day)
    if found is None:
        return PromiseStatus.UNVERIFIABLE, f"advice: no gate of the evidence names {_names(names)} on {day}"
    if isinstance(found, str):
        return PromiseStatus.UNVERIFIABLE, found
    parts, said = found
    if then is None:
        return PromiseStatus.HOLDS, f"decided by {', '.join(g.said for g in parts)}"
    if defining:  # looked for at the ref where the files that define them are then
        files = list(dict.fromkeys([*files, *defining, *defining_files(names, ctx.tree, ctx)]))
    now = gates_in(ctx.tree, files, ctx)
    results = [_at_ref(gate, now, constants, day, said) for gate in parts]
    for status in (PromiseStatus.MISSING, PromiseStatus.DIFFERS, PromiseStatus.UNVERIFIABLE):
        worst = next((detail for said, detail in results if said is status), None)
        if worst is not None:
            return status, worst
    return PromiseStatus.HOLDS, "; ".join(detail for _, detail in results)


def _landed(sentence: str, names: frozenset[str], constants: frozenset[str], files: list[str], then: SourceTree,
            ctx: Context, day: str) -> tuple[PromiseStatus, str]:  # fmt: skip
    """A sentence no gate decides on the validation day: decided at the ref by a gate the history added after that
    day (the card was validated before its code landed, on a branch), said with the commit and its day; else
    advice."""
    advice = f"advice: no gate of the evidence names {_names(names)} on {day}"
    if ctx.tree.info.commit == then.info.commit:  # audited on the day itself
        return PromiseStatus.UNVERIFIABLE, advice + _not_yet(sentence, names, constants, files, ctx)
    if same_files(files, then, ctx.tree):
        return PromiseStatus.UNVERIFIABLE, advice  # none of its files changed since that day: no gate came
    at_ref = _landing(ctx.tree, then, sentence, names, constants, files, ctx)
    if at_ref is None:
        return PromiseStatus.UNVERIFIABLE, advice
    tests, landing = at_ref
    if landing is None:
        return PromiseStatus.UNVERIFIABLE, f"{advice}; at the ref {tests} decides it: re-verify"
    return PromiseStatus.HOLDS, (f"decided by {tests}; no gate named it on {day}: it landed in {landing[0][:10]} on "
                                 f"{landing[1]}, after that day: the card was validated before its code landed")


def _not_yet(sentence: str, names: frozenset[str], constants: frozenset[str], files: list[str], ctx: Context) -> str:
    """Audited on the validation day, behind the default branch (``--ref validated``): the gate the branch's head
    has that decides the sentence and the commit after this one that wrote it ("; not yet there: ..."), or
    nothing."""
    head = ctx.tree.ahead()
    at_head = _landing(head, ctx.tree, sentence, names, constants, files, ctx) if head is not None else None
    tests, landing = at_head if at_head is not None else ("", None)
    if landing is None:
        return ""
    sha, when = landing
    return f"; not yet there: the default branch's {tests} decides it, added in {sha[:10]} on {when}, after this commit"


def _landing(tree: SourceTree, since: SourceTree, sentence: str, names: frozenset[str], constants: frozenset[str],
             files: list[str], ctx: Context) -> tuple[str, tuple[str, str] | None] | None:  # fmt: skip
    """In ``tree``: the gates that decide the sentence, as the result says them, and (commit, day) of the last of
    them to land after ``since``'s commit (None: the history cannot say); None where no gate decides it."""
    found = _found(sentence, names, constants, gates_in(tree, files, ctx), ctx)
    if not isinstance(found, tuple):
        return None
    return ", ".join(g.said for g in found[0]), gates_landing(found[0], tree, since)


_NARROWER = "narrower than it says"
Found = str | tuple[list[Gate], frozenset[str]]  # why no gate decides it (unverifiable), or those that do


def _found(sentence: str, names: frozenset[str], constants: frozenset[str], gates: list[Gate], ctx: Context
           ) -> Found | None:  # fmt: skip
    """The gates that decide the sentence and the words it says; or why none decides it (unverifiable); None where
    no gate names what it names."""
    said = said_words(sentence) | featured(ctx.skill, gates) | aliased(sentence, aliases_of(ctx.skill))
    if of_the_feature(sentence, names):  # "incompatible: x": the feature refuses x, under its own switch
        on = {m.split(":")[0] for m in said if m.endswith(":on")}
        gates = [g for g in gates if on & switched_on(g.text)]
    requires = required(sentence)
    opposed = [g for g in gates if contradicts(g, requires)] if requires else []
    if opposed:  # a gate that refuses what the sentence requires decides its opposite
        gates = [g for g in gates if g not in opposed]
    decided = _best(gates, names, constants, said)
    parts = [decided] if decided is not None else _parts(gates, names, constants, said)
    if not parts:
        against = _opposing(opposed, gates, names, constants, said)
        if against is not None:
            refused = stance_said(contradicts(against, requires))
            return f"{against.said} refuses {refused}, which the sentence requires: re-verify"
        exempting = _exempting(gates, names, constants, said)
        if exempting is not None:  # the code refuses it only for some values of what it tests
            return f"{exempting.said} lets {_let(exempting)} through, which the sentence leaves out: {_NARROWER}"
        narrower = _narrower(gates, names, constants, said)
        if narrower is not None:  # the code refuses only when something the sentence leaves out also holds
            also = ", ".join(_more(narrower, names, said)[:3])
            return f"{narrower.said} tests {_names(names)} only together with {also}, which the sentence leaves out: " \
                   f"{_NARROWER}"  # fmt: skip
        return None
    left = _left(sentence, names, parts, feature_said(ctx.skill, said, parts), aliases_of(ctx.skill))
    if len(left) > MAX_LEFT_WORDS:
        tests = ", ".join(g.said for g in parts)
        more = ", ".join(left[:MAX_SAID_LEFT]) + (", ..." if len(left) > MAX_SAID_LEFT else "")
        return f"{tests} tests {_names(names)}, but the sentence says more than it decides ({more}): re-verify"
    return parts, said


def _opposing(opposed: list[Gate], gates: list[Gate], names: frozenset[str], constants: frozenset[str],
              said: frozenset[str]) -> Gate | None:  # fmt: skip
    """The gate refusing what the sentence requires that would otherwise have decided it, alone or as a part."""
    if not opposed:
        return None
    alone = _best(opposed, names, constants, said)
    return alone or next((g for g in _parts([*opposed, *gates], names, constants, said) if g in opposed), None)


def _at_ref(
    decided: Gate, now: list[Gate], constants: frozenset[str], day: str, said: frozenset[str]
) -> tuple[PromiseStatus, str]:
    """What became at the ref of the gate that decided a sentence (or one part of it) on ``day``: the sentence's
    words ``said`` tell a value the gate has come to let through."""
    same = next((g for g in now if g.loose == decided.loose), None)
    if same is not None:
        return PromiseStatus.HOLDS, f"decided by {same.said}, as on {day}"
    reshaped = next((g for g in now if g.shape == decided.shape), None)
    if reshaped is not None:
        return PromiseStatus.DIFFERS, f"decided on {day} by {decided.said}; at the ref the gate is {reshaped.said}"
    kept = frozenset(c for c in constants if stated(c, decided.constants))
    exempting = _exempting(now, decided.names, kept, said)
    if exempting is not None:
        return PromiseStatus.DIFFERS, (f"decided on {day} by {decided.said}; at the ref {exempting.said} lets "
                                       f"{_let(exempting)} through")  # fmt: skip
    accepting = _accepting(decided, now)
    if accepting is not None:
        return PromiseStatus.DIFFERS, (f"decided on {day} by {decided.said}; at the ref {accepting[0].said} accepts "
                                       f"{accepting[1]} too")  # fmt: skip
    other = _best(now, decided.names, kept)
    if other is not None:
        return PromiseStatus.UNVERIFIABLE, (f"decided on {day} by {decided.said}, gone at the ref, where "
                                            f"{other.said} names the same: re-verify")  # fmt: skip
    alone = next((g for g in now if decided.nested and loose(g.inner or g.text, True) == loose(decided.inner, True)),
                 None)  # fmt: skip
    if alone is not None:  # its own test is there, no longer under the same ifs: moved into a helper?
        where = f"{alone.path}:{alone.line}"
        return PromiseStatus.UNVERIFIABLE, (f"decided on {day} by {decided.said}; at the ref `{decided.inner}` is "
                                            f"at {where}, not under the same tests: re-verify")  # fmt: skip
    gone = f"no gate names {_names(decided.names)} at the ref"
    return PromiseStatus.MISSING, f"decided on {day} by {decided.said}; {gone}"


def _accepting(decided: Gate, now: list[Gate]) -> tuple[Gate, str] | None:
    """The assert at the ref, testing what ``decided`` (an assert) tested, that accepts every value it accepted for
    a setting and more (``fmt == "sharded"`` is now ``fmt in ["sharded", "flat"]``), and those values (``fmt
    'flat'``): the requirement the sentence states was relaxed."""
    if not decided.asserts:
        return None
    before = accepted_values(decided.inner or decided.text)
    for gate in now:
        if not gate.asserts or gate.names != decided.names:
            continue
        after = accepted_values(gate.inner or gate.text)
        for name in sorted({n for n, _ in before}):
            was, grew = ({v for n, v in values if n == name} for values in (before, after))
            if was < grew:
                return gate, f"{name} {', '.join(repr(v) for v in sorted(grew - was))}"
    return None


def _parts(gates: list[Gate], names: frozenset[str], constants: frozenset[str], said: frozenset[str]) -> list[Gate]:
    """A sentence that constrains one thing against several (``offloading cannot be used with PP>1 or activation
    recomputation``): for some one of its names, or a switch it says in words ("stream packing":
    ``stream_packing``), a gate for each other name, naming exactly the two, every constant stated by one of
    them; none where the sentence names fewer than three things, or a pair has no gate."""
    if len(names) < 2:
        return []
    switches = sorted({n for g in gates for n in g.names if n not in names and spoken(n, said)})
    subjects = [*(sorted(names) if len(names) >= 3 else []), *switches]  # one of three names, or a switch
    for subject in subjects:
        found = [_best(gates, frozenset({subject, other}), frozenset(), said) for other in sorted(names - {subject})]
        chosen = [g for g in found if g is not None]
        if len(chosen) == len(found) and all(any(stated(c, g.constants) for g in chosen) for c in constants):
            return chosen
    return []


def _names(names: frozenset[str]) -> str:
    return ", ".join(sorted(names)[:4])


def _best(gates: list[Gate], names: frozenset[str], constants: frozenset[str], said: frozenset[str] = frozenset()
          ) -> Gate | None:  # fmt: skip
    """The first gate that conditions on exactly ``names`` and states every one of ``constants`` (a validation, one
    that raises or asserts, before any other; one that tests more of what the sentence says before one that
    tests less).  A gate naming
    only some is no decision (a gate of one of them alone may decide something else), nor one that also
    conditions on what the sentence leaves out, or lets through a value of it no word of the sentence ``said``
    says (narrower than the sentence says)."""
    fits = [g for g in gates if _fits(g, names, said) and all(stated(c, g.constants) for c in constants)
            and not _unsaid(g, said)]  # fmt: skip
    fits.sort(key=lambda g: -len(g.names))  # one that tests what the sentence says in words too, first
    return next((g for g in fits if g.guards), fits[0] if fits else None)


def _tested(gate: Gate, names: frozenset[str]) -> frozenset[str]:
    """The settings ``gate`` tests, a predicate it calls standing for the one of ``names`` it is named after
    (``is_full_iteration_graph(cfg)`` tests ``full_iteration``)."""
    if not gate.predicates:
        return gate.names
    return frozenset(_covering(n, names) for n in gate.names)


def _covering(name: str, names: frozenset[str]) -> str:
    if name in names or not name.startswith(PREDICATES):
        return name
    return next((w for w in sorted(names) if f"_{w}_" in f"_{name}_"), name)


def _fits(gate: Gate, names: frozenset[str], said: frozenset[str]) -> bool:
    """Whether ``gate`` conditions on exactly what a sentence names: each of ``names`` is a setting it tests or a
    value it compares with (``ckpt_format=torch_dist``), each setting it tests is one of ``names`` or what the
    sentence's words ``said`` spell ("async save" is ``async_save``)."""
    if gate.names == names:
        return True
    tested = _tested(gate, names)
    for name in names:
        if name not in tested and name not in gate.constants:
            return False
    return all(_said_setting(gate, n, names, said) for n in tested)


def _valued(gate: Gate, name: str, said: frozenset[str]) -> bool:
    """Whether the sentence says ``name`` by a value the gate compares it with ("for a2a+p2p":
    ``cp_comm_type == 'a2a+p2p'``)."""
    return any(n == name and value.lower() in said for n, value in compared_values(gate.text))


def _let(gate: Gate) -> str:
    """The values ``gate`` lets through, by setting: ``cuda_graph_impl 'whole_step'``."""
    return "; ".join(f"{name} {', '.join(repr(v) for v in values)}" for name, values in gate.exempt)


def _unsaid(gate: Gate, said: frozenset[str]) -> bool:
    """Whether ``gate`` lets through a value of what it tests that the sentence's words ``said`` do not say
    (``impl != "whole"``, against a sentence that says nothing of ``whole``)."""
    return any(v.lower() not in said for _, values in gate.exempt for v in values)


def _exempting(gates: list[Gate], names: frozenset[str], constants: frozenset[str], said: frozenset[str]
               ) -> Gate | None:  # fmt: skip
    """The first gate that would decide the sentence but for a value it lets through (see :func:`_unsaid`)."""
    return next((g for g in gates if _fits(g, names, said) and all(stated(c, g.constants) for c in constants)
                 and _unsaid(g, said)), None)  # fmt: skip


def _narrower(gates: list[Gate], names: frozenset[str], constants: frozenset[str], said: frozenset[str]
              ) -> Gate | None:  # fmt: skip
    """The first gate that conditions on every one of ``names`` (a setting it tests, or a value it compares with)
    and on something more (:func:`_more`), stating every constant."""
    return next((g for g in gates if names <= _tested(g, names) | g.constants and _more(g, names, said)
                 and all(stated(c, g.constants) for c in constants)), None)  # fmt: skip


def _more(gate: Gate, names: frozenset[str], said: frozenset[str]) -> list[str]:
    """What ``gate`` tests that the sentence neither names nor says in words or by a value."""
    return sorted(n for n in _tested(gate, names) if not _said_setting(gate, n, names, said))


def _said_setting(gate: Gate, name: str, names: frozenset[str], said: frozenset[str]) -> bool:
    """Whether the sentence names a setting ``gate`` tests, says it in words, or by a value the gate gives it; or
    whether it is the switch of the card's feature, which the gate tests is on
    (:func:`anchor_audit.checks.cardfeature.featured`)."""
    if name in names or _word_said(name, said) or bool(spoken(name, said)) or _valued(gate, name, said):
        return True
    return f"{name}:on" in said and name in switched_on(gate.text)


def _word_said(name: str, said: frozenset[str]) -> bool:
    """Whether the sentence says setting ``name`` as its words run (``async save`` is ``async_save``), or, a name
    of one word of four letters or more, as a word of its own ("save/load": ``save``)."""
    lower = name.lower()
    return lower in said and ("_" in lower or (len(lower) >= 4 and lower not in _HOW))


CONSTRAINT: Checker[Citation, list[PromiseResult]] = Checker(
    ReferenceKind.CONSTRAINT, _written, _reads, _check, PromiseKind.CONSTRAINT, written_in="card.yaml",
    subject=lambda c: c.text,
)  # fmt: skip
