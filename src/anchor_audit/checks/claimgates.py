"""A claim nothing links, decided by the validations its own id names.

A card's claim ids say what they are about: ``cpu_offloading_pp_incompatibility``, ``moe_overlap_validation``.
Where neither anchors.yaml, a card comment nor a SKILL.md caption links a ``code_verified`` claim, its telling
words (the id's words but those that say how, not what: ``validation``, ``incompatibility``, ``config``, ...;
at least two) are looked for in the validations of the card's evidence files and the skill's quoted files: each
``assert``, and each ``if`` whose body raises or asserts, whose test names every telling word (a word of an
identifier or a string it tests, a longer form of one, or what an abbreviation such as ``pp`` stands for).

Those validations are read on the card's validation day (a claim with no validation day gets none: nothing says
the code of the ref is what the card saw), and each is looked for at the ref, in the same files:

* there with the same test: it holds;
* there with other constants (``pp > 1`` is now ``pp > 2``): ``different``, the claim is broken;
* gone, while another validation there names the same words: unverifiable (rewritten? re-verify);
* gone, and no validation names the words at the ref: ``absent``, the claim is broken.

At most :data:`MAX_GATES` validations are a claim's evidence (the first in file order); where more name its
words, the claim is too vague to be decided by them and gets none.
"""

from __future__ import annotations

from ..model import ConditionStatus, Evidence, EvidenceKind
from .captions import words
from .evidencefiles import evidence_files
from .gates import Gate, compared_values, gates_in
from .protocol import Context
from .sentencewords import ABBREVIATIONS

MAX_GATES = 4
# Words of a claim id that say how, or what kind of claim it is, not what in the code it is about.
_HOW = frozenset(
    """behavior behaviour check compatible compatibility config configuration constraint core default exclusion exist
    field function guard helper incompatible incompatibility interaction mutual path requirement required rule
    runtime setting smoke support supported test upstream validation""".split()
)


def telling(claim_id: str) -> frozenset[str]:
    """The words of a claim id that name what it is about."""
    return frozenset(w for w in words(claim_id) - _HOW if len(w) >= 2)


def _names(gate: Gate, wanted: frozenset[str]) -> bool:
    """Whether ``gate``'s test names every one of ``wanted``."""
    said = frozenset().union(*(words(n) for n in gate.names), *(words(c) for c in gate.constants))
    for word in wanted:
        if word in said or any(s.startswith(word) for s in said if len(word) >= 4):
            continue
        if any(name in gate.names for name in ABBREVIATIONS.get(word, ())):
            continue
        return False
    return True


def _on_day(
    claim_id: str, ctx: Context, also: tuple[str, ...] = ()
) -> tuple[frozenset[str], list[Gate], list[str], str] | None:
    """The claim's telling words, the validations of its files (``also`` first: the files its stale card comments
    point into) on the card's validation day, those files, and that day as said; None where the id says too
    little or the card has no validation day."""
    wanted = telling(claim_id)
    then = ctx.validated()
    if len(wanted) < 2 or then is None:
        return None
    files = list(dict.fromkeys([*also, *evidence_files(ctx.skill)]))
    day = f"the validation day ({(then.info.commit or '')[:10]})"
    return wanted, [g for g in gates_in(then, files, ctx) if g.guards], files, day


def gate_evidence(claim_id: str, ctx: Context, also: tuple[str, ...] = ()) -> list[Evidence]:
    """The claim's evidence from the validations its id names (none where it names too little, or too much)."""
    read = _on_day(claim_id, ctx, also)
    if read is None:
        return []
    wanted, validations, files, day = read
    named = [g for g in validations if not g.nested and _names(g, wanted)]
    found = list({(g.path, g.loose): g for g in reversed(named)}.values())[::-1]  # one test twice in a file: once
    if not found or len(found) > MAX_GATES:
        return []
    now = [g for g in gates_in(ctx.tree, files, ctx) if g.guards and not g.nested]
    return [_at_ref(gate, now, wanted, day) for gate in found]


def value_evidence(claim_id: str, ctx: Context, also: tuple[str, ...] = ()) -> list[Evidence]:
    """A claim whose telling words are all values the validations of its files compare one setting with
    (``deepep_hybridep_...``: ``backend == "deepep"``, ``backend == "hybridep"``), decided by the first
    validation comparing it with each; none where the words are values of no setting, or of several."""
    read = _on_day(claim_id, ctx, also)
    if read is None:
        return []
    wanted, validations, files, day = read
    compared = [(g, compared_values(g.text)) for g in validations]
    chosen: list[dict[str, Gate]] = []
    for setting in sorted({s for _, pairs in compared for s, _ in pairs}):
        picks = {w: g for w in wanted if (g := _comparing(compared, setting, w)) is not None}
        if len(picks) == len(wanted):
            chosen.append(picks)
    if len(chosen) != 1 or len(chosen[0]) > MAX_GATES:
        return []
    now = [g for g in gates_in(ctx.tree, files, ctx) if g.guards]
    by_gate: dict[Gate, set[str]] = {}  # one validation comparing it with two of the words is read once
    for word, gate in chosen[0].items():
        by_gate.setdefault(gate, set()).add(word)
    ordered = sorted(by_gate.items(), key=lambda item: validations.index(item[0]))
    return [_at_ref(g, now, frozenset(ws), day) for g, ws in ordered]


def _comparing(compared: list[tuple[Gate, frozenset[tuple[str, str]]]], setting: str, word: str) -> Gate | None:
    """The first of the validations (each with what it compares) that compares ``setting`` with ``word``."""
    return next((g for g, pairs in compared if any(s == setting and word in words(v) for s, v in pairs)), None)


def _at_ref(gate: Gate, now: list[Gate], wanted: frozenset[str], day: str) -> Evidence:
    ref = f"{gate.path}: {gate.text}"
    same = next((g for g in now if g.loose == gate.loose), None)
    if same is not None:
        return Evidence(EvidenceKind.CONDITION, ref, True, ConditionStatus.HOLDS,
                        f"a validation the claim's id names, on {day} and at the ref: {same.said}")  # fmt: skip
    reshaped = next((g for g in now if g.shape == gate.shape), None)
    if reshaped is not None:
        return Evidence(EvidenceKind.CONDITION, ref, False, ConditionStatus.DIFFERENT,
                        f"{gate.said} on {day}; at the ref the validation is {reshaped.said}")  # fmt: skip
    other = next((g for g in now if _names(g, wanted)), None)
    if other is not None:
        why = f"{gate.said} on {day} is gone at the ref, where {other.said} names the same: re-verify"
        return Evidence(EvidenceKind.CONDITION, ref, False, ConditionStatus.UNVERIFIABLE, why)
    return Evidence(EvidenceKind.CONDITION, ref, False, ConditionStatus.ABSENT,
                    f"{gate.said} on {day}; no validation names {', '.join(sorted(wanted))} at the ref")  # fmt: skip
