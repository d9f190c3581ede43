"""A claim about the skill's tests, decided by the test files the skill names.

``test_functions_exist``, ``tests_present``: a ``code_verified`` claim whose id says nothing but that tests are
there (``test`` and words that say how: ``functions``, ``exist``, ``coverage``, ...) is about the tests the skill
names: the Python test files (under a ``tests/`` folder, or ``test_*.py``) its prose and card.yaml's evidence
cite, at most :data:`MAX_FILES`. Each is read on the card's validation day, where it must define a test (a
``test_*`` function, or a ``Test*`` class's); one that did not is no evidence. At the ref, each that did:

* is there and still defines a test, or is gone while exactly one file of its name is elsewhere and does: it
  holds (moved: said);
* is gone with no file of its name, or defines no test any more: ``missing``, the claim is broken;
* is gone while several files have its name: unverifiable (re-verify).
"""

from __future__ import annotations

import re

from ..errors import NotCarried, UnreadableFile
from ..model import Evidence, EvidenceKind, PromiseStatus, ReferenceKind
from ..source import SourceTree
from ..source.listing import is_test
from .captions import words
from .claimgates import telling
from .protocol import Context

MAX_FILES = 20


def tests_evidence(claim_id: str, ctx: Context) -> list[Evidence]:
    """The claim's evidence from the test files the skill names (none where its id says more than that tests are
    there, the skill names no test file, or the card has no validation day)."""
    then = ctx.validated()
    if then is None or "test" not in words(claim_id) or telling(claim_id):
        return []
    day = f"the validation day ({(then.info.commit or '')[:10]})"
    held = [path for path in named_tests(ctx) if _tests_in(then, path)]
    return [_at_ref(path, ctx, day) for path in held]


def named_tests(ctx: Context) -> list[str]:
    """The Python test files the skill's prose and card.yaml's evidence name, in order, at most MAX_FILES."""
    skill = ctx.skill
    cited = [c.target for c in skill.citations if c.kind in (ReferenceKind.PATH, ReferenceKind.AT_PATH)]
    paths = [*cited, *(skill.card.evidence if skill.card else ())]
    return [p for p in dict.fromkeys(paths) if p.endswith(".py") and is_test(p)][:MAX_FILES]


def _tests_in(tree: SourceTree, path: str) -> bool:
    """Whether ``path`` is in ``tree`` and defines a test (read, not parsed: a ``def test...`` or ``class Test...``
    at a line's start)."""
    try:
        source = tree.read(path) if tree.blob_id(path) is not None else None
    except (NotCarried, UnreadableFile, ValueError):
        return False
    return source is not None and _TEST.search(source.text) is not None


_TEST = re.compile(r"^\s*(?:async\s+)?def test|^class Test", re.M)  # a test function, or a test class


def _at_ref(path: str, ctx: Context, day: str) -> Evidence:
    said = f"a test file the skill names, with tests on {day}"
    if _tests_in(ctx.tree, path):
        return Evidence(EvidenceKind.NAMED, path, True, PromiseStatus.EXISTS, f"{said} and at the ref")
    try:
        there = ctx.tree.blob_id(path) is not None
    except (NotCarried, UnreadableFile, ValueError):
        there = False
    if there:
        return Evidence(EvidenceKind.NAMED, path, False, PromiseStatus.MISSING, f"{said}; at the ref it defines none")
    elsewhere = [p for p in ctx.listing.named(path.rsplit("/", 1)[-1]) if p != path]
    if len(elsewhere) == 1 and _tests_in(ctx.tree, elsewhere[0]):
        moved = f"{said}; at the ref it is {elsewhere[0]}"
        return Evidence(EvidenceKind.NAMED, path, True, PromiseStatus.EXISTS, moved)
    if len(elsewhere) > 1:
        why = f"{said}, is gone at the ref; {len(elsewhere)} files have its name: re-verify"
        return Evidence(EvidenceKind.NAMED, path, False, PromiseStatus.UNVERIFIABLE, why)
    return Evidence(EvidenceKind.NAMED, path, False, PromiseStatus.MISSING,
                    f"{said}, is gone at the ref, and no file of its name has tests")  # fmt: skip
