"""A small validator for the JSON Schema subset that anchors.schema.json uses.

The shipped schema is the single source of truth for the registry's shape
(editors and other tools can use it as is); this interpreter turns its
violations into messages with key paths, ``skills.x.claims.y.conditions[0].if:
expected a string``.  Keywords: type, properties, required,
additionalProperties, items, enum, pattern, minLength, $ref (local).  The
tests check the schema against the real jsonschema library.

Unknown keys (additionalProperties: false) are warnings, not errors, so a
registry written for a newer anchor-audit still runs.
"""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

from .yamldoc import KeyPath

_TYPES = {
    "object": (dict, "a mapping"),
    "array": (list, "a list"),
    "string": (str, "a string"),
    "integer": (int, "an integer"),
    "boolean": (bool, "true or false"),
}


@dataclass(frozen=True)
class Violation:
    path: KeyPath
    message: str
    warning: bool = False


@lru_cache(maxsize=None)
def anchors_schema() -> dict[str, Any]:
    """The shipped JSON Schema of anchors.yaml."""
    text = resources.files(__package__).joinpath("anchors.schema.json").read_text(encoding="utf-8")
    return json.loads(text)


def validate(data: Any, schema: dict[str, Any] | None = None) -> list[Violation]:
    """All violations of ``schema`` (default: the anchors.yaml schema) in document order."""
    root = schema if schema is not None else anchors_schema()
    out: list[Violation] = []
    _check(data, root, root, (), out)
    return out


def _check(value: Any, schema: dict[str, Any], root: dict[str, Any], path: KeyPath, out: list[Violation]) -> None:
    if "$ref" in schema:
        schema = _resolve(root, schema["$ref"])
    expected = schema.get("type")
    if expected is not None:
        pytype, name = _TYPES[expected]
        if not isinstance(value, pytype) or (expected == "integer" and isinstance(value, bool)):
            out.append(Violation(path, f"expected {name}"))
            return
    if "enum" in schema and value not in schema["enum"]:
        out.append(Violation(path, "must be one of " + ", ".join(json.dumps(v) for v in schema["enum"])))
    if isinstance(value, str):
        _check_text(value, schema, path, out)
    if isinstance(value, list) and "items" in schema:
        for i, item in enumerate(value):
            _check(item, schema["items"], root, path + (i,), out)
    if isinstance(value, dict):
        _check_mapping(value, schema, root, path, out)


def _check_text(value: str, schema: dict[str, Any], path: KeyPath, out: list[Violation]) -> None:
    if len(value) < schema.get("minLength", 0):
        out.append(Violation(path, "must not be empty"))
    pattern = schema.get("pattern")
    if pattern is not None and not re.search(pattern, value):
        out.append(Violation(path, f"{value!r} is not of the form {schema.get('x-form', pattern)}"))


def _check_mapping(
    value: dict[Any, Any], schema: dict[str, Any], root: dict[str, Any], path: KeyPath, out: list[Violation]
) -> None:
    props = schema.get("properties", {})
    extra = schema.get("additionalProperties", True)
    # An unknown key is an error, and said first: a misspelt `quote:` would otherwise silently drop the
    # claim's evidence, and a misspelt `skils:` would read as "missing skills".
    for key in value:
        if key not in props and extra is False:
            near = difflib.get_close_matches(str(key), list(props), n=1)
            hint = f" (did you mean '{near[0]}'?)" if near else f" (known: {', '.join(props)})"
            out.append(Violation(path + (key,), f"unknown key{hint}"))
    for key in schema.get("required", ()):
        if key not in value:
            out.append(Violation(path, f"missing required key '{key}'"))
    for key, item in value.items():
        if key in props:
            _check(item, props[key], root, path + (key,), out)
        elif isinstance(extra, dict):
            _check(item, extra, root, path + (key,), out)


def _resolve(root: dict[str, Any], ref: str) -> dict[str, Any]:
    if not ref.startswith("#/"):
        raise ValueError(f"only local $ref is supported, not {ref}")
    node: Any = root
    for part in ref[2:].split("/"):
        node = node[part]
    return node
