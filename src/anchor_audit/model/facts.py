"""What a catalog run learns beside the audit: how each copy stands to its upstream, each component, the folders
no component names, and the dates a card gives that the code contradicts."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .results import SourceInfo


@dataclass(frozen=True)
class Contradiction:
    """A path the skill relies on that a commit removed on or before the day its card says it was validated."""

    path: str
    commit: str
    day: str  # the commit's UTC day
    validated_on: str



def contradiction_lines(found: tuple[Contradiction, ...]) -> list[str]:
    """In words, one line per removing commit: ``validated_on 2026-08-05, but a.py was removed in e577829e1 on
    2026-07-09`` (several paths of one commit named together)."""
    by_commit: dict[str, list[Contradiction]] = {}
    for c in found:
        by_commit.setdefault(c.commit, []).append(c)
    lines = []
    for commit, group in by_commit.items():
        first = group[0]
        paths = [c.path for c in group]
        what = paths[0] + " was" if len(paths) == 1 else f"{len(paths)} paths it relies on were"
        listed = f": {', '.join(paths)}" if len(paths) > 1 else ""
        lines.append(f"validated_on {first.validated_on}, but {what} removed in {commit[:9]} on {first.day}{listed}")
    return lines


@dataclass(frozen=True)
class SyncFacts:
    """How a catalog's copy of a skill stands to the repository's copy at the component's ref.

    ``absent``: the repository has no such folder at the ref (one fact, not one line per file).  A copy that
    differs is *behind* when an earlier upstream commit's folder equals it (``matches``, ``behind`` commits to
    the folder ago); when none of the ``searched`` commits does, it is ahead of upstream or diverged from it.
    """

    files: tuple[str, ...] = ()  # "SKILL.md (differs)", "x (only in the catalog)", "y (only in the repository)"
    absent: bool = False
    matches: str | None = None  # the upstream commit whose folder is the catalog's copy
    matches_date: str | None = None
    behind: int = 0  # upstream commits to the folder since ``matches``
    searched: int = 0  # upstream commits to the folder compared with the copy, when none matched
    catalog_date: str | None = None  # the catalog's last commit to the copy (its git history), when known

    @property
    def differs(self) -> bool:
        return self.absent or bool(self.files)

    def summary(self, upstream: SourceInfo | None = None) -> str:
        """In words: ``3 files differ; the copy is upstream's of 3f2a1c9bd (2026-06-02), 14 commits behind``."""
        if self.absent:
            at = f" at {upstream.ref} ({(upstream.commit or '')[:9]}, {upstream.date})" if upstream else ""
            return f"folder absent upstream{at}"
        if not self.files:
            return "in sync"
        n = len(self.files)
        files = f"{n} file{'s differ' if n != 1 else ' differs'}"
        if self.matches is not None:
            commits = f"{self.behind} commit{'s' if self.behind != 1 else ''} to the folder behind"
            return f"{files}; the copy is upstream's of {self.matches[:9]} ({self.matches_date}), {commits}"
        if self.searched:
            compared = f"({self.searched} compared)"
            return f"{files}; the copy is no upstream version of the folder {compared}: ahead, or diverged"
        return files


@dataclass(frozen=True)
class ComponentInfo:
    """A catalog component: where its skills came from, and why none were audited, if so."""

    file: str  # components.d/NAME.yml
    repo: str  # the repository's URL ("" when the component file is not right)
    ref: str
    skills: tuple[str, ...]  # its catalog_dirs, in the file's order
    commit: str | None = None  # the ref's commit, when the repository was opened
    date: str | None = None  # that commit's date
    skipped: str | None = None  # why its skills were not audited

    @property
    def cause(self) -> str | None:
        """Why it was skipped, without its own URL: what components skipped for one reason share."""
        if self.skipped is None:
            return None
        why = self.skipped.split(": ", 1)[1] if self.skipped.startswith("cannot reach ") else self.skipped
        return why.removesuffix(SAID_ONCE)

    @property
    def unresolved_host(self) -> str | None:
        """The host whose name did not resolve, when that (said by an earlier fetch) is why it was skipped."""
        said = (self.skipped or "").endswith(UNRESOLVED + SAID_ONCE) and self.cause
        return said.removesuffix(UNRESOLVED) if said else None


# How a catalog says a component was skipped because an earlier fetch found its host's name does not resolve.
UNRESOLVED = " could not be resolved"
SAID_ONCE = " (said once, by the first fetch from it)"


@dataclass(frozen=True)
class UnlistedFolder:
    """A folder of the catalog's skills/ that no component names: not audited, and why."""

    name: str
    listed_in: str | None = None  # the exception file that names it (catalog-exceptions.yml), if any
    reason: str | None = None  # the reason that file gives, if any
