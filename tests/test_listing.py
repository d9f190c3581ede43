"""A listing's indexes answer what a scan of every path answers (``listing.py``): a missing path is judged at
every commit of a history, by name, by folder and by the folders of a name."""

from __future__ import annotations

import shutil

from anchor_audit.source.git import open_git
from anchor_audit.source.listing import Listing

from .conftest import empty_repo, git

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


def _steps(repo) -> list[str]:
    """Commits that change what files say, and commits that change which files there are (added, removed, a file
    made a folder, a folder made a file, a gitlink added and moved to another commit, a mode or a link)."""
    shas = []
    for i, path in enumerate(["a/x.py", "a/b/y.py", "c/z.md", "d"]):
        repo.write(path, f"{i}\n")
    shas.append(repo.commit("first"))
    repo.write("a/b/y.py", "changed\n")
    shas.append(repo.commit("a file changed deep down"))
    repo.write("a/b/w.py", "new\n")
    shas.append(repo.commit("a file added"))
    repo.write("c/z.md", "changed again\n")
    shas.append(repo.commit("changed"))
    repo.remove("c/z.md")
    repo.write("c/y.md", "renamed\n")
    shas.append(repo.commit("a file renamed in its folder"))
    repo.remove("d")
    repo.write("d/inside.py", "a folder where a file was\n")
    shas.append(repo.commit("a file made a folder"))
    inner = empty_repo(repo.path / "e" / "sub")  # a repository inside: git records it as a gitlink
    inner.write("f", "1\n")
    inner.commit("one")
    shas.append(repo.commit("a gitlink"))
    inner.write("f", "2\n")
    inner.commit("two")
    shas.append(repo.commit("the gitlink moved"))
    (repo.path / "a" / "x.py").chmod(0o755)
    shas.append(repo.commit("a mode changed"))
    (repo.path / "a" / "b" / "y.py").unlink()
    (repo.path / "a" / "b" / "y.py").symlink_to("w.py")
    shas.append(repo.commit("a file made a link"))
    repo.remove("d/inside.py")
    repo.write("d", "a file again\n")
    shas.append(repo.commit("a folder made a file"))
    git(repo.path, "rm", "-q", "--cached", "e/sub")
    shutil.rmtree(repo.path / "e" / "sub")
    repo.write("e/sub", "a file where a gitlink was\n")
    shas.append(repo.commit("a gitlink made a file"))
    return shas


def test_a_whole_listing_is_the_last_ones_exactly_when_no_path_was_added_or_removed(tmp_path) -> None:
    import git as gitpython

    from anchor_audit.source.gittrees import GITLINK_KIND, TreeObjects

    repo = empty_repo(tmp_path / "code")
    shas = _steps(repo)
    objects, handle = TreeObjects(gitpython.Repo(repo.path)), gitpython.Repo(repo.path)
    last: list[str] | None = None
    shared = []
    for sha in shas:
        root = handle.commit(sha).tree.binsha
        listed = objects.paths(root, "")
        rows = [line.split(None, 3) for line in git(repo.path, "ls-tree", "-r", sha).split("\n")]
        assert listed == [row[3] for row in rows], sha
        links = [(row[3], bytes.fromhex(row[2])) for row in rows if int(row[0], 8) >> 12 == GITLINK_KIND]
        assert objects.gitlinks(root) == links, sha
        shared.append(listed is last)
        last = listed
    # the content changes, the gitlink's move, the mode and the link keep the list; the others make a new one (a
    # gitlink made a file too, whose paths are the same: the list also says which of them are gitlinks)
    assert shared == [False, True, False, True, False, False, False, True, True, True, False, False]
    assert objects.paths(handle.commit(shas[0]).tree.binsha, "a") == ["a/b/y.py", "a/x.py"]


def test_listings_of_trees_with_the_same_paths_share_their_indexes_and_answer_as_a_scan(tmp_path) -> None:
    from anchor_audit.audit.judge import Judge

    repo = empty_repo(tmp_path / "code")
    shas = _steps(repo)
    judge, tree = Judge(), open_git(str(repo.path), shas[-1])
    trees = [tree.at(sha) for sha in shas]  # held: a judge keeps a tree's listing while the tree lives
    listings = [judge.listing(t) for t in trees]
    for listing in listings:
        every = listing()
        for name in ["x.py", "y.py", "z.md", "y.md", "sub", "d", "inside.py"]:
            assert listing.named(name) == [p for p in every if p.rpartition("/")[2] == name], name
        assert listing.in_folder("a/b") == [p for p in every if p.rpartition("/")[0] == "a/b"]
        assert listing.package_roots("x") == ["a/"]
    first, changed = listings[0], listings[1]
    assert changed.named("y.py") is first.named("y.py")  # one index for both: their paths are the same
    assert listings[2].named("y.py") is not first.named("y.py")


def test_a_package_under_any_tests_folder_is_no_root_of_the_package(tmp_path) -> None:
    """One rule for a test's file (``is_test``): a copy of the package under ``integration/tests/`` is a test's, as
    one under the root ``tests/`` is; ``test_*.py`` is a test's, a package named ``testing`` is not."""
    from anchor_audit.source.listing import is_test

    repo = empty_repo(tmp_path / "code")
    for path in ["src/acme/__init__.py", "tests/acme/__init__.py", "integration/tests/acme/__init__.py",
                 "lib/testing/__init__.py"]:  # fmt: skip
        repo.write(path, "\n")
    tree = open_git(str(repo.path), repo.commit("packages"))  # held: a listing cannot outlive its tree
    listing = Listing(tree)
    assert listing.package_roots("acme") == ["src/"]
    assert listing.package_roots("testing") == ["lib/"]
    assert [is_test(p) for p in ("pkg/test_helpers.py", "pkg/helpers.py", "a/tests/b/c.py", "testing/x.py")] == [
        True, False, True, False
    ]


def test_which_file_a_module_is_has_one_answer_for_an_import_and_for_python_dash_m(tmp_path) -> None:
    from anchor_audit.source.listing import module_file

    repo = empty_repo(tmp_path / "code")
    for path in ["src/acme/__init__.py", "src/acme/cli/__init__.py", "src/acme/cli/__main__.py", "src/acme/io.py"]:
        repo.write(path, "\n")
    tree = open_git(str(repo.path), repo.commit("modules"))
    roots = ["lib/", "src/"]
    assert module_file(tree, "acme.cli", roots)[0] == "src/acme/cli/__init__.py"  # what an import reads
    assert module_file(tree, "acme.cli", roots, runnable=True)[0] == "src/acme/cli/__main__.py"  # what -m runs
    assert module_file(tree, "acme.io", roots)[0] == "src/acme/io.py"
    assert module_file(tree, "acme.gone", roots) is None
