"""How anchor-audit runs git through GitPython: which repositories, URLs and refs it accepts.

Everything here is about one trust question: what an input (a URL, a ref,
a ``.gitmodules``) may make git do.  The environment every git process gets
(:mod:`.gitenv`) says the rest: no prompt, no stall, no command from config.
"""

from __future__ import annotations

import contextlib
import difflib
import os
import re
import subprocess
import weakref
from pathlib import Path

import git
from git.db import GitDB  # gitdb's pure-Python object database, as GitPython exports it

from ..errors import SourceError, UsageError
from ..text.redact import redact
from . import _URL
from .gitenv import ALLOWED_PROTOCOLS, FETCHED, UPLOAD_PACK, commits_named, git_env

# What git (curl, ssh) says when a host name does not resolve: no fetch from that host can succeed this run.
NAME_NOT_RESOLVED = re.compile(r"Could not resolve host(?:name)?:? ?([\w.-]*)|Name or service not known()")


def repo_at(path: str | os.PathLike[str]) -> git.Repo:
    """The repository at ``path``, opened; known to :func:`forget_inherited_processes`."""
    handle = git.Repo(path)
    _OPENED[id(handle)] = handle
    return handle


def forget_inherited_processes() -> None:
    """In a forked worker: every open repository starts its own ``git cat-file`` processes at its next read.

    The inherited ones belong to the parent, which goes on using them: two processes writing to one would
    garble both.  Nor may they be ended here (that would end them for the parent): they are kept, unused.
    """
    for handle in list(_OPENED.values()):
        cmd = handle.git
        _INHERITED.append((cmd.cat_file_all, cmd.cat_file_header))
        cmd.cat_file_all = cmd.cat_file_header = None


# By identity: a Repo equals any other of the same path, and a WeakSet would keep one of them only.
_OPENED: "weakref.WeakValueDictionary[int, git.Repo]" = weakref.WeakValueDictionary()
_INHERITED: list[object] = []  # a worker's copies of its parent's git processes


def local_config(git_dir: str) -> dict[str, str]:
    """The repository's own configuration (``--local``, includes followed), read as data: git config runs nothing.

    Of a key set twice the first value is kept, as git keeps the first ``uploadpack``.
    """
    done = subprocess.run(
        ["git", "--git-dir", git_dir, "config", "--local", "--null", "--list"],
        capture_output=True, env={**os.environ, **git_env()}, stdin=subprocess.DEVNULL, timeout=60,
    )  # fmt: skip
    config: dict[str, str] = {}
    for entry in done.stdout.decode("utf-8", "surrogateescape").split("\0"):
        key, _, value = entry.partition("\n")
        if key:  # git gives section and name in lower case already; a subsection (a remote's name) keeps its own
            config.setdefault(key, value)
    return config


def remote_names(config: dict[str, str]) -> tuple[str, ...]:
    """The names of the remotes a configuration (:func:`local_config`) defines."""
    names = {key[7:].rsplit(".", 1)[0] for key in config if key.startswith("remote.") and key.count(".") >= 2}
    return tuple(sorted(names))


def harden(handle: git.Repo, config: dict[str, str], allow: tuple[str, ...] = (), url: str | None = None) -> None:
    """Make every git command GitPython runs in ``handle`` use :func:`git_env` for the remotes ``config`` names."""
    handle.git.update_environment(**git_env(allow, url, remote_names(config)))


def check_ref(ref: str, flag: str = "--ref") -> None:
    """A ref an input gives is a ref: no option, no range, no reflog entry, no control character, bounded."""
    if not ref or ref.startswith("-") or any(c.isspace() or not c.isprintable() for c in ref) or ".." in ref:
        raise UsageError(f"{flag} {ref!r}: not a ref name or commit sha")
    if "@{" in ref:
        raise UsageError(
            f"{flag} {ref!r}: @{{...}} names a reflog entry of one clone, not a version; give a tag, branch or sha"
        )
    if len(ref) > 256:
        raise UsageError(f"{flag} {ref[:40]!r}...: longer than 256 characters; not a ref name or commit sha")


def check_repo(repo: str, allow: tuple[str, ...] = ()) -> None:
    shown = redact(repo)
    if repo.startswith("-"):
        raise UsageError(f"--repo {shown!r}: begins with '-'")
    head = repo.split("/", 1)[0]
    if "::" in head:
        transport = head.split("::", 1)[0].lower()
        if transport not in allow:
            raise UsageError(
                f"--repo {shown!r}: the {transport}:: transport can run commands; "
                f"refused (--allow-protocol {transport})"
            )
    elif _URL.match(repo):
        scheme = repo.split(":", 1)[0].lower()
        if scheme not in ALLOWED_PROTOCOLS + allow + ("git+ssh", "ssh+git"):
            raise UsageError(f"--repo {shown!r}: the {scheme} transport is not allowed (--allow-protocol {scheme})")


def resolve(handle: git.Repo, ref: str) -> str | None:
    """The full sha of the commit ``ref`` names (in a mirror, as fetched under refs/anchor-audit/), or None."""
    return resolve_many(handle, [ref])[ref]


def resolve_many(handle: git.Repo, refs: list[str]) -> dict[str, str | None]:
    """:func:`resolve` for each of ``refs``, from one ``git cat-file --batch-check``.

    git decides, as ``rev-parse`` would: GitPython's in-process parser is partial
    (``HEAD@{-1}`` crashes it) and slow on many packed refs.  ``^{commit}`` makes
    git check the object exists and is a commit, so forty zeros or a tree's sha
    are unknown refs, not a crash later.  The name the run fetched a ref under
    (``refs/anchor-audit/REF``) is asked first, as a mirror keeps it there.
    """
    asked: list[tuple[str, str]] = []
    for ref in refs:
        asked.append((ref, f"{FETCHED}{ref}"))
        if not _lean_and_lacking(handle, ref):  # else git would fetch it to answer: the mirror fetches it lean
            asked.append((ref, ref))
    # Run where GitPython runs git (the repository found, not named: git checks who owns it).
    shas, said = commits_named([name for _, name in asked], [], handle.git.environment(), str(handle.working_dir))
    refuse_dubious(handle, said)
    found: dict[str, str | None] = dict.fromkeys(refs)
    for (ref, _), sha in zip(asked, shas, strict=True):
        found[ref] = found[ref] or sha
    return found


_PARTIAL: dict[str, bool] = {}


def is_partial(handle: git.Repo) -> bool:
    """Whether ``handle`` is a partial clone (a lean mirror), whose blobs are fetched when read; asked once a run."""
    key = str(handle.common_dir)
    if key not in _PARTIAL:
        _PARTIAL[key] = bool(handle.config_reader().has_option("extensions", "partialclone"))
    return _PARTIAL[key]


def _lean_and_lacking(handle: git.Repo, ref: str) -> bool:
    """Whether ``ref`` is a full sha that ``handle``, a partial clone, does not have (checked without git)."""
    if not _FULL_SHA.fullmatch(ref) or not is_partial(handle):
        return False
    from git.db import GitDB  # reads pack indexes and loose objects: asking never fetches

    return not GitDB(os.path.join(handle.common_dir, "objects")).has_object(bytes.fromhex(ref))


_FULL_SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")


def resolve_commit(handle: git.Repo, ref: str, shown: str) -> str:
    """The sha ``ref`` names in ``handle``; a :class:`SourceError` naming ``shown`` when it names none."""
    check_ref(ref)
    sha = resolve(handle, ref)
    if sha is None:
        raise SourceError(f"{redact(shown)}: unknown ref {ref!r}{_nearest(handle, ref)}")
    return sha


def _nearest(handle: git.Repo, ref: str) -> str:
    """`` (nearest: v0.6.0, v0.6.1)``: the tags and branches most like a ref that is not there."""
    try:
        out = handle.git.for_each_ref("--format=%(refname:short)", "refs/tags", "refs/heads", "refs/anchor-audit")
    except git.GitCommandError:
        return ""
    names = sorted({line.removeprefix("anchor-audit/") for line in out.split("\n") if line})
    near = [n for n in names if n.startswith(ref)][:3] or difflib.get_close_matches(ref, names, n=3, cutoff=0.6)
    return f" (nearest: {', '.join(near)})" if near else ""


def refuse_dubious(handle: git.Repo, said: str) -> None:
    """git refuses to work in a repository another user owns (``said``: what it wrote on stderr); say so rather
    than "unknown ref"."""
    if "dubious ownership" in said:
        raise SourceError(
            f'{handle.git_dir}: git refuses to read it: the repository belongs to another user ("dubious ownership"); '
            f"if you trust it: git config --global --add safe.directory {handle.working_tree_dir or handle.git_dir}"
        ) from None


def first_line(exc: BaseException) -> str:
    text = getattr(exc, "stderr", None) or str(exc)
    lines = [ln.strip().removeprefix("stderr:").strip(" '") for ln in str(text).splitlines() if ln.strip()]
    useful = [ln for ln in lines if ln.startswith(("fatal:", "error:"))] or lines
    return useful[0] if useful else type(exc).__name__


def effective_url(url: str) -> str:
    """The URL git really fetches for ``url``, after the user's ``url.<base>.insteadOf`` (no network)."""
    done = subprocess.run(
        ["git", "ls-remote", "--get-url", "--", url], capture_output=True, text=True, env={**os.environ, **git_env()}
    )
    return (done.stdout.strip() or url) if done.returncode == 0 else url


PREFETCH_TIMEOUT = 300  # seconds the one fetch of a run's missing blobs may take


def fetch_missing(repo: git.Repo, shas: set[str]) -> None:
    """One fetch of the blobs among ``shas`` a lean mirror lacks (a repository with every blob: nothing)."""
    if not is_partial(repo):
        return
    objects = GitDB(str(Path(repo.common_dir) / "objects"))  # reads pack indexes: never fetches
    missing = sorted(sha for sha in shas if not objects.has_object(bytes.fromhex(sha)))
    if not missing:
        return
    # What git runs itself for a missing blob, given them all at once.
    command = ["git", "-c", "fetch.negotiationAlgorithm=noop", "fetch", "-q", f"--upload-pack={UPLOAD_PACK}",
               "origin", "--no-tags", "--no-write-fetch-head", "--recurse-submodules=no", "--filter=blob:none",
               "--stdin"]  # fmt: skip
    env = {**os.environ, **repo.git.environment()}
    with contextlib.suppress(OSError, subprocess.SubprocessError):  # the reads will fetch them one by one
        subprocess.run(command, cwd=repo.common_dir, env=env, input="\n".join(missing) + "\n",
                       capture_output=True, text=True, timeout=PREFETCH_TIMEOUT)  # fmt: skip
