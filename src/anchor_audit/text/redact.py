"""Credentials never leave the process: redaction of URLs in anything shown or stored.

A repository URL may carry a password or token (``https://user:pw@host/r``,
``https://x-access-token:TOKEN@host/r``, ``?private_token=...``).  It is
used to fetch and never written anywhere: reports, error lines, warnings and
the cache mirror's config all see the redacted form.
"""

from __future__ import annotations

import re

_USERINFO = re.compile(r"(?P<scheme>\b[A-Za-z][A-Za-z0-9+.-]*://)(?P<userinfo>[^/?#\s@]+)@")
_SECRET_PARAM = re.compile(
    r"(?P<name>[?&#;](?:[A-Za-z0-9_.-]*(?:token|key|secret|pass|pwd|auth|sig|signature|credential|session)"
    r"[A-Za-z0-9_.-]*))=(?P<value>[^&#\s'\"]*)",
    re.IGNORECASE,
)
MASK = "***"


def redact(text: str) -> str:
    """``text`` with every URL's userinfo and every credential-like query value replaced by ``***``."""
    text = _USERINFO.sub(_userinfo, text)
    return _SECRET_PARAM.sub(lambda m: f"{m.group('name')}={MASK}", text)


def _userinfo(match: re.Match[str]) -> str:
    # A password, or any userinfo over HTTP (where the "user" is often a token); an ssh user name stays.
    scheme, info = match.group("scheme"), match.group("userinfo")
    if ":" in info or not scheme.lower().startswith("ssh"):
        return f"{scheme}{MASK}@"
    return match.group(0)


def has_credentials(url: str) -> bool:
    return redact(url) != url
