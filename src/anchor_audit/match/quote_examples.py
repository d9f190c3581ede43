"""Examples the quote matcher owns: code where a quote holds, and code where it drifts.

Each example is a file's text, a fence (``START:END`` then the body) and what
:func:`anchor_audit.match.quote.match_quote` must say.  tests/test_quote_examples.py
runs every one; add a line here when you teach the matcher something new.
"""

from __future__ import annotations

from dataclasses import dataclass
from textwrap import dedent

from ..model import AnchorStatus

EXACT, MOVED, CHANGED = AnchorStatus.EXACT, AnchorStatus.MOVED, AnchorStatus.CHANGED

# A backend chooser with the shapes authors paraphrase: a call with many arguments, a raise with a long
# message, an assert with one, a wrapped signature with an annotation.
BACKEND = dedent(
    """\
    def apply_backend(cfg, name: str, *, strict=True) -> None:
        if name not in KNOWN:
            raise ValueError(f"unknown backend {name}; choose one of {sorted(KNOWN)}")
        assert cfg.world > 0, "the world must not be empty"
        cfg.backend = make_backend(name, cfg.world, retries=3)
    """
)

# A small planner with the shape of a comm-overlap gate: a method with an if/else.
PLANNER = dedent(
    """\
    import os

    class Planner:
        def plan(self, cfg):
            # decide the overlap
            if cfg.tp > 1:
                if cfg.sp:
                    cfg.overlap = True
                else:
                    cfg.overlap = False
            return cfg
    """
)


@dataclass(frozen=True)
class QuoteExample:
    name: str
    code: str
    fence: str  # "START:END" on the first line, then the quote body
    status: AnchorStatus
    found: tuple[int, int] | None = None
    suggested: tuple[int, int] | None = None
    path: str = "pkg/planner.py"
    detail: str = ""  # a fragment the detail must contain


HOLDS = [
    QuoteExample("exact block", PLANNER, """\
        6:10
        if cfg.tp > 1:
            if cfg.sp:
                cfg.overlap = True
            else:
                cfg.overlap = False""", EXACT, found=(6, 10)),
    QuoteExample("range may take in the comment above", PLANNER, """\
        5:10
        if cfg.tp > 1:
        ...
            else:
                cfg.overlap = False""", EXACT, found=(6, 10)),
    QuoteExample("elision spans any gap", PLANNER, """\
        4:11
        def plan(self, cfg):
        ...
        return cfg""", EXACT, found=(4, 11)),
    QuoteExample("blank and comment lines may sit between quoted lines",
        PLANNER.replace("            if cfg.sp:\n", "\n            # sequence parallel only\n            if cfg.sp:\n"),
        """\
        6:12
        if cfg.tp > 1:
            if cfg.sp:
                cfg.overlap = True""", EXACT, found=(6, 10)),
    QuoteExample("re-wrapped statement, trailing comma", "cfg = make(\n    tp=2,\n    sp=True,\n)\n", """\
        1:4
        cfg = make(tp=2, sp=True)""", EXACT, found=(1, 4)),
    QuoteExample("quote style and trailing comment", "NAME = \"tp\"  # the knob\n", """\
        1:1
        NAME = 'tp'""", EXACT, found=(1, 1)),
    QuoteExample("redundant parentheses", "if (cfg.tp > 1):\n    go()\n", """\
        1:2
        if cfg.tp > 1:
            go()""", EXACT, found=(1, 2)),
    QuoteExample("inline elision: a call's arguments", BACKEND, """\
        5:5
        cfg.backend = make_backend(...)""", EXACT, found=(5, 5), detail="held as a paraphrase, not verbatim"),
    QuoteExample("inline elision: a raise's message", BACKEND, """\
        2:3
        if name not in KNOWN:
            raise ValueError(...)""", EXACT, found=(2, 3)),
    QuoteExample("inline elision: an assert's message", BACKEND, """\
        4:4
        assert cfg.world > 0, ...""", EXACT, found=(4, 4)),
    QuoteExample("inline elision: a signature's parameters, annotation kept", BACKEND, """\
        1:5
        def apply_backend(...) -> None:
        ...
        cfg.backend = make_backend(name, ..., retries=3)""", EXACT, found=(1, 5)),
    QuoteExample("inline elision may cover nothing", "run()\n", """\
        1:1
        run(...)""", EXACT, found=(1, 1)),
    QuoteExample("Markdown: a quote of a code block may leave out its fence lines",
        "Run it so:\n\n```bash\nlaunch --tp 2\n```\n", """\
        1:4
        Run it so:
        launch --tp 2""", EXACT, found=(1, 4), path="docs/run.md"),
    QuoteExample("Markdown: a python block is compared as Python",
        "Set it up:\n\n```python\ncfg = make_plan(\n    tp=2,\n)\n```\n", """\
        4:6
        cfg = make_plan(tp=2)""", EXACT, found=(4, 6), path="docs/setup.md", detail="python code block"),
    QuoteExample("YAML: a trailing comment never matters", "tp: 2  # tensor parallel\nsp: true\n", """\
        1:2
        tp: 2
        sp: true  # sequence parallel""", EXACT, found=(1, 2), path="conf/run.yaml"),
    QuoteExample("non-Python file: region is the whole file", "a\nb\nc\n", """\
        1:3
        b""", EXACT, found=(2, 2), path="docs/notes.md"),
]

DRIFTS = [
    QuoteExample("two places as near as each other: the earlier wins",
        "x = 0\nretry = 3\ny = 1\nz = 2\nw = 3\nretry = 3\nv = 4\n", """\
        4:4
        retry = 3""", MOVED, found=(2, 2), path="docs/notes.txt"),
    QuoteExample("code moved down", "import sys\nimport re\n" + PLANNER, """\
        6:10
        if cfg.tp > 1:
            if cfg.sp:
                cfg.overlap = True
            else:
                cfg.overlap = False""", MOVED, found=(8, 12), suggested=(8, 12)),
    QuoteExample("range runs past the enclosing statement", PLANNER, """\
        6:11
        if cfg.tp > 1:
            if cfg.sp:""", MOVED, found=(6, 7), suggested=(6, 7)),
    QuoteExample("trailing elision keeps the elided block in range", PLANNER, """\
        1:2
        if cfg.tp > 1:
            if cfg.sp:
                ...""", MOVED, found=(6, 7), suggested=(6, 10)),
    QuoteExample("a range ending in else: and an elision keeps the else's body", PLANNER, """\
        1:4
        if cfg.sp:
            cfg.overlap = True
        else:
            ...""", MOVED, found=(7, 9), suggested=(7, 10)),
    QuoteExample("nearest START wins among repeats", "x = 1\ny = 2\nx = 1\ny = 2\n", """\
        4:4
        x = 1""", MOVED, found=(3, 3), suggested=(3, 3), path="pkg/twice.txt"),
    QuoteExample("operator changed", PLANNER, """\
        6:6
        if cfg.tp >= 1:""", CHANGED),
    QuoteExample("constant changed", PLANNER, """\
        8:8
        cfg.overlap = 1""", CHANGED),
    QuoteExample("parentheses that matter", "x = (a + b) * c\n", """\
        1:1
        x = a + b * c""", CHANGED),
    QuoteExample("inline elision never covers what lies outside its brackets", BACKEND, """\
        1:1
        def apply_backend(...):""", CHANGED),
    QuoteExample("inline elision keeps the name of the call", BACKEND, """\
        5:5
        cfg.backend = build_backend(...)""", CHANGED),
    QuoteExample("inline elision keeps the statements' order", BACKEND, """\
        4:5
        cfg.backend = make_backend(...)
        assert cfg.world > 0, ...""", CHANGED),
    QuoteExample("inline elision stays inside one statement", BACKEND, """\
        3:4
        raise ValueError(...) assert cfg.world > 0""", CHANGED),
    QuoteExample("what changed is named: a renamed identifier", "cfg = build_plan(tp, sp)\nrun(cfg)\n", """\
        1:2
        cfg = make_plan(tp, sp)
        run(cfg)""", CHANGED, detail="`make_plan` renamed to `build_plan` in `cfg = make_plan(tp, sp)`"),
    QuoteExample("what changed is named: an argument added", "cfg = make_plan(tp, sp, pp)\nrun(cfg)\n", """\
        1:2
        cfg = make_plan(tp, sp)
        run(cfg)""", CHANGED, detail="an argument added: `, pp` in `cfg = make_plan(tp, sp)`"),
    QuoteExample("what changed is named: a statement gone", "cfg = make_plan(tp)\nrun(cfg)\nsave(cfg)\n", """\
        1:3
        cfg = make_plan(tp)
        check(cfg)
        run(cfg)""", CHANGED, detail="`check(cfg)` is gone"),
    QuoteExample("Markdown: other blocks stay line-based", "```bash\nlaunch --tp 2\n```\n", """\
        2:2
        launch  --tp  2""", CHANGED, path="docs/run.md"),
    QuoteExample("YAML: a value still matters", "tp: 4  # tensor parallel\n", """\
        1:1
        tp: 2  # tensor parallel""", CHANGED, path="conf/run.yaml"),
    QuoteExample("YAML: a # inside quotes is not a comment", "name: 'a # b'\n", """\
        1:1
        name: 'a'""", CHANGED, path="conf/run.yaml"),
    QuoteExample("lines no longer consecutive", PLANNER.replace("            if cfg.sp:\n", "            log()\n            if cfg.sp:\n"), """\
        6:8
        if cfg.tp > 1:
            if cfg.sp:""", CHANGED),
]
