"""The settings file that fills what the command line leaves unset, and what it relaxes.

A settings file lives in the checkout anchor-audit runs in.  On a pull request that checkout is the pull
request's, so the file is the author's to write: ``--config-from REF`` reads it as committed at REF (the
base) instead, and every difference the checkout's file makes is said, never applied.  Whatever file is
applied, what it relaxes of the gate (``exit-zero``, ``ignore``, ``fail-on-codes = never``) is carried to the
report's notes, which ``--format github`` writes as warning annotations on that file.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from ..errors import UsageError
from ..text.fsutil import read_input
from .parsing import CODE, MAX_JOBS

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
# Settings that decide what is reported and what fails the run: a difference in any other (jobs, color,
# cache-dir) changes how a run goes, not what it finds.
GATE = ("select", "ignore", "fail-on", "fail-on-codes", "exit-zero", "strict", "spec", "baseline")


@dataclass(frozen=True)
class Settings:
    """One settings file, read and checked: where it was read from, its table, and each key's line."""

    shown: str  # as said in messages: ``anchor-audit.toml``, ``pyproject.toml``, ``BASE:anchor-audit.toml``
    file: str  # the file in the checkout it stands for (annotations go on it)
    values: dict[str, object]
    lines: dict[str, int]


def apply_settings(args: argparse.Namespace, cwd: Path) -> list[str]:
    """Fill each option the command line left unset from the settings file: ``--config FILE``, else
    ``./anchor-audit.toml`` (its top level), else ``./pyproject.toml``'s ``[tool.anchor-audit]``; with
    ``--config-from REF``, that file as committed at REF.

    Returns what is to be said on stderr: each difference the checkout's file makes to REF's.  Those, and what
    the applied file relaxes of the gate, go to ``args.settings_notes`` as (file, line, text) for the report."""
    explicit = getattr(args, "config", None)
    ref = getattr(args, "config_from", None)
    said: list[str] = []
    notes: list[tuple[str, int, str]] = []
    if ref is None:
        applied = _read(explicit, cwd)
    else:
        applied = _read_at(ref, explicit, cwd)
        try:
            here = _read(explicit, cwd, missing_ok=True)
        except UsageError as exc:  # the checkout's file is not used: its mistakes are said, not fatal
            here = None
            said.append(f"{exc} (not used: the settings are read from {ref})")
            notes.append((explicit or SETTINGS_FILE, 1, said[-1]))
        found = differences(here, applied, ref)
        said += [f"{file}:{line}: {text}" for file, line, text in found]
        notes += found
    for key, value in (applied.values if applied else {}).items():
        dest, _ = SETTINGS[key]
        if hasattr(args, dest) and getattr(args, dest) is None:
            setattr(args, dest, value)
            effect = relaxes(key, value)
            if effect and applied is not None:
                where = f" (as committed at {ref})" if ref is not None else ""
                notes.append((applied.file, applied.lines[key], f"{key} = {shown(value)}{where} relaxes the gate: "
                              f"{effect}"))  # fmt: skip
    args.settings_notes = tuple(notes)
    return said


def relaxes(key: str, value: object) -> str | None:
    """What a setting lets pass that the defaults fail, in words; None for one that relaxes nothing."""
    if key == "exit-zero" and value is True:
        return "drift exits 0"
    if key == "ignore" and value:
        return f"findings {', '.join(value)} are not reported"  # type: ignore[arg-type]
    if key == "select" and value:
        return f"only findings {', '.join(value)} are reported"  # type: ignore[arg-type]
    if key == "fail-on":
        return f"only findings of level {value} or worse fail the run"
    if key == "fail-on-codes" and isinstance(value, dict):
        eased = [f"{code} {'never fail' if level == 'never' else f'fail only at {level}'}"
                 for code, level in sorted(value.items())]  # fmt: skip
        return f"findings {'; '.join(eased)}" if eased else None
    if key == "baseline":
        return f"the findings {value} accepts do not fail the run"
    if key == "spec":
        return f"the skills registry {value} names are the ones audited"
    return None


def differences(here: Settings | None, committed: Settings | None, ref: str) -> list[tuple[str, int, str]]:
    """Each gate setting the checkout's file sets otherwise than REF's: (file, line, how, and that it is not used)."""
    mine = here.values if here else {}
    theirs = committed.values if committed else {}
    out = []
    for key in GATE:
        if mine.get(key) == theirs.get(key):
            continue
        was = f"{key} = {shown(theirs[key])}" if key in theirs else f"{key} is unset"
        if here is not None and key in mine:
            effect = relaxes(key, mine[key])
            why = f"; it would relax the gate: {effect}" if effect and key not in theirs else ""
            text = f"{key} = {shown(mine[key])} is not used: the settings are read from {ref}, where {was}{why}"
            out.append((here.file, here.lines[key], text))
        else:
            file = here.file if here else committed.file if committed else SETTINGS_FILE
            out.append((file, 1, f"{key} is not set here; the settings are read from {ref}, where {was}"))
    return sorted(out, key=lambda note: note[1])


def shown(value: object) -> str:
    """A setting's value as TOML writes it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, list):
        return "[" + ", ".join(shown(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} = {shown(v)}" for k, v in value.items()) + "}"
    return str(value)


# ---------------------------------------------------------------- reading a file


def _read(explicit: str | None, cwd: Path, missing_ok: bool = False) -> Settings | None:
    candidates = [Path(explicit)] if explicit else [cwd / SETTINGS_FILE, cwd / "pyproject.toml"]
    for path in candidates:
        if not path.is_file():
            if explicit and not missing_ok:
                raise UsageError(f"--config {explicit}: no such file")
            continue
        shown_as = explicit or path.name
        found = _parse(read_input(path, MAX_SETTINGS_BYTES, "a settings file"), shown_as, shown_as, path.name)
        if found is not None:
            return found
    return None


def _read_at(ref: str, explicit: str | None, cwd: Path) -> Settings | None:
    """The settings file as committed at ``ref`` of the repository ``cwd`` is in (read from git objects)."""
    from ..source.gitrun import check_ref

    check_ref(ref, "--config-from")
    commit = _git(["rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"], cwd, ok=(0, 1))
    if not commit:
        raise UsageError(f"--config-from {ref}: no such commit in the repository here (a shallow checkout may lack "
                         f"it: git fetch --depth 1 origin {ref})")  # fmt: skip
    names = [explicit] if explicit else [SETTINGS_FILE, "pyproject.toml"]
    for name in names:
        relative = os.path.relpath(Path(cwd, name), cwd)
        if relative.startswith(".."):
            raise UsageError(f"--config {name}: with --config-from, a file under the current folder")
        spec = f"{commit}:./{Path(relative).as_posix()}"
        size = _git(["cat-file", "-s", spec], cwd, ok=(0, 128))
        if not size:
            continue
        if int(size) > MAX_SETTINGS_BYTES:
            raise UsageError(f"{ref}:{name}: larger than {MAX_SETTINGS_BYTES} bytes; not a settings file")
        raw = _git(["cat-file", "blob", spec], cwd, raw=True)
        found = _parse(raw.encode("utf-8", "surrogateescape"), f"{ref}:{name}", name, Path(name).name)
        if found is not None:
            return found
    return None


def _git(args: list[str], cwd: Path, ok: tuple[int, ...] = (0,), raw: bool = False) -> str:
    """One git command in ``cwd`` in the neutral environment; its stdout (stripped unless ``raw``), "" on an ``ok``
    failure."""
    from ..source.gitenv import git_env

    try:
        done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, stdin=subprocess.DEVNULL, timeout=60,
                              env={**os.environ, **git_env()})  # fmt: skip
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise UsageError(f"--config-from: git could not run: {exc}") from None
    if done.returncode not in ok:
        message = done.stderr.decode("utf-8", "replace").strip().split("\n")[0]
        raise UsageError(f"--config-from: git {args[0]} failed: {message}")
    if done.returncode != 0:
        return ""
    text = done.stdout.decode("utf-8", "surrogateescape")
    return text if raw else text.strip()


def _parse(raw: bytes, shown_as: str, file: str, name: str) -> Settings | None:
    import tomllib  # only where there is a settings file

    try:
        text = raw.decode("utf-8")
        data = tomllib.loads(text)
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise UsageError(f"{shown_as}: not valid TOML: {exc}") from None
    if name == "pyproject.toml":
        tool = data.get("tool", {})
        table = tool.get("anchor-audit") if isinstance(tool, dict) else None
        if table is None:
            return None  # a pyproject.toml without our table says nothing to anchor-audit
    else:
        table = data
    if not isinstance(table, dict):
        raise UsageError(f"{shown_as}: [tool.anchor-audit] is not a table")
    values: dict[str, object] = {}
    lines: dict[str, int] = {}
    for key, value in table.items():
        lines[key] = _line_of(text, key)
        where = f"{shown_as}:{lines[key]}: {key}"
        if key not in SETTINGS:
            import difflib  # only for a key that is wrong

            near = difflib.get_close_matches(key, SETTINGS, n=1)
            hint = f" (did you mean {near[0]}?)" if near else f" (known: {', '.join(SETTINGS)})"
            raise UsageError(f"{where}: not a setting{hint}")
        values[key] = _checked(value, SETTINGS[key][1], where)
    return Settings(shown_as, file, values, lines)


def _checked(value: object, kind: object, where: str) -> object:
    if kind == "codes":
        items = value if isinstance(value, list) else None
        if items is None or not all(isinstance(v, str) and CODE.match(v.strip()) for v in items):
            raise UsageError(f"{where}: expected a list of finding codes or prefixes, like [\"AA1\", \"AA406\"]")
        return list(items)
    if kind == "thresholds":  # {code or prefix: error | warning | never}
        levels = ("error", "warning", "never")
        if not isinstance(value, dict) or not all(
            isinstance(k, str) and CODE.match(k.strip()) and v in levels for k, v in value.items()
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
