"""source/gittrees.py: tree objects read by our own parser, listed in-process, as git lists them."""

from __future__ import annotations

import subprocess

import pytest

from anchor_audit.source.git import open_git
from anchor_audit.source.gittrees import parse_tree

from .conftest import git


def test_a_listing_is_git_ls_trees_and_a_bad_record_is_refused(make_repo) -> None:
    repo = make_repo()
    repo.write("a-b.py", "x = 1\n")  # sorts before a/ in a tree, after it as a plain string
    repo.write("a/b.py", "y = 2\n")
    repo.write("z/ünïcode.md", "z\n")
    repo.commit("names that sort apart", tag="v9")
    tree = open_git(str(repo.path), "v9")
    listed = subprocess.run(["git", "-C", str(repo.path), "ls-tree", "-r", "-z", "--name-only", "v9"],
                            capture_output=True, text=True, check=True).stdout.split("\0")[:-1]  # fmt: skip
    assert tree.files_under("") == listed
    assert tree.files_under("a") == ["a/b.py"] and tree.files_under("a-b.py") == [] and tree.files_under("nope") == []
    root = bytes.fromhex(git(repo.path, "rev-parse", "v9^{tree}"))
    raw = subprocess.run(["git", "-C", str(repo.path), "cat-file", "tree", root.hex()], capture_output=True).stdout
    assert list(parse_tree(raw)) == [line.split("\t")[1] for line in git(repo.path, "ls-tree", "v9").splitlines()]
    sha = b"\x01" * 20
    for bad in (b"100644 ../x\0" + sha, b"100644 a/b\0" + sha, b"777777 x\0" + sha, b"100644 x\0" + sha[:5]):
        with pytest.raises(ValueError):
            parse_tree(bad)
