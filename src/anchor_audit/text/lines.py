"""Lines as git, editors and line-anchored fences count them: a line ends at ``\\n``.

``str.splitlines()`` also breaks at ``\\r``, form feeds, ``\\x1c``-``\\x1e``,
``\\x85``, U+2028 and U+2029, so one such character in a SKILL.md or in a
quoted file shifts every later line number.  Everything in anchor-audit that
turns text into numbered lines goes through these two functions.
"""

from __future__ import annotations


def split_lines(text: str) -> list[str]:
    """The lines of ``text`` without their ends (``\\r\\n`` and ``\\n``); no empty last line for a final newline."""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def split_lines_keepends(text: str) -> list[str]:
    """The lines of ``text``, each with its ``\\n`` (or ``\\r\\n``) kept."""
    lines = [line + "\n" for line in text.split("\n")]
    lines[-1] = lines[-1][:-1]
    if lines[-1] == "":
        lines.pop()
    return lines


def unified_diff(before: str, after: str, name: str) -> str:
    """The unified diff from ``before`` to ``after`` of the file ``name`` (``a/NAME``, ``b/NAME``), lines at ``\\n``.

    The one diff anchor-audit prints or applies (fix's dry run, impact's healing patch): a U+2028 in the
    prose is a character of its line here, as it is for ``git apply``.
    """
    import difflib
    import os

    if os.path.isabs(name):  # `a//abs/path` is no path git apply takes: say it from the working folder
        name = os.path.relpath(name)
    lines = difflib.unified_diff(split_lines_keepends(before), split_lines_keepends(after), f"a/{name}", f"b/{name}")
    return "".join(lines)
