"""What the language server knows between messages: its settings, the registry, the code's tree, the results.

Nothing here speaks the protocol: a :class:`Session` takes the text of a
skill's files (as the editor has them, saved or not) and returns a
:class:`SkillCheck`, the same :class:`~anchor_audit.model.SkillReport` and
findings ``check`` would give for that skill.  One session serves one
workspace; it is used from one thread at a time (the server's worker).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Mapping

from ..commands.context import RunContext
from ..errors import AuditError, SpecError
from ..findings import Finding, skill_findings
from ..model import Skill, SkillReport, SkillSpec, Spec
from ..source import SourceTree, is_remote

SOURCES = ("auto", "registry", "worktree")
REGISTRY = "anchors.yaml"
SKILL_FILES = ("SKILL.md", "card.yaml")


@dataclass(frozen=True)
class Settings:
    """What the editor may set (``initializationOptions``, or ``anchor-audit`` in ``workspace/didChangeConfiguration``).

    ``source``: ``registry`` reads the code at the registry's pinned ref; ``worktree``, the working tree of
    ``worktree`` (default: the registry's ``source.repo`` where it is a local folder, else the workspace);
    ``auto`` (the default): the registry's ref where the registry names one, else the working tree.
    """

    source: str = "auto"
    spec: str | None = None  # the registry (default: anchors.yaml at the workspace's top, if there is one)
    worktree: str | None = None
    baseline: str | None = None  # accepted findings: not shown, and where "accept" code actions write

    @classmethod
    def read(cls, data: object, root: Path | None = None) -> tuple["Settings", list[str]]:
        """Settings from what a client sent (untrusted: a wrong type is ignored and said), and what was ignored.

        A client passes on what a workspace's own settings file says (``.vscode/settings.json``, which a cloned
        repository controls): ``spec`` and ``baseline``, the files code actions edit, must lie in the workspace
        ``root``; one outside it is ignored and said."""
        said: list[str] = []
        if isinstance(data, Mapping) and isinstance(data.get("anchor-audit"), Mapping):
            data = data["anchor-audit"]
        if not isinstance(data, Mapping):
            return cls(), ([] if data is None else ["settings: not a mapping; ignored"])
        values: dict[str, Any] = {}
        for key in ("source", "spec", "worktree", "baseline"):
            value = data.get(key)
            if value is None:
                continue
            if not isinstance(value, str) or (key == "source" and value not in SOURCES):
                said.append(f"settings: {key} {str(value)[:80]!r} ignored" + (
                    f" (one of {', '.join(SOURCES)})" if key == "source" else " (a path)"))  # fmt: skip
                continue
            if key in ("spec", "baseline") and root is not None and not _inside(root, value):
                said.append(f"settings: {key} {value[:80]!r} is outside the workspace; ignored (code actions edit it)")
                continue
            values[key] = value
        said += [f"settings: unknown key {str(k)[:40]!r} ignored" for k in data if k not in cls.__dataclass_fields__]
        return cls(**values), said


@dataclass(frozen=True)
class SkillCheck:
    """One skill checked: what it said, against which code, and what was found (every finding, by file)."""

    folder: Path
    skill: Skill | None  # None: the skill could not be read (``findings`` has the one error)
    entry: SkillSpec | None
    report: SkillReport
    findings: tuple[Finding, ...]
    tree: SourceTree | None
    source: str  # the code's label, as reports say it


class Session:
    """One workspace's state: settings, the registry (from the editor's buffer if open), the code's tree."""

    def __init__(self, root: Path, settings: Settings, ctx: RunContext) -> None:
        self.root, self.settings, self.ctx = root.resolve(), settings, ctx
        self.judge = ctx.judge()
        self.registry_text: str | None = None  # anchors.yaml as the editor has it (None: as on disk)
        self._spec: tuple[Spec | None] | None = None
        self._tree: SourceTree | None = None
        self._accepted: frozenset[str] | None = None

    # ------------------------------------------------------------------ what the skills are checked against

    @property
    def registry_path(self) -> Path | None:
        if self.settings.spec is not None:
            return (self.root / self.settings.spec).resolve()
        found = self.root / REGISTRY
        return found if found.is_file() else None

    def spec(self) -> Spec | None:
        """The registry (None: there is none); a :class:`SpecError` when it does not parse."""
        if self._spec is None:
            from ..spec.registry import load_spec, parse_spec

            path = self.registry_path
            if path is None:
                self._spec = (None,)
            else:
                self._spec = (parse_spec(self.registry_text, path) if self.registry_text is not None
                              else load_spec(path),)  # fmt: skip
        return self._spec[0]

    def registry_changed(self, text: str | None) -> None:
        """anchors.yaml edited (``text``) or closed (None: read from disk again): its source may be another."""
        self.registry_text, self._spec, self._tree = text, None, None

    def code_changed(self) -> bool:
        """A file of the code was saved: a working tree is read again at the next check; whether one is read."""
        if self.mode() != "worktree":
            return False
        self._tree = None
        return True

    def mode(self) -> str:
        if self.settings.source != "auto":
            return self.settings.source
        try:
            spec = self.spec()
        except AuditError:
            return "worktree"
        return "registry" if spec is not None and spec.source.repo and spec.source.ref else "worktree"

    def tree(self) -> SourceTree:
        """The code's tree, opened once (a working tree: again after each :meth:`code_changed`)."""
        if self._tree is None:
            self._tree = self._open()
        return self._tree

    def _open(self) -> SourceTree:
        from ..source.git import open_git
        from ..source.worktree import open_worktree

        spec = self.spec()
        memo = self.judge.memo.remember
        if self.mode() == "worktree":
            folder = self._worktree_dir(spec)
            guessed = self.settings.source == "auto" and self.settings.worktree is None
            if guessed and spec is None and _catalog(folder):
                raise SpecError(f"{folder}: a skills catalog (components.d), not the code its skills quote, and no "
                                f"{REGISTRY} names that code: `anchor-audit check --catalog {folder}` checks each "
                                "skill against its own component's repository; to check here, set "
                                "anchor-audit.source to worktree and anchor-audit.worktree to the code's working "
                                "tree")  # fmt: skip
            return open_worktree(str(folder), self.ctx.cache_dir, memo=memo)
        if spec is None or not spec.source.repo or not spec.source.ref:
            raise SpecError(f"{self.registry_path or REGISTRY}: names no source.repo and source.ref to check against")
        return open_git(self._repo(spec), spec.source.ref, self.ctx.cache_dir, memo=memo)

    def _repo(self, spec: Spec) -> str:
        repo = spec.source.repo
        return repo if is_remote(repo) or os.path.isabs(repo) else str((spec.path.parent / repo).resolve())

    def worktree_dir(self) -> Path:
        """The working tree read in ``worktree`` mode."""
        return self._worktree_dir(self.spec())

    def _worktree_dir(self, spec: Spec | None) -> Path:
        if self.settings.worktree is not None:
            return (self.root / self.settings.worktree).resolve()
        if spec is not None and spec.source.repo and not is_remote(spec.source.repo):
            local = Path(self._repo(spec))
            if local.is_dir():
                return local
        return self.root

    def accepted(self) -> frozenset[str]:
        """The finding keys the baseline accepts (none without one; a bad baseline accepts none)."""
        if self._accepted is None:
            from ..findings.baseline import load_baseline

            path = self.baseline_path
            try:
                self._accepted = load_baseline(path).keys if path is not None and path.is_file() else frozenset()
            except AuditError:
                self._accepted = frozenset()
        return self._accepted

    @property
    def baseline_path(self) -> Path | None:
        return (self.root / self.settings.baseline).resolve() if self.settings.baseline else None

    def baseline_changed(self) -> None:
        self._accepted = None

    # ------------------------------------------------------------------ checking one skill

    def check(self, folder: Path, texts: Mapping[str, str]) -> SkillCheck:
        """The skill in ``folder``, its SKILL.md and card.yaml as ``texts`` has them (else as on disk), checked.

        Raises :class:`~anchor_audit.errors.AuditError` where nothing can be checked (the registry does not
        parse, the code cannot be opened): the server says so on the skill's first line.
        """
        from ..audit.skills import audit_skill
        from ..spec.skill import skill_from_text

        folder = folder.resolve()
        tree = self.tree()
        spec = self.spec()
        shown = str(folder)
        try:
            skill_md, card = _text(folder, "SKILL.md", texts), _text(folder, "card.yaml", texts)
            if skill_md is None:
                raise SpecError(f"{shown}: no SKILL.md")
            skill = skill_from_text(folder.name, shown, skill_md, folder / "SKILL.md", card, folder / "card.yaml",
                                    self.judge.memo.remember)  # fmt: skip
        except SpecError as exc:
            report = SkillReport(folder.name, shown, (), (), error=str(exc))
            return SkillCheck(folder, None, None, report, tuple(skill_findings(report)), tree, tree.info.label)
        skill = self._placed(replace(skill, disk=shown, disk_root=shown))
        entry = spec.skill(skill.name) if spec else None
        report = audit_skill(skill, entry, tree, self.judge)
        accepted = self.accepted()
        found = tuple(f for f in skill_findings(report) if f.key not in accepted)
        return SkillCheck(folder, skill, entry, report, found, tree, tree.info.label)

    def _placed(self, skill: Skill) -> Skill:
        """A skill inside the working tree being read lies in that folder of it (its links above it resolve there)."""
        if self.mode() != "worktree":
            return skill
        try:
            inside = Path(skill.disk or "").relative_to(self._worktree_dir(self.spec()))
        except ValueError:
            return skill
        return replace(skill, repo_folder=inside.as_posix()) if inside.parts else skill

    def code_at(self, path: str, start: int, end: int) -> list[str] | None:
        """Lines START..END of ``path`` in the code's tree (None: not there, or not readable)."""
        try:
            source = self.tree().read(path)
        except AuditError:
            return None
        if source is None:
            return None
        lines = source.text.split("\n")
        return lines[max(start - 1, 0) : end]


def skill_folder(path: Path) -> Path | None:
    """The skill folder a file belongs to (its own folder, for SKILL.md and card.yaml); None for other files."""
    return path.parent if path.name in SKILL_FILES else None


def _inside(root: Path, value: str) -> bool:
    """Whether ``value`` (relative to ``root``, or absolute) names a file under ``root``, links resolved."""
    try:
        return (root / value).resolve().is_relative_to(root.resolve())
    except (OSError, ValueError, RuntimeError):
        return False


def _text(folder: Path, name: str, texts: Mapping[str, str]) -> str | None:
    """A file of the skill as the editor holds it (else as on disk), bounded as ``check`` bounds a skill file."""
    from ..spec.skill import MAX_SKILL_BYTES
    from ..text.fsutil import read_input

    if name in texts:
        if len(texts[name]) > MAX_SKILL_BYTES or len(texts[name].encode("utf-8", "surrogatepass")) > MAX_SKILL_BYTES:
            raise SpecError(f"{folder / name}: larger than {MAX_SKILL_BYTES // (1024 * 1024)} MiB; not a skill file")
        return texts[name]
    path = folder / name
    if not path.is_file():
        return None
    return read_input(path, MAX_SKILL_BYTES, "a skill file").decode("utf-8-sig", "replace")


def _catalog(folder: Path) -> bool:
    """Whether ``folder`` is a skills catalog's checkout: ``components.d/*.yml`` naming each skill's repository."""
    listing = folder / "components.d"
    return listing.is_dir() and not listing.is_symlink() and any(listing.glob("*.yml"))
