"""What every command shares: opening the sources once, and writing a report."""

from __future__ import annotations

import contextlib
import io
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterator, Sequence, TextIO

from ..errors import UsageError
from ..fsutil import WriteFailed, write_all
from ..source import Progress, no_progress
from .options import SourceOptions
from .reporter import Reporter

if TYPE_CHECKING:
    from ..audit import Judge
    from ..inputs import AuditInputs
    from ..model import AuditReport
    from ..source import SourceTree

DEFAULT_SPEC = "anchors.yaml"


@dataclass
class Sources:
    """The registry and skills, a tree per ref asked for, and the judge that shares results between them."""

    inputs: AuditInputs
    trees: list[SourceTree]
    judge: Judge
    progress: Progress = no_progress

    def audit(self, tree: SourceTree, promises: bool = True) -> AuditReport:
        from ..audit import audit

        return audit(self.inputs.skills_at(tree), tree, self.inputs.spec, self.judge, promises, self.progress)


@contextlib.contextmanager
def open_sources(
    options: SourceOptions,
    refs: Sequence[str | None],
    reporter: Reporter,
    *,
    full_history: bool = False,
    spec_path: str | None = None,
) -> Iterator[Sources]:
    """Load the inputs and open a tree for each of ``refs`` (None: the registry's or ``--ref``'s).

    The one place every option is applied, for ``check``, ``fix``, ``diff``,
    ``bump`` and ``history`` alike, so no command can drop one.  A source
    that reads one version whatever the ref (``--installed``, ``--release
    VERSION``) cannot serve two refs, and says so.
    """
    from ..inputs import load_inputs, open_tree

    if options.catalog is not None:
        raise UsageError("--catalog goes with check only")
    if len(refs) > 1 and options.installed is not None:
        raise UsageError("--installed reads the one version installed here; it cannot be compared with another ref")
    if len(refs) > 1 and options.release:
        raise UsageError(f"--release {options.release} names one version; give --release alone to read each ref's")
    with judge_for(options, reporter) as judge:  # first: what the inputs say is remembered too
        inputs = load_inputs(
            spec_path or options.spec,
            list(options.skill_dirs),
            options.repo,
            refs[0] or options.ref,
            DEFAULT_SPEC,
            options.in_repo,
            list(options.all_roots),
            judge.memo,
        )
        for warning in inputs.spec.warnings if inputs.spec else ():
            reporter.warn(warning)  # the JSON report lists them too
        if options.repo and (options.release is not None or options.installed is not None):
            reporter.warn(
                f"--repo {options.repo} only names the repository in the report: the code comes from the "
                f"{'release wheel' if options.release is not None else 'installed distribution'}"
            )
        progress = reporter.progress()
        trees = [
            open_tree(
                inputs,
                ref=ref,
                release=options.release,
                cache_dir=options.cache_dir,
                progress=progress,
                full_history=full_history,
                allow=options.allow,
                submodules=dict(options.submodules),
                installed=options.installed,
            )
            for ref in refs
        ]
        for tree in trees:
            if tree.info.release and "yanked" in tree.info.release:
                release = tree.info.release.removesuffix(" (a yanked release)")
                reporter.warn(f"{release} was yanked from the package index")
        for tree in trees:  # git's answers about history are remembered with the match results
            if hasattr(tree, "memo"):  # a GitTree (git itself is imported only where a tree is one)
                tree.memo = judge.memo
        yield Sources(inputs, trees, judge, progress)


@contextlib.contextmanager
def judge_for(options: SourceOptions, reporter: Reporter) -> Iterator[Judge]:
    """A judge backed by the on-disk result cache (unless ``no_cache``); a cache problem is one warning."""
    from ..audit import Judge
    from ..resultcache import ResultStore
    from ..source.cache import cache_root

    store = None if options.no_cache else ResultStore(cache_root(options.cache_dir) / "results.sqlite3")
    try:
        yield Judge(store)
    finally:
        if store is not None:
            store.close()
            if store.problem:
                reporter.warn(store.problem)


def emit(
    write: Callable[[TextIO], None],
    output: str | None,
    also: Sequence[tuple[Callable[[TextIO], object], str, str]] = (),
) -> None:
    """The report to stdout or to ``output``, and each of ``also`` (render, file, the flag that named it) to its file.

    Every file of the run is written or none is: all are rendered first, then
    staged and renamed in together (:func:`~anchor_audit.fsutil.write_all`);
    stdout comes last, once the files are in place.
    """
    named = ([(write, output, "--output")] if output is not None else []) + list(also)
    files = []
    for render, path, _ in named:
        buffer = io.StringIO()
        render(buffer)
        files.append((Path(path), buffer.getvalue().encode("utf-8", "backslashreplace")))
    try:
        write_all(files)
    except WriteFailed as exc:
        flag, path = named[exc.index][2], named[exc.index][1]
        raise UsageError(f"{flag} {path}: cannot write: {exc.strerror}; nothing written") from None
    if output is None:
        write(sys.stdout)
