"""The naive baseline for a catalog: what any script checking the same skills must at least do, and no more.

    python benchmarks/naive_catalog.py CATALOG NAME=GITDIR ...

For each component (components.d/*.yml; NAME is its ``repo``): one ``git ls-tree -r`` of the ref, one
``git cat-file --batch`` for the skill folders' files and the files the skills quote; then per skill: its
catalog files read and hashed as git blobs (the sync check), SKILL.md's fences found by a regex, card.yaml
loaded (PyYAML's C loader where present), and each distinct quoted Python file parsed once with ``ast``.
It matches nothing and reports nothing but counts.
"""

from __future__ import annotations

import ast
import hashlib
import re
import subprocess
import sys
from pathlib import Path

import yaml

FENCE = re.compile(r"^```(\d+):(\d+):(\S+)$", re.M)
LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def main(argv: list[str]) -> int:
    catalog, mirrors = Path(argv[0]), dict(a.split("=", 1) for a in argv[1:])
    skills = files = parsed = 0
    for component in sorted((catalog / "components.d").glob("*.yml")):
        spec = yaml.load(component.read_text(), Loader=LOADER)
        gitdir = mirrors[spec["repo"]]
        ref = spec.get("ref", "HEAD")
        listing = subprocess.run(["git", "-C", gitdir, "ls-tree", "-r", ref], capture_output=True,
                                 text=True, check=True).stdout  # fmt: skip
        blobs = {line.split("\t", 1)[1]: line.split()[2] for line in listing.splitlines()}
        wanted: set[str] = set()
        texts = {}
        for item in spec["skills"]:
            folder = catalog / "skills" / item["catalog_dir"]
            for path in sorted(folder.rglob("*")):
                if path.is_file():
                    data = path.read_bytes()
                    hashlib.sha1(b"blob %d\x00" % len(data) + data).hexdigest()
                    files += 1
            text = (folder / "SKILL.md").read_text()
            texts[item["catalog_dir"]] = text
            wanted |= {m.group(3) for m in FENCE.finditer(text)}
            wanted |= {p for p in blobs if p.startswith(item["path"].strip("/") + "/")}
            card = folder / "card.yaml"
            if card.exists():
                yaml.load(card.read_text(), Loader=LOADER)
            skills += 1
        shas = sorted({blobs[p] for p in wanted if p in blobs})
        ask = ("\n".join(shas) + "\n").encode()
        batch = subprocess.run(["git", "-C", gitdir, "cat-file", "--batch"], input=ask, capture_output=True,
                               check=True).stdout  # fmt: skip
        quoted = {blobs[p] for p in wanted if p in blobs and p.endswith(".py")}
        at = 0
        while at < len(batch):
            head_end = batch.index(b"\n", at)
            sha, _, size = batch[at:head_end].decode().split()
            body = batch[head_end + 1 : head_end + 1 + int(size)]
            at = head_end + 2 + int(size)
            if sha in quoted:
                ast.parse(body)
                parsed += 1
    print(f"{skills} skills, {files} catalog files hashed, {parsed} distinct quoted Python files parsed")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
