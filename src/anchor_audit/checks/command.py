"""A command a skill runs, judged at the ref: is its module or script there, and does it define each flag?

``python -m PKG.MOD``, ``python SCRIPT.py``, ``torchrun ... -m PKG.MOD`` and the
console scripts ``[project.scripts]`` declares are looked up in the tree (a
package's roots found from where its ``__init__.py`` lies: ``src/``, ``python/``);
a module whose top package the repository does not have is ``external``. The
flags are read statically with ``ast`` (never by running the code) from the
string options of ``add_argument``, ``click.option``/``argument`` and
``typer.Option`` calls in the module's file; where that file defines none,
its flags are defined elsewhere and are ``unverifiable``. argparse accepts an
unambiguous prefix of a flag, and so does this check. A flag it does not write out
may be one it makes from data: :mod:`.madeflags` reads those it can.
"""

from __future__ import annotations

import ast
import difflib
import json
import re
from dataclasses import dataclass, replace
from typing import Callable, Iterator

from ..model import (
    Citation,
    PromiseKind,
    PromiseResult,
    PromiseStatus,
    Reference,
    ReferenceKind,
    Skill,
    SkillSpec,
    Tail,
)
from ..parse.imports import imported
from ..source import SourceTree
from ..source.listing import Listing, is_test
from .madeflags import (
    MAX_IMPORTS,
    OPTION_CALLS,
    MadeFlags,
    import_file,
    made_flags,
    parsed,
    program_module,
)
from .modulehistory import module_removed
from .paths import on_a_page, unverified_on_a_page
from .protocol import Checker, Context, citations_of
from .pyproject import project_meta

_Result = Callable[[str, PromiseStatus, str], PromiseResult]  # a result of the command's file and line


def check_command(c: Citation, tree: SourceTree, listing: Listing, file: str) -> list[PromiseResult]:
    """The command's result and one per flag (none at all for a program the repository does not declare)."""
    kind, _, name = c.target.partition(":")

    def result(target: str, status: PromiseStatus, detail: str = "") -> PromiseResult:
        return PromiseResult(PromiseKind.COMMAND, target, status, file, c.line, detail)

    if kind == "program":
        module = _console_scripts(tree, listing).get(name)
        if module is None:
            return []  # not this repository's program: not a citation of it
        shown, path = name, program_module(module, tree, listing)
        if path is None:
            return [result(name, PromiseStatus.MISSING, f"[project.scripts] {name} names {module}, which is not here")]
    elif kind == "module":
        shown, path = f"python -m {name}", program_module(name, tree, listing)
        if path is None:
            top = name.split(".")[0]
            if not listing.package_roots(top):
                return [result(shown, PromiseStatus.EXTERNAL, f"{top} is not a package of this repository")]
            why = f"no module {name} here (its package {top} is)" + _module_removed(name, tree, listing)
            return [result(shown, PromiseStatus.MISSING, why)]
    else:  # a script: its path's own check says whether it is there; here, only its flags
        shown, path = name, name if tree.blob_id(name) is not None else None
        if path is None:
            return []
    out = [] if kind == "script" else [result(shown, PromiseStatus.EXISTS, path)]
    if c.positionals:
        out += _positionals(shown, c.positionals, _parser_shape(path, tree, listing), result)
    if c.flags:
        defined = _defined_flags(path, tree, listing)
        if not defined:
            why = f"{path} defines no flags itself: its parser is elsewhere"
            return out + [result(f"{shown} {', '.join(c.flags)}", PromiseStatus.UNVERIFIABLE, why)]
        flags = [_flag(shown, flag, defined, result) for flag in c.flags]
        if any(r.status is PromiseStatus.MISSING for r in flags):
            made = made_flags(path, tree, listing)
            if made is not None:  # a flag it does not write out may be one it makes from a dataclass or a table
                flags = [_made_flag(shown, flag, defined, made, result) if r.status is PromiseStatus.MISSING else r
                         for flag, r in zip(c.flags, flags, strict=True)]  # fmt: skip
        out += flags
    return out


def _module_removed(module: str, tree: SourceTree, listing: Listing) -> str:
    """What the history did with the file ``python -m module`` ran (``: X moved to Y in commit C, where it runs as
    python -m M``, or deleted, and the modules of its name); nothing where it never had one."""
    gone = module_removed(module, listing.package_roots(module.split(".")[0]), tree, listing.named)
    if gone is None:
        return ""
    said = f": {gone.path} {gone.said}"
    if gone.module is not None:
        return f"{said}, where it runs as python -m {gone.module}"
    return said + (f"; a module of its name is {', '.join(gone.namesakes)}" if gone.namesakes else "")


def _made_flag(shown: str, flag: str, defined: set[str], made: MadeFlags, result: _Result) -> PromiseResult:
    """A flag the program does not write out, judged among those it makes from data too."""
    judged = _flag(shown, flag, defined | set(made.flags), result)
    if judged.status is PromiseStatus.EXISTS:
        full = judged.detail.removeprefix("abbreviates ") or flag
        said = f"{judged.detail}, " if judged.detail else ""
        return replace(judged, detail=f"{said}made from {made.flags[full]}") if full in made.flags else judged
    if judged.status is not PromiseStatus.MISSING:
        return judged
    counted = (f"not among the {_flags(len(defined))} it writes out nor the {_flags(len(made.flags))} it makes from "
               f"the fields of {made.classes} class{'es' if made.classes != 1 else ''}")  # fmt: skip
    if made.unread:
        why = f"{counted}, and it also makes flags from data not read ({made.unread}): re-verify"
        return replace(judged, status=PromiseStatus.UNVERIFIABLE, detail=why)
    hint = judged.detail.partition("; closest: ")[2]
    return replace(judged, detail=counted + (f"; closest: {hint}" if hint else ""))


@dataclass(frozen=True)
class Computed:
    """A default that is not a literal (``default=os.cpu_count()``): known only by running the code."""

    code: str


def command_file(c: Citation, tree: SourceTree, listing: Listing) -> str | None:
    """The file a command runs: a console script's module, a module, a script."""
    kind, _, name = c.target.partition(":")
    if kind == "program":
        module = _console_scripts(tree, listing).get(name)
        return program_module(module, tree, listing) if module else None
    if kind == "module":
        return program_module(name, tree, listing)
    return name if tree.blob_id(name) is not None else None


def _positionals(
    shown: str,
    words: tuple[str, ...],
    shape: tuple[set[str], int | None, bool],
    result: _Result,
) -> list[PromiseResult]:
    """The words before the first flag: a subcommand the parser defines, or as many positionals as it takes."""
    commands, positionals, parses = shape
    if commands:
        if words[0] in commands:
            return [result(f"{shown} {words[0]}", PromiseStatus.EXISTS, "")]
        shown_commands = ", ".join(sorted(commands)[:8])
        return [result(f"{shown} {words[0]}", PromiseStatus.MISSING, f"no subcommand {words[0]} ({shown_commands})")]
    if parses and positionals is not None and len(words) > positionals:
        why = f"its parser takes {positionals} positional argument{'s' if positionals != 1 else ''} and no subcommand"
        return [result(f"{shown} {' '.join(words)}", PromiseStatus.DIFFERS, why)]
    return []


def _parser_shape(path: str, tree: SourceTree, listing: Listing) -> tuple[set[str], int | None, bool]:
    """(subcommands, positionals taken (None: any number), whether a parser is defined here at all), read
    from ``add_parser``/``add_argument`` calls and click/typer ``command`` decorators of ``path``."""
    index = parsed(tree, path)
    return index.worked_out(_shape) if index is not None else (set(), None, False)


def _shape(module: ast.Module) -> tuple[set[str], int | None, bool]:
    commands: set[str] = set()
    positionals: int | None = 0
    parses = False
    for node in ast.walk(module):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for deco in node.decorator_list:
                call = deco if isinstance(deco, ast.Call) else None
                func = call.func if call else deco
                if isinstance(func, ast.Attribute) and func.attr in ("command", "group"):  # click's groups too
                    named = [a.value for a in (call.args if call else []) if isinstance(a, ast.Constant)]
                    commands.add(str(named[0]) if named else node.name.replace("_", "-"))
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            continue
        first = node.args[0].value if node.args and isinstance(node.args[0], ast.Constant) else None
        if node.func.attr == "add_parser" and isinstance(first, str):
            commands.add(first)
        elif node.func.attr == "add_argument":
            parses = True
            if isinstance(first, str) and not first.startswith("-") and positionals is not None:
                nargs = next((k for k in node.keywords if k.arg == "nargs"), None)
                positionals = None if nargs is not None else positionals + 1
    return commands, positionals, parses


def _flag(shown: str, flag: str, defined: set[str], result: _Result) -> PromiseResult:
    if flag in defined:
        return result(f"{shown} {flag}", PromiseStatus.EXISTS, "")
    longer = sorted(d for d in defined if d.startswith(flag))
    if len(longer) == 1:
        return result(f"{shown} {flag}", PromiseStatus.EXISTS, f"abbreviates {longer[0]}")
    if "." in flag:  # --optimizer.lr: an override the program hands to its config (parse_known_args), not a flag
        why = "a dotted override: the config reads it, not the parser"
        return result(f"{shown} {flag}", PromiseStatus.UNVERIFIABLE, why)
    near = difflib.get_close_matches(flag, sorted(defined), n=1)
    hint = f"; closest: {near[0]}" if near else ""
    return result(f"{shown} {flag}", PromiseStatus.MISSING, f"not among the {_flags(len(defined))} it defines{hint}")


def _flags(n: int) -> str:
    return f"{n} flag" if n == 1 else f"{n} flags"


def _defined_flags(path: str, tree: SourceTree, listing: Listing) -> set[str]:
    return set(program_defaults(path, tree, listing))


def program_defaults(path: str, tree: SourceTree, listing: Listing) -> dict[str, object]:
    """The flags ``path`` defines and their defaults, and those of the repository's modules it imports (a
    parser kept in an ``arguments.py`` beside a script, or in the package): one level of imports, never the
    whole program."""
    index = parsed(tree, path)
    if index is None:
        return {}
    found = index.worked_out(_walked_flags)
    for name in index.worked_out(imported)[:MAX_IMPORTS]:
        other = import_file(path, name, tree, listing)
        source = tree.read(other) if other and other != path else None
        theirs = parsed(tree, other) if other and source is not None and _CALLS_AN_OPTION.search(source.text) else None
        found = {**(theirs.worked_out(_walked_flags) if theirs is not None else {}), **found}
    return found


# The text of a call of one of OPTION_CALLS (a module without one defines no flag, and is not parsed for them).
_CALLS_AN_OPTION = re.compile(r"\b(?:%s)[\s\\]*\(" % "|".join(sorted(OPTION_CALLS)))


def _walked_flags(module: ast.Module) -> dict[str, object]:
    """Every option string the module's parser calls define, and its default (worked out once per index: a skill
    names the same module in many commands)."""
    found: dict[str, object] = {}
    for node in ast.walk(module):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            if name in OPTION_CALLS:
                written = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
                options = [o.strip() for w in written for o in w.split("/")]  # click's "--wait/--no-wait" pair
                default = _default_of(node, name)
                found |= {o: default for o in options if o.startswith("--")}
    return found


def _default_of(call: ast.Call, name: str) -> object:
    """The default an option call gives: ``default=``, a store_true's False, typer's first argument."""
    keywords = {k.arg: k.value for k in call.keywords if k.arg}
    node = keywords.get("default")
    if node is None and name in ("Option", "Argument") and call.args:
        first = call.args[0]
        is_flag = isinstance(first, ast.Constant) and isinstance(first.value, str) and first.value.startswith("-")
        node = None if is_flag else first
    if node is None:
        action = keywords.get("action")
        flag = isinstance(action, ast.Constant) and action.value in ("store_true", "store_false")
        if flag or isinstance(keywords.get("is_flag"), ast.Constant):
            return not (isinstance(action, ast.Constant) and action.value == "store_true") if flag else False
        return None
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return Computed(ast.unparse(node)[:60])


def _console_scripts(tree: SourceTree, listing: Listing) -> dict[str, str]:
    """``[project.scripts]`` of the repository's pyproject.toml and of its subprojects' (a monorepo's
    ``infra/tool/pyproject.toml``, three folders deep at most): program -> module; the root's first."""
    found: dict[str, str] = {}
    nested = sorted(p for p in listing.named("pyproject.toml") if 1 <= p.count("/") <= 3)
    for path in ["pyproject.toml", *(p for p in nested if not is_test(p))][:MAX_PROJECTS]:
        meta = project_meta(tree, path)
        found = {**(meta.scripts if meta is not None else {}), **found}
    return found


MAX_PROJECTS = 32  # pyproject.toml files read for console scripts


def reads_command(c: Citation, skill: Skill, entry: SkillSpec | None) -> Iterator[Reference]:
    """Its module (wherever the package's root is), its script, or the programs pyproject.toml declares."""
    kind, _, name = c.target.partition(":")
    if kind == "module":
        module = name.replace(".", "/")
        yield Reference(c.kind, c.file, c.line, c.text, frozenset({"pyproject.toml"}), Tail(f"{module}.py"))
    else:
        yield Reference(c.kind, c.file, c.line, c.text, frozenset({"pyproject.toml", name}))


def _check_command(c: Citation, ctx: Context) -> list[PromiseResult]:
    results = _judged_command(c, ctx)
    if on_a_page(c) and len(results) == 1 and results[0].status is PromiseStatus.MISSING:  # the program itself
        # A page runs other projects' programs as often as this one's: one not here is not said missing (the
        # flags of one that is here are judged as anywhere).
        status, detail = unverified_on_a_page(results[0].detail)
        return [replace(results[0], status=status, detail=detail)]
    return results


def _judged_command(c: Citation, ctx: Context) -> list[PromiseResult]:
    """:func:`check_command`'s results, remembered by the commit and what the command says (a program many skills
    run is judged once for the same flags: its parser, the modules it imports, the flags it makes from data)."""
    file, key = ctx.file(c.file), ctx.tree.content_key()
    if key is None:
        return check_command(c, ctx.tree, ctx.listing, file)

    def judged() -> dict[str, list[list[str]]]:
        return {"results": [[r.path, str(r.status), r.detail] for r in check_command(c, ctx.tree, ctx.listing, file)]}

    said = ctx.memo(f"command/1|{key}|{json.dumps([c.target, c.flags, c.positionals])}", judged)["results"]
    return [PromiseResult(PromiseKind.COMMAND, path, PromiseStatus(status), file, c.line, detail)
            for path, status, detail in said]  # fmt: skip


COMMAND: Checker[Citation, list[PromiseResult]] = Checker(
    ReferenceKind.COMMAND, citations_of(ReferenceKind.COMMAND), reads_command, _check_command, PromiseKind.COMMAND,
    unreadable_is_there=False,
)  # fmt: skip
