"""A helper's checks read as its caller has them: parameters bound to a call's arguments, within bounds."""

from __future__ import annotations

import ast

from anchor_audit.match.inlined import MAX_ARGUMENT_NODES, inlined_keys
from anchor_audit.match.quotefacts import facts_of, holds_in

HELPER = '''\
def check(config, strict=False):
    impl = getattr(config, "impl", "none")
    if impl == "none":
        raise ValueError("no impl")
'''


def _call(text: str) -> ast.Call:
    node = ast.parse(text, mode="eval").body
    assert isinstance(node, ast.Call)
    return node


def _helper() -> ast.FunctionDef:
    node = ast.parse(HELPER).body[0]
    assert isinstance(node, ast.FunctionDef)
    return node


def test_a_helpers_gate_bound_to_the_callers_argument_is_the_callers_gate() -> None:
    (gate,) = [f for f in facts_of(['if self.model.impl == "none":']).facts if f.kind == "gate"]
    assert holds_in(gate, inlined_keys(_helper(), _call("check(self.model)")))
    assert holds_in(gate, inlined_keys(_helper(), _call("check(config=self.model, strict=True)")))
    assert not holds_in(gate, inlined_keys(_helper(), _call("check(self.other)")))  # another object's setting


def test_a_call_that_cannot_be_bound_for_certain_or_within_bounds_gives_nothing() -> None:
    huge = " + ".join(f"x{i}" for i in range(MAX_ARGUMENT_NODES))  # copied wherever its parameter is read
    assert inlined_keys(_helper(), _call(f"check({huge})")) == frozenset()
    assert inlined_keys(_helper(), _call("check(*args)")) == frozenset()  # which parameter is which: unknown
    assert inlined_keys(_helper(), _call("check(a, b, c)")) == frozenset()  # more arguments than parameters
