"""``diff``, ``bump``, ``history``, ``matrix`` and ``impact``: the skills at more than one ref of the code."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from ..errors import SpecError, UsageError
from ..model import AnchorStatus, ExitCode, UnreadableSkill
from ..spec import DEFAULT_SPEC
from .common import emit, open_sources
from .context import RunContext
from .options import ReportOptions, SourceOptions

if TYPE_CHECKING:
    from ..fix import FixPlan
    from ..model import Skill
    from ..runs.compare import Comparison
    from ..runs.matrix import CatalogMatrix, Matrix, ReleaseFilter
    from ..source.git import GitTree
    from ..spec.card import Memo
    from ..spec.inputs import AuditInputs
    from .common import Sources

_PINNABLE = re.compile(r"^(v?\d+(\.\d+)*([-.+]?[A-Za-z0-9.]+)?|[0-9a-f]{40})$")  # a version tag, or a full sha
_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def diff(options: SourceOptions, report_options: ReportOptions, ctx: RunContext, old: str, new: str) -> ExitCode:
    """Audit at ``old`` and ``new``; exit 1 when a claim that held at OLD breaks at NEW."""
    comparison, _, _ = _compare(options, ctx, old, new)
    emit(lambda stream: _render(report_options, comparison, stream), report_options.output)
    return comparison.exit_code


def bump(
    options: SourceOptions,
    report_options: ReportOptions,
    ctx: RunContext,
    new: str,
    force: bool = False,
    heal: bool = False,
) -> ExitCode:
    """diff from the pinned ref to ``new``; rewrite the pin when nothing breaks (or with ``force``), and say what
    ``fix`` would heal at ``new``; with ``heal`` (``--fix``) write that too, pin and healing in one transaction."""
    from ..fix.anchorsyaml import rewrite_pin
    from ..fix.text import DiskText
    from ..spec.registry import load_spec
    from ..text.fsutil import FileEdit, apply_edits

    spec = load_spec(Path(options.spec or DEFAULT_SPEC))
    comparison, plan, moved_in_repo = _compare(options, ctx, spec.source.ref, new, spec_path=str(spec.path), plan=True)
    emit(lambda stream: _render(report_options, comparison, stream), report_options.output)
    if comparison.breaks and not force:
        ctx.reporter.say(f"not bumped: claims break at {new}; --force bumps anyway")
        return ExitCode.DRIFT
    edits = list(plan.edits) if plan is not None and heal else []
    registry = next((e for e in edits if e.path.resolve() == spec.path.resolve()), None)
    disk = DiskText.read(spec.path)
    # A pin must not move: a version tag or a sha is kept as written; HEAD or a branch is pinned to its commit.
    pin = new if _PINNABLE.match(new) or comparison.new.commit is None else comparison.new.commit
    try:  # on top of fix's own edit of anchors.yaml (its quote keys), when --fix makes one
        text = rewrite_pin(DiskText.decode(registry.after).text if registry else disk.text, pin, spec.path)
    except ValueError as exc:
        raise UsageError(f"{spec.path}: {exc}") from None
    edits = [e for e in edits if e is not registry] + [FileEdit(spec.path, disk.raw, disk.encode(text))]
    apply_edits(edits)  # the pin and the healing: all of them written, or none
    ctx.reporter.say(
        f"{spec.path}: source.ref {spec.source.ref} -> {pin}" + (f" ({new} at bump time)" if pin != new else "")
    )
    for line in (plan.done if plan is not None else []):
        ctx.reporter.say(("healed: " if heal else "fix would heal: ") + line)
    if plan is not None and plan.done and not heal:
        ctx.reporter.say(f"run `anchor-audit fix --write` (or bump {new} --fix next time) to heal them at {pin}")
    if moved_in_repo:  # --in-repo: the skills are the repository's, healed there, never from here
        quotes = f"{moved_in_repo} quote{'s' if moved_in_repo != 1 else ''}"
        ctx.reporter.say(f"{quotes} moved at {new} in the repository's own skills: --fix does not write into the "
                         f"repository; run `anchor-audit fix --write` in a checkout of {pin} to heal them")  # fmt: skip
    return comparison.exit_code


def history(
    options: SourceOptions, report_options: ReportOptions, ctx: RunContext, since: str | None, until: str
) -> ExitCode:
    """The timeline of every quote and claim over ``since..until`` (git only)."""
    from ..report import history_renderer
    from ..runs.history import SkillSource
    from ..runs.history import history as timeline
    if options.all_roots:
        raise UsageError("history follows named skills; give SKILL_DIR arguments instead of --all")
    if ctx.record is not None:  # witnessed before it is read (runs/remembered.py)
        ctx.record.before_reading_file(options.spec or DEFAULT_SPEC)
    given_since = since
    with open_sources(options, [until], ctx, full_history=True, git="history reads git") as sources:
        (tree,) = sources.git_trees
        inputs = sources.inputs
        skills = [SkillSource(item[0].name, disk=item[0]) for item in inputs.disk_skills if isinstance(item, tuple)]
        skills += [SkillSource(folder.strip("/").rsplit("/", 1)[-1], in_repo=folder) for folder in inputs.repo_skills]
        progress = sources.progress
        if since is None:  # by default the story starts where the skills were last validated
            in_repo = _in_repo(tree, inputs.repo_skills, sources.judge.memo.remember)
            since = _validated_start(tree, [s.disk for s in skills if s.disk] + in_repo)
        result = timeline(tree, skills, inputs.spec, since, until, sources.judge, progress, jobs=sources.jobs)
        progress("", 1.0)
        if ctx.record is not None:
            ctx.record.saw_history(inputs, tree, given_since, result.unsettled)
    render = history_renderer(report_options.format, report_options.color)
    emit(lambda stream: render(result, stream), report_options.output)
    return ExitCode.OK


def _compare(
    options: SourceOptions, ctx: RunContext, old: str, new: str, spec_path: str | None = None, plan: bool = False
) -> tuple[Comparison, FixPlan | None, int]:
    """The audits at ``old`` and ``new`` compared; with ``plan``, what ``fix`` would heal at ``new`` (skills on
    disk only), and how many quotes moved at ``new`` in --in-repo skills (healed in their repository)."""
    from ..fix import plan_fix
    from ..runs.compare import compare

    with open_sources(options, [old, new], ctx, spec_path=spec_path) as sources:
        # Statuses compared, healing planned: no facts of a skill (owners, the card's dates) at either end, so
        # each audit is kept by commit (audit/kept.py) like a history's.
        earlier = _followed(sources) if options.in_repo else None  # an in-repo skill's folder renamed since OLD
        before = sources.audit(sources.trees[0], facts=False, inputs=earlier)
        after = sources.audit(sources.trees[1], facts=False)
        healing, moved = None, 0
        if plan and not options.in_repo:
            inputs = sources.inputs
            healing = plan_fix(after, inputs.disk_skills, inputs.spec, sources.trees[1], False, False)
        elif plan:
            healable = (AnchorStatus.MOVED, AnchorStatus.RELOCATED)
            moved = sum(1 for s in after.skills for m in s.anchors if m.status in healable)
        return compare(before, after), healing, moved


def _followed(sources: Sources) -> AuditInputs:
    """The in-repo skills where they were at OLD: a folder renamed between OLD and NEW is read from its old place,
    under its name at NEW (git's rename detection on SKILL.md, as ``history`` follows it)."""
    from ..runs.history import folder_in, skill_locations

    inputs = sources.inputs
    old, new = sources.git_trees
    folders, names = [], {}
    for folder in inputs.repo_skills:
        was = folder
        if old.blob_id(f"{folder.strip('/')}/SKILL.md") is None and new.info.commit:
            try:
                was = folder_in(old, skill_locations(new, new.info.commit, folder)) or folder
            except SpecError:
                was = folder  # not in NEW's history either: reading it at OLD says so
        folders.append(was)
        names[was] = folder.strip("/").rsplit("/", 1)[-1]
    return replace(inputs, repo_skills=folders, repo_names=names)


def _render(options: ReportOptions, comparison: Comparison, stream: TextIO) -> None:
    from ..report import comparison_renderer

    comparison_renderer(options.format, options.color)(comparison, stream)


def _in_repo(tree: GitTree, folders: list[str], memo: Memo) -> list[Skill]:
    from ..errors import SpecError
    from ..spec.skill import load_skill_from_tree

    out = []
    for folder in folders:
        try:
            out.append(load_skill_from_tree(tree, folder, memo))
        except SpecError:
            continue  # history reports it in its own way
    return out


def _validated_start(tree: GitTree, skills: list[Skill]) -> str | None:
    """The commit the earliest ``validated_on`` of the skills' cards names (None: no card gives a date)."""
    days = sorted(
        s.card.validated_on for s in skills if s.card and s.card.validated_on and _DAY.match(s.card.validated_on)
    )
    return tree.history.commit_on_or_before(days[0], tree.commit.hexsha) if days else None


def matrix(
    options: SourceOptions, report_options: ReportOptions, ctx: RunContext, tags: str | None = None,
    pre: bool = False, since: str | None = None, until: str | None = None, write_card: bool = False,
) -> ExitCode:  # fmt: skip
    """Every release tag audited; per claim the releases it holds for (git only); with ``write_card`` those
    ranges written into each card.yaml on disk."""
    from ..report import matrix_renderer
    from ..runs.matrix import ReleaseFilter, build_matrix

    which = ReleaseFilter(tags, pre, since, until)
    if write_card and options.in_repo:
        raise UsageError("--write-card edits cards on disk; an --in-repo skill's card is changed in its repository")
    render = matrix_renderer(report_options.format, report_options.color, report_options.verbose)
    if options.catalog is not None:
        if write_card:
            raise UsageError("--write-card edits the cards of skills given on disk, not a catalog's signed copies")
        result = _catalog_matrix(options, ctx, which)
        emit(lambda stream: render(result, stream), report_options.output)
        return ExitCode.OK
    with open_sources(options, ["HEAD"], ctx, tags=True, git="matrix reads the release tags") as sources:
        (tree,) = sources.git_trees
        inputs = sources.inputs
        releases = which.of(tree)
        if write_card and not releases:
            raise UsageError("--write-card: no release tags to take the ranges from; nothing written")
        one = build_matrix(tree, releases, inputs, sources.judge)
    emit(lambda stream: render(one, stream), report_options.output)
    if write_card:
        _write_cards(one, [item[0] for item in inputs.disk_skills if isinstance(item, tuple)], ctx)
    return ExitCode.OK


def _catalog_matrix(options: SourceOptions, ctx: RunContext, which: ReleaseFilter) -> CatalogMatrix:
    """``matrix --catalog DIR``: each component's skills over its own repository's releases."""
    from ..runs.matrix import build_catalog_matrix
    from .common import catalog_registry

    spec = catalog_registry(options)
    with open_sources(options, (), ctx, tags=True) as sources:
        root, mirrors = Path(options.catalog or "."), dict(options.mirrors)
        result = build_catalog_matrix(root, spec, sources.judge, sources.open_repository, mirrors, which,
                                      sources.progress)  # fmt: skip
    for line in result.skipped:
        ctx.reporter.say(line)
    if not result.matrices:
        raise UsageError(f"{options.catalog}: no component could be read at its release tags")
    return result


def _write_cards(result: Matrix, skills: list[Skill], ctx: RunContext) -> None:
    """Each card's ``validated_versions`` from the matrix: every card written, or none."""
    from ..fix.cardversions import card_value, write_validated_versions
    from ..fix.text import DiskText
    from ..text.fsutil import FileEdit, apply_edits

    edits, said = [], []
    for skill in skills:
        if skill.card is None:
            said.append(f"{skill.path}: no card.yaml; nothing written")
            continue
        held = result.claim_ranges(skill.name)
        ranges = {c.id: held[c.id] for c in skill.card.claims if c.id in held}  # in the card's order
        if not ranges:
            said.append(f"{skill.card.path}: no claim was checked at any release (doc_only or unlinked); "
                        "nothing written")  # fmt: skip
            continue
        disk = DiskText.read(skill.card.path)
        value = card_value(ranges)
        after = write_validated_versions(disk.text, value, result.span, skill.card.path)
        if after != disk.text:
            edits.append(FileEdit(skill.card.path, disk.raw, disk.encode(after)))
        shown = " or ".join(value) if isinstance(value, list) else "; ".join(
            f"{claim} {' or '.join(r) or 'no release'}" for claim, r in value.items())  # fmt: skip
        what = f"{shown or 'no release'} for every claim" if isinstance(value, list) else f"per claim: {shown}"
        said.append(f"{skill.card.path}: validated_versions {what}" + ("" if after != disk.text else " (as it was)"))
    apply_edits(edits)
    for line in said:
        ctx.reporter.say(line)

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
    from ..report import impact_renderer
    from ..runs.impact import impact as find_impacts
    from ..text.fsutil import FileEdit, apply_edits

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

    from ..runs.catalog import repo_key
    from ..spec.components import load_catalog

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
    # --repo URL with --mirror URL=DIR: the change is read from the local copy, as check --catalog reads it
    local = next((where for url, where in options.mirrors if repo_key(url) == repo_key(options.repo)), None)
    root = Path(options.catalog or ".")
    components = load_catalog(root)
    folders = tuple(
        str(root / "skills" / s.catalog_dir) for c in components if repo_key(c.repo) in names for s in c.skills
    )
    if not folders:
        known = ", ".join(sorted({c.repo for c in components if c.repo})) or "none"
        raise UsageError(f"{root}: no component of the catalog is {options.repo} (components: {known})")
    return replace(options, catalog=None, skill_dirs=folders, repo=local or options.repo)
