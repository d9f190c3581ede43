"""A skills catalog: ``components.d/*.yml`` say which repository each ``skills/<catalog_dir>`` comes from.

Each component file names a GitHub repository (``repo: OWNER/NAME``), an
optional branch (``ref``, default ``main``) and its skills (``path`` in that
repository, ``catalog_dir`` here).  A catalog arrives in pull requests, so
every field is checked; a component file that is not right is that
component's problem (its skills are skipped with the reason), never the
whole run's.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from ..errors import AuditError, SpecError
from ..model import UnlistedFolder
from ..text.fsutil import read_input
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


MAX_EXCEPTION_FILES = 64  # YAML files of a catalog read for the folders they name


def unlisted_folders(root: Path, components: list[Component]) -> list[UnlistedFolder]:
    """The folders of ``root/skills`` no component names, each with the exception file that names it, if any.

    A catalog keeps such folders on purpose and says so in a file of its own (the NVIDIA catalog:
    ``catalog-exceptions.yml``, ``.github/scripts/manual-components.yml``); which file is the catalog's
    business, so every YAML file at the top and under ``.github/`` is read as data, and a folder is listed
    in one that has it as a value (next to a ``reason``, when it has one).
    """
    named = {s.catalog_dir for c in components for s in c.skills}
    skills = root / "skills"
    folders = sorted(p.name for p in skills.iterdir() if p.is_dir() and p.name not in named) if skills.is_dir() else []
    if not folders:
        return []
    mentions: dict[str, tuple[str, str | None]] = {}
    for path in _yaml_files(root)[:MAX_EXCEPTION_FILES]:
        shown = path.relative_to(root).as_posix()
        try:
            data = load_yaml(read_input(path, MAX_COMPONENT_BYTES, "a catalog file").decode("utf-8"), shown).data
        except (AuditError, UnicodeDecodeError):
            continue  # not this file's business to fail the run: it is read only for names
        for value, reason in _values(data, None, 0):
            if value in folders:
                mentions.setdefault(value, (shown, reason))
    return [UnlistedFolder(name, *mentions.get(name, (None, None))) for name in folders]


def _yaml_files(root: Path) -> list[Path]:
    """The YAML files at the top of ``root`` and under its ``.github/``: no link followed, none from outside."""
    found = [p for p in sorted(root.iterdir()) if p.suffix in (".yml", ".yaml")]
    github = root / ".github"
    for parent, dirs, files in os.walk(github) if not github.is_symlink() else ():  # nor does os.walk below
        dirs.sort()
        found += [Path(parent, f) for f in sorted(files) if f.endswith((".yml", ".yaml"))]
    return [p for p in found if p.is_file() and not p.is_symlink()]


def _values(data: object, reason: str | None, depth: int) -> list[tuple[str, str | None]]:
    """Every string value in ``data`` with the ``reason`` of the nearest mapping around it."""
    if depth > 16:
        return []
    if isinstance(data, dict):
        here = data.get("reason")
        reason = here if isinstance(here, str) else reason
        return [v for key, item in data.items() if key != "reason" for v in _values(item, reason, depth + 1)]
    if isinstance(data, list):
        return [v for item in data for v in _values(item, reason, depth + 1)]
    return [(data, reason)] if isinstance(data, str) else []
