"""A skills catalog: ``components.d/*.yml`` say which repository each ``skills/<catalog_dir>`` comes from.

Each component file names a GitHub repository (``repo: OWNER/NAME``), an
optional branch (``ref``, default ``main``) and its skills (``path`` in that
repository, ``catalog_dir`` here).  A catalog arrives in pull requests, so
every field is checked; a component file that is not right is that
component's problem (its skills are skipped with the reason), never the
whole run's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from ..errors import AuditError, SpecError
from ..fsutil import read_input
from .repopath import normalize, repo_path_problem
from .yamldoc import KeyPath, load_yaml

MAX_COMPONENT_BYTES = 1024 * 1024
_REPO = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}/[A-Za-z0-9._-]{1,100}$")
_REF = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._/-]{0,199}$")
_DIR = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$")


@dataclass(frozen=True)
class CatalogSkill:
    path: str  # the skill's folder in the component repository
    catalog_dir: str  # its folder under the catalog's skills/


@dataclass(frozen=True)
class Component:
    file: str  # components.d/NAME.yml, as messages show it
    repo: str  # OWNER/NAME on GitHub ("" when the file is not right)
    ref: str
    skills: tuple[CatalogSkill, ...]
    problem: str | None = None  # why the component cannot be audited (one line), or None

    @property
    def url(self) -> str:
        return f"https://github.com/{self.repo}"


def load_catalog(root: Path) -> list[Component]:
    """Every component of the catalog at ``root``, in file name order."""
    folder = root / "components.d"
    if not folder.is_dir():
        raise SpecError(f"{root}: not a skills catalog (no components.d/ folder)")
    files = sorted(p for p in folder.iterdir() if p.suffix in (".yml", ".yaml") and p.is_file())
    if not files:
        raise SpecError(f"{folder}: no component files (*.yml)")
    return [_component(path, f"components.d/{path.name}") for path in files]


def _component(path: Path, shown: str) -> Component:
    try:
        doc = load_yaml(read_input(path, MAX_COMPONENT_BYTES, "a component file").decode("utf-8"), shown)
        return _parse(doc.data, doc.where, shown)
    except (AuditError, UnicodeDecodeError) as exc:
        why = f"{shown}: not UTF-8" if isinstance(exc, UnicodeDecodeError) else str(exc)
        return Component(shown, "", "", (), problem=why)


def _parse(data: object, at: Callable[[KeyPath], str], shown: str) -> Component:
    """``at(key path)`` names the place in the file: ``components.d/x.yml:LINE: key.path``."""
    if not isinstance(data, dict):
        raise SpecError(f"{shown}:1: a component is a mapping with repo and skills")
    repo, ref = data.get("repo"), data.get("ref", "main")
    if not isinstance(repo, str) or not _REPO.match(repo):
        raise SpecError(f"{at(('repo',))}: expected OWNER/NAME of a GitHub repository, got {repo!r}")
    if not isinstance(ref, str) or not _REF.match(ref) or ".." in ref:
        raise SpecError(f"{at(('ref',))}: not a branch name: {ref!r}")
    entries = data.get("skills")
    if not isinstance(entries, list):
        raise SpecError(f"{at(('skills',))}: expected a list of skills (path, catalog_dir)")
    skills = []
    for i, entry in enumerate(entries):
        if not isinstance(entry, dict):
            raise SpecError(f"{at(('skills', i))}: expected path and catalog_dir")
        skill_path, catalog_dir = entry.get("path"), entry.get("catalog_dir")
        problem = repo_path_problem(skill_path) if isinstance(skill_path, str) else "path is missing"
        if problem:
            raise SpecError(f"{at(('skills', i, 'path'))}: {problem}")
        if not isinstance(catalog_dir, str) or not _DIR.match(catalog_dir):
            raise SpecError(f"{at(('skills', i, 'catalog_dir'))}: expected a folder name, got {catalog_dir!r}")
        skills.append(CatalogSkill(normalize(str(skill_path)), catalog_dir))
    return Component(shown, repo, ref, tuple(skills))
