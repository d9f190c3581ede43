"""A module's top-level imports read from the lines up to its last import alone: the same as its whole syntax
tree gives, or none (then the whole file is parsed)."""

from __future__ import annotations

import ast

import pytest

from anchor_audit.parse.imports import header_imports, imported

READ_FROM_THE_HEADER = {
    "plain": "import os\nfrom acme.cli import options\n\n\ndef main():\n    import json\n    return 1\n",
    "a bracketed list": "from acme.cli.groups import (\n    FlagGroup,\n    Other,\n)\n\nX = 1\n",
    "a backslash": "from acme.config import \\\n    TrainConfig\nY = 2\n",
    "after a semicolon": "X = 1; import acme.tools\n\ndef f():\n    pass\n",
    "a docstring that shows one": '"""Use it so:\n\nimport acme.fake\n"""\nimport acme.real\n',
    "relative and star": "from . import sibling\nfrom acme.base import *\nimport acme.a as a, acme.b\n",
    "none at all": "def f():\n    import os\n",
    "under an if": "import acme.a\nif True:\n    import acme.hidden\nimport acme.b\n",
}


@pytest.mark.parametrize("shape", sorted(READ_FROM_THE_HEADER))
def test_the_imports_read_from_the_header_are_those_of_the_whole_tree(shape: str) -> None:
    text = READ_FROM_THE_HEADER[shape]
    assert header_imports(text) == imported(ast.parse(text))


def test_a_string_the_header_leaves_open_sends_the_reader_to_the_whole_file() -> None:
    """A column-0 "import" inside a docstring past the last real import: the lines up to it do not parse alone,
    so the whole file is read (None), never a made-up import."""
    text = 'import acme.real\n\n\ndef f():\n    """Shown:\nimport acme.fake\n    """\n'
    assert header_imports(text) is None
    assert imported(ast.parse(text)) == ["acme.real"]


def test_an_import_whose_brackets_never_close_is_left_to_the_whole_file() -> None:
    assert header_imports("from acme import (\n    a,\n") is None
