"""argparse as anchor-audit uses it: one-line errors with a suggestion, no abbreviations, positionals anywhere."""

from __future__ import annotations

import argparse
import re
from typing import Any, NoReturn

from ..errors import UsageError


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
            import difflib  # only for a word that is wrong

            near = difflib.get_close_matches(word, sorted(set(known)), n=1, cutoff=0.6)
            if near:
                return f" (did you mean {near[0]}?)"
    return ""


CODE = re.compile(r"^AA[0-9]{0,3}$")  # a finding code or a prefix of codes
MAX_JOBS = 256  # worker processes a run may start


def job_count(text: str) -> int:
    """``--jobs N``: a whole number of worker processes, 1 to :data:`MAX_JOBS`."""
    if not text.isdigit() or not 1 <= int(text) <= MAX_JOBS:
        raise argparse.ArgumentTypeError(f"expected a whole number from 1 to {MAX_JOBS}, not {text!r}")
    return int(text)


def codes(values: list[str] | None, flag: str) -> tuple[str, ...]:
    """``--select AA1,AA406 --select AA2`` -> ("AA1", "AA406", "AA2"); a word that is no code prefix is an error."""
    out = tuple(code.strip().upper() for value in values or () for code in value.split(",") if code.strip())
    for code in out:
        if not CODE.match(code):
            raise UsageError(f"{flag} {code!r}: not a finding code or prefix (AA, AA4, AA406; anchor-audit explain)")
    return out
