"""The first-parent commits that changed each of several folders, from one ``git log`` of them all.

A catalog asks, for each copy that differs from its repository, which earlier version of the repository's
folder it is (``version_matching``): a walk back along the first-parent line, commit by commit, undoing each
commit's changes to the folder.  One ``git log`` per folder walks the whole first-parent history each time
(45 ms for one folder of Megatron-Bridge, 99 ms for all 33 of its skill folders at once), so the folders of
one repository's copies are logged together and each gets its own commits from the one output.

The same commits as a log of the folder alone: along the first-parent line a commit is logged when its
change to its first parent touches the paths (a merge compared with its first parent only), and its raw
change lists every file it changed there, so a folder's commits are those of the log whose change names a
path under it.
"""

from __future__ import annotations

import git

from .gitenv import DIFF_FLAGS

Records = list[str]  # one log record per commit, newest first: "SHA DATE\0" then ":META\0PATH\0" per change


def log_folders(repo: git.Repo, tip: str, prefixes: list[str], most: int) -> dict[str, Records | None]:
    """For each folder of ``prefixes`` (``"skills/x/"``), the raw records of the last ``most`` first-parent
    commits up to ``tip`` that changed it, newest first; None for a folder the one log cannot answer: it read
    the last ``most`` times as many commits as there are folders, and this folder had fewer than ``most`` of
    them (older ones may lie past it: the caller logs that folder alone).  :class:`git.GitCommandError` as git
    gives it (a shallow history's end, a lean copy)."""
    window = most * len(prefixes)
    out = repo.git.log(
        "-z", "--first-parent", "--diff-merges=first-parent", "--no-renames", "--raw", "--no-abbrev",
        "--format=%x01%H %cs", f"-n{window}", *DIFF_FLAGS, tip, "--", *prefixes,
    )  # fmt: skip
    records = out.split("\x01")[1:]
    found: dict[str, Records] = {prefix: [] for prefix in prefixes}
    for record in records:
        for prefix in _touched(record, found):
            if len(found[prefix]) < most:
                found[prefix].append(record)
    whole = len(records) < window  # the log reached the first commit: every folder's commits are all here
    return {prefix: mine if whole or len(mine) >= most else None for prefix, mine in found.items()}


def _touched(record: str, prefixes: dict[str, Records]) -> set[str]:
    """Which of ``prefixes`` the record's changes lie under (a folder inside another is under both)."""
    touched = set()
    for path in record.split("\0")[2::2]:
        at = path.find("/")
        while at >= 0:
            if path[: at + 1] in prefixes:
                touched.add(path[: at + 1])
            at = path.find("/", at + 1)
    return touched
