"""Where a submodule's repository is: its URL in ``.gitmodules`` at the superproject's commit."""

from __future__ import annotations

import configparser
import posixpath

import git

from ..errors import SourceError
from . import is_remote


def gitmodules_url(commit: git.Commit, superproject_url: str, prefix: str) -> str:
    """The URL ``.gitmodules`` at ``commit`` gives the submodule at ``prefix``, resolved against the superproject's."""
    try:
        text = (commit.tree / ".gitmodules").data_stream.read().decode("utf-8", "replace")
    except KeyError:
        raise SourceError("no .gitmodules") from None
    config = configparser.ConfigParser(strict=False, interpolation=None)
    config.read_string(text)
    for section in config.sections():
        if config.get(section, "path", fallback="").strip().strip("/") == prefix:
            url = config.get(section, "url", fallback="").strip()
            if url.startswith(("./", "../")):
                base = superproject_url.rstrip("/")
                return posixpath.normpath(posixpath.join(base, url)) if not is_remote(base) else _join_url(base, url)
            if url:
                return url
    raise SourceError(f".gitmodules names no submodule at {prefix}")


def _join_url(base: str, relative: str) -> str:
    scheme, _, rest = base.partition("://")
    return f"{scheme}://{posixpath.normpath(posixpath.join(rest, relative))}"
