"""A check's whole output (or a history's of in-repo skills), remembered with everything it was worked out from.

A check at one ref is a function of the tool's own files, the command line
(settings files included, as parsed), the registry, baseline and skill
folders on disk, and, in each repository read, the commit the ref names, HEAD
(a card's ``validated_on`` day is read on the default branch), whether the
history is shallow and the repository's config.  A run that depended on
nothing else stores its outputs with a fingerprint of each of those inputs (its
*witnesses*).  The same command line later checks every witness (files and
folders hashed again, the refs asked of git in one process per repository) and,
all holding, writes the same report and exits with the same code, without
importing the model, git, the parser or rich: a fully cached run costs its
imports and one git process (docs/performance.md, goal 7).  A history of in-repo
skills is such a function too: its commits are the history of the ``--until``
commit, and the ref ``--since`` names (where one is given) is witnessed as well.

What is never remembered, because something outside those inputs could change
its answer: a run that wrote anything on stderr (a warning, a note), that left
anything unchecked for a bound or an unreadable file, whose submodules could
not all be opened, that read a working tree, a release wheel or an
installed distribution, a local partial clone (its refs are copied into the
cache each run), or a terminal report (its width and colour are the
terminal's).  A witness is data: nothing in a stored run is run or followed, and
the row is signed like every result (:mod:`anchor_audit.store.sqlite`).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..store.toolprint import tool_identity

if TYPE_CHECKING:
    from ..model import AuditReport
    from ..source import SourceTree
    from ..spec.inputs import AuditInputs

MEMO_VERSION = "run/1"
MAX_FOLDER_FILES = 5_000  # a folder witness with more entries is not taken (the run is not remembered)
MAX_CATALOG_FILES = 200_000  # a catalog's, all its skills' copies included
MAX_WITNESS_BYTES = 256 * 1024 * 1024
# Only these change what a check writes; the rest of argv (how many jobs, how quiet) only how it gets there.
_NOT_IN_KEY = frozenset({"jobs", "quiet"})
_ENV_PREFIXES = ("ANCHOR_AUDIT_", "GIT_")
_FULL_SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")


def key_of(args: argparse.Namespace, cwd: Path) -> str | None:
    """The key a run of this command line is remembered under; None for a run that is never remembered."""
    command = getattr(args, "command", None)
    if command not in ("check", "history") or args.no_cache or args.format == "terminal":
        return None
    if command == "history" and not args.in_repo:
        return None  # a history of a folder on disk: its skill is read at every commit from where it lies now
    if (getattr(args, "worktree", None) is not None or getattr(args, "release", None) is not None
            or getattr(args, "report", None) or getattr(args, "installed", None) is not None
            or getattr(args, "write_baseline", None) or args.submodule or getattr(args, "ref", None) == "validated"
            or getattr(args, "config_from", None)):
        return None  # fmt: skip
    options = {k: v for k, v in sorted(vars(args).items()) if k not in _NOT_IN_KEY}
    env = {k: v for k, v in sorted(os.environ.items()) if k.startswith(_ENV_PREFIXES)}
    text = json.dumps([MEMO_VERSION, list(tool_identity()), str(cwd), options, env], sort_keys=True, default=repr)
    return f"{MEMO_VERSION}|{hashlib.sha256(text.encode('utf-8', 'surrogateescape')).hexdigest()}"


# ---------------------------------------------------------------- witnesses


def file_digest(path: str) -> str | None:
    """The sha256 of a file's bytes; None where there is nothing (an absent registry is a witness too)."""
    if os.path.lexists(path) and not os.path.isfile(path):
        return "not a file"
    try:
        with open(path, "rb") as handle:
            if not os.path.isfile(path) or os.fstat(handle.fileno()).st_size > MAX_WITNESS_BYTES:
                return None if not os.path.isfile(path) else "too large"
            return hashlib.sha256(handle.read()).hexdigest()
    except OSError:
        return None


def folder_digest(path: str, skip: tuple[str, ...] = (), max_files: int = MAX_FOLDER_FILES) -> str | None:
    """Every entry under ``path`` (name, kind, bytes or link target) in one sha256; None past the bounds.
    ``skip``: names at the top left out (a catalog checkout's ``.git``, whose state is witnessed as git's).

    A missing folder has its own digest: that it is missing is what the run saw.
    """
    from ..text.fsutil import InputFileError, entries_under, read_input

    if not os.path.isdir(path):
        return hashlib.sha256(b"absent" if not os.path.lexists(path) else b"not a folder").hexdigest()
    digest, count, size = hashlib.sha256(), 0, 0
    try:
        for rel, entry in entries_under(Path(path), skip):
            count += 1
            name = rel.encode("utf-8", "surrogateescape")
            if entry.is_symlink():
                digest.update(b"L" + name + b"\0" + os.readlink(entry.path).encode("utf-8", "surrogateescape") + b"\0")
            elif entry.is_dir(follow_symlinks=False):
                digest.update(b"D" + name + b"\0")
            else:
                size += entry.stat(follow_symlinks=False).st_size
                if count > max_files or size > MAX_WITNESS_BYTES:
                    return None
                regular = entry.is_file(follow_symlinks=False)
                data = read_input(Path(entry.path), MAX_WITNESS_BYTES, "a witnessed file") if regular else b"?special"
                digest.update(b"F" + name + b"\0" + hashlib.sha256(data).digest())
    except (OSError, InputFileError):
        return None  # a folder that changes or cannot be read while it is hashed: no witness, no replay
    return None if count > max_files else digest.hexdigest()


def git_state(git_dir: str, common_dir: str, ref: str) -> dict[str, Any]:
    """What a repository answers that a check's result depends on: the ref's commit (as :func:`.gitrun.resolve`
    asks it: the run's own fetched name first), HEAD's, shallowness and its config; one git process."""
    from ..source.gitenv import FETCHED, commits_named, git_env

    named = not _FULL_SHA.fullmatch(ref)  # a full sha names itself: only HEAD is asked (and nothing is fetched)
    asked = [f"{FETCHED}{ref}", ref, "HEAD"] if named else ["HEAD"]
    shas, _ = commits_named(asked, ["--git-dir", git_dir], git_env())
    shas = shas if named else [ref, None, *shas]
    return {
        "commit": shas[0] or shas[1],
        "head": shas[2],
        "shallow": os.path.exists(os.path.join(common_dir, "shallow")),
        "config": file_digest(os.path.join(common_dir, "config")),
    }


def holds(witnesses: dict[str, Any]) -> bool:
    """Whether every input a stored run was worked out from is as it was."""
    try:
        if any(file_digest(path) != sha for path, sha in witnesses["files"]):
            return False
        for path, sha, skip, max_files in witnesses["folders"]:
            if folder_digest(path, tuple(skip), max_files) != sha:
                return False
        for repo in witnesses["git"]:
            if git_state(repo["git_dir"], repo["common_dir"], repo["ref"]) != repo["state"]:
                return False
    except (KeyError, TypeError, ValueError, OSError, subprocess.SubprocessError):
        return False  # a row of another shape, a git that cannot run: computed again
    return True


# ---------------------------------------------------------------- a run, recorded


class RunRecord:
    """What a run that may be remembered saw: filled by ``check``; ``spoiled`` says why it may not be."""

    def __init__(self, key: str) -> None:
        self.key = key
        self.spoiled: str | None = "no sources were recorded"  # until check says what it read
        self.witnesses: dict[str, Any] = {"files": [], "folders": [], "git": []}
        # Files and folders are witnessed before the run reads them: an edit made while it reads is then a
        # change from the witness (hashed at the end, the witness would pass the edited folder for the report).
        self._files: dict[str, str | None] = {}
        self._folders: dict[str, list[Any]] = {}

    def spoil(self, why: str) -> None:
        self.spoiled = self.spoiled or why

    def before_reading_file(self, path: str | None) -> None:
        """Witness the file at ``path`` (the registry, a baseline; absent is a witness too), before it is read."""
        if path and os.path.abspath(path) not in self._files:
            self._files[os.path.abspath(path)] = file_digest(path)

    def before_reading_folder(self, path: str, skip: tuple[str, ...] = (), max_files: int = MAX_FOLDER_FILES) -> None:
        """Witness every entry of the folder at ``path`` (a skill's, a catalog's), before any of it is read."""
        where = os.path.abspath(path)
        if not self._covered(where):  # a skill folder under an --all root: its root's witness holds it
            self._folders[where] = [where, folder_digest(where, skip, max_files), list(skip), max_files]

    def _covered(self, where: str) -> bool:
        return any(where == w or (where.startswith(w.rstrip(os.sep) + os.sep) and not skip)
                   for w, _, skip, _ in self._folders.values())  # fmt: skip

    def _witnessed(self) -> None:
        self.witnesses["files"] = [[path, digest] for path, digest in self._files.items()]
        self.witnesses["folders"] = [self._folders[where] for where in sorted(self._folders)]
        for where, digest, _, _ in self.witnesses["folders"]:
            if digest is None:
                self.spoil(f"{where} is past the bounds of a witness")

    def saw(self, inputs: AuditInputs, tree: SourceTree, report: AuditReport) -> None:
        """The one-ref check: its files and skill folders (witnessed before they were read), the repository of
        ``tree``; and whether ``report`` is the code's whole answer."""
        self.spoiled = None
        self._witnessed()
        for item in inputs.disk_skills:
            if not self._covered(os.path.abspath(item[0].path if isinstance(item, tuple) else item.path)):
                self.spoil("a skill folder was read without a witness")
        if any(isinstance(item, tuple) and item[0].disk_root != item[0].disk for item in inputs.disk_skills):
            self.spoil("a skill's links may reach past its folder")
        self._repository(tree)
        why = unsettled(report)
        if why:
            self.spoil(why)

    def saw_history(self, inputs: AuditInputs, tree: SourceTree, since: str | None, unsettled: str | None) -> None:
        """A history of in-repo skills: its registry, the repository of ``tree`` (``--until``; HEAD, where the
        cards' validation days are read), the ref ``--since`` names (where it is given); whether every commit's
        audit is the code's whole answer (``unsettled``: why not)."""
        self.spoiled = None
        self._witnessed()
        if inputs.disk_skills:
            self.spoil("a skill was read from a folder on disk")
        self._repository(tree)
        if since is not None and not _FULL_SHA.fullmatch(since):
            repo = self.witnesses["git"][-1] if self.witnesses["git"] else None
            if repo is not None:
                state = git_state(repo["git_dir"], repo["common_dir"], since)
                self.witnesses["git"].append({**repo, "ref": since, "state": state})
        if unsettled:
            self.spoil(unsettled)

    def saw_catalog(self, root: Path, trees: tuple[SourceTree, ...], report: AuditReport) -> None:
        """A catalog check: its registry and the catalog's folder (every file but its ``.git``: witnessed before
        they were read), the catalog checkout's HEAD (the dates of its copies come from its history), and each
        component's repository."""
        self.spoiled = None
        self._witnessed()
        where = os.path.abspath(root)
        if where not in self._folders:
            self.spoil("the catalog was read without a witness")
        dot_git = os.path.join(where, ".git")
        if os.path.isdir(dot_git) and not os.path.islink(dot_git):
            self.witnesses["git"].append({"git_dir": dot_git, "common_dir": dot_git, "ref": "HEAD",
                                          "state": git_state(dot_git, dot_git, "HEAD")})  # fmt: skip
        else:
            self.witnesses["files"].append([dot_git, file_digest(dot_git)])  # absent (or a worktree's file)
        for tree in trees:
            self._repository(tree)
        why = unsettled(report)
        if why:
            self.spoil(why)

    def _repository(self, tree: SourceTree) -> None:
        from ..model import SourceKind
        from ..source import is_remote
        from ..source.git import as_git

        if tree.info.kind is not SourceKind.GIT:
            self.spoil("not read from git")
            return
        repo, url = as_git(tree).repo, as_git(tree).url
        git_dir, common = os.path.abspath(repo.git_dir), os.path.abspath(repo.common_dir)
        if not is_remote(url) and not Path(common).resolve().is_relative_to(Path(url).resolve()):
            self.spoil("not read in place (a local partial clone is read through a copy of its refs)")
        state = git_state(git_dir, common, tree.info.ref)
        if state["commit"] != tree.info.commit:
            self.spoil("the ref moved during the run")
        self.witnesses["git"].append({"git_dir": git_dir, "common_dir": common, "ref": tree.info.ref, "state": state})


def unsettled(report: AuditReport) -> str | None:
    """Why ``report`` is not the code's whole answer (:func:`anchor_audit.audit.kept.unsettled`, skill by skill), or
    None."""
    from ..audit.kept import unsettled as unsettled_skill

    return next((why for skill in report.skills if (why := unsettled_skill(skill))), None)
