"""Repository paths named by skills and registries.

A path is read from a git tree, never from the file system, but it is still
input from strangers: it must stay inside the tree it names.
"""

from __future__ import annotations

import re
import unicodedata

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


def unwritable(path: str) -> str | None:
    """Why ``path`` (a file name the code repository chose) cannot be written into a skill, or None if it can.

    A heal writes it into a fence header, a code span, a link or card.yaml, where it must read back as the same
    path: no whitespace (a space ends a fence's path, a CR or a newline starts another line), no backtick (it ends
    a code span or a fence), no control or invisible formatting character (ESC, a bidirectional override), and
    nothing :func:`repo_path_problem` refuses."""
    problem = repo_path_problem(path)
    if problem is not None:
        return problem
    for char in path:
        if char.isspace():
            return f"the file name {path!r} holds whitespace ({unicodedata.name(char, hex(ord(char)))})"
        if char in "`<>[]|":
            return f"the file name {path!r} holds {char!r}, which ends the Markdown around it"
        if unicodedata.category(char)[0] == "C":
            return f"the file name {path!r} holds an invisible character (U+{ord(char):04X})"
    return None


def normalize(path: str) -> str:
    """Drop ``./`` segments and doubled slashes (call after :func:`repo_path_problem`)."""
    return "/".join(part for part in path.split("/") if part not in ("", "."))
