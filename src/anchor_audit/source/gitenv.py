"""The environment every git process of anchor-audit runs in: what an input may make git do.

Git never prompts or stalls, never runs a command through a transport unless
the user named it, never runs a command an untrusted repository's config
names, and reads credentials only from this process's environment.  No
GitPython here: a remembered run (:mod:`anchor_audit.runs.remembered`) asks git for a
ref through this environment without importing it.
"""

from __future__ import annotations

import os
import subprocess

from ..text.redact import has_credentials, redact

# Transports that can run commands (ext::, fd::) are refused unless named with --allow-protocol;
# git enforces the same list (GIT_ALLOW_PROTOCOL), submodules and redirects included.
ALLOWED_PROTOCOLS = ("file", "git", "http", "https", "ssh")
COMMAND_TRANSPORTS = ("ext", "fd")


# What an untrusted repository's config (a vendored bare repository, a poisoned cache mirror) could use to run a
# command or to change what a read command answers. Every git process anchor-audit starts gets these as
# command-level configuration (GIT_CONFIG_COUNT), which git reads last, so they win over any file's value;
# child gits (a lazy fetch, upload-pack on a local remote) inherit them. docs/security.md lists them.
NEUTRAL_CONFIG: tuple[tuple[str, str, str], ...] = (
    ("core.hooksPath", "/dev/null", "no hook runs (reference-transaction on a fetch, pre-auto-gc, ...)"),
    ("core.fsmonitor", "false", "no file-system monitor command"),
    ("core.pager", "cat", "no pager command"),
    ("core.editor", "true", "no editor command"),
    ("core.alternateRefsCommand", "true", "no command lists an alternate's refs during a fetch"),
    ("credential.helper", "", "an empty value empties the list: no credential helper command"),
    ("log.showSignature", "false", "log never runs gpg.program (or gpg.ssh.program) on a signed commit"),
    ("log.follow", "false", "a one-path log asks what it says, not a rename-following walk"),
    ("gc.auto", "0", "no background gc (and its hooks) after a fetch"),
    ("maintenance.auto", "false", "no background maintenance after a fetch"),
    ("fetch.recurseSubmodules", "false", "a fetch never goes on into submodules"),
)
# Set in the environment, where git reads them before any configuration file.
NEUTRAL_ENV = {
    "GIT_PROXY_COMMAND": "",  # set (even empty), it keeps core.gitProxy from running a command for git://
    "GIT_PAGER": "cat",
    "GIT_EDITOR": "true",
    "GIT_NO_REPLACE_OBJECTS": "1",  # a commit sha names what it names: replace refs cannot swap the content
    "GIT_TERMINAL_PROMPT": "0",  # never wait for a password
    "GIT_ASKPASS": "true",
    "GIT_SSH_COMMAND": "ssh -o BatchMode=yes -o ConnectTimeout=30",  # wins over core.sshCommand and GIT_SSH
    "GIT_HTTP_LOW_SPEED_LIMIT": "1000",  # a transfer slower than 1 kB/s for 60 s is given up
    "GIT_HTTP_LOW_SPEED_TIME": "60",
}
# remote.<name>.uploadpack is the command a fetch from that remote runs: every remote a repository names gets
# this one (see remote_names); explicit fetches also pass it as --upload-pack.
UPLOAD_PACK = "git-upload-pack"
# Flags for every diff or log that prints a patch or file names: no diff.external, no textconv driver.
DIFF_FLAGS = ("--no-ext-diff", "--no-textconv", "--no-color")


def git_env(allow: tuple[str, ...] = (), url: str | None = None, remotes: tuple[str, ...] = ()) -> dict[str, str]:
    """The environment git runs in: no prompts, no stalls, only the allowed transports, no command from config.

    ``remotes``: the remote names the repository's own config has, each of
    whose ``uploadpack`` is forced to plain ``git-upload-pack``.  A ``url``
    with credentials is never written to the mirror's config, which holds its
    redacted form; git is told to read one as the other through configuration
    in the environment (``url.<real>.insteadOf <redacted>``), which lives only
    as long as this process.
    """
    # core.quotePath=false: paths come out as UTF-8, not "\303\251" (café/, 技能/ are names like any other).
    config = [("core.quotePath", "false"), *((key, value) for key, value, _ in NEUTRAL_CONFIG)]
    config += [(f"remote.{name}.uploadpack", UPLOAD_PACK) for name in remotes]
    if url is not None and has_credentials(url):
        config.append((f"url.{url}.insteadOf", redact(url)))
    env = {"GIT_CONFIG_COUNT": str(len(config))}
    for i, (key, value) in enumerate(config):
        env[f"GIT_CONFIG_KEY_{i}"], env[f"GIT_CONFIG_VALUE_{i}"] = key, value
    return {**env, "GIT_ALLOW_PROTOCOL": ":".join(ALLOWED_PROTOCOLS + allow), **NEUTRAL_ENV}


# Where a mirror keeps the refs a run fetched: a ref is looked for under it first, then as itself.
FETCHED = "refs/anchor-audit/"


def commits_named(names: list[str], where: list[str], env: dict[str, str], cwd: str | None = None) -> tuple[
    list[str | None], str
]:  # fmt: skip
    """The commit each of ``names`` names (``NAME^{commit}``: an existing commit, or None), from one ``git
    cat-file --batch-check`` run as ``git *where`` in ``cwd``; and what git said on stderr.  git decides, as
    ``rev-parse`` would, with no process per name."""
    done = subprocess.run(
        ["git", *where, "cat-file", "--batch-check=%(objectname) %(objecttype)"], cwd=cwd,
        input="".join(f"{name}^{{commit}}\n" for name in names).encode("utf-8", "surrogateescape"),
        capture_output=True, timeout=60, env={**os.environ, **env},
    )  # fmt: skip
    answers = [line.split(" ") for line in done.stdout.decode("ascii", "replace").splitlines()]
    found = [a[0] if len(a) == 2 and a[1] == "commit" else None for a in answers] if done.returncode == 0 else []
    return found + [None] * (len(names) - len(found)), done.stderr.decode("utf-8", "replace")
