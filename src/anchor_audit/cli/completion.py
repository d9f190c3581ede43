"""``anchor-audit completion SHELL``: a completion script for bash, zsh or fish, written from the argparse table.

The script knows the commands, each command's options and the choices of those that take one (``--format``,
``--color``, ``cache``'s actions); after an option that takes a path, and for positional arguments, the shell's
own file completion.  Nothing is run at completion time: the script is static text, made again with the tool.
"""

from __future__ import annotations

import argparse
import shlex
from dataclasses import dataclass

SHELLS = ("bash", "zsh", "fish")


@dataclass(frozen=True)
class Command:
    name: str
    help: str
    options: tuple[str, ...]  # every spelling (--verbose, -v)
    choices: dict[str, tuple[str, ...]]  # an option that takes one of these
    positional: tuple[str, ...]  # a positional argument's choices (cache's actions); empty: files


def commands(parser: argparse.ArgumentParser) -> list[Command]:
    """Each command of ``parser``, with what completes after it."""
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    helps = {a.dest: a.help or "" for a in sub._choices_actions}
    out = []
    for name, command in sub.choices.items():
        options: list[str] = []
        choices: dict[str, tuple[str, ...]] = {}
        positional: tuple[str, ...] = ()
        for action in command._actions:
            if action.option_strings:
                options += action.option_strings
                if action.choices:
                    for spelling in action.option_strings:
                        choices[spelling] = tuple(str(c) for c in action.choices)
            elif action.choices:
                positional = tuple(str(c) for c in action.choices)
        out.append(Command(name, helps.get(name, ""), tuple(options), choices, positional))
    return out


def script(shell: str, parser: argparse.ArgumentParser) -> str:
    """The completion script for ``shell``."""
    return {"bash": _bash, "zsh": _zsh, "fish": _fish}[shell](commands(parser))


def _bash(found: list[Command]) -> str:
    names = " ".join(c.name for c in found)
    cases = []
    for c in found:
        after = "".join(f"            {shlex.quote(o)}) COMPREPLY=($(compgen -W {shlex.quote(' '.join(v))} "
                        '-- "$cur")); return;;\n' for o, v in c.choices.items())  # fmt: skip
        words = " ".join([*c.options, *c.positional])
        files = "" if c.positional else '          [[ $cur != -* ]] && COMPREPLY+=($(compgen -f -- "$cur"))\n'
        cases.append(f"        {c.name})\n          case \"$prev\" in\n{after}          esac\n"
                     f"          COMPREPLY=($(compgen -W {shlex.quote(words)} -- \"$cur\"))\n"
                     f"{files}          ;;\n")  # fmt: skip
    return (
        "# anchor-audit completion for bash: source this file, or put it in bash-completion's completions folder\n"
        "_anchor_audit() {\n"
        '    local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}" command="" i\n'
        "    for ((i = 1; i < COMP_CWORD; i++)); do\n"
        f'        case "${{COMP_WORDS[i]}}" in {names.replace(" ", "|")}) command="${{COMP_WORDS[i]}}"; break;; esac\n'
        "    done\n"
        '    if [[ -z $command ]]; then\n'
        f'        COMPREPLY=($(compgen -W "{names} --help --version" -- "$cur")); return\n'
        "    fi\n"
        '    case "$command" in\n' + "".join(cases) + "    esac\n}\n"
        "complete -o filenames -F _anchor_audit anchor-audit\n"
    )


def _zsh(found: list[Command]) -> str:
    described = "\n".join(f"    {shlex.quote(c.name + ':' + c.help.replace(':', ' -'))}" for c in found)
    cases = []
    for c in found:
        choices = "".join(f"        {shlex.quote(o)}) compadd -- {' '.join(shlex.quote(v) for v in vs)}; return;;\n"
                          for o, vs in c.choices.items())  # fmt: skip
        words = " ".join(shlex.quote(w) for w in (*c.options, *c.positional))
        files = "" if c.positional else "; _files"
        cases.append(f"    {c.name})\n      case $words[CURRENT-1] in\n{choices}      esac\n"
                     f"      compadd -- {words}{files};;\n")  # fmt: skip
    return (
        "#compdef anchor-audit\n"
        "# anchor-audit completion for zsh: put this file as _anchor-audit in a folder of your $fpath\n"
        "_anchor_audit() {\n"
        "  local -a commands\n"
        f"  commands=(\n{described}\n  )\n"
        "  if (( CURRENT == 2 )); then\n    _describe command commands; return\n  fi\n"
        "  case $words[2] in\n" + "".join(cases) + "  esac\n}\n"
        '_anchor_audit "$@"\n'
    )


def _fish(found: list[Command]) -> str:
    names = " ".join(c.name for c in found)
    lines = [
        "# anchor-audit completion for fish: put this file as anchor-audit.fish in ~/.config/fish/completions/",
        "complete -c anchor-audit -f",
    ]
    for c in found:
        lines.append(f"complete -c anchor-audit -n 'not __fish_seen_subcommand_from {names}' -a {c.name} "
                     f"-d {shlex.quote(c.help)}")  # fmt: skip
        when = f"-n '__fish_seen_subcommand_from {c.name}'"
        for option in c.options:
            flag = f"-l {option[2:]}" if option.startswith("--") else f"-s {option[1:]}"
            takes = c.choices.get(option)
            values = f" -x -a {shlex.quote(' '.join(takes))}" if takes else ""
            lines.append(f"complete -c anchor-audit {when} {flag}{values}")
        if c.positional:
            lines.append(f"complete -c anchor-audit {when} -a {shlex.quote(' '.join(c.positional))}")
        else:
            lines.append(f"complete -c anchor-audit {when} -F")
    return "\n".join(lines) + "\n"
