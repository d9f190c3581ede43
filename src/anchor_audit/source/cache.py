"""Where anchor-audit keeps what it fetched: git mirrors and release wheels.

``--cache-dir``, else ``$ANCHOR_AUDIT_CACHE``, else ``$XDG_CACHE_HOME/anchor-audit``,
else ``~/.cache/anchor-audit``.  Writers take an exclusive lock on the entry
they fill, so concurrent runs wait for each other instead of racing.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import re
from pathlib import Path
from typing import Iterator


def cache_root(override: str | None = None) -> Path:
    if override:
        return Path(override)
    env = os.environ.get("ANCHOR_AUDIT_CACHE")
    if env:
        return Path(env)
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg else Path.home() / ".cache"
    return base / "anchor-audit"


def slug(url: str) -> str:
    """A directory name for a URL: readable tail plus a hash of the whole."""
    tail = re.sub(r"[^A-Za-z0-9._-]+", "-", url.rstrip("/").rsplit("/", 1)[-1])[:40] or "repo"
    return f"{tail.removesuffix('.git')}-{hashlib.sha256(url.encode()).hexdigest()[:12]}"


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``path`` + ``.lock`` (created if needed)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(f"{path}.lock", "a+") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
