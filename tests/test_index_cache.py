"""parse/index.py's IndexCache: the most recent indexes, bounded by count and by the size of their sources."""

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
