"""What every command shares: opening the sources once, and writing a report."""

from __future__ import annotations

import contextlib
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterator, Sequence, TextIO

from ..errors import UsageError
from ..model import SourceKind
from ..source import Progress, no_progress
from ..spec import DEFAULT_SPEC
from ..text.fsutil import WriteFailed, write_all
from .context import RunContext
from .options import SourceOptions

if TYPE_CHECKING:
    from ..audit.judge import Judge
    from ..model import AuditReport, ReleaseSpec, Spec
    from ..report.reporter import Reporter
    from ..source import SourceTree
    from ..source.git import GitTree
    from ..spec.card import Memo
    from ..spec.inputs import AuditInputs


@dataclass
class Sources:
    """The registry and skills, a tree per ref asked for, and the judge that shares results between them."""

    loaded: AuditInputs | None  # None: no refs were asked for (a catalog, init): repositories are opened by name
    trees: list[SourceTree]
    judge: Judge
    open_repository: Callable[[str, str], GitTree]  # another repository at a ref, under the same options
    progress: Progress = no_progress
    jobs: int = 1  # worker processes for the skills of one tree (--jobs)

    @property
    def inputs(self) -> AuditInputs:
        if self.loaded is None:
            raise AssertionError("open_sources was asked for no ref: it loaded no inputs")
        return self.loaded

    @property
    def git_trees(self) -> list[GitTree]:
        """The trees, as git trees: only for ``open_sources(..., git=...)``, which refused any other source."""
        from ..source.git import as_git

        return [as_git(tree) for tree in self.trees]

    def audit(self, tree: SourceTree, promises: bool = True, facts: bool = True, inputs: AuditInputs | None = None
              ) -> AuditReport:  # fmt: skip
        """The skills of ``inputs`` (else the run's) audited against ``tree``."""
        from ..audit.skills import audit

        skills = (inputs or self.inputs).skills_at(tree)
        return audit(skills, tree, self.inputs.spec, self.judge, promises, self.progress, self.jobs, facts)


@contextlib.contextmanager
def open_sources(
    options: SourceOptions,
    refs: Sequence[str | None],
    ctx: RunContext,
    *,
    full_history: bool = False,
    tags: bool = False,
    spec_path: str | None = None,
    git: str | None = None,
) -> Iterator[Sources]:
    """Load the inputs and open a tree for each of ``refs`` (None: the registry's or ``--ref``'s).

    The one place every command (check, its catalog and ``--ref validated``,
    fix, diff, bump, history, impact, init) opens sources, and the one place
    every option is applied, so no command can drop one.  With no ``refs``
    nothing is loaded: ``open_repository`` opens repositories by name (a
    catalog's components, init's code).  ``git``: what the command reads of
    git, said when a non-git source is asked for.  A source that reads one
    version whatever the ref (``--installed``, ``--release VERSION``) cannot
    serve two refs, and says so.  ``tags``: a remote's tags fetched too, with
    their history (a matrix reads every release tag), for ``open_repository`` too.
    """
    from ..spec.inputs import load_inputs

    _refuse(options, len(refs), git)
    reporter = ctx.reporter
    judge = ctx.judge()  # first: what the inputs say is remembered too
    progress = reporter.progress()

    def open_repository(where: str, ref: str) -> GitTree:
        from ..source.git import open_git

        return open_git(where, ref, ctx.cache_dir, progress, tags, options.allow, dict(options.submodules) or None,
                        memo=judge.memo.remember, tags=tags, mirrors=dict(options.mirrors) or None)  # fmt: skip

    if not refs:
        yield Sources(None, [], judge, open_repository, progress, ctx.jobs)
        return
    inputs = load_inputs(
        spec_path or options.spec,
        list(options.skill_dirs),
        options.repo if options.worktree is None else options.worktree,
        refs[0] or options.ref or (None if options.worktree is None else SourceKind.WORKTREE.value),
        DEFAULT_SPEC,
        options.in_repo,
        list(options.all_roots),
        judge.memo.remember,
        ctx.record.before_reading_folder if ctx.record is not None else lambda folder: None,
    )
    history, memo = full_history or tags, judge.memo.remember
    if options.worktree is not None:
        trees = _worktree_trees(options, refs, ctx.cache_dir, progress, memo)
    else:
        trees = []
        for ref in refs:  # a second ref of a local repository is another commit of the one opened (diff, impact)
            again = _another_commit(trees[0], ref or inputs.ref, inputs.repo, options) if trees else None
            trees.append(again or _open_tree(inputs, ref, options, ctx.cache_dir, progress, history, memo, tags))
    _warn(reporter, options, inputs, trees)
    yield Sources(inputs, trees, judge, open_repository, progress, ctx.jobs)


def _warn(reporter: Reporter, options: SourceOptions, inputs: AuditInputs, trees: list[SourceTree]) -> None:
    """What the user should know of the sources opened: the registry's warnings, a --repo that only names the
    repository, a yanked release."""
    for warning in inputs.spec.warnings if inputs.spec else ():
        reporter.warn(warning)  # the JSON report lists them too
    if options.repo and (options.release is not None or options.installed is not None):
        reporter.warn(
            f"--repo {options.repo} only names the repository in the report: the code comes from the "
            f"{'release wheel' if options.release is not None else 'installed distribution'}"
        )
    for tree in trees:
        if tree.info.release and "yanked" in tree.info.release:
            release = tree.info.release.removesuffix(" (a yanked release)")
            reporter.warn(f"{release} was yanked from the package index")


def registry_path(options: SourceOptions) -> str | None:
    """The registry a command reads: ``--spec``, else ./anchors.yaml when there is one."""
    return options.spec or (DEFAULT_SPEC if Path(DEFAULT_SPEC).is_file() else None)


def catalog_registry(options: SourceOptions) -> Spec | None:
    """For a ``--catalog`` command (check, fix): the options that would name other skills or other code refused,
    and the registry read (the catalog names each skill's repository; the registry, its claims' evidence)."""
    from ..spec.registry import load_spec

    if options.skill_dirs or options.all_roots or options.in_repo or options.repo or options.ref:
        raise UsageError(
            "--catalog reads the skills and their repositories from the catalog; drop SKILL_DIR, --all, "
            "--in-repo, --repo and --ref"
        )
    if options.release is not None or options.installed is not None:
        raise UsageError(
            "--catalog reads each component's git repository; it cannot be used with --release or --installed"
        )
    path = registry_path(options)
    return load_spec(Path(path)) if path else None


def _worktree_trees(
    options: SourceOptions, refs: Sequence[str | None], cache_dir: str | None, progress: Progress, memo: Memo
) -> list[SourceTree]:
    """``--worktree``: the working tree for a ref of None, and each other ref (impact's BASE) as a commit of the
    same repository, resolved there (its HEAD is the working tree's)."""
    from ..source.git import resolve_commit
    from ..source.worktree import open_worktree

    here = open_worktree(options.worktree or ".", cache_dir, progress, options.allow, memo)
    shown = options.worktree or "."
    return [here if ref is None else here.at(resolve_commit(here.repo, ref, shown), ref=ref) for ref in refs]


def _refuse(options: SourceOptions, refs: int, git: str | None) -> None:
    """Sources that cannot serve the command, said before anything is fetched."""
    if options.worktree is not None:
        given = [flag for flag, value in (("--repo", options.repo), ("--ref", options.ref),
                 ("--release", options.release), ("--installed", options.installed),
                 ("--catalog", options.catalog)) if value is not None]  # fmt: skip
        if given:
            raise UsageError(f"--worktree reads the code from the working tree; it cannot be used with {given[0]}")
    if git is not None and (options.release is not None or options.installed is not None):
        raise UsageError(f"{git}; it cannot be used with --release or --installed")
    if refs > 1 and options.installed is not None:
        raise UsageError("--installed reads the one version installed here; it cannot be compared with another ref")
    if refs > 1 and options.release:
        raise UsageError(f"--release {options.release} names one version; give --release alone to read each ref's")


def _open_tree(
    inputs: AuditInputs,
    ref: str | None,
    options: SourceOptions,
    cache_dir: str | None = None,
    progress: Progress = no_progress,
    full_history: bool = False,
    memo: Memo | None = None,
    tags: bool = False,
) -> SourceTree:
    """The tree at ``ref`` (default: the inputs' ref) as ``options`` say: git, the published wheel
    (``release`` not None), or the distribution installed here (``installed`` not None)."""
    ref = ref or inputs.ref
    if options.installed is not None:
        from ..source.installed import open_installed

        return open_installed(inputs.repo, ref, _stand_in(inputs, "--installed"), options.installed or None)
    if options.release is not None:
        from ..source.wheel import open_release

        stand_in = _stand_in(inputs, "--release")
        return open_release(inputs.repo, ref, stand_in, options.release or None, cache_dir, progress)
    from ..source.git import open_git

    submodules = dict(options.submodules)
    return open_git(inputs.repo, ref, cache_dir, progress, full_history, options.allow, submodules, memo, tags)


def _another_commit(first: SourceTree, ref: str, repo: str, options: SourceOptions) -> SourceTree | None:
    """``ref`` of the local git repository ``first`` was opened from, sharing its handle and what it has read;
    None where it must be opened on its own (a URL's mirror may have to fetch the ref, a wheel is one version)."""
    from ..source import mirrored
    from ..source.git import as_git, check_ref, resolve_commit

    if first.info.kind is not SourceKind.GIT or mirrored(repo):
        return None
    check_ref(ref)
    tree = as_git(first)
    return tree.at(resolve_commit(tree.repo, ref, repo), ref=ref)


def _stand_in(inputs: AuditInputs, flag: str) -> ReleaseSpec:
    """The distribution that stands in for the repository, and how its paths map: the registry says."""
    if inputs.repo_skills or inputs.repo_roots:
        raise UsageError(f"--in-repo reads skills from git; it cannot be used with {flag}")
    mapping = inputs.spec.source.release if inputs.spec else None
    if mapping is None:
        raise UsageError(f"{flag} needs source.release (dist and paths) in anchors.yaml")
    return mapping


def emit(
    write: Callable[[TextIO], None],
    output: str | None,
    also: Sequence[tuple[Callable[[TextIO], object], str, str]] = (),
) -> None:
    """The report to stdout or to ``output``, and each of ``also`` (render, file, the flag that named it) to its file.

    Every file of the run is written or none is: each is rendered straight into
    a file staged beside it (a catalog's report is never held whole), then all
    are renamed in together (:func:`~anchor_audit.text.fsutil.write_all`); stdout
    comes last, once the files are in place.
    """
    named = ([(write, output, "--output")] if output is not None else []) + list(also)
    try:
        write_all([(Path(path), render) for render, path, _ in named])
    except WriteFailed as exc:
        flag, path = named[exc.index][2], named[exc.index][1]
        raise UsageError(f"{flag} {path}: cannot write: {exc.strerror}; nothing written") from None
    if output is None:
        write(sys.stdout)
