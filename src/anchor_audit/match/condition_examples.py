"""Examples the condition matcher owns: code where a condition holds, and code where it drifts.

Each example is a Python file, a condition written as in anchors.yaml, and
the status :func:`anchor_audit.match.condition.check_condition` must give
(with the line where it holds or nearly holds).  tests/test_condition_examples.py
runs every one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from textwrap import dedent
from typing import Any

from ..model import ConditionStatus

HOLDS_, DIFFERENT, ABSENT = ConditionStatus.HOLDS, ConditionStatus.DIFFERENT, ConditionStatus.ABSENT

# The shapes a launch planner has: a module flag, a method with an if/elif
# gate nested in another if, an if/else choosing defaults, dict writes.
PLANNER = dedent(
    """\
    try:
        import fastlib
        HAVE_FAST = True
    except ImportError:
        HAVE_FAST = False

    class Planner:
        def plan(self, cfg, env):
            if cfg.overlap is True:
                if cfg.tp < 2:
                    cfg.overlap = False
                elif not cfg.sp:
                    cfg.overlap = False
                elif not HAVE_FAST:  # no kernels
                    cfg.overlap = False
            if cfg.dp > 1:
                cfg.bucket = 64 * 1024
            else:
                cfg.bucket = None
            env["MAX_CONN"] = str(cfg.conns)
    """
)


# A def inside the scope a condition names is a scope of its own: its ifs and writes are not the method's.
NESTED = "class P:\n    def plan(self, cfg):\n        def helper():\n            if cfg.tp < 2:\n                cfg.x = 1\n        return helper\n"


# Two enclosing ifs: `inside` lists them outermost first, and the order is part of the promise.
TWO_GATES = (
    "class P:\n    def plan(self, cfg):\n        if cfg.enabled:\n            if cfg.tp > 1:\n"
    "                if cfg.sp:\n                    cfg.overlap = True\n"
)


@dataclass(frozen=True)
class ConditionExample:
    name: str
    condition: dict[str, Any]  # as in anchors.yaml, less `path` (added)
    status: ConditionStatus
    line: int | None = None
    code: str = PLANNER
    detail: str = ""  # a fragment the detail must contain
    extra: dict[str, Any] = field(default_factory=dict)


GATE = {"in": "Planner.plan", "if": "cfg.tp < 2", "elif": ["not cfg.sp", "not HAVE_FAST"]}

HOLDS = [
    ConditionExample("if/elif chain inside its gate, same write in each branch",
        {**GATE, "inside": ["cfg.overlap is True"], "each": ["cfg.overlap = False"]}, HOLDS_, line=10),
    ConditionExample("formatting and parentheses do not matter",
        {"in": "Planner.plan", "if": "(cfg.tp<2)", "elif": ["not (cfg.sp)", "not HAVE_FAST"]}, HOLDS_, line=10),
    ConditionExample("then and else branches",
        {"in": "Planner.plan", "if": "cfg.dp > 1", "then": ["cfg.bucket = 64*1024"], "else": ["cfg.bucket = None"]},
        HOLDS_, line=16),
    ConditionExample("dict write with any value, other quote style",
        {"in": "Planner.plan", "has": ["env['MAX_CONN'] = ..."]}, HOLDS_, line=20),
    ConditionExample("has: the line of its first statement in the scope, whatever the order written",
        {"in": "Planner.plan", "has": ["env['MAX_CONN'] = ...", "cfg.bucket = None"]}, HOLDS_, line=19),
    ConditionExample("module flag bound under try", {"defines": "HAVE_FAST"}, HOLDS_, line=3),
    ConditionExample("nested gates, outermost first", {"in": "P.plan", "if": "cfg.sp", "inside": ["cfg.enabled", "cfg.tp > 1"]},
        HOLDS_, line=5, code=TWO_GATES),
    ConditionExample("class is a scope too", {"in": "Planner", "has": ["x = 1"]}, HOLDS_, line=2,
        code="class Planner:\n    x = 1\n"),
]

DRIFTS = [
    ConditionExample("operator changed", {"in": "Planner.plan", "if": "cfg.tp <= 2"}, DIFFERENT, line=10,
        detail="tests `cfg.tp < 2`"),
    ConditionExample("constant changed in a branch",
        {"in": "Planner.plan", "if": "cfg.dp > 1", "then": ["cfg.bucket = 128 * 1024"]}, DIFFERENT, line=16,
        detail="has `cfg.bucket = 64 * 1024`"),
    ConditionExample("branches swapped",
        {"in": "Planner.plan", "if": "cfg.dp > 1", "then": ["cfg.bucket = None"]}, DIFFERENT, line=16),
    ConditionExample("elif chain lost a test",
        {**GATE, "elif": ["not cfg.sp"]}, DIFFERENT, line=10, detail="elif tests are"),
    ConditionExample("gate not nested where promised",
        {**GATE, "inside": ["cfg.overlap is False"]}, DIFFERENT, line=10, detail="not inside"),
    ConditionExample("nested gates in the other order", {"in": "P.plan", "if": "cfg.sp", "inside": ["cfg.tp > 1", "cfg.enabled"]},
        DIFFERENT, line=5, code=TWO_GATES, detail="not inside"),
    ConditionExample("no else where one is promised",
        {**GATE, "else": ["cfg.overlap = True"]}, DIFFERENT, line=10, detail="no else"),
    ConditionExample("method renamed: the gate is said where it is now", {**GATE, "in": "Planner.prepare"}, DIFFERENT,
        line=10, detail="no Planner.prepare in pkg/planner.py: it holds in Planner.plan now (line 10)"),
    ConditionExample("method gone, nothing holds elsewhere: the nearest name", {"in": "Planner.plans", "if": "cfg.pp"},
        ABSENT, detail="no Planner.plans in pkg/planner.py (nearest: Planner.plan)"),
    ConditionExample("a test that gained an `and` part is a near miss", {"in": "P.plan", "if": "cfg.tp > 1"}, DIFFERENT,
        line=3, code="class P:\n    def plan(self, cfg):\n        if cfg.tp > 1 and cfg.enabled:\n            cfg.x = 1\n",
        detail="line 3 tests `cfg.tp > 1 and cfg.enabled`, not `cfg.tp > 1`"),
    ConditionExample("a test that lost one is too", {"in": "P.plan", "if": "cfg.tp > 1 and cfg.enabled"}, DIFFERENT,
        line=3, code="class P:\n    def plan(self, cfg):\n        if cfg.tp > 1:\n            cfg.x = 1\n",
        detail="line 3 tests `cfg.tp > 1`, not `cfg.tp > 1 and cfg.enabled`"),
    ConditionExample("flag gone", {"defines": "HAVE_SLOW"}, ABSENT),
    ConditionExample("dict write gone", {"in": "Planner.plan", "has": ["env['OTHER'] = ..."]}, ABSENT),
    ConditionExample("name in a test changed", {"in": "Planner.plan", "if": "cfg.pp > 1"}, DIFFERENT, line=16,
        detail="tests `cfg.dp > 1`, not `cfg.pp > 1`"),
    ConditionExample("no such if at all", {"in": "Planner.plan", "if": "self.world.rank == 0"}, ABSENT,
        detail="no `if self.world.rank == 0` in Planner.plan"),
    ConditionExample("an if in a nested def belongs to that def", {"in": "P.plan", "if": "cfg.tp < 2"}, ABSENT,
        code=NESTED),
    ConditionExample("a write in a nested def belongs to that def", {"in": "P.plan", "has": ["cfg.x = 1"]}, ABSENT,
        code=NESTED),
]
