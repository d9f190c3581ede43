"""Version pins of the prose (``PIN``): ``Python 3.10+``, ``torch==2.5.1``, against the repository's
pyproject.toml at the ref.  A pin of a package the repository does not declare says nothing of its code, and
gets no result."""

from __future__ import annotations

import re
from typing import Iterator

from ..model import Citation, PromiseKind, PromiseResult, PromiseStatus, Reference, ReferenceKind, Skill, SkillSpec
from .protocol import Checker, Context, citations_of, judged
from .pyproject import conflict, normalize, project_meta


def _reads(c: Citation, skill: Skill, entry: SkillSpec | None) -> Iterator[Reference]:
    yield Reference(c.kind, "SKILL.md", c.line, c.text, frozenset({"pyproject.toml"}))


def _check(c: Citation, ctx: Context) -> list[PromiseResult]:
    status, detail = _pin(c, ctx)
    if status is PromiseStatus.EXTERNAL:
        return []  # a pin of a package this repository does not declare says nothing about its code
    return judged(PromiseKind.VERSION, c, ctx, status, c.target, detail)


def _pin(c: Citation, ctx: Context) -> tuple[PromiseStatus, str]:
    name, op, stated = re.fullmatch(r"(.+?)(==|>=|~=)(.+)", c.target).groups()  # type: ignore[union-attr]
    meta = project_meta(ctx.tree)
    if meta is None or meta.problem:
        return PromiseStatus.UNVERIFIABLE, meta.problem if meta else "the repository has no pyproject.toml"
    if normalize(name) == "python":
        if meta.requires_python is None:
            return PromiseStatus.UNVERIFIABLE, "the repository's pyproject.toml states no requires-python"
        specifiers, said = meta.requires_python, f"requires-python is {meta.requires_python}"
    elif normalize(name) in meta.dependencies:
        specifiers = meta.dependencies[normalize(name)]
        said = f"pyproject.toml asks for {name}{specifiers}" if specifiers else f"pyproject.toml asks for any {name}"
    else:
        return PromiseStatus.EXTERNAL, f"{name} is not a dependency pyproject.toml declares"
    problem = conflict(op, stated, specifiers.replace(" ", ""))
    if problem is not None:
        return PromiseStatus.DIFFERS, f"{said}; the skill says {c.text}: {problem}"
    return PromiseStatus.HOLDS, said


PIN: Checker[Citation, list[PromiseResult]] = Checker(
    ReferenceKind.PIN, citations_of(ReferenceKind.PIN), _reads, _check, PromiseKind.VERSION
)
