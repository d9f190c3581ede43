"""What a skill cites, checked at a ref: THE table from reference kind to its checker.

Each checker (:class:`~anchor_audit.checks.protocol.Checker`) says what of a skill is of its kind, where each is
written and what it reads, and its result at the ref; its examples that hold and that drift sit beside it
(``*_examples.py``) and are the tests.  Adding a kind is a ``ReferenceKind``, one checker module, and one line
here; ``tests/test_checks_table.py`` holds that every kind has exactly one checker.  The checks run from three
places, each through this table: :func:`anchor_audit.audit.skills.audit_skill` (quotes, conditions, card
anchors: a claim's evidence), :func:`.promises.check_promises` (evidence paths, ``@path``, test counts, the
examples' symbols) and :func:`.prose.check_citations` (every citation of the prose, in the order written).
"""

from __future__ import annotations

from typing import Any, Mapping

from ..model import ReferenceKind
from .cardanchors import CARD_ANCHOR
from .command import COMMAND
from .conditions import CONDITION
from .constraints import CONSTRAINT
from .examples import SYMBOL
from .flagdefaults import DEFAULT
from .lineanchors import LINES
from .links import LINK, REPO_LINK
from .names import NAME
from .orphans import PAGE
from .paths import AT_PATH, EVIDENCE, PATH
from .pins import PIN
from .protocol import Checker
from .quotes import QUOTE
from .testcounts import TESTS

ALL: tuple[Checker[Any, Any], ...] = (
    QUOTE, CONDITION, CARD_ANCHOR, EVIDENCE, AT_PATH, TESTS, SYMBOL,
    PATH, LINK, REPO_LINK, PIN, NAME, LINES, COMMAND, DEFAULT, CONSTRAINT, PAGE,
)  # fmt: skip
CHECKERS: Mapping[ReferenceKind, Checker[Any, Any]] = {checker.kind: checker for checker in ALL}
