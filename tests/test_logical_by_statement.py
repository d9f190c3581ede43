"""A module's logical lines, tokenized a run of top-level statements at a time and kept by that run's text: the
same lines as one pass of ``tokenize`` over the whole file, and a new version of a file tokenizes only what
changed (an impact replay or a history meets hundreds of versions of one large file)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anchor_audit.parse import tokens
from anchor_audit.parse.tokens import logical_lines, module_logical_lines
from anchor_audit.text.lines import split_lines_keepends

SRC = Path(__file__).resolve().parent.parent / "src" / "anchor_audit"

TRICKY = {
    "semicolons across lines": "a = (1,\n     2); b = 3\nc = 4\n",
    "decorated, a comment between": "@first\n# why\n@second(\n    1)\ndef f(x):\n    return x\n",
    "no final newline": "def f():\n    return 1",
    "a continuation": "x = 1 + \\\n    2\ny = 'a' \\\n    'b'\n",
    "a string over lines": 's = """one\n\ntwo"""\nt = 1\n',
    "comments and blanks between": "# head\n\nx = 1  # trailing\n\n\n# between\n    # indented comment\ny = 2\n",
    "compound with clauses": "if a:\n    b()\nelif c:\n    d()\nelse:\n    e()\ntry:\n    f()\nexcept E:\n    g()\n",
    "one-liners": "if x: y()\nclass C: pass\nwhile 0: break\n",
    "a class": "class C(B):\n    '''doc'''\n    x: int = 1\n\n    @property\n    def f(self):\n        return {'k': [1,\n  2]}\n",
    "a bare carriage return": "x = 1\ry = 2\nz = 3\n",
    "a form feed": "x = 1\n\x0c\ny = 2\n",
    "a match": "match p:\n    case [a, *_]:\n        pass\n    case _:\n        pass\n",
    "strings quoted two ways": "x = 'a'\ny = \"a\"\nz = f'{x!r}'\n",
}


def _statements(text: str) -> list[ast.stmt]:
    return ast.parse(text).body


@pytest.mark.parametrize("name", sorted(TRICKY))
def test_the_lines_are_those_of_one_pass_over_the_file(name: str) -> None:
    text = TRICKY[name]
    assert module_logical_lines(text, split_lines_keepends(text), _statements(text)) == logical_lines(text)


def test_the_lines_of_this_package_are_those_of_one_pass() -> None:
    files = sorted(SRC.rglob("*.py"))
    assert len(files) > 100
    for path in files:
        text = path.read_text(encoding="utf-8")
        assert module_logical_lines(text, split_lines_keepends(text), _statements(text)) == logical_lines(text), path


_NAME = st.sampled_from(["a", "b", "f", "x1"])
_STATEMENT = st.one_of(
    st.builds(lambda n, v: f"{n} = {v}", _NAME, st.integers(0, 99)),
    st.builds(lambda n: f"{n} = (1,\n    2)", _NAME),
    st.builds(lambda n: f"def {n}():\n    return {n}", _NAME),
    st.builds(lambda n: f"@{n}\nclass {n.upper()}:\n    x = '''\n'''", _NAME),
    st.builds(lambda a, b: f"{a} = 1; {b} = 2", _NAME, _NAME),
    st.just("# a comment"),
    st.just(""),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(_STATEMENT, max_size=8), st.booleans())
def test_any_module_s_lines_are_those_of_one_pass(parts: list[str], newline_at_end: bool) -> None:
    text = "\n".join(parts) + ("\n" if newline_at_end else "")
    assert module_logical_lines(text, split_lines_keepends(text), _statements(text)) == logical_lines(text)


def test_a_new_version_tokenizes_only_the_statements_that_changed(monkeypatch: pytest.MonkeyPatch) -> None:
    tokenized: list[str] = []
    real = tokens.logical_lines

    def counted(text: str, line_offset: int = 0) -> object:
        tokenized.append(text)
        return real(text, line_offset)

    monkeypatch.setattr(tokens, "logical_lines", counted)
    monkeypatch.setattr(tokens, "_RUNS", tokens.Recent(1024, 1 << 20))
    functions = [f"def step_{k}(cfg):\n    return cfg.size_{k} > {k}\n\n\n" for k in range(20)]
    old = "".join(functions)
    new = "import os\n\n" + "".join(functions[:7]) + functions[7].replace("> 7", ">= 7") + "".join(functions[8:])
    module_logical_lines(old, split_lines_keepends(old), _statements(old))
    assert len(tokenized) == 20
    tokenized.clear()
    lines = module_logical_lines(new, split_lines_keepends(new), _statements(new))
    assert tokenized == ["import os\n", functions[7].replace("> 7", ">= 7").rstrip("\n") + "\n"]
    assert lines == real(new)  # each kept run's lines where the new version has them (two lines lower)
