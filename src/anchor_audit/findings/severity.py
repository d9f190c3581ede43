"""What a maintainer acts on first: the order every many-finding view keeps, and what a cut leaves out.

Claims broken (and the card contradicting its code) come first, then quotes and line citations that moved,
changed or went missing, then paths, names and commands that went missing, then links; the rest (a catalog
copy out of sync, a skip, a note) last.  A skill ranks by how many findings it has of each, in that order.
"""

from __future__ import annotations

from collections import Counter
from typing import Callable, Iterable, Sequence, TypeVar

# (what a class of findings is called, its codes), worst first.
SEVERITY: tuple[tuple[str, frozenset[str]], ...] = (
    ("claims broken", frozenset({"AA201", "AA203", "AA206", "AA207", "AA411"})),
    ("quotes and line citations changed or moved", frozenset({"AA102", "AA103", "AA208", "AA412", "AA101", "AA107"})),
    ("paths, names and commands missing",
     frozenset({"AA401", "AA402", "AA403", "AA405", "AA406", "AA408", "AA409", "AA410"})),
    ("links broken", frozenset({"AA407"})),
)  # fmt: skip
OTHER = "other findings"
# The first classes (claims broken; quotes and line citations) are named finding by finding in every view that
# cuts (the terminal's findings by class, GitHub's summary past its cap); the rest are counted, with examples.
NAMED_CLASSES = 2

Coded = TypeVar("Coded")


def severity(code: str) -> int:
    """The rank of a finding code's class (0 is the worst); codes of no class rank last."""
    return next((i for i, (_, codes) in enumerate(SEVERITY) if code in codes), len(SEVERITY))


def worst_first(found: Iterable[Coded], code_of: Callable[[Coded], str]) -> list[Coded]:
    """``found`` in severity order, the order among one class kept."""
    return sorted(found, key=lambda f: severity(code_of(f)))


def rank(codes: Sequence[str]) -> tuple[int, ...]:
    """A skill's rank by its findings' codes: more of a worse class first (sort ascending)."""
    by_class = Counter(severity(c) for c in codes)
    return tuple(-by_class[i] for i in range(len(SEVERITY) + 1))


def left_out(codes_per_skill: Sequence[Sequence[str]]) -> str:
    """What a cut left out, worst first: ``3 with claims broken, 40 with links broken``, each skill counted
    under the worst class it has."""
    worst = Counter(min((severity(c) for c in codes), default=len(SEVERITY)) for codes in codes_per_skill)
    names = [name for name, _ in SEVERITY] + [OTHER]
    return ", ".join(f"{worst[i]} with {names[i]}" for i in sorted(worst))

