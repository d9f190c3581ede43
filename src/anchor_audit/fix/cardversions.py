"""``matrix --write-card``: the releases each claim holds for, written into card.yaml as ``validated_versions``.

One specifier for the skill when every claim holds for the same releases, else one per claim, in the card's
claim order; a claim held over two separate runs of releases gets a list.  The card's text is edited in
place: the rest of it (comments, order, quoting, line endings, a byte order mark) is kept byte for byte, and
the edited text must read back as the card with just this key set, or nothing is written.
"""

from __future__ import annotations

from typing import Any

import yaml

from ..errors import SpecError
from ..text.yamltext import quoted_scalar, yaml_key
from .text import compose, mapping_get, verified

KEY = "validated_versions"
Ranges = list[str]  # specifiers, any of them holding (a claim that held, broke, then held again has two)


def card_value(ranges: dict[str, Ranges]) -> Ranges | dict[str, Ranges]:
    """One range for the skill when every claim has the same, else the mapping claim -> range."""
    distinct = {tuple(r) for r in ranges.values()}
    return next(iter(ranges.values())) if len(distinct) == 1 else ranges


def write_validated_versions(text: str, value: Ranges | dict[str, Ranges], span: str, name: object) -> str:
    """``text`` (a card.yaml) with ``validated_versions`` set to ``value``; ``span`` (``v0.2.0 .. v0.6.0``), the
    releases audited, goes in a comment beside the key, since an open range is only known up to there."""
    root = compose(text, name)
    if root is not None and not isinstance(root, yaml.MappingNode):
        raise SpecError(f"{name}:1: card.yaml must be a mapping; nothing written")
    newline = "\r\n" if "\r\n" in text else "\n"
    block = _block(value, span, newline)
    found = mapping_get(root, KEY)
    if found is not None:
        key_node, value_node = found
        start = text.rfind("\n", 0, key_node.start_mark.index) + 1
        end = value_node.end_mark.index
        if end == 0 or text[end - 1] != "\n":  # a scalar or flow value ends mid-line: take the rest of it
            line_end = text.find("\n", end)
            end = len(text) if line_end == -1 else line_end + 1
    else:
        validated = mapping_get(root, "validated_on")
        if validated is not None:
            line_end = text.find("\n", validated[1].end_mark.index)
            start = end = len(text) if line_end == -1 else line_end + 1
        else:
            start = end = len(text)
        if start == len(text) and text and not text.endswith("\n"):
            block = newline + block
    after = text[:start] + block + text[end:]
    return verified(name, text, after, lambda data: {**(data or {}), KEY: _as_read(value)})


def _as_read(value: Ranges | dict[str, Ranges]) -> Any:
    """What the written value reads back as: one specifier a string, several a list."""
    if isinstance(value, dict):
        return {claim: _as_read(r) for claim, r in value.items()}
    return value[0] if len(value) == 1 else value


def _block(value: Ranges | dict[str, Ranges], span: str, newline: str) -> str:
    note = f"  # anchor-audit matrix, releases {span}"
    if isinstance(value, list):
        return f"{KEY}: {_ranges(value)}{note}{newline}"
    lines = [f"{KEY}:{note}"] + [f"  {yaml_key(claim)}: {_ranges(r)}" for claim, r in value.items()]
    return newline.join(lines) + newline


def _ranges(ranges: Ranges) -> str:
    """One specifier as a quoted scalar (``>=`` would open a folded scalar plain), several as a flow list."""
    if len(ranges) == 1:
        return quoted_scalar(ranges[0])
    return "[" + ", ".join(quoted_scalar(r) for r in ranges) + "]"
