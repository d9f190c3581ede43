"""``anchor-audit impact BASE HEAD``: what a code change does to the skills that quote it."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from ..errors import UsageError
from ..model import ExitCode, UnreadableSkill
from .common import emit, open_sources
from .context import RunContext
from .options import ReportOptions, SourceOptions


def impact(
    options: SourceOptions,
    report_options: ReportOptions,
    ctx: RunContext,
    base: str,
    head: str | None,
    apply: bool = False,
) -> ExitCode:
    """Report every quote, condition and claim BASE..HEAD changes; with ``apply`` write the healing patch.

    ``head`` None: the change ends at the working tree (``options.worktree``), as a pre-commit hook sees it.
    """
    from ..fix.text import DiskText
    from ..fsutil import FileEdit, apply_edits
    from ..impact import impact as find_impacts
    from ..report import impact_renderer

    if options.catalog is not None:
        options = _catalog_skills(options)
    with open_sources(options, [base, head], ctx, git="impact reads a git diff") as sources:
        base_tree, head_tree = sources.git_trees
        on_disk = {item[0].path for item in sources.inputs.disk_skills if isinstance(item, tuple)}
        skills = []
        for item in sources.inputs.skills_at(head_tree):  # the skills as the pull request leaves them
            if isinstance(item, UnreadableSkill):
                ctx.reporter.warn(item.error)
                continue
            skill, entry = item
            if skill.path in on_disk:
                text = DiskText.read(Path(skill.path) / "SKILL.md").text
            else:  # read from HEAD's tree a moment ago, so it is there
                text = head_tree.read(f"{skill.path.strip('/')}/SKILL.md").text  # type: ignore[union-attr]
            skills.append((skill, entry, text))
        spec = sources.inputs.spec
        registry = (spec.path, DiskText.read(spec.path).text) if spec else None
        report = find_impacts(base_tree, head_tree, skills, sources.judge, registry)
    edits = []  # checked before any output, so a refusal leaves nothing half-written
    for name, text, healed in report.healed if apply else ():
        disk = DiskText.read(Path(name))
        if disk.text != text:
            at = head or "the working tree"
            raise UsageError(f"{name}: differs from the skill at {at}; check out HEAD first; nothing written")
        edits.append(FileEdit(Path(name), disk.raw, disk.encode(healed)))
    writer = impact_renderer(report_options.format, report_options.color)
    emit(lambda stream: writer(report, stream), report_options.output)
    for path in apply_edits(edits):
        ctx.reporter.say(f"wrote {path}")
    return report.exit_code


def _catalog_skills(options: SourceOptions) -> SourceOptions:
    """``--catalog DIR``: the catalog's skills whose component is the repository of the change (``--repo``)."""
    import git

    from ..catalog import repo_key
    from ..spec.catalog import load_catalog

    if options.skill_dirs or options.all_roots or options.in_repo:
        raise UsageError("impact --catalog takes the catalog's skills; drop SKILL_DIR, --all and --in-repo")
    if not options.repo:
        raise UsageError("impact --catalog needs --repo: the code repository whose change it is")
    names = {repo_key(options.repo)}
    if Path(options.repo).is_dir():  # a local clone: its remotes say which component it is
        try:
            names |= {repo_key(url) for remote in git.Repo(options.repo).remotes for url in remote.urls}
        except (git.InvalidGitRepositoryError, git.NoSuchPathError, git.GitCommandError):
            pass  # open_sources says what is wrong with it
    here = Path(options.repo).resolve()
    names |= {repo_key(url) for url, where in options.mirrors if Path(where).resolve() == here}  # --mirror URL=DIR
    root = Path(options.catalog or ".")
    components = load_catalog(root)
    folders = tuple(
        str(root / "skills" / s.catalog_dir) for c in components if repo_key(c.repo) in names for s in c.skills
    )
    if not folders:
        known = ", ".join(sorted({c.repo for c in components if c.repo})) or "none"
        raise UsageError(f"{root}: no component of the catalog is {options.repo} (components: {known})")
    return replace(options, catalog=None, skill_dirs=folders)
