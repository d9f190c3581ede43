"""Which anchor-audit this is, as data: what a result kept across runs is only good for.

A remembered run (``runs/remembered``) and a skill's whole audit kept for a history
(``audit``) are each the work of this tool's code on its Python, packages and
git: any of those changed, and they are another tool's results.  Light by
design (the standard library only): a replayed run asks it before importing
anything else.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
import sys
from pathlib import Path

from .. import __version__


@functools.cache
def tool_identity() -> tuple[object, ...]:
    """This anchor-audit: its version and every file of the package by size and time (an edit is a new tool),
    the Python, the packages and the git it runs with (asked once a process)."""
    root = Path(__file__).parent.parent  # the package, not this module's folder
    files = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(names):
            if name.endswith((".py", ".json")):
                st = os.stat(os.path.join(folder, name))
                files.append((os.path.relpath(os.path.join(folder, name), root), st.st_size, st.st_mtime_ns))
    # What it runs on: an upgraded package changes its folder's listing (a new dist-info), so its site's time;
    # an upgraded git is a new file.
    where = [(entry, _mtime(entry)) for entry in sys.path if entry.endswith(("site-packages", "dist-packages"))]
    return (__version__, sys.version, files, where, _mtime(shutil.which("git") or "git"))


@functools.cache
def tool_digest() -> str:
    """:func:`tool_identity` as one sha256."""
    return hashlib.sha256(json.dumps(tool_identity()).encode("utf-8", "surrogateescape")).hexdigest()


def _mtime(path: str) -> int | None:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return None
