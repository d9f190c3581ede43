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
