"""The command line's table: every command, option and help text (argparse); ``cli`` runs what it parses."""

from __future__ import annotations

import argparse

from .. import __version__
from ..report import AUDIT_FORMATS, COMPARISON_FORMATS, HISTORY_FORMATS, IMPACT_FORMATS, MATRIX_FORMATS
from ..spec import DEFAULT_SPEC
from ..store.cachedir import cache_root
from .completion import SHELLS
from .parsing import Parser, job_count

FORMATS = AUDIT_FORMATS

# Each command's own exit codes: what 0, 1 and 2 mean differs (fix's 1 is "changes pending", history is 0).
_FATAL = "2 could not run (bad input, unknown ref, unreachable source, bad command line), one line on stderr"
EXIT_HELP = {
    "check": "0 everything holds; 1 drift (a quote not exact, a claim broken, a promise not kept, a finding "
    "the baseline does not accept; --fail-on and --exit-zero change which)",
    "fix": "0 nothing to heal, or healed with --write; 1 changes pending (a dry run that found some) or "
    "something left for a person",
    "diff": "0 no claim that held at OLD breaks at NEW; 1 one does",
    "impact": "0 the change leaves every status as it was, or only mends; 1 a quote, condition, claim or "
    "promise changes to a status that does not hold",
    "bump": "0 the pin was moved (or would be: nothing breaks); 1 a claim breaks, the pin is left (--force moves it)",
    "history": "0 the timeline was written, whatever it shows (a range that ends broken too)",
    "matrix": "0 the matrix was written, whatever it shows",
    "init": "0 a registry was drafted",
    "cache": "0 done",
    "explain": "0 the rule was explained",
    "lsp": "0 the client asked the server to exit",
    "completion": "0 the script was written",
}
_MAIN_EPILOG = "exit codes: 0 everything holds; 1 drift; 2 could not audit. `anchor-audit COMMAND --help` " \
    "says each command's own. More: README.md and docs/."


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="anchor-audit",
        epilog=_MAIN_EPILOG,
        description="Check that the line-anchored quotes and gating conditions of agent skills "
        "still hold at a pinned git ref.",
    )
    parser.add_argument("--version", action="version", version=f"anchor-audit {__version__}")
    commands = parser.add_subparsers(title="commands", metavar="COMMAND", required=True, parser_class=Parser)

    check = commands.add_parser("check", help="audit skills at a ref", description="Audit skills at a ref.")
    _source_options(check, worktree=True)
    _format_options(check, FORMATS)
    check.add_argument(
        "--report",
        action="append",
        default=[],
        metavar="FORMAT=FILE",
        help="also write the report in FORMAT to FILE, from the same run; repeatable (stdout keeps --format)",
    )
    _jobs_option(check)
    check.add_argument("--verbose", "-v", action="store_true", help="show the evidence that holds too, and every diff")
    check.add_argument(
        "--group-by", choices=("owner",),
        help="terminal and Markdown: one section per owner (CODEOWNERS, else recent committers) of drifting skills",
    )  # fmt: skip
    check.add_argument("--link-base", metavar="URL", help="https://github.com/OWNER/REPO for the Markdown links")
    check.add_argument("--baseline", metavar="FILE", help="accept the known findings FILE lists (each with a reason)")
    check.add_argument("--write-baseline", metavar="FILE", help="write the current findings as a baseline to FILE")
    check.add_argument(
        "--reason", metavar="TEXT",
        help="with --write-baseline: the reason given to every new entry (old ones keep theirs)",
    )  # fmt: skip
    _policy_options(check)
    _catalog_options(check, "a skills catalog: audit DIR/skills/* against the repositories DIR/components.d/*.yml name")
    check.set_defaults(command="check")

    fix = commands.add_parser(
        "fix",
        help="heal moved quotes (and card.yaml tags); a dry run unless --write",
        description="Rewrite the START:END of moved quotes (and the registry keys naming them). "
        "Prints a unified diff and writes nothing unless --write.",
    )
    _source_options(fix, worktree=True)
    _jobs_option(fix)
    fix.add_argument("--refresh-quotes", action="store_true", help="also re-copy moved quote bodies from the code")
    fix.add_argument("--update-card", action="store_true", help="set validated_on and reconcile card.yaml tags")
    fix.add_argument("--write", action="store_true", help="apply the changes (default: print the diff only)")
    fix.add_argument(
        "--format", choices=("terminal", "json", "issue"), default="terminal",
        help="terminal (the diff and what it heals), json: the same as data; issue (with --catalog): a tracking-issue "
        "body per upstream repository",
    )  # fmt: skip
    _catalog_options(fix, "heal a catalog's skills upstream: one patch per component repository, in its own paths "
                     "(never written inside the catalog)")  # fmt: skip
    fix.add_argument(
        "--output-dir", metavar="DIR", help="with --catalog: write OWNER-REPO.patch per repository and summary.md there"
    )
    fix.set_defaults(command="fix")

    diff = commands.add_parser(
        "diff",
        help="audit at two refs; what changed, and what breaks",
        description="Audit the same skills at OLD and NEW and list every quote and claim whose status changes. "
        "Exit 1 when a claim that held at OLD is broken at NEW.",
    )
    diff.add_argument("old", metavar="OLD", help="the ref the skills were right at (tag, branch or sha)")
    diff.add_argument("new", metavar="NEW", help="the ref to compare with it")
    _source_options(diff, ref=False)
    _format_options(diff, COMPARISON_FORMATS)
    diff.set_defaults(command="diff")

    impact = commands.add_parser(
        "impact",
        help="what a code change BASE..HEAD does to the skills that quote it",
        description="Read the diff BASE..HEAD (git) and report every quote, condition and claim whose status "
        "changes, and every quote whose lines the diff touches, with the code lines in HEAD and the healing patch. "
        "Exit 1 when a status changes for the worse.",
    )
    impact.add_argument("base", metavar="BASE", help="the ref the change starts from (a pull request's merge base)")
    impact.add_argument(
        "head", metavar="HEAD", nargs="?", help="the ref the change ends at (with --worktree: the working tree)"
    )
    _source_options(impact, ref=False, release=False, worktree=True)
    _catalog_options(impact, "the catalog skills whose component is the --repo repository",
                     "with --catalog: read the repository URL (or OWNER/NAME) from GITDIR, and a local --repo "
                     "GITDIR is that component; repeatable")
    _format_options(impact, IMPACT_FORMATS)
    impact.add_argument("--apply", action="store_true", help="write the healing patch here (SKILL.md, anchors.yaml)")
    impact.set_defaults(command="impact")

    bump = commands.add_parser(
        "bump",
        help="move the registry's pinned ref to NEW when nothing breaks",
        description="diff from the pinned ref to NEW; when no claim breaks (or with --force) rewrite source.ref "
        "in anchors.yaml, comments and layout kept.",
    )
    bump.add_argument(
        "new", metavar="NEW", help="the ref to move the pin to (HEAD or a branch is pinned to its commit)"
    )
    _source_options(bump, ref=False)
    _format_options(bump, COMPARISON_FORMATS)
    bump.add_argument("--force", action="store_true", help="rewrite the pin even when claims break")
    bump.add_argument(
        "--fix", action="store_true", help="also heal what fix would at NEW (moved quotes), in the same write"
    )
    bump.set_defaults(command="bump")

    hist = commands.add_parser(
        "history",
        help="when each quote and claim changed, commit by commit",
        description="The timeline of status changes of every quote and claim over --since..--until, "
        "each named by the first commit where it happened. Git only.",
    )
    _source_options(hist, ref=False, release=False, all_roots=False)
    _jobs_option(hist)
    hist.add_argument("--since", metavar="REF", help="start here (default: the whole history)")
    hist.add_argument("--until", metavar="REF", default="HEAD", help="end here (default: HEAD)")
    _format_options(hist, HISTORY_FORMATS)
    hist.set_defaults(command="history")

    matrix = commands.add_parser(
        "matrix",
        help="which releases each claim holds for: every release tag audited",
        description="Audit the skills at every release tag (the tags that parse as versions, sorted as versions) "
        "and say, per claim, the releases where it holds, as version specifiers, and its first break. Git only.",
    )
    _source_options(matrix, ref=False, release=False)
    matrix.add_argument("--tags", metavar="GLOB", help="only the version tags matching GLOB (e.g. 'v0.*')")
    matrix.add_argument("--pre", action="store_true", help="include pre-releases (rc, a, b, dev)")
    matrix.add_argument("--since", metavar="VERSION", help="from this release on (a tag or a version)")
    matrix.add_argument("--until", metavar="VERSION", help="up to this release")
    _catalog_options(matrix, "a skills catalog: each component's skills over its own repository's release tags")
    matrix.add_argument("--write-card", action="store_true",
                        help="write each claim's releases into its card.yaml as validated_versions")  # fmt: skip
    matrix.add_argument("--verbose", "-v", action="store_true",
                        help="the terminal's grid shows every row: quotes, conditions and references too")  # fmt: skip
    _format_options(matrix, MATRIX_FORMATS)
    matrix.set_defaults(command="matrix")

    init = commands.add_parser(
        "init",
        help="draft an anchors.yaml that runs, for a skill or a catalog",
        description="Draft a complete anchors.yaml: each card claim with the quotes its comments or captions name "
        "and conditions drafted from the code. anchor-audit init SKILL_DIR > anchors.yaml && anchor-audit check",
    )
    init.add_argument("skill_dir", metavar="SKILL_DIR", nargs="?", help="the skill folder to draft an entry for")
    init.add_argument("--repo", help="the code the skill quotes (default: the git repository SKILL_DIR is in)")
    init.add_argument("--ref", help="tag, branch or sha to read the code at (default: HEAD)")
    _worktree_option(init, "the draft pins HEAD")
    _catalog_options(init, "draft one registry for every skill of a skills catalog")
    init.add_argument("--cache-dir", metavar="DIR", help="where fetched repositories are kept")
    _git_options(init)
    init.set_defaults(command="init")

    lsp = commands.add_parser(
        "lsp",
        help="a language server on stdio: findings as you write a skill, fixes as code actions",
        description="Serve the Language Server Protocol on stdin and stdout for SKILL.md, card.yaml and anchors.yaml: "
        "diagnostics on open, change and save, hovers with the quoted code, code actions that heal. Settings come "
        "from the client (initializationOptions): source (auto, registry, worktree), spec, worktree, baseline.",
    )
    lsp.add_argument("--cache-dir", metavar="DIR", help="where fetched repositories, snapshots and results are kept")
    lsp.set_defaults(command="lsp")

    cache = commands.add_parser(
        "cache",
        help="show, measure, prune or remove the cache directory",
        description="The cache directory: fetched repositories (lean mirrors), release wheels, and results by "
        "content. info (the default): where it is, how big, how many entries; dir: its path; prune: remove "
        "mirrors and wheels not used for --older-than DAYS; clean: remove anchor-audit's entries.",
    )
    cache.add_argument("action", nargs="?", default="info", choices=("info", "dir", "prune", "clean"))
    cache.add_argument("--older-than", metavar="DAYS", type=_days, help="with prune: unused for more than DAYS days")
    cache.add_argument("--cache-dir", metavar="DIR", help=f"the cache directory (default: {cache_root()})")
    cache.set_defaults(command="cache")
    explain = commands.add_parser(
        "explain", help="what a finding code means and what to do", description="What a finding code means."
    )
    explain.add_argument("code", nargs="?", metavar="CODE", help="a code (AA406) or a rule name (path-missing)")
    explain.set_defaults(command="explain")

    completion = commands.add_parser(
        "completion", help="a completion script for bash, zsh or fish",
        description="Write a shell completion script to stdout: bash (`anchor-audit completion bash > "
        "~/.local/share/bash-completion/completions/anchor-audit`), zsh (as `_anchor-audit` in a folder of "
        "$fpath), fish (as `~/.config/fish/completions/anchor-audit.fish`).",
    )  # fmt: skip
    completion.add_argument("shell", choices=SHELLS, metavar="SHELL", help="bash, zsh or fish")
    completion.set_defaults(command="completion")
    for name, sub in commands.choices.items():
        sub.epilog = f"exit codes: {EXIT_HELP[name]}; {_FATAL}."
    return parser


def _format_options(command: argparse.ArgumentParser, formats: tuple[str, ...]) -> None:
    command.add_argument(
        "--format",
        choices=formats,
        default="terminal",
        help="the report's format (default: terminal): " + ", ".join(formats),
    )
    command.add_argument(
        "--output", "-o", metavar="FILE", help="write the report to FILE (atomically) instead of stdout"
    )
    command.add_argument(
        "--color",
        choices=("auto", "always", "never"),
        help="colour the terminal report: auto (on a terminal, unless NO_COLOR is set; FORCE_COLOR forces it), "
        "always, never",
    )


def _policy_options(command: argparse.ArgumentParser) -> None:
    """Which findings are reported and which fail the run; each may be set in [tool.anchor-audit] instead."""
    command.add_argument(
        "--strict", action="store_true", default=None,
        help="a code_verified claim with no registered evidence (unlinked) is drift",
    )  # fmt: skip
    command.add_argument(
        "--select", action="append", metavar="CODES",
        help="report only these finding codes or prefixes (AA1, AA406), comma-separated; repeatable",
    )  # fmt: skip
    command.add_argument(
        "--ignore", action="append", metavar="CODES",
        help="never report these codes or prefixes, comma-separated; repeatable (the longer prefix wins)",
    )  # fmt: skip
    command.add_argument(
        "--fail-on", choices=("error", "warning"),
        help="only drift of this level or worse fails the run (levels: anchor-audit explain)",
    )  # fmt: skip
    command.add_argument(
        "--exit-zero", action="store_true", default=None, help="exit 0 even with drift (2 still means it could not run)"
    )
    command.set_defaults(fail_on_codes=None)  # settings only: fail-on-codes = {AA4 = "never", AA1 = "error"}


def _days(text: str) -> float:
    try:
        days = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of days: {text!r}") from None
    if not 0 <= days <= 36_500:
        raise argparse.ArgumentTypeError(f"not a number of days from 0 to 36500: {text!r}")
    return days


MIRROR_HELP = "with --catalog: read the repository URL (or OWNER/NAME) from this local git dir; repeatable"


def _catalog_options(command: argparse.ArgumentParser, catalog_help: str, mirror_help: str = MIRROR_HELP) -> None:
    """``--catalog DIR`` and its repeatable ``--mirror URL=GITDIR``, as every catalog command takes them."""
    command.add_argument("--catalog", metavar="DIR", help=catalog_help)
    command.add_argument("--mirror", action="append", default=[], metavar="URL=GITDIR", help=mirror_help)


def _source_options(
    command: argparse.ArgumentParser,
    ref: bool = True,
    release: bool = True,
    all_roots: bool = True,
    worktree: bool = False,
) -> None:
    command.add_argument(
        "skill_dirs", nargs="*", metavar="SKILL_DIR", help="skill directories (default: the skills anchors.yaml names)"
    )
    command.add_argument("--spec", help=f"the registry (default: ./{DEFAULT_SPEC})")
    if all_roots:
        command.add_argument(
            "--all",
            action="append",
            default=[],
            metavar="ROOT",
            help="audit every skill (SKILL.md) under ROOT, registered or not; repeatable",
        )
    command.add_argument("--repo", help="git URL or local path; overrides the registry's source.repo")
    if ref:
        command.add_argument("--ref", help="tag, branch or sha; overrides the registry's source.ref")
    if release:
        command.add_argument(
            "--installed",
            nargs="?",
            const="",
            metavar="DIST",
            help="read the distribution installed in this Python (default: source.release.dist) instead of git",
        )
        command.add_argument(
            "--release",
            nargs="?",
            const="",
            metavar="VERSION",
            help="read the published release wheel instead of git (VERSION defaults to the ref without 'v')",
        )
    if worktree:
        _worktree_option(command, "nothing is written there")
    command.add_argument(
        "--in-repo", action="store_true", help="SKILL_DIRs are folders inside the repository, read at each ref"
    )
    command.add_argument("--cache-dir", metavar="DIR", help="where fetched repositories, wheels and results are kept")
    command.add_argument(
        "--no-cache",
        action="store_true",
        help="use no on-disk cache this run: fetch into a temporary directory, keep no results",
    )
    _git_options(command)
    command.add_argument("--quiet", "-q", action="store_true", help="no progress display")
    _config_option(command)


def _git_options(command: argparse.ArgumentParser) -> None:
    """What git may read besides the repository: submodules from elsewhere, transports that are refused by default."""
    command.add_argument(
        "--submodule",
        action="append",
        default=[],
        metavar="PATH=URL_OR_DIR",
        help="read the submodule at PATH from this repository instead of .gitmodules' URL; repeatable",
    )
    command.add_argument(
        "--allow-protocol",
        action="append",
        default=[],
        metavar="NAME",
        help="also allow this git transport (e.g. ext, which runs commands); repeatable",
    )


def _worktree_option(command: argparse.ArgumentParser, more: str) -> None:
    command.add_argument(
        "--worktree", nargs="?", const=".", metavar="DIR",
        help=f"read the code from the git working tree DIR is in (default: here), uncommitted changes included; {more}",
    )  # fmt: skip


def _jobs_option(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--jobs", "-j", type=job_count, metavar="N",
        help="processes (this one and N-1 forked) for a catalog's or --all's skills, a history's commits (default: "
        "the cores; the same report for any N)",
    )  # fmt: skip


def _config_option(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--config", metavar="FILE",
        help="settings file (default: ./anchor-audit.toml, else ./pyproject.toml's [tool.anchor-audit])",
    )  # fmt: skip
    command.add_argument(
        "--config-from", metavar="REF",
        help="read the settings file as committed at REF (a pull request's base), not the checkout's; each "
        "difference the checkout's makes is said and not applied",
    )  # fmt: skip
