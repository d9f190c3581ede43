"""Where a report's quotes link to: the repository's pages on GitHub, when its code lives there.

Its own module so a run that writes JSON asks it without importing the Markdown renderer (and rich).
"""

from __future__ import annotations

import re

_GITHUB = re.compile(r"^(?:https?://github\.com/|git@github\.com:|ssh://git@github\.com/)([^/]+)/([^/]+?)(?:\.git)?/?$")


def github_base(repo: str | None) -> str | None:
    """``https://github.com/OWNER/REPO`` for a GitHub URL, else None."""
    match = _GITHUB.match(repo or "")
    return f"https://github.com/{match.group(1)}/{match.group(2)}" if match else None
