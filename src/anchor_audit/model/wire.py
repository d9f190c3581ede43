"""The model's values as JSON and back, exactly: a result kept in the cache is the value it was.

Every value is tagged with what it is, so nothing is guessed from a type hint
(a closed union of results, an enum among enums): a dataclass by its name and
its fields, an enum by its name and value, a tuple as a JSON list, and the rare
list, dict, frozenset and path each by a tag of their own.  Only the model's
own classes are built from a row (:data:`CLASSES`): a name outside it is a
:class:`ValueError`, never an import.
"""

from __future__ import annotations

import dataclasses
import enum
import sys
from pathlib import Path, PurePath
from typing import Any

_MODULES = ("facts", "promiseresults", "references", "results", "spec", "status")


def _classes() -> dict[str, type]:
    found: dict[str, type] = {}
    for name in _MODULES:
        module = sys.modules[f"{__package__}.{name}"]
        for value in vars(module).values():
            if isinstance(value, type) and value.__module__ == module.__name__:
                if dataclasses.is_dataclass(value) or issubclass(value, enum.Enum):
                    found[value.__name__] = value
    return found


# The model's modules are imported before this one (the package imports them first).
CLASSES: dict[str, type] = _classes()


def dump(value: Any) -> Any:
    """``value`` (a model value, or what one holds) as plain JSON data."""
    if value is None or isinstance(value, (bool, int, float)) or type(value) is str:
        return value
    if isinstance(value, enum.Enum):
        return {"@enum": type(value).__name__, "v": value.value}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        own = {f.name: dump(getattr(value, f.name)) for f in dataclasses.fields(value) if f.init}
        return {"@": type(value).__name__, "f": own}
    if isinstance(value, tuple):
        return [dump(v) for v in value]
    if isinstance(value, list):
        return {"@list": [dump(v) for v in value]}
    if isinstance(value, frozenset):
        return {"@frozenset": sorted((dump(v) for v in value), key=repr)}
    if isinstance(value, dict):
        return {"@dict": [[dump(k), dump(v)] for k, v in value.items()]}
    if isinstance(value, PurePath):
        return {"@path": str(value)}
    raise TypeError(f"not a model value: {type(value).__name__}")


def load(data: Any) -> Any:
    """The value :func:`dump` gave ``data`` for; :class:`ValueError` for data it could not have given."""
    if data is None or isinstance(data, (bool, int, float, str)):
        return data
    if isinstance(data, list):
        return tuple(load(v) for v in data)
    if not isinstance(data, dict):
        raise ValueError(f"not a model value: {type(data).__name__}")
    if "@" in data:
        cls = _named(data["@"])
        if not dataclasses.is_dataclass(cls):
            raise ValueError(f"{data['@']} is not a model dataclass")
        return cls(**{str(k): load(v) for k, v in dict(data["f"]).items()})
    if "@enum" in data:
        kind = _named(data["@enum"])
        if not issubclass(kind, enum.Enum):
            raise ValueError(f"{data['@enum']} is not a model enum")
        return kind(data["v"])
    if "@list" in data:
        return [load(v) for v in data["@list"]]
    if "@frozenset" in data:
        return frozenset(load(v) for v in data["@frozenset"])
    if "@dict" in data:
        return {load(k): load(v) for k, v in data["@dict"]}
    if "@path" in data:
        return Path(str(data["@path"]))
    raise ValueError("a JSON object that is no model value")


def _named(name: object) -> type:
    found = CLASSES.get(str(name))
    if found is None:
        raise ValueError(f"{name!r} is not a class of the model")
    return found
