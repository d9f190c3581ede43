"""A listing's indexes answer what a scan of every path answers (``listing.py``): a missing path is judged at
every commit of a history, by name, by folder and by the folders of a name."""

from __future__ import annotations

from anchor_audit.listing import Listing
from anchor_audit.source.git import open_git

from .conftest import empty_repo

PATHS = [
    "README.md", "b", "a/b", "a/b/x.py", "a/bb/x.py", "a/b0/x.py", "a/b-c/x.py", "a/b.c/x.py", "c/a/b/y.md",
    "c/a/b/deep/z.md", "c/ab/x.py", "tools/pyproject.toml", "pyproject.toml", "x/y/z/w/pyproject.toml", "d/b",
]  # fmt: skip
NAMES = ["b", "x.py", "a", "ab", "deep", "pyproject.toml", "README.md", "nothing", "", "c", "b0", "b-c"]


def test_the_indexes_answer_as_a_scan_of_every_path(tmp_path) -> None:
    repo = empty_repo(tmp_path / "code")
    for i, path in enumerate(p for p in PATHS if p not in ("a/b", "b")):  # a/b and b: folders here
        repo.write(path, f"{i}\n")
    repo.write("d/b", "file\n")
    tree = open_git(str(repo.path), repo.commit("paths"))
    listing = Listing(tree)
    every = listing()
    assert "a/b/x.py" in every and "d/b" in every
    for name in NAMES:
        assert listing.named(name) == [p for p in every if p.rpartition("/")[2] == name], name
        assert listing.under_folders_named(name) == {p for p in every if f"/{name}/" in f"/{p}"}, name
        for tail in (f"/{name}", f"/a/{name}", f"/c/a/{name}"):
            assert listing.ending_in(tail) == [p for p in every if p.endswith(tail)], tail
    for folder in ["", "a", "a/b", "c/a/b", "x/y/z/w", "nowhere", "a/b/x.py"]:
        assert listing.in_folder(folder) == [p for p in every if p.rpartition("/")[0] == folder], folder
    assert listing.under_folders_named("b") == {"a/b/x.py", "c/a/b/y.md", "c/a/b/deep/z.md"}
