"""The one error family of anchor-audit.

Every error a user can cause (bad input, an unknown ref, an unreachable
source) is an :class:`AuditError` with a one-line message that names the
file, the place in it and what is wrong.  The CLI maps the whole family to
exit code 2 in one place (:func:`anchor_audit.cli.main`); nothing below the
CLI prints or exits.

A failure while checking *one* claim or quote is not an error: it becomes a
result for that claim (see :mod:`anchor_audit.model`).
"""

from __future__ import annotations


class AuditError(Exception):
    """Could not audit at all.  The message is shown to the user as is."""


class SpecError(AuditError):
    """anchors.yaml, SKILL.md or card.yaml is malformed."""


class SourceError(AuditError):
    """The code source cannot be opened: unknown ref, unreachable remote, no such repository."""


class UsageError(AuditError):
    """The command line asks for something that cannot be done."""


class NotCarried(Exception):
    """Internal: a source tree cannot say anything about this path.

    Raised by a tree that only carries part of the repository (a release
    wheel has no ``docs/`` or ``tests/``).  The audit turns it into an
    ``unverifiable`` result; it never reaches the user as an error.
    """


class UnreadableFile(Exception):
    """Internal: the file is at the ref but cannot be audited (binary, not UTF-8, a link).

    The audit turns it into an ``error`` result for the quotes and
    conditions that need the file.
    """


class BoundExceeded(UnreadableFile):
    """Internal: checking would pass one of anchor-audit's bounds (size, nesting).

    The result is ``incomplete``: never ``exact``, never ``holds``.
    """
