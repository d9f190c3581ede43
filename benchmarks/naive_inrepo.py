"""The naive baseline for a repository's own skills: what any script checking them must at least do, and no more.

    python benchmarks/naive_inrepo.py GITDIR REF SKILLS_FOLDER

One ``git ls-tree -r`` of REF; one ``git cat-file --batch`` for every file of every skill folder under
SKILLS_FOLDER and every file their SKILL.md fences quote; then per skill: the fences found by a regex, its
card.yaml loaded (PyYAML's C loader where present); and each distinct quoted Python file parsed once with
``ast``.  It matches nothing and reports nothing but counts.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys

import yaml

FENCE = re.compile(r"^[`~]{3,}(\d+):(\d+):(\S+)$", re.M)
LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def cat(gitdir: str, shas: list[str]) -> dict[str, bytes]:
    ask = ("\n".join(shas) + "\n").encode()
    out = subprocess.run(["git", "--git-dir", gitdir, "cat-file", "--batch"], input=ask, capture_output=True,
                         check=True).stdout  # fmt: skip
    found, at = {}, 0
    while at < len(out):
        end = out.index(b"\n", at)
        sha, _, size = out[at:end].decode().split()
        found[sha] = out[end + 1 : end + 1 + int(size)]
        at = end + 2 + int(size)
    return found


def main(argv: list[str]) -> int:
    gitdir, ref, root = argv[0], argv[1], argv[2].strip("/") + "/"
    listing = subprocess.run(["git", "--git-dir", gitdir, "ls-tree", "-r", ref], capture_output=True, text=True,
                             check=True).stdout  # fmt: skip
    blobs = {line.split("\t", 1)[1]: line.split()[2] for line in listing.splitlines() if " blob " in line}
    mine = sorted(p for p in blobs if p.startswith(root))
    texts = cat(gitdir, [blobs[p] for p in mine])
    skills = [p.rsplit("/", 1)[0] for p in mine if p.endswith("/SKILL.md")]
    quoted: set[str] = set()
    for folder in skills:
        quoted |= {m.group(3) for m in FENCE.finditer(texts[blobs[f"{folder}/SKILL.md"]].decode())}
        if f"{folder}/card.yaml" in blobs:
            yaml.load(texts[blobs[f"{folder}/card.yaml"]].decode(), Loader=LOADER)
    python = sorted({blobs[p] for p in quoted if p in blobs and p.endswith(".py")})
    for body in cat(gitdir, python).values():
        ast.parse(body)
    print(f"{len(skills)} skills, {len(mine)} skill files read, {len(python)} distinct quoted Python files parsed")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
