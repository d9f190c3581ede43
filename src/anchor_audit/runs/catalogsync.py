"""How a catalog's copy of a skill stands to its upstream copy: in sync, absent upstream, behind, or ahead.

The catalog's sync copies each skill folder from its component repository; a
copy that differs is either stale (an earlier upstream commit's folder is
exactly the copy: *behind*), or matches no upstream commit (changed in the
catalog, or upstream's history was rewritten: *ahead or diverged*).  Files are
compared by git blob id, so no upstream blob is read.
"""

from __future__ import annotations

import stat
from pathlib import Path
from typing import Sequence

from ..errors import AuditError, UnreadableFile
from ..model import ComponentInfo, SkillReport, SyncFacts
from ..source import MAX_FILE_BYTES, SourceTree, git_blob_sha
from ..source.gittrees import BLOB_MODE, EXECUTABLE_MODE
from ..text.fsutil import entries_under, read_input


def sync_facts(
    folder: Path, tree: SourceTree, repo_path: str, catalog_date: str | None = None, siblings: Sequence[str] = ()
) -> SyncFacts:
    """The catalog's copy in ``folder`` against the repository's folder ``repo_path`` in ``tree``; ``siblings``:
    the repository folders of the catalog's other copies from ``tree`` (their histories are looked up at once)."""
    if not tree.is_folder(repo_path.strip("/")):
        return SyncFacts(absent=True, catalog_date=catalog_date)
    copy = _copy(folder)
    read = {rel: (sha, mode) for rel, (sha, mode) in copy.items() if sha is not None}
    # The copy's tree object as git would write it, against upstream's: equal, the folder is in sync and no
    # upstream tree is read (modes differ, an executable bit lost in the copy: compared file by file below).
    if len(read) == len(copy) and tree.holds_folder(repo_path, read):
        return SyncFacts(catalog_date=catalog_date)
    ours = {rel: sha for rel, (sha, _) in copy.items()}
    prefix = repo_path.strip("/") + "/"
    theirs = {p[len(prefix) :] for p in tree.files_under(repo_path)}
    files = []
    for rel in sorted(set(ours) | theirs):
        if rel not in theirs:
            files.append(f"{rel} (only in the catalog)")
        elif rel not in ours:
            files.append(f"{rel} (only in the repository)")
        elif ours[rel] is None or ours[rel] != tree.blob_id(prefix + rel):
            files.append(f"{rel} (differs)")
    if not files:
        return SyncFacts(catalog_date=catalog_date)
    known = {rel: sha for rel, sha in ours.items() if sha is not None}
    version = tree.version_matching(repo_path, known, siblings) if len(known) == len(ours) else None
    if version is None or version.commit is None:
        return SyncFacts(tuple(files), searched=version.searched if version else 0, catalog_date=catalog_date)
    return SyncFacts(tuple(files), matches=version.commit, matches_date=version.date, behind=version.behind,
                     catalog_date=catalog_date)  # fmt: skip


def _copy(folder: Path) -> dict[str, tuple[str | None, int]]:
    """Each regular file of the copy (links left out): its blob sha (None: it cannot be read, so it is not
    known to be the same) and the mode git would give it."""
    out: dict[str, tuple[str | None, int]] = {}
    for rel, entry in sorted(entries_under(folder), key=lambda item: item[0].split("/")):
        if not entry.is_file(follow_symlinks=False):
            continue
        try:
            executable = entry.stat(follow_symlinks=False).st_mode & stat.S_IXUSR
            sha = git_blob_sha(read_input(folder / rel, MAX_FILE_BYTES, "a skill file"))
        except (AuditError, UnreadableFile, OSError):
            executable, sha = 0, None
        out[rel] = sha, EXECUTABLE_MODE if executable else BLOB_MODE
    return out


def stale_mirror_warnings(info: ComponentInfo, reports: list[SkillReport]) -> list[str]:
    """One warning when the repository's newest commit is older than the catalog's last change to a skill whose
    copy differs: the difference may be the mirror's age, not the catalog's."""
    later = [r for r in reports if r.sync and r.sync.differs and (r.sync.catalog_date or "") > (info.date or "9")]
    if not later:
        return []
    newest = max(r.sync.catalog_date or "" for r in later if r.sync)
    n = len(later)
    return [
        f"{info.repo} @ {info.ref}: its newest commit ({info.date}) is older than the catalog's last change to "
        f"{n} of its skills whose copy differs (up to {newest}); the copies may be newer than this repository, "
        "not stale: fetch it again, or give a newer --mirror"
    ]
