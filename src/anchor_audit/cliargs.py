"""argparse as anchor-audit uses it: one-line errors with a suggestion, no abbreviations, positionals anywhere."""

from __future__ import annotations

import argparse
import difflib
import re
from typing import Any, NoReturn


class Parser(argparse.ArgumentParser):
    """argparse, with a mistake answered in one line and the nearest command or option suggested."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:  # no abbreviation: --all is never --allow-protocol
        super().__init__(*args, **{**kwargs, "allow_abbrev": False})

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"anchor-audit: error: {message}{_suggestion(message, self)}\n")


def parse(parser: argparse.ArgumentParser, argv: list[str]) -> argparse.Namespace:
    """The command line, a command's positionals allowed after its options (``diff v1 v2 --repo R SKILL``)."""
    commands = next(a.choices for a in parser._actions if isinstance(a, argparse._SubParsersAction))  # noqa: SLF001
    for i, word in enumerate(argv):
        if word in commands:
            return commands[word].parse_intermixed_args(argv[i + 1 :])
        if not word.startswith("-"):
            break
    return parser.parse_args(argv)


def _suggestion(message: str, parser: argparse.ArgumentParser) -> str:
    """`` (did you mean --format?)`` for ``chek``, ``--formt`` and the like."""
    known: list[str] = []
    for action in parser._actions:  # noqa: SLF001 - argparse offers no public way to list them
        known += action.option_strings
        if isinstance(action, argparse._SubParsersAction):  # noqa: SLF001
            known += list(action.choices)
            for sub in action.choices.values():
                known += [o for a in sub._actions for o in a.option_strings]  # noqa: SLF001
        if action.choices and not isinstance(action, argparse._SubParsersAction):  # noqa: SLF001
            known += [str(c) for c in action.choices]
    words = re.findall(r"'([^']+)'|(--?[\w-]+)", message.split(":", 1)[-1])
    for quoted, option in words:
        word = quoted or option
        if word and word not in known:
            near = difflib.get_close_matches(word, sorted(set(known)), n=1, cutoff=0.6)
            if near:
                return f" (did you mean {near[0]}?)"
    return ""
