"""What a run learns beside the quotes and claims: each catalog component and the folders no component names,
the dates a card gives that the history contradicts, and who owns a skill at its source."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Contradiction:
    """What the skill relies on that did not hold on the day its card says it was validated: a path a commit
    removed on or before that day, or a quote the code of that day no longer had (``changed``)."""

    path: str  # the path, or for a quote its key PATH:START-END
    commit: str  # the removing commit, or for a quote the commit of that day
    day: str  # that commit's day
    validated_on: str
    changed: bool = False  # a quote, not a removal

# How a card's validated_on day becomes a commit (source/githistory.py does it; every report says it).
VALIDATION_RULE = "the last first-parent commit of the default branch on or before the end of that day (UTC)"


@dataclass(frozen=True)
class ValidationDay:
    """The commit a card's ``validated_on`` day resolved to, the code its claims are judged from."""

    day: str
    commit: str | None  # None: this source has no history to resolve it in
    date: str | None = None  # the commit's own date

    @property
    def said(self) -> str:
        if self.commit is None:
            return (f"validated_on {self.day}: no commit (this source has no history); drifted quotes are judged "
                    "as quoted")  # fmt: skip
        return (f"validated_on {self.day} is commit {self.commit[:10]} of {self.date} (the default branch's last "
                "commit on or before that day, UTC)")  # fmt: skip


def contradiction_lines(found: tuple[Contradiction, ...]) -> list[str]:
    """In words, one line per removing commit: ``validated_on 2026-08-05, but a.py was removed in e577829e1 on
    2026-07-09`` (several paths of one commit named together)."""
    by_commit: dict[str, list[Contradiction]] = {}
    for c in found:
        if not c.changed:
            by_commit.setdefault(c.commit, []).append(c)
    lines = [f"validated_on {c.validated_on}, but the quote {c.path} did not hold at that day's commit "
             f"{c.commit[:9]} ({c.day}): the code had changed before" for c in found if c.changed]
    for commit, group in by_commit.items():
        first = group[0]
        paths = [c.path for c in group]
        what = paths[0] + " was" if len(paths) == 1 else f"{len(paths)} paths it relies on were"
        listed = f": {', '.join(paths)}" if len(paths) > 1 else ""
        lines.append(f"validated_on {first.validated_on}, but {what} removed in {commit[:9]} on {first.day}{listed}")
    return lines


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
        return self.skipped.split(": ", 1)[1] if self.skipped.startswith("cannot reach ") else self.skipped

    @property
    def unresolved_host(self) -> str | None:
        """The host whose name did not resolve, when that is why it was skipped (one cause for all its components)."""
        said = (self.skipped or "").endswith(UNRESOLVED) and self.cause
        return said.removesuffix(UNRESOLVED) if said else None


# How a catalog says a component was skipped because its host's name does not resolve (tried once per run).
UNRESOLVED = " could not be resolved"


@dataclass(frozen=True)
class Owners:
    """Who can heal a skill at its source: ``names`` as the source gives them (``@org/team``; a commit author's
    name), and where they come from (``.github/CODEOWNERS:12``, ``recent commits to skills/x``)."""

    names: tuple[str, ...]
    source: str

    @property
    def said(self) -> str:
        return f"{', '.join(self.names)} ({self.source})"


@dataclass(frozen=True)
class FolderRename:
    """A rename of the skill's folder (``resiliency`` -> ``nemo-mbridge-resiliency``) that was applied inside the
    paths it cites too, where the code kept the old name: one fact for the skill, not one per path."""

    written: str  # the skill's name as its paths have it
    code_has: str  # the form the code's paths have
    paths: tuple[tuple[str, str], ...]  # (the path as cited, the path that is there), each once
    files: tuple[str, ...]  # the skill's files that cite them (SKILL.md, card.yaml)
    commit: str | None = None  # the commit that renamed the folder, where the history says
    day: str | None = None

    @property
    def said(self) -> str:
        when = f" in {self.commit[:9]} on {self.day}" if self.commit else ""
        n = len(self.paths)
        shown = "; ".join(f"{a} -> {b}" for a, b in self.paths)
        return (f"the rename of the skill's folder {self.code_has} -> {self.written}{when} also rewrote {n} "
                f"path{'s' if n != 1 else ''} in {' and '.join(self.files)}, where the code kept {self.code_has}: "
                f"{shown}")  # fmt: skip


@dataclass(frozen=True)
class VersionContradiction:
    """A claim the card's ``validated_versions`` says holds for the release audited, and it does not there."""

    claim: str
    specifiers: tuple[str, ...]  # as the card writes them
    release: str  # the version tag (or wheel version) audited
    verdict: str  # the claim's verdict there
    line: int  # the range's line in card.yaml

    @property
    def said(self) -> str:
        return (f"card.yaml says {self.claim} holds for {' or '.join(self.specifiers)}, "
                f"but at {self.release} it is {self.verdict}")  # fmt: skip
