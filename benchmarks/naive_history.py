"""The honest baseline for ``history``: what a competent engineer writes in ten minutes.

    python benchmarks/naive_history.py GITDIR SINCE UNTIL PATH [PATH ...]

The first-parent commits of SINCE..UNTIL that touch PATHs (one path-limited
``git rev-list``), every PATH read at each of them (one ``git cat-file
--batch``), each read parsed with the stdlib parser.  It matches nothing: a
floor under any tool that would tell what changed, run in full, never
extrapolated.  Prints the counts, so a reader can see it did the work.
"""

from __future__ import annotations

import ast
import subprocess
import sys


def main(argv: list[str]) -> int:
    gitdir, since, until, *paths = argv
    git = ["git", "--git-dir", gitdir]
    span = f"{since}..{until}"
    touching = subprocess.run(
        [*git, "rev-list", "--first-parent", span, "--", *paths], capture_output=True, text=True, check=True
    ).stdout.split()
    commits = [*touching, since]  # and the state the range starts from
    asked = "".join(f"{commit}:{path}\n" for commit in commits for path in paths).encode()
    out = subprocess.run([*git, "cat-file", "--batch"], input=asked, capture_output=True, check=True).stdout
    parsed = missing = at = 0
    while at < len(out):
        header_end = out.index(b"\n", at)
        header = out[at:header_end].split()
        if header[-1] == b"missing":
            missing += 1
            at = header_end + 1
            continue
        size = int(header[2])
        ast.parse(out[header_end + 1 : header_end + 1 + size])
        parsed += 1
        at = header_end + 1 + size + 1  # the blob, then a newline
    print(f"{len(touching)} commits touch the files; {parsed} file versions parsed, {missing} absent")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
