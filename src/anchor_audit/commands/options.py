"""The command line, parsed once: frozen option objects the commands take (and Python callers can build)."""

from __future__ import annotations

from dataclasses import dataclass

# --ref validated: each skill at the commit its card's validated_on names.
VALIDATED = "validated"


@dataclass(frozen=True)
class SourceOptions:
    """Where the skills and the code come from: what every auditing command needs.

    ``release`` is None (read git), ``""`` (the wheel of the ref's version)
    or a VERSION; ``installed`` is None, ``""`` (the registry's dist) or a
    DIST.  Where the run caches is the run's, not the sources': see
    :class:`~anchor_audit.commands.context.RunContext`.
    """

    spec: str | None = None
    skill_dirs: tuple[str, ...] = ()
    all_roots: tuple[str, ...] = ()
    repo: str | None = None
    ref: str | None = None
    in_repo: bool = False
    release: str | None = None
    installed: str | None = None
    submodules: tuple[tuple[str, str], ...] = ()  # (path in the repository, URL or local git dir)
    allow: tuple[str, ...] = ()  # extra git transports for the main repository
    catalog: str | None = None  # a skills catalog folder (components.d/, skills/)
    mirrors: tuple[tuple[str, str], ...] = ()  # (repository URL or OWNER/NAME, local git dir to read it from)
    worktree: str | None = None  # a git working tree read as it is on disk (--worktree DIR); a ref of None reads it


@dataclass(frozen=True)
class ReportOptions:
    """How a report is written."""

    format: str = "terminal"
    output: str | None = None  # a file (written atomically), or None: stdout
    verbose: bool = False
    link_base: str | None = None  # https://github.com/OWNER/REPO for Markdown links
    also: tuple[tuple[str, str], ...] = ()  # (format, file): more reports of the same run (--report)
    color: str = "auto"  # the terminal report's colour: auto, always, never
    group_by: str | None = None  # "owner": one section per owner (terminal, Markdown)
