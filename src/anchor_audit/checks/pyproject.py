"""What a repository's pyproject.toml declares, and whether a version a skill states fits it.

Read with tomllib at the audited ref: the Python it requires, its
dependencies (``[project]`` first, then extras and dependency groups: the
first declaration of a package is its pin), its console scripts. Versions are
compared by their release numbers (``2.5.1``), as PEP 440 orders them;
pre-releases and local labels are not a skill's business.
"""

from __future__ import annotations

import functools
import re
import tomllib
from dataclasses import dataclass, field
from typing import Any

from ..errors import NotCarried, UnreadableFile
from ..source import SourceTree

# NAME [extras] (specifiers) ; markers: the name and its specifiers
_REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9][\w.-]*)\s*(?:\[[^\]]*\])?\s*\(?\s*([^;@()]*?)\s*\)?\s*(?:[;@].*)?$")
_CLAUSE = re.compile(r"^(===|==|!=|~=|>=|<=|>|<)\s*([0-9]+(?:\.[0-9]+)*)(\.\*)?")

Version = tuple[int, ...]


@dataclass(frozen=True)
class ProjectMeta:
    """pyproject.toml's answers: ``problem`` says why there are none (the file does not parse)."""

    requires_python: str | None = None
    dependencies: dict[str, str] = field(default_factory=dict)  # normalized name -> its specifiers ("" = any)
    scripts: dict[str, str] = field(default_factory=dict)  # program -> the module it runs
    package_roots: tuple[str, ...] = ()  # where setuptools, hatch or poetry are told the packages lie ("python/")
    problem: str = ""


def project_meta(tree: SourceTree, path: str = "pyproject.toml") -> ProjectMeta | None:
    """The repository's pyproject.toml at the ref (or a subproject's, at ``path``); None when it has none."""
    try:
        source = tree.read(path)
    except (NotCarried, UnreadableFile) as exc:  # a release wheel does not carry it: no answers, and why
        return ProjectMeta(problem=str(exc))
    return None if source is None else _meta(source.text)


@functools.lru_cache(maxsize=64)
def _meta(text: str) -> ProjectMeta:
    """pyproject.toml's text, read once however often a run asks (frozen: safe to share)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        return ProjectMeta(problem=f"pyproject.toml does not parse ({exc})")
    project = _table(data.get("project"))
    deps: dict[str, str] = {}
    extras = _table(project.get("optional-dependencies"))
    groups = _table(data.get("dependency-groups"))
    for requirement in [*_strings(project.get("dependencies")), *_each(extras), *_each(groups)]:
        found = _REQUIREMENT.match(requirement)
        if found is not None:
            deps.setdefault(normalize(found.group(1)), found.group(2).replace(" ", ""))
    scripts = {str(k): str(v).partition(":")[0] for k, v in _table(project.get("scripts")).items()}
    python = project.get("requires-python")
    roots = _package_roots(_table(data.get("tool")))
    return ProjectMeta(python if isinstance(python, str) else None, deps, scripts, roots)


def _package_roots(tool: dict[str, Any]) -> tuple[str, ...]:
    """The package roots a build backend's table names: setuptools' ``packages.find.where`` and ``package-dir``,
    hatch's wheel ``packages`` (``src/acme`` -> ``src/``), poetry's ``packages`` ``from``."""
    setuptools = _table(tool.get("setuptools"))
    roots = _strings(_table(_table(setuptools.get("packages")).get("find")).get("where"))
    roots += [v for v in _table(setuptools.get("package-dir")).values() if isinstance(v, str)]
    wheel = _table(_table(_table(_table(tool.get("hatch")).get("build")).get("targets")).get("wheel"))
    roots += [p.rstrip("/").rpartition("/")[0] for p in _strings(wheel.get("packages"))]
    poetry = _table(tool.get("poetry")).get("packages")
    entries = poetry if isinstance(poetry, list) else []
    roots += [str(p["from"]) for p in entries if isinstance(p, dict) and "from" in p]
    cleaned = (r.strip().strip("/").removeprefix("./") for r in roots)
    return tuple(dict.fromkeys(f"{r}/" if r not in ("", ".") else "" for r in cleaned if ".." not in r))


def normalize(name: str) -> str:
    """A distribution name as PEP 503 compares them: ``Megatron_Core`` is ``megatron-core``."""
    return re.sub(r"[-_.]+", "-", name).lower()


def version(text: str) -> Version:
    """The release numbers of a version (``2.5.1rc1`` -> (2, 5, 1))."""
    return tuple(int(part) for part in re.findall(r"\d+", text.split("+")[0].split("rc")[0])[:4])


def conflict(op: str, stated: str, specifiers: str) -> str | None:
    """Why a version a skill states (``==``: exactly; ``>=``/``~=``: this or later) does not fit the repository's
    ``specifiers`` (``>=2.4,<3``), or None when it fits."""
    clauses = [c for c in specifiers.split(",") if c]
    want = version(stated)
    if op == "==":
        failed = [c for c in clauses if _allows(c, want) is False]
        return f"{stated} is outside {failed[0]}" if failed else None
    floors = [version(m.group(2)) for c in clauses if (m := _CLAUSE.match(c)) and m.group(1) in ("==", "~=", ">=", ">")]
    if floors and _padded(max(floors)) > _padded(want):
        return f"the code needs {'.'.join(map(str, max(floors)))} or later, not {stated}"
    ceilings = [version(m.group(2)) for c in clauses if (m := _CLAUSE.match(c)) and m.group(1) == "<"]
    if ceilings and _padded(want) >= _padded(min(ceilings)):
        return f"{stated} is past the code's bound <{'.'.join(map(str, min(ceilings)))}"
    return None


def _allows(clause: str, want: Version) -> bool | None:
    found = _CLAUSE.match(clause)
    if found is None:
        return None  # not a clause read here (a URL, a marker): no verdict
    op, bound, wildcard = found.group(1), version(found.group(2)), bool(found.group(3))
    a, b = _padded(want), _padded(bound)
    if wildcard:
        same = want[: len(bound)] == bound
        return same if op == "==" else not same if op == "!=" else None
    if op == "~=":
        return a >= b and want[: max(len(bound) - 1, 1)] == bound[: max(len(bound) - 1, 1)]
    return {"==": a == b, "===": a == b, "!=": a != b, ">=": a >= b, "<=": a <= b, ">": a > b, "<": a < b}[op]


def _padded(v: Version) -> Version:
    return (v + (0, 0, 0, 0))[:4]


def _table(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _strings(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _each(tables: dict[str, Any]) -> list[str]:
    return [requirement for group in tables.values() for requirement in _strings(group)]
