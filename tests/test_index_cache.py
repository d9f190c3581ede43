"""What a run keeps of the files it read (parse/index.py's IndexCache, source/file.py's SourceFiles): the most recent, bounded."""

from __future__ import annotations

import pytest

from anchor_audit.parse import PythonSyntaxProblem
from anchor_audit.parse.index import IndexCache
from anchor_audit.source.file import SourceFile


def _source(n: int, blob: str) -> SourceFile:
    return SourceFile(f"m{n}.py", f"x_{n} = {n}\n" + "# padding\n" * 3, blob)  # 40 characters or so


def test_indexes_are_kept_by_blob_within_both_bounds() -> None:
    cache = IndexCache(size=10, max_chars=100)
    sources = [_source(n, f"{n:040x}") for n in range(4)]
    for source in sources:
        cache.get(source)
    assert cache.parses == 4
    cache.get(sources[-1]), cache.get(sources[-2])  # the last two fit in 100 characters: no parse
    assert cache.parses == 4
    cache.get(sources[0])  # evicted by size, not by count: parsed again
    assert cache.parses == 5
    lone = IndexCache(size=10, max_chars=1)
    lone.get(sources[0]), lone.get(sources[0])  # one source past the bound is still kept while it is the newest
    assert lone.parses == 1
    counted = IndexCache(size=2, max_chars=10**6)
    for source in sources:
        counted.get(source)
    counted.get(sources[0])
    assert counted.parses == 5


def test_a_syntax_problem_is_remembered_like_an_index() -> None:
    cache = IndexCache()
    broken = SourceFile("b.py", "def (:\n", "f" * 40)
    for _ in range(2):
        with pytest.raises(PythonSyntaxProblem):
            cache.get(broken)
    assert cache.parses == 1


def test_files_read_are_kept_by_blob_within_their_characters() -> None:
    from anchor_audit.source.file import SourceFiles

    files = SourceFiles(max_chars=100)
    sources = [_source(n, f"{n:040x}") for n in range(4)]  # about 40 characters each
    for source in sources:
        files[source.blob] = source
    assert [files.get(s.blob) is not None for s in sources] == [False, False, True, True]
    files.get(sources[2].blob)  # used: the newest now, so the next one in pushes sources[3] out
    files[sources[0].blob] = sources[0]
    assert files.get(sources[3].blob) is None and files.get(sources[2].blob) is sources[2]
    huge = SourceFile("h.py", "x" * 500, "e" * 40)
    files[huge.blob] = huge  # past the bound alone: kept while it is the newest, the rest let go
    assert files.get(huge.blob) is huge and files.get(sources[0].blob) is None


NESTED = '''\
import os


@decorated
@twice(
    1,
)
class Plan:
    size = (1,
            2); flag = (3,
                        4)

    def step(self, cfg):
        if cfg.size > 2:
            cfg.flag = True; cfg.other = False
        for item in cfg:
            try:
                pass
            except ValueError:
                return [x
                        for x in item]
        return cfg
'''


def test_the_enclosing_statement_is_the_first_smallest_holding_the_lines() -> None:
    """Every span of the file, against every statement looked at: nested, decorated, two on a line, one ending on
    the line the next begins."""
    from anchor_audit.model import LineRange
    from anchor_audit.parse.index import PythonIndex

    index = PythonIndex(NESTED)
    lines = NESTED.count("\n")
    for start in range(1, lines + 1):
        for end in range(start, lines + 1):
            span = LineRange(start, end)
            best = None
            for rng in index.statements:
                if span in rng and (best is None or rng.end - rng.start < best.end - best.start):
                    best = rng
            assert index.enclosing(span) == best, span
    assert index.enclosing(LineRange(11, 11)) == LineRange(10, 11)  # size's, not flag's (10-12 ... 11-12)


def test_what_the_command_check_works_out_of_a_module_is_let_go_with_its_index(tmp_path, monkeypatch) -> None:
    """The flags and parser shape read from a module are kept with its index, never holding its syntax tree past
    the parsed-file cache's bound (a replay meets hundreds of versions of a script)."""
    import ast
    import gc
    import weakref

    from anchor_audit.checks import command as commandcheck
    from anchor_audit.model import Citation, PromiseStatus, ReferenceKind
    from anchor_audit.parse import index as index_module
    from anchor_audit.source.git import open_git
    from anchor_audit.source.listing import Listing

    from .conftest import empty_repo

    monkeypatch.setattr(index_module, "INDEXES", IndexCache(size=1, max_chars=1))  # one index at a time
    monkeypatch.setattr(index_module, "TREES", index_module.KeptTrees(max_chars=1))  # and one tree
    repo = empty_repo(tmp_path / "code")
    repo.write("tool.py", "import argparse\np = argparse.ArgumentParser()\np.add_argument('--size', default=2)\n")
    repo.write("other.py", "x = 1\n")
    repo.commit("a script")
    tree = open_git(str(repo.path), "HEAD")
    command = Citation(ReferenceKind.COMMAND, "python tool.py --size 3", "script:tool.py", 1, flags=("--size",))
    for _ in range(2):  # the second time from what was worked out (the same index)
        (flag,) = commandcheck.check_command(command, tree, Listing(tree), "SKILL.md")
        assert flag.status is PromiseStatus.EXISTS
    parsed = index_module.python_index(tree.read("tool.py")).ast_module
    assert isinstance(parsed, ast.Module)
    kept = weakref.ref(parsed)
    del parsed
    index_module.python_index(tree.read("other.py"))  # tool.py's index is let go
    gc.collect()
    assert kept() is None


LAYERED = '''\
import os as _os

LIMIT = 3
if _os.name == "nt":
    SEP = "\\\\"


class Plan:
    size: int = 2

    def step(self, cfg):
        if cfg.size > LIMIT:
            cfg.flag = True
        return cfg


def make(parser):
    parser.add_argument("--size", default=2)
'''


def _names(tree) -> list[str]:
    import ast

    return sorted(n.id for n in ast.walk(tree) if isinstance(n, ast.Name))


def _answers(index) -> list:
    """Every layer an index builds from its syntax tree, as plain values."""
    import ast

    return [
        index.statements,
        [(unit.start, unit.end, unit.key) for unit in index.logical],
        index.qualnames(),
        list(index.module_bindings()),
        ast.dump(index.ast_module),
        index.worked_out(_names),
        [len(view.body) for view in index.scopes("Plan.step")],
    ]


def test_a_tree_let_go_is_parsed_again_to_the_same_answers(monkeypatch) -> None:
    """Only the most recent trees are kept (a tree is some thirty times its source): an index whose tree was let
    go gives every answer it gave with its tree kept."""
    from anchor_audit.parse import index as index_module
    from anchor_audit.parse.index import KeptTrees, PythonIndex

    kept_all = [_answers(PythonIndex(LAYERED)), _answers(PythonIndex(NESTED))]
    trees = KeptTrees(max_chars=1)  # one tree at a time: each index's tree goes when the other is asked
    monkeypatch.setattr(index_module, "TREES", trees)
    first, second = PythonIndex(LAYERED), PythonIndex(NESTED)
    assert [_answers(first), _answers(second)] == kept_all
    assert trees.reparses >= 2
    assert [_answers(first), _answers(second)] == kept_all  # the layers built are kept with the index


def test_an_index_keeps_no_tree_past_the_bound(monkeypatch) -> None:
    import gc
    import weakref

    from anchor_audit.parse import index as index_module
    from anchor_audit.parse.index import KeptTrees, PythonIndex

    monkeypatch.setattr(index_module, "TREES", KeptTrees(max_chars=len(LAYERED)))
    first = PythonIndex(LAYERED)
    tree = weakref.ref(first.ast_module)
    assert first.statements and tree() is not None  # within the bound: kept
    PythonIndex(NESTED)  # past it: the first tree goes, its index stays
    gc.collect()
    assert tree() is None
    assert first.statements and first.parsed_by_ast


def test_a_file_read_by_an_index_its_gates_and_its_names_is_parsed_once(monkeypatch) -> None:
    """Every reader of a file's syntax tree asks the one keeper: the index, the gate and fact readers, a name's
    resolver get the same tree, parsed once while it is kept."""
    from anchor_audit.match.quotefacts import parsed_file
    from anchor_audit.parse import index as index_module
    from anchor_audit.parse import parse_ast
    from anchor_audit.parse.index import KeptTrees, PythonIndex

    trees = KeptTrees(max_chars=1 << 20)
    monkeypatch.setattr(index_module, "TREES", trees)
    index = PythonIndex(LAYERED)
    assert index.statements and index.ast_module is parsed_file(LAYERED) is parse_ast(LAYERED)
    assert (trees.parses, trees.reparses) == (1, 0)
    assert parse_ast(NESTED) is not parse_ast(LAYERED) and trees.parses == 2
