"""The commands of a shell block: which program each runs (``python -m MOD``, ``python SCRIPT.py``, a launcher's
module or script, a console script the repository may declare) and the flags and positional words it passes."""

from __future__ import annotations

import re
from typing import Iterator

from ..model import Citation, ReferenceKind

# A placeholder a skill writes for the reader to fill in (``path/to``, ``<name>``, ``$VAR``, ``my_model``).
PLACEHOLDER = re.compile(
    r"path/to|<|>|\$|~|\.\.\.|…|\bN\b|\bv?X\.Y\b|(?:^|[/_.-])(?:your|my|some|foo|bar|baz|xxx)(?:[/_.-]|$)", re.I
)

_PYTHON = re.compile(r"^(?:python|python3(?:\.\d+)?)$")
_LAUNCHERS = {"torchrun", "accelerate", "deepspeed"}  # run a module or a script given after their own flags
_LAUNCHER_MODULES = {"torch.distributed.run", "torch.distributed.launch", "accelerate.commands.launch"}
_NOT_PROGRAMS = {
    "cd", "export", "source", "echo", "cat", "ls", "pip", "pip3", "uv", "conda", "git", "docker", "srun", "sbatch",
    "bash", "sh", "make", "sudo", "env", "nvidia-smi", "pytest", "ruff", "apt", "apt-get", "set", "unset", "which",
    "head", "tail", "grep", "awk", "sed", "python", "python3", "for", "do", "done", "if", "then", "fi", "while",
}  # fmt: skip


def command_of(words: list[str], text: str, line: int) -> Citation | None:
    """``python -m MOD ...``, ``python SCRIPT.py ...``, ``torchrun ... -m MOD``, or a program the repository may
    declare as a console script (``acme train --steps 3``), with the flags it passes."""
    while words and re.match(r"^[A-Z_][A-Z0-9_]*=", words[0]):  # VAR=value before the command
        words = words[1:]
    if words[:2] == ["uv", "run"]:
        words = words[2:]
    if not words:
        return None
    head, rest = words[0], words[1:]
    if _PYTHON.match(head) or head in _LAUNCHERS:
        for i, word in enumerate(rest):
            if word == "-m" and i + 1 < len(rest) and rest[i + 1] in _LAUNCHER_MODULES:
                return command_of(["torchrun", *rest[i + 2 :]], text, line)  # the launcher runs what follows
            if word == "-m" and i + 1 < len(rest):
                return _cited(text, f"module:{rest[i + 1]}", rest[i + 2 :], line)
            if word.endswith(".py") and not word.startswith("-"):
                return _cited(text, f"script:{word.removeprefix('./')}", rest[i + 1 :], line)
        return None
    if head in _NOT_PROGRAMS or not re.fullmatch(r"[a-z][\w-]*", head):
        return None
    return _cited(text, f"program:{head}", rest, line)


def _cited(text: str, target: str, args: list[str], line: int) -> Citation | None:
    if PLACEHOLDER.search(target.partition(":")[2]):
        return None
    flags = tuple(dict.fromkeys(a.split("=", 1)[0] for a in args if re.match(r"^--[A-Za-z][\w-]*", a)))
    positionals: list[str] = []
    for word in args:  # the words before the first flag: subcommands, or positional arguments
        if word.startswith("-") or word in ("|", "||", "&&", ";", ">", ">>", "2>&1") or PLACEHOLDER.search(word):
            break
        positionals.append(word)
    return Citation(ReferenceKind.COMMAND, text, target, line, flags=flags, positionals=tuple(positionals))


def logical_lines(code: str) -> Iterator[tuple[int, str]]:
    """(offset of its first line, the command) for each command of a shell block, ``\\`` continuations joined."""
    pending: list[str] = []
    start = 0
    for offset, raw in enumerate(code.split("\n")):
        if not pending:
            start = offset
        text = raw.strip()
        if text.endswith("\\"):
            pending.append(text[:-1])
            continue
        yield start, " ".join([*pending, text]).strip()
        pending = []
    if pending:
        yield start, " ".join(pending).strip()
