"""source/gittrees.py: tree objects read by our own parser, listed in-process, as git lists them."""

from __future__ import annotations

import subprocess

import pytest

from anchor_audit.source import git_blob_sha, gittrees
from anchor_audit.source.git import open_git
from anchor_audit.source.gittrees import TreeObjects, parse_tree, tree_objects

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


def _listed(repo_path, ref: str, folder: str = "") -> dict[str, tuple[str, int]]:
    """What ``git ls-tree -r`` says of the files under ``folder``: path under it -> (blob sha, mode)."""
    out = subprocess.run(["git", "-C", str(repo_path), "ls-tree", "-r", "-z", f"{ref}:{folder}" if folder else ref],
                         capture_output=True, text=True, check=True).stdout  # fmt: skip
    files = {}
    for record in out.split("\0")[:-1]:
        meta, path = record.split("\t", 1)
        mode, _, sha = meta.split()
        files[path] = (sha, int(mode, 8))
    return files


def _names_sorting_apart(make_repo):
    repo = make_repo()
    repo.write("kit/a-b.py", "x = 1\n")  # a file named a-b.py sorts before the folder a/ in a tree
    repo.write("kit/a/b.py", "y = 2\n")
    repo.write("kit/a/deep/ünï.md", "z\n")
    repo.write("kit/run.sh", "echo run\n")
    (repo.path / "kit" / "run.sh").chmod(0o755)
    repo.commit("a kit", tag="v9")
    return repo


def test_tree_objects_are_the_ones_git_writes(make_repo) -> None:
    repo = _names_sorting_apart(make_repo)
    root, built = tree_objects(_listed(repo.path, "v9"))
    assert root.hex() == git(repo.path, "rev-parse", "v9^{tree}")
    trees = [line.split()[2] for line in git(repo.path, "ls-tree", "-r", "-t", "v9").splitlines() if " tree " in line]
    assert len(trees) > 3 and {bytes.fromhex(t) for t in trees} | {root} == set(built)
    for sha in trees:  # each tree's entries, in git's own order, with their modes
        raw = subprocess.run(["git", "-C", str(repo.path), "cat-file", "tree", sha], capture_output=True).stdout
        assert list(built[bytes.fromhex(sha)].items()) == list(parse_tree(raw).items())


def test_a_folder_is_held_only_by_exactly_its_files_and_what_is_built_is_known_unread(make_repo) -> None:
    repo = _names_sorting_apart(make_repo)
    tree = open_git(str(repo.path), "v9")
    files = _listed(repo.path, "v9", "kit")
    assert tree.holds_folder("kit", files) and tree.holds_folder("kit/a", _listed(repo.path, "v9", "kit/a"))
    other = "0" * 40
    assert not tree.holds_folder("kit", {**files, "a-b.py": (other, 0o100644)})  # one blob differs
    assert not tree.holds_folder("kit", {**files, "run.sh": (files["run.sh"][0], 0o100644)})  # the mode lost
    assert not tree.holds_folder("kit", {**files, "new.md": (other, 0o100644)})  # one file more
    assert not tree.holds_folder("kit", {k: v for k, v in files.items() if k != "a/b.py"})  # one file fewer
    assert not tree.holds_folder("nope", files) and not tree.holds_folder("kit/a-b.py", files)
    # A tree built from files no commit holds is known by its sha all the same: asked for, it is not read
    # (git has no such object; reading it would fail).
    objects = TreeObjects(tree.repo)
    never = {"x.md": (git_blob_sha(b"never committed\n"), 0o100644)}
    assert not objects.holds(None, never)
    assert objects.entries(tree_objects(never)[0]) == {"x.md": (0o100644, bytes.fromhex(never["x.md"][0]))}


@pytest.mark.parametrize("batch_from", [2, 32])  # in one git process; one by one through the open one
def test_trees_read_many_at_once_are_the_trees_read_one_by_one(make_repo, monkeypatch, batch_from: int) -> None:
    monkeypatch.setattr(gittrees, "MIN_BATCH", batch_from)
    repo = _names_sorting_apart(make_repo)
    tree = open_git(str(repo.path), "v9")
    shas = [bytes.fromhex(git(repo.path, "rev-parse", f"v9:{folder}")) for folder in ("", "kit", "kit/a", "src")]
    blob = bytes.fromhex(git(repo.path, "rev-parse", "v9:kit/a-b.py"))
    batch = TreeObjects(tree.repo)
    batch.read_many([shas[0], b"\x07" * 20, blob, *shas[1:]])  # an absent object and a blob among the trees
    assert batch.held() == set(shas)
    one_by_one = TreeObjects(tree.repo)
    assert all(batch.entries(sha) == one_by_one.entries(sha) for sha in shas)


def test_a_preload_reads_the_folders_of_each_path_at_each_commit_and_nothing_beside(make_repo, monkeypatch) -> None:
    monkeypatch.setattr(gittrees, "MIN_BATCH", 2)
    repo = _names_sorting_apart(make_repo)
    first = git(repo.path, "rev-parse", "HEAD")
    repo.write("kit/a/b.py", "y = 3\n")
    second = repo.commit("kit/a/b.py changes")
    tree = open_git(str(repo.path), "HEAD")
    objects = TreeObjects(tree.repo)
    roots = [bytes.fromhex(git(repo.path, "rev-parse", f"{c}^{{tree}}")) for c in (first, second)]
    objects.preload(roots, ["kit/a/b.py", "kit/a/deep/ünï.md", "nowhere/x.py"])
    folders = ("", "kit", "kit/a", "kit/a/deep")
    assert objects.held() == {bytes.fromhex(git(repo.path, "rev-parse", f"{c}:{f}")) for c in (first, second)
                                  for f in folders}  # fmt: skip
    assert objects.walk(roots[1], "kit/a/b.py") == TreeObjects(tree.repo).walk(roots[1], "kit/a/b.py")
    objects.read_many([])  # nothing asked: nothing read, nothing run
    objects.read_many([b"\x07" * 20])  # one absent object: left to entries(), which says so
    with pytest.raises(ValueError):
        objects.entries(b"\x07" * 20)


def test_trees_read_from_git_are_held_for_the_latest_turnovers_and_trees_built_for_good(make_repo, monkeypatch) -> None:
    """A replay over a long history meets tens of thousands of trees: those read from git are held between two
    turnovers (a tree used since the last one survives the next), those built in-process (git cannot read them
    again) always; a tree let go is read again, the same."""
    monkeypatch.setattr(gittrees, "MAX_RECENT_TREES", 2)
    repo = _names_sorting_apart(make_repo)
    tree = open_git(str(repo.path), "v9")
    shas = [bytes.fromhex(git(repo.path, "rev-parse", f"v9:{folder}")) for folder in ("", "kit", "kit/a", "src")]
    fresh = TreeObjects(tree.repo)
    objects = TreeObjects(tree.repo)
    files = {"x.md": ("e69de29bb2d1d6434b8b29ae775ad8c2e48c5391", 0o100644)}
    built = tree_objects(files)[0]
    assert not objects.holds(None, files)
    for sha in shas:
        objects.entries(sha)
        objects.entries(shas[0])  # used at every step: never let go
        assert len(objects.held() - {built}) <= 4
    assert shas[0] in objects.held() and built in objects.held() and shas[1] not in objects.held()
    assert all(objects.entries(sha) == fresh.entries(sha) for sha in shas)
    assert objects.walk(shas[0], "kit/a") == fresh.walk(shas[0], "kit/a")
    assert objects.entries(built) == {"x.md": (0o100644, bytes.fromhex(files["x.md"][0]))}


DEPTH = 1_500  # folders inside folders: deeper than Python's recursion limit (git 2.39 writes and reads them)


def _deep_commit(repo, leaf: str, parent: str) -> str:
    """A commit of ``parent``'s tree with ``deep/d/d/.../d/leaf.py`` (``DEPTH`` folders) in place of its ``deep``,
    made with git's plumbing (no work tree holds so long a path)."""
    blob = subprocess.run(["git", "-C", str(repo.path), "hash-object", "-w", "--stdin"], input=leaf,
                          capture_output=True, text=True, check=True).stdout.strip()  # fmt: skip

    def mktree(listing: str) -> str:
        return subprocess.run(["git", "-C", str(repo.path), "mktree"], input=listing, capture_output=True,
                              text=True, check=True).stdout.strip()  # fmt: skip

    tree = mktree(f"100644 blob {blob}\tleaf.py\n")
    for _ in range(DEPTH - 1):
        tree = mktree(f"040000 tree {tree}\td\n")
    top = "\n".join(line for line in git(repo.path, "ls-tree", parent).split("\n") if not line.endswith("\tdeep"))
    root = mktree(f"{top}\n040000 tree {tree}\tdeep\n")
    return git(repo.path, "commit-tree", root, "-p", parent, "-m", "deep")


def test_a_tree_deeper_than_the_recursion_limit_is_listed_compared_and_built(make_repo) -> None:
    from anchor_audit.source.gitsearch import changes

    repo = make_repo()
    first = _deep_commit(repo, "x = 1\n", git(repo.path, "rev-parse", "v1"))
    second = _deep_commit(repo, "x = 2\n", first)
    deep_path = "deep/" + "d/" * (DEPTH - 1) + "leaf.py"
    tree = open_git(str(repo.path), second)
    for sha in (first, second):  # the second shares the first's list: the same paths
        assert tree.at(sha).files_under("") == git(repo.path, "ls-tree", "-r", "--name-only", sha).split("\n")
    assert deep_path in tree.files_under("") and tree.files_under("deep/d") == [deep_path]
    objects, roots = TreeObjects(tree.repo), [tree.at(s).commit.tree.binsha for s in (first, second)]
    assert changes(objects, roots[0], roots[1], ".py") == ({deep_path}, set())
    files = _listed(repo.path, second)
    root, built = tree_objects(files)
    assert root.hex() == git(repo.path, "rev-parse", f"{second}^{{tree}}") and len(built) > DEPTH
