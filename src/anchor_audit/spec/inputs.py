"""From command-line options to what an audit needs: the registry, the skills, the tree.

Precedence: ``--repo``/``--ref`` override the registry's ``source``; skill
directories on the command line override the registry's ``path`` entries;
a skill's registry entry is found by its directory's name.  With
``--in-repo`` the skill directories are paths inside the audited repository,
read from the tree at each ref.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Union

from ..errors import SpecError, UsageError
from ..model import Skill, SkillSpec, Spec, UnreadableSkill
from ..source import SourceTree, is_remote
from .card import Memo
from .registry import load_spec
from .skill import load_skill, load_skill_from_tree

# A skill to audit with its registry entry, or one that could not be read (isolated: its own error result).
SkillInput = Union[tuple[Skill, "SkillSpec | None"], UnreadableSkill]


@dataclass(frozen=True)
class AuditInputs:
    spec: Spec | None
    disk_skills: list[SkillInput]  # read from disk once
    repo_skills: list[str]  # --in-repo: folders inside the repository
    repo: str
    ref: str
    repo_roots: list[str] = field(default_factory=list)  # --in-repo --all: every skill under these folders
    memo: Memo | None = None  # the result cache's: what a SKILL.md says, remembered by its text
    repo_names: dict[str, str] = field(default_factory=dict)  # an in-repo folder -> its skill's name (renamed since)

    def skills_at(self, tree: SourceTree, absent_ok: bool = False) -> list[SkillInput]:
        """The skills to audit against ``tree`` (in-repo skills as they are in that tree).

        A skill found under an ``--all`` root that cannot be read is isolated:
        it becomes an :class:`UnreadableSkill`, and every other skill is audited.
        ``absent_ok`` (a matrix, over releases that predate a skill): a root or a
        named folder that is not in ``tree`` is left out, not an error.
        """
        out = list(self.disk_skills)
        folders = [(folder, False) for folder in self.repo_skills]
        for root in self.repo_roots:
            found = sorted(p.rsplit("/", 1)[0] for p in tree.files_under(root) if p.endswith("/SKILL.md"))
            if not found and not absent_ok:
                raise UsageError(f"--all {root}: no SKILL.md under it at {self.ref}")
            folders += [(folder, True) for folder in found]
        for folder, isolated in folders:
            name = self.repo_names.get(folder) or folder.strip("/").rsplit("/", 1)[-1]
            try:
                skill = replace(load_skill_from_tree(tree, folder, self.memo), name=name)
            except SpecError as exc:
                if absent_ok and not isolated:
                    continue  # not at this release, or unreadable there: the matrix says "not there"
                if not isolated:
                    raise
                out.append(UnreadableSkill(name, folder, str(exc)))
                continue
            out.append((skill, self.spec.skill(name) if self.spec else None))
        if out and all(isinstance(item, UnreadableSkill) for item in out) and not absent_ok:
            raise UsageError(f"no skill could be read; the first: {_first_error(out)}")
        return out


def _registry(spec_path: str | None, default_spec: str, repo: str | None) -> Spec | None:
    """The registry named (else the default one, if present); a catalog's only where ``repo`` stands in for it."""
    spec = None
    if spec_path is not None:
        spec = load_spec(Path(spec_path))
    elif Path(default_spec).is_file():
        spec = load_spec(Path(default_spec))
    if spec is not None and spec.source.catalog is not None and repo is None:
        raise UsageError(
            f"{spec.path}: its source is the catalog {os.path.relpath(spec.source.catalog)}: anchor-audit check "
            "reads it, each skill against its own component; for this command give --repo and --ref"
        )
    return spec


def load_inputs(
    spec_path: str | None,
    skill_dirs: list[str],
    repo: str | None,
    ref: str | None,
    default_spec: str,
    in_repo: bool = False,
    all_roots: list[str] | None = None,
    memo: Memo | None = None,
    before_reading: Callable[[str], None] = lambda folder: None,
) -> AuditInputs:
    """``before_reading``: told each folder on disk before anything in it is read (a remembered run's witness)."""
    spec = _registry(spec_path, default_spec, repo)
    if repo is None and spec is not None:
        repo = spec.source.repo
        if not is_remote(repo) and not Path(repo).is_absolute():
            repo = os.path.relpath(spec.path.parent / repo)  # a registry's local path is relative to it
    ref = ref or (spec.source.ref if spec else None) or ("HEAD" if repo is not None else None)  # as init reads it
    if repo is None or ref is None:
        raise UsageError(f"no {default_spec} here: give --spec, or --repo (and --ref; without it, HEAD)")

    if in_repo:
        if not skill_dirs and not all_roots:
            raise UsageError("--in-repo needs SKILL_DIR arguments: paths of skill folders inside the repository")
        return AuditInputs(spec, [], list(skill_dirs), repo, ref, [r.strip("/") for r in all_roots or []], memo)
    named = list(skill_dirs)
    skill_dirs = named + _found_under(all_roots or [], before_reading)
    if skill_dirs:
        skills = _named_skills(skill_dirs, set(skill_dirs) - set(named), spec, memo, before_reading)
    else:
        skills = _registered_skills(spec, memo, before_reading) if spec is not None else []
    if not skills:
        raise UsageError("no skills to audit: give SKILL_DIR arguments or list skills in anchors.yaml")
    return AuditInputs(spec, [_placed(item, repo) for item in skills], [], repo, ref, memo=memo)


def _named_skills(
    skill_dirs: list[str],
    found_by_all: set[str],
    spec: Spec | None,
    memo: Memo | None,
    before_reading: Callable[[str], None],
) -> list[SkillInput]:
    """The skills of the folders named (or found under ``--all``), each with its registry entry; a folder found
    by ``--all`` that cannot be read is that skill's error, one named on the command line a bad command line."""
    skills: list[SkillInput] = []
    for d in skill_dirs:
        try:
            before_reading(d)
            skill = load_skill(Path(d), shown_as=d, memo=memo)
        except SpecError as exc:
            if d not in found_by_all:
                raise  # a skill named on the command line: a bad command line
            skills.append(UnreadableSkill(Path(d).name, d, str(exc)))
            continue
        skills.append((skill, spec.skill(skill.name) if spec else None))
    if all(isinstance(item, UnreadableSkill) for item in skills):
        raise UsageError(f"no skill could be read; the first: {_first_error(skills)}")
    return skills


def _registered_skills(spec: Spec, memo: Memo | None, before_reading: Callable[[str], None]) -> list[SkillInput]:
    """The skills the registry lists with a path.  An entry without a path is audited where it is named (SKILL_DIR,
    --all): a published skill that users keep in a place of their own."""
    skills: list[SkillInput] = []
    for entry in spec.skills:
        if entry.path is not None:
            before_reading(str(entry.path))
            skills.append((load_skill(entry.path, shown_as=os.path.relpath(entry.path), memo=memo), entry))
    if not skills:
        raise UsageError(f"{spec.path}: no skill entry has a path; give SKILL_DIR arguments")
    return skills


def _found_under(roots: list[str], before_reading: Callable[[str], None]) -> list[str]:
    """The skill folders under each ``--all`` root (each root witnessed first: a folder added under it is a
    change to a remembered run)."""
    out: list[str] = []
    for root in roots:
        before_reading(root)
        found = sorted(p.parent for p in Path(root).rglob("SKILL.md") if not _hidden(p, Path(root)))
        if not Path(root).is_dir():
            raise UsageError(f"--all {root}: no such folder")
        if not found:
            raise UsageError(f"--all {root}: no SKILL.md under it")
        out += [str(p) for p in found]
    return out


def _placed(item: SkillInput, repo: str) -> SkillInput:
    """A skill on disk inside the work tree of the repository audited lies in that folder of it: its links
    above its own folder are then resolved in the repository (as ``--in-repo`` and a catalog's ``path`` do)."""
    if isinstance(item, UnreadableSkill) or item[0].disk is None or is_remote(repo):
        return item
    top = Path(repo)
    if not (top / ".git").exists():
        return item  # a bare repository or a mirror: no work tree the skill could be in
    try:
        folder = Path(item[0].disk).resolve().relative_to(top.resolve())
    except (ValueError, OSError):
        return item
    return (replace(item[0], repo_folder=folder.as_posix()), item[1]) if folder.parts else item


def _first_error(items: list[SkillInput]) -> str:
    return next(item.error for item in items if isinstance(item, UnreadableSkill))


def _hidden(path: Path, root: Path) -> bool:
    return any(part.startswith(".") for part in path.relative_to(root).parts)
