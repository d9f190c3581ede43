"""Repository paths named by skills and registries.

A path is read from a git tree, never from the file system, but it is still
input from strangers: it must stay inside the tree it names.
"""

from __future__ import annotations

import re

_DRIVE = re.compile(r"^[A-Za-z]:")


def repo_path_problem(path: str) -> str | None:
    """Why ``path`` is not a safe repository path, or None if it is."""
    if not path:
        return "empty path"
    if path.startswith("/") or path.startswith("\\") or _DRIVE.match(path):
        return f"path {path!r} is absolute; give it relative to the repository root"
    if "\\" in path:
        return f"path {path!r} uses backslashes; use / between folders"
    if any(part == ".." for part in path.split("/")):
        return f"path {path!r} climbs out of the repository with '..'"
    if path.startswith("-"):
        return f"path {path!r} begins with '-'"
    if "\x00" in path or any(ord(c) < 32 for c in path):
        return f"path {path!r} has control characters"
    return None


def normalize(path: str) -> str:
    """Drop ``./`` segments and doubled slashes (call after :func:`repo_path_problem`)."""
    return "/".join(part for part in path.split("/") if part not in ("", "."))
