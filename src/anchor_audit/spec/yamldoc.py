"""YAML documents that remember where each value came from.

anchors.yaml and card.yaml errors must name the line, so we compose the
node tree ourselves (safe loader, no tags that build objects) and keep a
map from key path to line.  Aliases are expanded with a budget, so an
alias bomb or a deeply nested document fails fast with a clear line
instead of eating memory.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import yaml

from ..errors import SpecError

# libyaml's safe loader where PyYAML has it (several times faster), else PyYAML's own.
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
MAX_NODES = 200_000  # values after alias expansion
MAX_BYTES = 32 * 1024 * 1024  # characters of scalars after alias expansion: 60,000 aliases of 1.5 MB are 90 GB
MAX_DEPTH = 64

KeyPath = tuple[str | int, ...]


@dataclass(frozen=True)
class YamlDoc:
    """A loaded YAML document: plain data, plus the line of every key path."""

    name: str  # the file, as shown in messages
    data: Any
    lines: dict[KeyPath, int]

    def line(self, path: KeyPath) -> int:
        """The line of ``path``, or of its nearest ancestor that has one."""
        while path and path not in self.lines:
            path = path[:-1]
        return self.lines.get(path, 1)

    def where(self, path: KeyPath) -> str:
        """``file:line: key.path`` for a message."""
        return f"{self.name}:{self.line(path)}: {format_path(path)}"


def format_path(path: KeyPath) -> str:
    """``('skills', 'x', 'conditions', 0, 'if')`` -> ``skills.x.conditions[0].if``."""
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out or "(top level)"


def load_yaml(text: str, name: str) -> YamlDoc:
    """Parse ``text`` as one YAML document; raise :class:`SpecError` naming ``name:line``."""
    try:
        node = yaml.compose(text, Loader=_LOADER)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        if exc.context_mark is not None and (mark is None or mark.index >= len(text.rstrip())):
            mark = exc.context_mark  # the problem is "end of file": where the open construct began says more
        line = mark.line + 1 if mark else 1
        raise SpecError(f"{name}:{line}: not valid YAML: {exc.problem or exc.context}") from None
    except yaml.YAMLError as exc:  # e.g. a reader error on control characters
        raise SpecError(f"{name}: not valid YAML: {exc}") from None
    lines: dict[KeyPath, int] = {}
    if node is None:
        return YamlDoc(name, None, lines)
    budget = [MAX_NODES, MAX_BYTES]
    data = _convert(node, (), lines, name, budget)
    return YamlDoc(name, data, lines)


def _convert(node: yaml.Node, path: KeyPath, lines: dict[KeyPath, int], name: str, budget: list[int]) -> Any:
    budget[0] -= 1
    if budget[0] < 0:
        raise SpecError(
            f"{name}:{node.start_mark.line + 1}: document too large (more than {MAX_NODES} values after aliases)"
        )
    if len(path) > MAX_DEPTH:
        raise SpecError(f"{name}:{node.start_mark.line + 1}: document nested deeper than {MAX_DEPTH} levels")
    lines.setdefault(path, node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        out: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                raise SpecError(
                    f"{name}:{key_node.start_mark.line + 1}: {format_path(path)}: keys must be plain scalars"
                )
            key = str(key_node.value)  # keys stay as written: `on:` is "on", not True
            if key in out:
                raise SpecError(f"{name}:{key_node.start_mark.line + 1}: {format_path(path + (key,))}: duplicate key")
            child = path + (key,)
            lines[child] = key_node.start_mark.line + 1
            out[key] = _convert(value_node, child, lines, name, budget)
        return out
    if isinstance(node, yaml.SequenceNode):
        return [_convert(item, path + (i,), lines, name, budget) for i, item in enumerate(node.value)]
    budget[1] -= len(node.value)
    if budget[1] < 0:
        raise SpecError(
            f"{name}:{node.start_mark.line + 1}: document too large "
            f"(more than {MAX_BYTES // (1024 * 1024)} MiB of text after aliases)"
        )
    return _scalar(node, name)


# One safe constructor for every scalar of every document (a scalar's constructor keeps no state): the safe
# loader's own answers, without building a loader for each value.
_CONSTRUCT = yaml.constructor.SafeConstructor()
_CONSTRUCTORS = yaml.constructor.SafeConstructor.yaml_constructors
MAX_SCALAR_DIGITS = 100  # a longer number is refused: Python's int() refuses past 4,300 digits


def _scalar(node: yaml.Node, name: str) -> Any:
    if (
        isinstance(node, yaml.ScalarNode)
        and len(node.value) > MAX_SCALAR_DIGITS
        and node.tag.endswith((":int", ":float"))
    ):
        raise SpecError(f"{name}:{node.start_mark.line + 1}: a number of {len(node.value)} characters; too long")
    make = _CONSTRUCTORS.get(node.tag) or _CONSTRUCTORS[None]  # an unknown tag: the safe loader's refusal
    try:
        return make(_CONSTRUCT, node)
    except yaml.constructor.ConstructorError as exc:
        raise SpecError(f"{name}:{node.start_mark.line + 1}: {exc.problem}") from None
    except (ValueError, OverflowError) as exc:
        raise SpecError(f"{name}:{node.start_mark.line + 1}: cannot read this value ({exc})") from None
