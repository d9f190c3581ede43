"""A default the prose states, judged at the ref: a flag's (``--workers defaults to 4``) against the
``default=`` of the parsers the skill's commands run (:mod:`.command` reads them), a spec key's
(``train.distributed_strategy``) against the JSON schemas the skill ships."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Iterator, Sequence

from ..model import Citation, PromiseKind, PromiseResult, PromiseStatus, Reference, ReferenceKind, Skill, SkillSpec
from ..source import SourceTree
from ..source.listing import Listing
from .command import Computed, command_file, program_defaults, reads_command
from .protocol import Checker, Context, citations_of


def check_default(
    c: Citation, commands: Sequence[Citation], tree: SourceTree, listing: Listing, file: str
) -> PromiseResult:
    """A default the prose states for a flag (``c``), against the parsers of the skill's ``commands`` that define
    it: the code's default is the promise, read from its ``default=`` (or typer's first argument)."""
    found: dict[str, object] = {}
    for command in commands:
        path = command_file(command, tree, listing)
        defaults = program_defaults(path, tree, listing) if path is not None else {}
        if c.target in defaults:
            found.setdefault(path or "", defaults[c.target])

    def result(status: PromiseStatus, detail: str) -> PromiseResult:
        return PromiseResult(PromiseKind.COMMAND, c.text, status, file, c.line, detail)

    if not found:
        return result(PromiseStatus.UNVERIFIABLE, f"no command of this skill defines {c.target}")
    shown = {path: _shown(value) for path, value in found.items()}
    if len(set(shown.values())) > 1:
        why = "; ".join(f"{path} has {value}" for path, value in shown.items())
        return result(PromiseStatus.UNVERIFIABLE, f"the skill's commands default {c.target} differently: {why}")
    path, value = next(iter(found.items()))
    if isinstance(value, Computed):
        return result(PromiseStatus.UNVERIFIABLE, f"{path} computes it at run time: {value.code}")
    if _same(value, c.fragment):
        return result(PromiseStatus.HOLDS, f"{path} defaults {c.target} to {_shown(value)}")
    return result(PromiseStatus.DIFFERS, f"{path} defaults {c.target} to {_shown(value)}; the skill says {c.fragment}")


def check_spec_default(c: Citation, schemas: Sequence[tuple[str, str, str]], file: str) -> list[PromiseResult]:
    """A default the prose states for a spec key (``train.distributed_strategy``), against the JSON schemas the
    skill ships (``schemas/train.schema.json``); nothing where none of them gives the key a default."""
    given = {name: json.loads(value) for key, name, value in schemas if key == c.target}
    if not given:
        return []
    top = c.target.split(".")[0]
    name = next((n for n in given if n.rpartition("/")[2] == f"{top}.schema.json"), next(iter(given)))
    value = given[name]
    more = f" (and {len(given) - 1} more)" if len(given) > 1 else ""

    def result(status: PromiseStatus, detail: str) -> list[PromiseResult]:
        return [PromiseResult(PromiseKind.COMMAND, c.text, status, file, c.line, detail)]

    if not _comparable(value, c.fragment):
        return []  # "configurable", "per GPU": words, not a value to hold against the schema's
    if len({json.dumps(v) for v in given.values()}) > 1:
        why = "; ".join(f"{n} has {_brief(v)}" for n, v in list(given.items())[:3])
        return result(PromiseStatus.UNVERIFIABLE, f"the skill's schemas default {c.target} differently: {why}")
    said = f"{name}{more} defaults {c.target} to {_brief(value)}"
    if _same(value, c.fragment):
        return result(PromiseStatus.HOLDS, said)
    return result(PromiseStatus.DIFFERS, f"{said}; the skill says {c.fragment}")


def _brief(value: object) -> str:
    """A schema's default as a report shows it: its repr, cut at 80 characters (a schema is untrusted)."""
    shown = repr(value)
    return shown if len(shown) <= 80 else shown[:79] + "…"


def _comparable(value: object, stated: str) -> bool:
    """Whether the prose's word is a value of the default's type (``true`` for a bool, ``8`` for a number)."""
    said = stated.strip("'\"").lower()
    if isinstance(value, bool) or value is None:
        return said in ("true", "false", "null", "none")
    if isinstance(value, (int, float)):
        try:
            float(said)
        except ValueError:
            return False
    return True


def _shown(value: object) -> str:
    return value.code if isinstance(value, Computed) else repr(value)


def _same(value: object, stated: str) -> bool:
    """Whether the code's default is what the prose writes (``True``/``true``, ``8``/``8.0``, ``bf16``)."""
    said = stated.strip("'\"")
    if isinstance(value, bool) or value is None:
        return said.lower() == str(value).lower() or (value is None and said.lower() == "null")
    if isinstance(value, (int, float)):
        try:
            return float(said) == float(value)
        except ValueError:
            return False
    return said == str(value)


def _reads_default(c: Citation, skill: Skill, entry: SkillSpec | None) -> Iterator[Reference]:
    """A flag's default is read where the skill's commands define their flags."""
    for command in citations_of(ReferenceKind.COMMAND)(skill, entry):
        for read in reads_command(command, skill, entry):
            yield replace(read, kind=ReferenceKind.DEFAULT, line=c.line, text=c.text)


def _check_default(c: Citation, ctx: Context) -> list[PromiseResult]:
    if not c.target.startswith("-"):
        return check_spec_default(c, ctx.skill.schema_defaults, ctx.skill_md)
    return [check_default(c, ctx.commands, ctx.tree, ctx.listing, ctx.skill_md)]


DEFAULT: Checker[Citation, list[PromiseResult]] = Checker(
    ReferenceKind.DEFAULT, citations_of(ReferenceKind.DEFAULT), _reads_default, _check_default, PromiseKind.COMMAND,
    unreadable_is_there=False,
)  # fmt: skip
