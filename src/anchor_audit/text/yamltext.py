"""YAML scalars written so they read back as the same string: the one place anchor-audit writes YAML by hand."""

from __future__ import annotations

import yaml


def scalar_text(node: yaml.ScalarNode, value: str) -> str:
    """``value`` as YAML scalar text, in ``node``'s quoting style where that reads back as the same string.

    A plain ``1.10``, ``null``, ``true`` or ``!x`` would read back as a float,
    None, a bool or a tag: those, and anything else that does not round-trip
    in the node's style, are written double-quoted by the YAML serializer.
    """
    if node.style == '"':
        text = '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    elif node.style == "'":
        text = "'" + value.replace("'", "''") + "'"
    else:
        text = value
    if _reads_back(text, value):
        return text
    return quoted_scalar(value)


def quoted_scalar(value: str) -> str:
    """``value`` as a double-quoted YAML scalar, escaped by the serializer (always reads back as ``value``)."""
    return yaml.safe_dump(value, default_style='"', allow_unicode=True, width=float("inf")).rstrip("\n")


def yaml_key(value: str) -> str:
    """``value`` as a mapping key: plain where it reads back as the same string, else double-quoted."""
    plain = value and value.strip() == value and _reads_back(value, value, as_key=True)
    return value if plain else quoted_scalar(value)


def _reads_back(text: str, value: str, as_key: bool = False) -> bool:
    if any(not c.isprintable() for c in text):
        return False
    try:
        if as_key:
            return yaml.safe_load(f"{text}: 0\n") == {value: 0}
        return yaml.safe_load(f"k: {text}\n") == {"k": value}
    except yaml.YAMLError:
        return False
