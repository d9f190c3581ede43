"""``init`` and ``cache``: drafting registry entries, managing the cache."""

from __future__ import annotations

import sys
import time
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from ..errors import NotCarried, UnreadableFile, UsageError
from ..model import ExitCode
from ..report.reporter import Reporter
from .common import open_sources
from .context import RunContext
from .options import SourceOptions

if TYPE_CHECKING:
    from ..fix.draft import DraftClaim
    from ..model import Skill
    from ..source import SourceTree
    from ..spec.components import Component
    from .common import Sources


def init(
    skill_dir: str | None,
    ctx: RunContext,
    repo: str | None = None,
    ref: str | None = None,
    catalog: str | None = None,
    mirrors: tuple[tuple[str, str], ...] = (),
    out: TextIO | None = None,
    worktree: str | None = None,
    submodules: tuple[tuple[str, str], ...] = (),
    allow: tuple[str, ...] = (),
) -> ExitCode:
    """Draft an anchors.yaml that runs, for the skill in ``skill_dir`` or every skill of ``catalog``.

    The code is read from ``repo`` at ``ref`` (default: the git repository the skill folder is in, at HEAD),
    or from the working tree ``worktree`` is in (its registry pins HEAD), conditions from the commit the card's
    ``validated_on`` names where git has it.
    """
    from ..fix.draft import draft_skill, relative, render_registry
    from ..spec.skill import MAX_SKILL_BYTES, load_skill
    from ..text.fsutil import read_input

    if catalog is not None:
        return _init_catalog(Path(catalog), ctx, dict(mirrors), out or sys.stdout, SourceOptions(submodules=submodules,
                             allow=allow))  # fmt: skip
    if skill_dir is None:
        raise UsageError("init needs SKILL_DIR, or --catalog DIR")
    if worktree is not None and (repo is not None or ref is not None):
        raise UsageError("--worktree reads the code from the working tree; it cannot be used with --repo or --ref")
    skill = load_skill(Path(skill_dir), shown_as=skill_dir)
    guessed = repo is None and worktree is None
    repo = repo or worktree or _work_tree_of(Path(skill_dir))
    if repo is None:
        raise UsageError(f"{skill_dir} is in no git repository: give --repo (and --ref) of the code it quotes")
    ref = ref or "HEAD"
    with open_sources(SourceOptions(submodules=submodules, allow=allow, mirrors=mirrors), (), ctx) as sources:
        tree = sources.open_repository(repo, ref) if worktree is None else _open_worktree(worktree, ctx, sources)
    day = skill.card.validated_on if skill.card else None
    code = (tree.validated_on(day) if day else None) or tree
    text = read_input(Path(skill_dir) / "SKILL.md", MAX_SKILL_BYTES, "a skill file").decode("utf-8-sig", "replace")
    shown_repo = repo if "://" in repo or ":" in repo.split("/", 1)[0] else relative(repo)
    notes = _absent_quoted(skill, tree, shown_repo, ref if worktree is None else "its working tree", guessed)
    for note in notes:
        ctx.reporter.warn(f"init: {note}")
    drafted = [(skill, relative(skill_dir), draft_skill(skill, text, tree, code))]
    registry = render_registry(shown_repo, ref, drafted, notes=notes)
    (out or sys.stdout).write(registry)
    return ExitCode.OK


def _absent_quoted(skill: Skill, tree: SourceTree, repo: str, ref: str, guessed: bool) -> tuple[str, ...]:
    """What the draft cannot stand on: quoted files the source lacks (all of them, when ``--repo`` was guessed as
    the skill's own repository and the skill quotes another)."""
    quoted = sorted({q.path for q in skill.quotes})
    absent: list[str] = []
    unreachable: dict[str, list[str]] = {}
    for path in quoted:
        try:
            if tree.blob_id(path) is None:
                absent.append(path)
        except (NotCarried, UnreadableFile) as exc:  # a submodule out of reach: said, never the draft's end
            unreachable.setdefault(str(exc).split(":", 1)[0], []).append(path)
    notes = [_unreachable(where, paths, len(quoted)) for where, paths in unreachable.items()]
    if absent:
        shown = ", ".join(absent[:3]) + (f" and {len(absent) - 3} more" if len(absent) > 3 else "")
        said = f"{len(absent)} of {len(quoted)} quoted files are not in {repo} at {ref}: {shown}"
        if guessed:
            said += " (no --repo given, so the draft reads the repository the skill is in; give --repo and --ref "
            said += "of the code it quotes)"
        notes.append(said)
    return tuple(notes)


def _unreachable(where: str, paths: list[str], quoted: int) -> str:
    """A note for quoted files in a submodule the draft cannot read (``where``: "submodule PATH at SHA")."""
    folder = where.removeprefix("submodule ").split(" at ", 1)[0]
    return (f"{len(paths)} of {quoted} quoted files are in {where}, which cannot be read here: no condition is "
            f"drafted from them (give --submodule {folder}=URL_OR_DIR)")  # fmt: skip


def _open_worktree(directory: str, ctx: RunContext, sources: Sources) -> SourceTree:
    from ..source.worktree import open_worktree

    return open_worktree(directory, ctx.cache_dir, sources.progress, memo=sources.judge.memo.remember)


def _work_tree_of(folder: Path) -> str | None:
    import git

    try:
        return str(git.Repo(folder, search_parent_directories=True).working_tree_dir)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        return None


def _init_catalog(
    root: Path, ctx: RunContext, mirrors: dict[str, str], out: TextIO, options: SourceOptions
) -> ExitCode:
    """One registry for a whole catalog, its source the catalog: each skill drafted from its own component's
    repository, each repository opened once (a host that does not resolve is tried once)."""
    from ..fix.draft import relative, render_registry
    from ..model import ComponentInfo
    from ..runs.catalog import open_components, repo_key, skip_lines
    from ..spec.components import load_catalog

    mirrors = {repo_key(k): v for k, v in mirrors.items()}
    components = load_catalog(root)
    drafted: list[tuple[Skill, str, list[DraftClaim]]] = []
    infos = []
    with open_sources(options, (), ctx) as sources:
        opened = open_components(components, mirrors, sources.open_repository, sources.progress)
        for component, (tree, why) in zip(components, opened, strict=True):
            names = tuple(s.catalog_dir for s in component.skills)
            infos.append(ComponentInfo(component.file, component.url if component.repo else "", component.ref,
                                       names, skipped=why or None))  # fmt: skip
            if tree is not None:
                drafted += _draft_component(root, component, tree, ctx.reporter)
    for line in skip_lines(infos):
        ctx.reporter.say(line)
    if not any(info.skipped is None for info in infos):
        raise UsageError(f"{root}: no component repository could be reached; nothing drafted")
    out.write(render_registry(None, None, drafted, catalog=relative(str(root))))
    return ExitCode.OK


def _draft_component(
    root: Path, component: Component, tree: SourceTree, reporter: Reporter
) -> list[tuple[Skill, str, list[DraftClaim]]]:
    from ..errors import AuditError
    from ..fix.draft import draft_skill, relative
    from ..spec.skill import MAX_SKILL_BYTES, load_skill
    from ..text.fsutil import read_input

    drafted = []
    for item in component.skills:
        folder = root / "skills" / item.catalog_dir
        try:
            skill = load_skill(folder, shown_as=str(folder))
            text = read_input(folder / "SKILL.md", MAX_SKILL_BYTES, "a skill file").decode("utf-8-sig", "replace")
        except AuditError as exc:
            reporter.say(f"skipped: {exc}")
            continue
        day = skill.card.validated_on if skill.card else None
        code = (tree.validated_on(day) if day else None) or tree
        drafted.append((skill, relative(str(folder)), draft_skill(skill, text, tree, code)))
    return drafted


def cache(action: str, ctx: RunContext, older_than: float | None = None, out: TextIO | None = None) -> ExitCode:
    """``info``: where the cache is, how big, what it holds; ``dir``: its path; ``prune``: remove the mirrors and
    wheels not written to for ``older_than`` days; ``clean``: remove anchor-audit's entries from it."""
    from ..store.cachedir import cache_entries, cache_root, clean_cache, prune_cache

    out = out or sys.stdout
    root = cache_root(ctx.cache_dir)
    if action == "dir":
        out.write(f"{root}\n")
    elif action == "info":
        entries = cache_entries(root) if root.is_dir() else []
        kinds = Counter(e.kind for e in entries)
        said = ", ".join(f"{kinds[k]} {k}{'s' if kinds[k] != 1 else ''}" for k in ("mirror", "wheel") if kinds[k])
        said += (", " if said else "") + "the results store" if kinds["results"] else ""
        out.write(f"{root}: {_size(sum(e.size for e in entries))} in {said or 'nothing'}\n")
        for e in entries:
            day = time.strftime("%Y-%m-%d", time.gmtime(e.written))
            out.write(f"  {e.kind:<8} {_size(e.size):>9}  last written {day}  {e.path.name}\n")
    elif action == "prune":
        if older_than is None:
            raise UsageError("cache prune needs --older-than DAYS")
        removed = prune_cache(root, older_than, time.time())
        freed = _size(sum(e.size for e in removed))
        out.write(f"removed {len(removed)} entr{'y' if len(removed) == 1 else 'ies'} ({freed}) not written to for "
                  f"{older_than:g} days from {root}\n")  # fmt: skip
    elif root.exists() or root.is_symlink():
        clean_cache(root)
        if root.exists():
            out.write(f"removed anchor-audit's entries from {root}; the other files in it were left\n")
        else:
            out.write(f"removed {root}\n")
    else:
        out.write(f"{root} is already empty\n")
    return ExitCode.OK


def _size(n: int) -> str:
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1024  # type: ignore[assignment]
    return f"{n} bytes"
