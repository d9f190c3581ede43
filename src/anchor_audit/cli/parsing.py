"""argparse as anchor-audit uses it (one-line errors with a suggestion, no abbreviations, positionals anywhere),
and the settings file that fills what the command line leaves unset."""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import Any, NoReturn

from ..errors import UsageError
from ..text.fsutil import read_input


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


# ---------------------------------------------------------------- settings files

SETTINGS_FILE = "anchor-audit.toml"
MAX_SETTINGS_BYTES = 1024 * 1024
# A setting -> (the option's dest, what it takes).  The command line wins over the file; a command that has
# no such option ignores the setting (init has no --select).
SETTINGS: dict[str, tuple[str, object]] = {
    "select": ("select", "codes"),
    "ignore": ("ignore", "codes"),
    "fail-on": ("fail_on", ("error", "warning")),
    "fail-on-codes": ("fail_on_codes", "thresholds"),
    "exit-zero": ("exit_zero", bool),
    "strict": ("strict", bool),
    "spec": ("spec", str),
    "baseline": ("baseline", str),
    "cache-dir": ("cache_dir", str),
    "jobs": ("jobs", "count"),
    "color": ("color", ("auto", "always", "never")),
}
_CODES = re.compile(r"^AA[0-9]{0,3}$")
MAX_JOBS = 256  # worker processes a run may start


def job_count(text: str) -> int:
    """``--jobs N``: a whole number of worker processes, 1 to :data:`MAX_JOBS`."""
    if not text.isdigit() or not 1 <= int(text) <= MAX_JOBS:
        raise argparse.ArgumentTypeError(f"expected a whole number from 1 to {MAX_JOBS}, not {text!r}")
    return int(text)


def apply_settings(args: argparse.Namespace, cwd: Path) -> None:
    """Fill each option the command line left unset from the settings file: ``--config FILE``, else
    ``./anchor-audit.toml`` (its top level), else ``./pyproject.toml``'s ``[tool.anchor-audit]``."""
    found = _settings(getattr(args, "config", None), cwd)
    if found is None:
        return
    shown, table, text = found
    for key, value in table.items():
        where = f"{shown}:{_line_of(text, key)}: {key}"
        if key not in SETTINGS:
            import difflib  # only for a key that is wrong

            near = difflib.get_close_matches(key, SETTINGS, n=1)
            hint = f" (did you mean {near[0]}?)" if near else f" (known: {', '.join(SETTINGS)})"
            raise UsageError(f"{where}: not a setting{hint}")
        dest, kind = SETTINGS[key]
        checked = _checked(value, kind, where)
        if hasattr(args, dest) and getattr(args, dest) is None:
            setattr(args, dest, checked)


def _settings(explicit: str | None, cwd: Path) -> tuple[str, dict[str, object], str] | None:
    candidates = [Path(explicit)] if explicit else [cwd / SETTINGS_FILE, cwd / "pyproject.toml"]
    for path in candidates:
        if not path.is_file():
            if explicit:
                raise UsageError(f"--config {explicit}: no such file")
            continue
        import tomllib  # only where there is a settings file

        shown = explicit or path.name
        raw = read_input(path, MAX_SETTINGS_BYTES, "a settings file")
        try:
            text = raw.decode("utf-8")
            data = tomllib.loads(text)
        except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            raise UsageError(f"{shown}: not valid TOML: {exc}") from None
        if path.name == "pyproject.toml":
            tool = data.get("tool", {})
            table = tool.get("anchor-audit") if isinstance(tool, dict) else None
            if table is None:
                continue  # a pyproject.toml without our table says nothing to anchor-audit
        else:
            table = data
        if not isinstance(table, dict):
            raise UsageError(f"{shown}: [tool.anchor-audit] is not a table")
        return shown, table, text
    return None


def _checked(value: object, kind: object, where: str) -> object:
    if kind == "codes":
        items = value if isinstance(value, list) else None
        if items is None or not all(isinstance(v, str) and _CODES.match(v.strip()) for v in items):
            raise UsageError(f"{where}: expected a list of finding codes or prefixes, like [\"AA1\", \"AA406\"]")
        return list(items)
    if kind == "thresholds":  # {code or prefix: error | warning | never}
        levels = ("error", "warning", "never")
        if not isinstance(value, dict) or not all(
            isinstance(k, str) and _CODES.match(k.strip()) and v in levels for k, v in value.items()
        ):
            raise UsageError(f"{where}: expected a table of finding codes or prefixes to error, warning or never, "
                             'like {AA4 = "never", AA101 = "warning"}')  # fmt: skip
        return {k.strip().upper(): v for k, v in value.items()}
    if kind == "count":
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_JOBS:
            raise UsageError(f"{where}: expected a whole number from 1 to {MAX_JOBS}")
        return value
    if kind is bool:
        if not isinstance(value, bool):
            raise UsageError(f"{where}: expected true or false")
        return value
    if kind is str:
        if not isinstance(value, str) or not value:
            raise UsageError(f"{where}: expected a string")
        return value
    choices: tuple[str, ...] = kind if isinstance(kind, tuple) else ()
    if value not in choices:
        raise UsageError(f"{where}: expected one of {', '.join(choices)}")
    return value


def _line_of(text: str, key: str) -> int:
    """The line that sets ``key`` (TOML's parser keeps no positions): the first ``key =`` in the file."""
    match = re.search(rf"^[ \t]*\"?{re.escape(key)}\"?[ \t]*=", text, re.M)
    return text.count("\n", 0, match.start()) + 1 if match else 1


def codes(values: list[str] | None, flag: str) -> tuple[str, ...]:
    """``--select AA1,AA406 --select AA2`` -> ("AA1", "AA406", "AA2"); a word that is no code prefix is an error."""
    out = tuple(code.strip().upper() for value in values or () for code in value.split(",") if code.strip())
    for code in out:
        if not _CODES.match(code):
            raise UsageError(f"{flag} {code!r}: not a finding code or prefix (AA, AA4, AA406; anchor-audit explain)")
    return out
