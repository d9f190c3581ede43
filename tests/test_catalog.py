"""The whole catalog: every skill under a root, submodules, promises, skills with no registry entry."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from textwrap import dedent

import pytest

from anchor_audit.checks.testcounts import count_tests
from anchor_audit.cli import main

from .conftest import DEMO, GitRepo, git

LIB = dedent(
    """\
    class Scheduler:
        def step(self, cfg):
            if cfg.overlap:
                cfg.chunks = 4
            return cfg
    """
)

SKILL = dedent(
    """\
    ---
    name: sub-skill
    ---

    See @third/sub/lib.py and @docs/missing.md.

    ```3:4:third/sub/lib.py
    if cfg.overlap:
        cfg.chunks = 4
    ```

    ```bash
    python -m pytest tests/test_things.py -q
    ```

    The first command reports `5 passed`.
    """
)

TESTS = dedent(
    """\
    import pytest

    def test_one():
        pass

    @pytest.mark.parametrize("n", [1, 2, 3])
    def test_many(n):
        pass

    @pytest.mark.parametrize("a,b", [(1, 2), (3, 4)])
    class TestPairs:
        def test_sum(self, a, b):
            pass

        def helper(self):
            pass

    def not_a_test():
        pass
    """
)


@pytest.fixture
def super_repo(make_repo, tmp_path: Path) -> GitRepo:
    sub = GitRepo(tmp_path / "sub")
    sub.path.mkdir()
    git(sub.path, "init", "-q", "-b", "main")
    sub.write("lib.py", LIB)
    sub.commit("library")
    repo = make_repo()
    git(repo.path, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(sub.path), "third/sub")
    repo.write("skills/sub-skill/SKILL.md", SKILL)
    repo.write("skills/sub-skill/card.yaml", "validation_status:\n  wired: [file_exists]\nevidence:\n  - third/sub/lib.py\n")
    repo.write("tests/test_things.py", TESTS)
    repo.commit("add a submodule and a skill", tag="v2")
    return repo


def audit_json(capsys, *args: str) -> tuple[int, dict]:
    code = main(["check", "--format", "json", *args])
    out = capsys.readouterr().out
    return code, json.loads(out) if out else {}


def test_quote_in_a_submodule_is_read_at_the_recorded_commit(super_repo: GitRepo, tmp_path: Path, capsys) -> None:
    # .gitmodules names a local path: read only where the user names that place (git refuses it too).
    args = ["--repo", str(super_repo.path), "--ref", "v2", "--in-repo", "skills/sub-skill"]
    _, data = audit_json(capsys, *args)
    anchor = data["skills"][0]["anchors"][0]
    assert anchor["status"] == "unverifiable" and "not a network URL; a local path is not followed" in anchor["detail"]
    code, data = audit_json(capsys, *args, "--submodule", f"third/sub={tmp_path / 'sub'}")
    (skill,) = data["skills"]
    assert skill["anchors"][0]["status"] == "exact" and skill["anchors"][0]["found"] == [3, 4]
    promises = {(p["kind"], p["path"]): p for p in skill["promises"]}
    assert promises[("reference", "third/sub/lib.py")]["status"] == "exists"  # a path inside the submodule
    # no docs/ folder in this repository: looked up as any path of the prose, it may be another tree's
    missing = promises[("reference", "docs/missing.md")]
    assert (missing["status"], missing["detail"]) == ("unverifiable", "no docs/ in this repository: a path of another tree?")
    tests = promises[("tests", "tests/test_things.py")]
    # 1 + 3 (parametrize) + 2 (class-level parametrize x 1 test method) = 6, not the 5 promised.
    assert (tests["status"], tests["tests_promised"], tests["tests_found"]) == ("differs", 5, 6)
    claim = skill["claims"][0]
    assert (claim["id"], claim["verdict"]) == ("wired", "code_verified")  # file_exists: its evidence path exists
    assert code == 1  # a missing reference and a wrong test count are drift


def test_submodule_override_and_an_unreachable_submodule(super_repo: GitRepo, tmp_path: Path, capsys) -> None:
    moved = tmp_path / "elsewhere.git"
    git(tmp_path, "clone", "-q", "--bare", str(tmp_path / "sub"), str(moved))
    shutil.rmtree(tmp_path / "sub")  # the URL in .gitmodules is gone now
    args = ["--repo", str(super_repo.path), "--ref", "v2", "--in-repo", "skills/sub-skill"]
    _, data = audit_json(capsys, *args)
    anchor = data["skills"][0]["anchors"][0]
    assert anchor["status"] == "unverifiable"
    assert anchor["detail"].startswith("submodule third/sub at ") and "--submodule third/sub=URL_OR_DIR" in anchor["detail"]
    _, data = audit_json(capsys, *args, "--submodule", f"third/sub=file://{moved}")
    assert data["skills"][0]["anchors"][0]["status"] == "exact"


def test_all_audits_every_skill_under_a_root(super_repo: GitRepo, tmp_path: Path, capsys) -> None:
    shutil.copytree(DEMO / "skills" / "demo-overlap", super_repo.path / "skills" / "demo-overlap")
    super_repo.commit("the demo skill too", tag="v3")
    code, data = audit_json(capsys, "--spec", str(DEMO / "anchors.yaml"), "--repo", str(super_repo.path),
                            "--ref", "v3", "--in-repo", "--all", "skills", "--submodule", f"third/sub={tmp_path / 'sub'}")  # fmt: skip
    assert [s["name"] for s in data["skills"]] == ["demo-overlap", "sub-skill"]
    demo = data["skills"][0]
    assert {c["verdict"] for c in demo["claims"]} == {"code_verified", "doc_only"}  # registered: verified
    assert data["skills"][1]["notes"][0].startswith("no entry in anchors.yaml")
    # --all also walks a folder on disk.
    code, data = audit_json(capsys, "--spec", str(DEMO / "anchors.yaml"), "--repo", str(super_repo.path),
                            "--ref", "v3", "--all", str(DEMO / "skills"))  # fmt: skip
    assert [s["name"] for s in data["skills"]] == ["demo-overlap"]


def test_count_tests_by_hand() -> None:
    assert count_tests(TESTS) == (6, [])
    computed = "import pytest\nCASES = [1, 2]\n@pytest.mark.parametrize('n', CASES)\ndef test_x(n):\n    pass\n"
    assert count_tests(computed) == (1, ["test_x: parametrize over a computed list, counted once"])


def test_init_drafts_a_registry_that_runs(tmp_path: Path, capsys, monkeypatch) -> None:
    from .hostile.conftest import QUOTE, make_code_repo, make_skill

    repo = make_code_repo(tmp_path / "code")
    card = (
        'validated_on: "2026-01-10"\nvalidation_status:\n  overlap_gate:\n    - code_verified\n'
        "  returns_cfg:\n    - code_verified  # plan.py:7\n  perf_notes:\n    - doc_only\n"
    )
    make_skill(tmp_path / "skill", "## The overlap gate\n\nOverlap only with TP:\n\n" + QUOTE, card=card)
    monkeypatch.chdir(tmp_path)
    assert main(["init", "skill", "--repo", str(repo.path), "--ref", "v1"]) == 0
    draft = capsys.readouterr().out
    assert "      overlap_gate:  # card.yaml: code_verified\n        quotes:\n" in draft
    assert '          - "pkg/plan.py:3-6"  # proposed: confirm\n' in draft  # its caption names the claim
    assert '          - path: "pkg/plan.py"\n            in: "Planner.plan"\n            if: "cfg.tp > 1"\n' in draft
    assert '            then: ["cfg.overlap = True"]\n            else: ["cfg.overlap = False"]\n' in draft
    assert "      perf_notes: {}  # card.yaml: doc_only; no quote found\n" in draft
    (tmp_path / "anchors.yaml").write_text(draft)
    assert main(["check", "--format", "json"]) == 0  # the draft runs as it is
    claims = {c["id"]: c["verdict"] for c in json.loads(capsys.readouterr().out)["skills"][0]["claims"]}
    assert claims == {"overlap_gate": "code_verified", "returns_cfg": "code_verified", "perf_notes": "doc_only"}


def test_installed_distribution_is_read_like_a_release(tmp_path: Path, capsys, monkeypatch) -> None:
    site = tmp_path / "site"
    shutil.copytree(DEMO / "src" / "demo", site / "demo")
    info = site / "demo_trainer-1.4.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: demo-trainer\nVersion: 1.4.0\n")
    (info / "RECORD").write_text("demo/overlap.py,,\ndemo/launch.py,,\ndemo_trainer-1.4.0.dist-info/METADATA,,\n")
    monkeypatch.syspath_prepend(str(site))
    spec = tmp_path / "anchors.yaml"
    spec.write_text((DEMO / "anchors.yaml").read_text().replace(
        "  ref: v1\n", '  ref: v1\n  release:\n    dist: demo-trainer\n    paths: {"demo/": "src/demo/"}\n'
    ).replace("path: skills/demo-overlap", f"path: {DEMO / 'skills' / 'demo-overlap'}"))
    code, data = audit_json(capsys, "--spec", str(spec), "--installed")
    assert data["source"]["kind"] == "installed" and data["source"]["release"] == "demo-trainer 1.4.0"
    assert [a["status"] for a in data["skills"][0]["anchors"]] == ["exact"] * 4
    assert code == 0
    assert main(["check", "--spec", str(spec), "--installed", "no-such-dist"]) == 2
    assert "no-such-dist is not installed in this Python environment" in capsys.readouterr().err


def test_symbols_of_python_examples(make_repo, tmp_path: Path, capsys) -> None:
    repo = make_repo()
    skill = tmp_path / "symbols-skill"
    skill.mkdir()
    (skill / "SKILL.md").write_text(dedent(
        """\
        # Using the planner

        ```python
        from demo.overlap import OverlapPlanner, Settings, Vanished
        from torch import nn
        from collections import OrderedDict
        from demo.gone import Thing
        from demo.ops import my_op

        settings = Settings(tp_overlap=True, warp_speed=9)
        cfg.model.tp_size = 4
        ```
        """
    ))  # fmt: skip
    code, data = audit_json(capsys, "--repo", str(repo.path), "--ref", "v1", str(skill))
    got = [(p["path"], p["status"], p.get("detail", "")) for p in data["skills"][0]["promises"]]
    assert got == [
        ("demo.overlap:OverlapPlanner", "exists", "src/demo/overlap.py:22"),
        ("demo.overlap:Settings", "exists", "src/demo/overlap.py:14"),
        ("demo.overlap:Vanished", "missing", "src/demo/overlap.py does not define Vanished"),
        ("torch:nn", "external", "torch is not a package of this repository"),
        ("collections:OrderedDict", "external", "collections is the standard library"),
        ("demo.gone:Thing", "missing", "no module demo.gone in this repository's package demo (src/demo/)"),
        ("Settings(tp_overlap=)", "exists", "src/demo/overlap.py:15"),
        ("Settings(warp_speed=)", "missing", "Settings in src/demo/overlap.py has no field warp_speed"),
        ("cfg.*", "unverifiable", "the type of cfg is not known from the examples: 1 attribute chain"),
    ]
    assert code == 1  # missing symbols are drift; unverifiable ones are notes, external ones facts


def test_a_keyword_of_a_function_a_package_re_exports_is_checked_where_it_is_defined(
    make_repo, tmp_path: Path, capsys
) -> None:
    """``from demo.ops import scatter`` where ``demo/ops/__init__.py`` re-exports it from ``.kernels``: its
    keywords are looked up in ``kernels.py``, a wrong one is missing and said to be a parameter."""
    files = {"src/demo/ops/__init__.py": "from .kernels import scatter as scatter\n",
             "src/demo/ops/kernels.py": "def scatter(x, dim=0, reduce='sum'):\n    return x\n"}  # fmt: skip
    example = "```python\nfrom demo.ops import scatter\n\nscatter(t, dim=1, reduction='mean')\n```\n"
    got = _example_promises(make_repo(), tmp_path, capsys, files, example)
    assert list(got.items())[1:] == [
        ("scatter(dim=)", ("exists", "src/demo/ops/kernels.py:1")),
        ("scatter(reduction=)", ("missing", "scatter in src/demo/ops/kernels.py has no parameter reduction")),
    ]


def test_a_keyword_is_followed_through_a_re_export_under_a_version_gate_and_a_star_import(
    make_repo, tmp_path: Path, capsys
) -> None:
    """``__init__.py`` imports ``scatter`` only ``if AVAILABLE:`` (a version gate), and ``gather`` comes through
    ``from .more import *``: both functions' keywords are looked up where they are defined."""
    files = {"src/demo/ops/__init__.py": "AVAILABLE = True\n\nif AVAILABLE:\n    from .kernels import scatter\n"
                                         "\n    def register():\n        from .kernels import hidden\n\n"
                                         "from .more import *\n",
             "src/demo/ops/kernels.py": "def scatter(x, dim=0):\n    return x\n\n\ndef hidden(y=1):\n    return y\n",
             "src/demo/ops/more.py": "def gather(x, axis=0):\n    return x\n"}  # fmt: skip
    example = ("```python\nfrom demo.ops import scatter, gather\n\n"
               "scatter(t, dim=1, reduction='mean')\ngather(t, axis=1, axes=2)\n```\n")  # fmt: skip
    got = _example_promises(make_repo(), tmp_path, capsys, files, example)
    assert got["scatter(dim=)"] == ("exists", "src/demo/ops/kernels.py:1")
    assert got["scatter(reduction=)"] == ("missing", "scatter in src/demo/ops/kernels.py has no parameter reduction")
    assert got["gather(axis=)"] == ("exists", "src/demo/ops/more.py:1")
    assert got["gather(axes=)"] == ("missing", "gather in src/demo/ops/more.py has no parameter axes")


def _example_promises(repo, tmp_path: Path, capsys, files: dict[str, str], body: str) -> dict[str, tuple[str, str]]:
    """(status, detail) of each promise of a skill whose SKILL.md has ``body``, against ``repo`` with ``files``
    committed, in the order reported."""
    for path, text in files.items():
        repo.write(path, text)
    repo.commit("the names", tag="v9")
    skill = tmp_path / "example-skill"
    skill.mkdir()
    (skill / "SKILL.md").write_text(f"# Example\n\n{body}")
    _, data = audit_json(capsys, "--repo", str(repo.path), "--ref", "v9", str(skill))
    return {p["path"]: (p["status"], p.get("detail", "")) for p in data["skills"][0]["promises"]}


def _imported_name(repo, tmp_path: Path, capsys, files: dict[str, str], example: str) -> tuple[str, str]:
    """(status, detail) of the one name a skill's example imports, against ``repo`` with ``files`` committed."""
    (said,) = _example_promises(repo, tmp_path, capsys, files, f"```python\n{example}\n```\n").values()
    return said


def test_a_name_a_module_does_not_define_names_where_it_is_defined(make_repo, tmp_path: Path, capsys) -> None:
    # a test's class of that name is not where the package defines it: not named
    files = {"src/demo/models/mixins.py": "class PrognosticMixin:\n    pass\n",
             "tests/test_mixins.py": "class PrognosticMixin:\n    pass\n"}  # fmt: skip
    said = _imported_name(make_repo(), tmp_path, capsys, files, "from demo.overlap import PrognosticMixin")
    assert said == (
        "missing", "src/demo/overlap.py does not define PrognosticMixin; it is defined in src/demo/models/mixins.py"
    )


def test_a_constant_a_package_does_not_re_export_names_the_module_that_assigns_it(
    make_repo, tmp_path: Path, capsys
) -> None:
    """A vocabulary assigned at the top level of ``lexicon/base.py`` (with a type, as constants are) that
    ``lexicon/__init__.py`` does not re-export: missing, naming where it is; a local of the same name in a
    function is no such place."""
    files = {"src/demo/lexicon/__init__.py": "from .base import Lexicon\n",
             "src/demo/lexicon/base.py": "class Lexicon:\n    pass\n\n\nSTUDIO_VOCAB: dict[str, str] = {}\n",
             "src/demo/other.py": "def build():\n    STUDIO_VOCAB = {}\n    return STUDIO_VOCAB\n"}  # fmt: skip
    said = _imported_name(make_repo(), tmp_path, capsys, files, "from demo.lexicon import STUDIO_VOCAB")
    assert said == ("missing", "src/demo/lexicon/__init__.py does not define STUDIO_VOCAB; it is defined in "
                    "src/demo/lexicon/base.py")


def test_a_name_a_package_re_exports_through_star_imports_exists(make_repo, tmp_path: Path, capsys) -> None:
    """``from ._ops import *`` then ``from .io import *``: a public function of ``io.py`` is the package's;
    a module's ``__all__`` says what its star import gives, and a private name is never given."""
    files = {"src/demo/arr/__init__.py": "from ._ops import *  # noqa\nfrom ._kinds import *\n",
             "src/demo/arr/_ops/__init__.py": "from .io import *\n",
             "src/demo/arr/_ops/io.py": "import os\n\n\ndef load(path):\n    return path\n\n\ndef _scan():\n    pass\n",
             "src/demo/arr/_kinds.py": "__all__ = ['Kind']\n\n\nclass Kind:\n    pass\n\n\nclass Hidden:\n    pass\n"}  # fmt: skip
    body = "Read with `demo.arr.load`.\n\n```python\nfrom demo.arr import load, Kind, Hidden, _scan\n```\n"
    said = _example_promises(make_repo(), tmp_path, capsys, files, body)
    assert said["demo.arr:load"] == (
        "exists", "src/demo/arr/__init__.py gives load through `from ._ops import *` (src/demo/arr/_ops/io.py:4)"
    )
    assert said["demo.arr:Kind"] == (
        "exists", "src/demo/arr/__init__.py gives Kind through `from ._kinds import *` (src/demo/arr/_kinds.py:4)"
    )
    assert said["demo.arr.load"] == said["demo.arr:load"]  # named in prose, found the same way
    for hidden in ("Hidden", "_scan"):
        status, detail = said[f"demo.arr:{hidden}"]
        assert status == "missing" and detail.startswith(f"src/demo/arr/__init__.py does not define {hidden}")


def test_a_name_a_star_import_of_another_package_may_give_is_unverifiable(make_repo, tmp_path: Path, capsys) -> None:
    files = {"src/demo/np_like.py": "from numpy import *\n\n\ndef extra():\n    pass\n"}
    said = _imported_name(make_repo(), tmp_path, capsys, files, "from demo.np_like import vectorize")
    assert said == ("unverifiable", "src/demo/np_like.py does not define vectorize itself; `from numpy import *` "
                    "may give it")


def test_a_lazily_exported_name_is_found(make_repo, tmp_path: Path, capsys) -> None:
    """A package serving names through a module __getattr__ and a table of them (the lazy-export shape)."""
    repo = make_repo()
    repo.write("src/demo/lazy/__init__.py", dedent(
        """\
        import importlib

        _EXPORTS = {"Trainer": ".trainer", "Loader": ".loader"}
        __all__ = list(_EXPORTS)


        def __getattr__(name):
            if name in _EXPORTS:
                return getattr(importlib.import_module(_EXPORTS[name], __name__), name)
            raise AttributeError(name)
        """
    ))  # fmt: skip
    repo.commit("lazy exports", tag="v9")
    skill = tmp_path / "lazy-skill"
    skill.mkdir()
    (skill / "SKILL.md").write_text("# Lazy\n\n```python\nfrom demo.lazy import Trainer, Missing\n```\n")
    _, data = audit_json(capsys, "--repo", str(repo.path), "--ref", "v9", str(skill))
    got = [(p["path"], p["status"]) for p in data["skills"][0]["promises"]]
    assert got == [("demo.lazy:Trainer", "exists"), ("demo.lazy:Missing", "missing")]


LAZY_ALIAS = {"src/demo/__init__.py": dedent(
    """\
    import importlib

    _SUBPACKAGES = {"parts"}
    _LAZY = {"Motor": ("demo.real_parts.motors", "Motor"), "Gear": ".real_parts.gears"}


    def __getattr__(name):
        if name in _SUBPACKAGES:
            return importlib.import_module("demo.real_parts")
        raise AttributeError(name)
    """
), "src/demo/real_parts/__init__.py": "", "src/demo/real_parts/gears.py": "class Gear:\n    teeth = 12\n",
    "src/demo/real_parts/motors.py": "class Motor:\n    def spin(self):\n        pass\n"}


def test_a_dotted_name_past_a_lazily_exported_one_is_unverifiable_not_found(make_repo, tmp_path: Path, capsys) -> None:
    """``demo.parts`` is served by a module __getattr__ at import time: what follows it (``parts.gears.Gear``) is
    not there to follow statically, so it is not said to exist; the lazy name alone is."""
    body = ("Build `demo.parts.gears.Gear` or `demo.parts`; `demo.tools.wrench.Wrench` is gone. Call "
            "`demo.Motor.spin` and `demo.Gear.teeth`.\n")
    said = _example_promises(make_repo(), tmp_path, capsys, LAZY_ALIAS, body)
    status, detail = said["demo.parts.gears.Gear"]
    assert status == "unverifiable", detail
    assert detail == ("src/demo/__init__.py serves parts lazily (module __getattr__): gears.Gear past it is not "
                      "followed")
    assert said["demo.parts"][0] == "exists"
    # where its table says where a name is served from, it is followed there
    assert said["demo.Motor.spin"] == ("exists", "src/demo/real_parts/motors.py:2")
    assert said["demo.Gear.teeth"] == ("exists", "src/demo/real_parts/gears.py:2")  # a relative module's name
    assert said["demo.tools.wrench.Wrench"] == (
        "missing", "no module demo.tools: src/demo/__init__.py does not define tools"
    )


def test_a_member_a_dotted_name_gives_past_a_class_is_looked_up_in_the_class(make_repo, tmp_path: Path, capsys) -> None:
    """``demo.machines.Press.stamp``: the method must be the class's (its own, a base's of the repository, a field
    its ``__init__`` sets); a class with a base from elsewhere may inherit it."""
    files = {"src/demo/machines.py": (
        "import threading\n\n\nclass Base:\n    def oil(self):\n        pass\n\n\n"
        "class Press(Base):\n    SPEED = 3\n\n    def __init__(self):\n        self.load = 0\n\n"
        "    def stamp(self):\n        pass\n\n    class Die:\n        pass\n\n\n"
        "class Worker(threading.Thread):\n    pass\n"),
        "src/demo/__init__.py": "from .machines import Press\n"}  # fmt: skip
    names = ["demo.machines.Press.stamp", "demo.machines.Press.oil", "demo.machines.Press.SPEED",
             "demo.machines.Press.load", "demo.machines.Press.Die", "demo.Press.stamp", "demo.machines.Press.punch",
             "demo.Press.punch", "demo.machines.Worker.start"]  # fmt: skip
    said = _example_promises(make_repo(), tmp_path, capsys, files, "".join(f"Use `{n}`.\n" for n in names))
    assert said["demo.machines.Press.stamp"] == ("exists", "src/demo/machines.py:15")
    assert said["demo.machines.Press.oil"] == ("exists", "src/demo/machines.py:5")  # its base's
    assert [said[f"demo.machines.Press.{m}"][0] for m in ("SPEED", "load", "Die")] == ["exists"] * 3
    assert said["demo.Press.stamp"] == said["demo.machines.Press.stamp"]  # through the package's re-export
    assert said["demo.machines.Press.punch"] == ("missing", "class Press (src/demo/machines.py:9) has no punch")
    assert said["demo.Press.punch"] == said["demo.machines.Press.punch"]
    assert said["demo.machines.Worker.start"] == (
        "unverifiable", "class Worker (src/demo/machines.py:22) inherits from classes outside the repository: start "
                        "may be theirs")


def test_a_copys_files_are_listed_as_rglob_lists_them_and_links_are_entries(tmp_path: Path) -> None:
    """The sync check and the link check walk a copy with one scandir per folder (fsutil.entries_under)."""
    import os

    from anchor_audit.text.fsutil import entries_under, files_under

    folder = tmp_path / "copy"
    for rel in ("SKILL.md", ".hidden", "a-b", "a/b", "a/c/d.md", "z/é.txt", "refs/n.md"):
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(rel)
    os.symlink(folder / "a", folder / "linked-folder")
    os.symlink(folder / "SKILL.md", folder / "refs" / "linked-file")
    os.symlink(tmp_path / "nowhere", folder / "dangling")
    expected = [p.relative_to(folder).as_posix() for p in sorted(folder.rglob("*")) if p.is_file() and not p.is_symlink()]
    assert files_under(folder) == expected
    links = sorted(rel for rel, entry in entries_under(folder) if entry.is_symlink())
    assert links == ["dangling", "linked-folder", "refs/linked-file"]
    assert not any(rel.startswith("linked-folder/") for rel, _ in entries_under(folder))


def test_init_drafts_from_a_submodule_it_is_given_and_says_so_where_it_cannot_reach_one(
    super_repo: GitRepo, tmp_path: Path, capsys
) -> None:
    """A skill quoting a submodule's file: without the submodule, init still drafts (one warning naming
    --submodule, never an internal error); given it, init reads the quoted file there, as check does."""
    super_repo.write("skills/sub-skill/card.yaml", "validation_status:\n  wired:\n    - code_verified  # lib.py:3-4\n")
    super_repo.commit("the claim linked to the quote")
    skill = str(super_repo.path / "skills" / "sub-skill")
    assert main(["init", skill, "--repo", str(super_repo.path)]) == 0
    out, err = capsys.readouterr()
    assert "internal error" not in err and "--submodule third/sub=URL_OR_DIR" in err
    assert "wired:" in out and "if:" not in out  # the claim drafted, with no condition read from code it cannot see
    assert main(["init", skill, "--repo", str(super_repo.path), "--submodule", f"third/sub={tmp_path / 'sub'}"]) == 0
    out, err = capsys.readouterr()
    assert "init:" not in err
    assert 'if: "cfg.overlap"' in out and 'then: ["cfg.chunks = 4"]' in out


def test_a_catalog_run_reads_a_components_submodule_it_is_given(super_repo: GitRepo, tmp_path: Path, capsys) -> None:
    """--submodule applies to the repositories a catalog opens, as to a one-skill run (it was ignored there)."""
    catalog = tmp_path / "catalog"
    (catalog / "components.d").mkdir(parents=True)
    (catalog / "components.d" / "super.yml").write_text(
        "name: super\nrepo: acme/super\nskills:\n  - path: skills/sub-skill\n    catalog_dir: sub-skill\n"
    )
    (catalog / "skills" / "sub-skill").mkdir(parents=True)
    (catalog / "skills" / "sub-skill" / "SKILL.md").write_text(SKILL)
    git(catalog, "init", "-q", "-b", "main")
    GitRepo(catalog).commit("the catalog")
    args = ["--catalog", str(catalog), "--mirror", f"acme/super={super_repo.path}"]
    _, data = audit_json(capsys, *args)
    assert data["skills"][0]["anchors"][0]["status"] == "unverifiable"
    _, data = audit_json(capsys, *args, "--submodule", f"third/sub={tmp_path / 'sub'}")
    assert data["skills"][0]["anchors"][0]["status"] == "exact"


def test_init_drafts_no_gate_without_an_effect_and_no_constant_table(tmp_path: Path, capsys, monkeypatch) -> None:
    """Two drafts that tested the wrong thing: an ``if`` with no effect clause (it would hold wherever any ``if`` of
    that test stands) and a constant table set outside any gate (it grows with the code: a false break)."""
    from .hostile.conftest import make_code_repo, make_skill

    code = (
        'ALLOWED = {"attn", "mlp"}\nmode = pick(ALLOWED)\n\n\nclass Offload:\n    def setup(self, cfg):\n'
        "        if cfg.cpu_offloading:\n            log(cfg)\n        if cfg.recompute:\n"
        "            cfg.cpu_offloading = False\n"
    )
    repo = make_code_repo(tmp_path / "code", {"pkg/offload.py": code})
    quotes = (
        "```1:2:pkg/offload.py\nALLOWED = {\"attn\", \"mlp\"}\nmode = pick(ALLOWED)\n```\n\n"
        "```7:10:pkg/offload.py\nif cfg.cpu_offloading:\n    log(cfg)\nif cfg.recompute:\n    cfg.cpu_offloading = False\n```\n"
    )
    card = "validation_status:\n  table:\n    - code_verified  # offload.py:1-2\n  gate:\n    - code_verified  # offload.py:7-10\n"
    make_skill(tmp_path / "skill", quotes, card=card)
    monkeypatch.chdir(tmp_path)
    assert main(["init", "skill", "--repo", str(repo.path), "--ref", "v1"]) == 0
    draft = capsys.readouterr().out
    assert '            has: ["mode = pick(ALLOWED)"]\n' in draft  # the call, not the table
    assert '            if: "cfg.recompute"\n            then: ["cfg.cpu_offloading = False"]\n' in draft
    assert 'if: "cfg.cpu_offloading"' not in draft


def test_init_drafts_a_gates_effects_not_its_local_names_and_a_raise_by_its_exception(
    tmp_path: Path, capsys, monkeypatch
) -> None:
    """A branch that builds a local table (``allowed = {...}``, which later gains a member) and raises: the draft
    lists the raise by its exception alone, so a reworded message or a grown table breaks nothing; a raise of
    another exception, or none, does."""
    from .hostile.conftest import make_code_repo, make_skill

    code = ("class Offload:\n    def setup(self, cfg):\n        if cfg.fine_grained:\n"
            "            allowed = {'attn', 'mlp'}\n            bad = set(cfg.modules) - allowed\n"
            "            assert cfg.layers > 0, 'needs layers'\n"
            "            if bad:\n                raise ValueError(f'not offloadable: {bad}')\n")  # fmt: skip
    repo = make_code_repo(tmp_path / "code", {"pkg/offload.py": code})
    quote = "```3:8:pkg/offload.py\n" + "\n".join(line[8:] for line in code.splitlines()[2:]) + "\n```\n"
    card = "validation_status:\n  fine_grained_modules:\n    - code_verified  # offload.py:3-8\n"
    make_skill(tmp_path / "skill", quote, card=card)
    monkeypatch.chdir(tmp_path)
    assert main(["init", "skill", "--repo", str(repo.path), "--ref", "v1"]) == 0
    draft = capsys.readouterr().out
    assert '            if: "cfg.fine_grained"\n            then: ["assert cfg.layers > 0"]\n' in draft
    (tmp_path / "anchors.yaml").write_text(draft)
    reworded = code.replace("{'attn', 'mlp'}", "{'attn', 'mlp', 'norm'}").replace("'needs layers'", "'no layers'")
    repo.write("pkg/offload.py", reworded)
    repo.commit("a module more, a message reworded", tag="v2", date="2026-02-01T00:00:00")
    assert main(["check", "--ref", "v2", "--format", "json"]) in (0, 1)
    claims = json.loads(capsys.readouterr().out)["skills"][0]["claims"]
    conditions = [e for c in claims for e in c["evidence"] if e["kind"] == "condition"]
    assert [e["status"] for e in conditions] == ["holds"]
    repo.write("pkg/offload.py", reworded.replace("assert cfg.layers > 0", "assert cfg.layers >= 0"))
    repo.commit("the guard loosened", tag="v3", date="2026-03-01T00:00:00")
    main(["check", "--ref", "v3", "--format", "json"])
    claims = json.loads(capsys.readouterr().out)["skills"][0]["claims"]
    assert [e["status"] for c in claims for e in c["evidence"] if e["kind"] == "condition"] == ["different"]


def test_init_drafts_no_statement_the_quote_elides_part_of_so_a_new_argument_breaks_nothing(
    tmp_path: Path, capsys, monkeypatch
) -> None:
    """A quote showing a call with some of its arguments (``...`` for the others): the draft does not pin the whole
    call as the code writes it (an argument added later would break the claim while the quote still holds), so
    ``check`` on the draft says what ``check`` with no registry says."""
    from .hostile.conftest import make_code_repo, make_skill

    code = ("def init_groups(cfg):\n    create_groups(\n        tp=cfg.tp,\n        pp=cfg.pp,\n"
            "        ep=cfg.ep,\n    )\n    cfg.ready = mark(cfg)\n")  # fmt: skip
    repo = make_code_repo(tmp_path / "code", {"pkg/groups.py": code})
    quote = "```2:7:pkg/groups.py\ncreate_groups(\n    tp=cfg.tp,\n    ...\n    ep=cfg.ep,\n)\ncfg.ready = mark(cfg)\n```\n"
    card = 'validated_on: "2026-01-01"\nvalidation_status:\n  group_init:\n    - code_verified  # groups.py:2-7\n'
    make_skill(tmp_path / "skill", quote, card=card)
    monkeypatch.chdir(tmp_path)
    assert main(["init", "skill", "--repo", str(repo.path), "--ref", "v1"]) == 0
    draft = capsys.readouterr().out
    assert 'has: ["cfg.ready = mark(cfg)"]' in draft and "create_groups(" not in draft.split("conditions:")[1]
    (tmp_path / "anchors.yaml").write_text(draft)
    repo.write("pkg/groups.py", code.replace("        pp=cfg.pp,\n", "        pp=cfg.pp,\n        cp=cfg.cp,\n"))
    repo.commit("context parallel groups too", tag="v2", date="2026-02-01T00:00:00")
    main(["check", "--ref", "v2", "--format", "json"])
    (claim,) = json.loads(capsys.readouterr().out)["skills"][0]["claims"]
    assert claim["verdict"] == "code_verified", claim["evidence"]


def test_a_condition_wants_a_raise_by_its_exception_and_an_assert_by_its_test() -> None:
    import libcst as cst

    from anchor_audit.match.condition import compile_statement

    def small(text: str) -> cst.BaseSmallStatement:
        line = cst.parse_statement(text)
        assert isinstance(line, cst.SimpleStatementLine)
        return line.body[0]

    raise_value = compile_statement("raise ValueError")
    assert raise_value.matches(small("raise ValueError(f'bad {x}')")) and raise_value.matches(small("raise ValueError"))
    assert not raise_value.matches(small("raise TypeError('bad')"))
    assert compile_statement("raise errors.Refused").matches(small("raise errors.Refused('no')"))
    checked = compile_statement("assert cfg.tp > 1")
    assert checked.matches(small("assert cfg.tp > 1, 'needs TP'")) and not checked.matches(small("assert cfg.tp > 2"))
    exact = compile_statement("raise ValueError('exactly this')")  # written with its message: as written
    assert exact.matches(small("raise ValueError('exactly this')")) and not exact.matches(small("raise ValueError('x')"))


def test_a_catalog_reads_a_submodule_from_the_mirror_of_the_repository_gitmodules_names(super_repo: GitRepo,
                                                                                         tmp_path: Path, capsys) -> None:  # fmt: skip
    super_repo.edit(".gitmodules", str(tmp_path / "sub"), "https://github.com/acme/sub.git")  # as a real one says
    super_repo.commit("the submodule's upstream URL")
    catalog = tmp_path / "catalog"
    (catalog / "components.d").mkdir(parents=True)
    (catalog / "components.d" / "super.yml").write_text(
        "repo: acme/super\nskills:\n  - path: skills/sub-skill\n    catalog_dir: sub-skill\n")
    shutil.copytree(super_repo.path / "skills" / "sub-skill", catalog / "skills" / "sub-skill")
    mirrors = ["--mirror", f"acme/super={super_repo.path}", "--mirror", f"https://github.com/acme/sub={tmp_path / 'sub'}"]
    _, data = audit_json(capsys, "--catalog", str(catalog), *mirrors)
    (skill,) = data["skills"]
    assert skill["anchors"][0]["status"] == "exact"  # third/sub read from the local copy of acme/sub, not fetched


def test_a_skill_that_quotes_code_and_has_a_card_is_expected_to_cost_more(tmp_path) -> None:
    """The run's parts are cut by expected cost: a skill with quotes and a card weighs more than prose alone."""
    from anchor_audit.runs.catalog import expected_cost
    from anchor_audit.spec.components import CatalogSkill

    for name, body in (("prose", "Read the guide.\n"), ("quotes", "```1:2:pkg/a.py\nx = 1\ny = 2\n```\n" * 3)):
        (tmp_path / "skills" / name).mkdir(parents=True)
        (tmp_path / "skills" / name / "SKILL.md").write_text(f"---\nname: {name}\n---\n\n{body}")
    (tmp_path / "skills" / "quotes" / "card.yaml").write_text("validation_status:\n" + "  a: [code_verified]\n" * 100)
    prose, quotes = (expected_cost(tmp_path, CatalogSkill(path=f"skills/{n}", catalog_dir=n)) for n in ("prose", "quotes"))
    assert prose == 1.0 and quotes > 8 * prose
    assert expected_cost(tmp_path, CatalogSkill(path="skills/gone", catalog_dir="gone")) == 1.0


def test_a_component_s_first_skill_carries_what_opening_its_code_costs(tmp_path) -> None:
    """Opening a component's code (its listing, its first parses and searches) is paid once, by whichever process
    audits its first skill; a skill whose repository could not be had costs less than any that is read."""
    from anchor_audit.runs.catalog import COMPONENT_COST, expected_cost, expected_costs
    from anchor_audit.spec.components import CatalogSkill

    skills = [CatalogSkill(path=f"skills/s{i}", catalog_dir=f"s{i}") for i in range(5)]
    one, two = object(), object()
    work = [(skills[0], one, None, ()), (skills[1], one, None, ()), (skills[2], two, None, ()),
            (skills[3], None, "gone", ()), (skills[4], two, None, ())]  # fmt: skip
    costs = expected_costs(tmp_path, work)  # type: ignore[arg-type]
    plain = expected_cost(tmp_path, skills[0])
    assert costs[:3] == [plain + COMPONENT_COST, plain, plain + COMPONENT_COST] and costs[4] == plain
    assert 0 < costs[3] < plain


def test_a_claim_and_a_constraint_of_a_card_whose_evidence_lies_in_an_unreachable_submodule_do_not_stop_the_run(
    super_repo: GitRepo, tmp_path: Path, capsys
) -> None:
    """The card names a file of a submodule that cannot be fetched, in its evidence, a claim nothing links and a
    constraint no gate decides: each is a result (unlinked, advice), the run ends with its results, never an
    internal error."""
    shutil.rmtree(tmp_path / "sub")  # the URL in .gitmodules is gone now
    card = ('validated_on: "2026-01-15"\nvalidation_status:\n  lib_script:\n    - code_verified\n'
            "evidence:\n  - third/sub/lib.py\nknown_constraints:\n  - use_lib_wiring requires lib_wiring_size > 1.\n")
    super_repo.write("skills/sub-skill/card.yaml", card)
    super_repo.commit("a card with a constraint", tag="v3")
    code, data = audit_json(capsys, "--repo", str(super_repo.path), "--ref", "v3", "--in-repo", "skills/sub-skill")
    assert code in (0, 1), data
    (skill,) = data["skills"]
    assert [c["verdict"] for c in skill["claims"]] == ["unlinked"]
    (constraint,) = [p for p in skill["promises"] if p["kind"] == "constraint"]
    assert constraint["status"] == "unverifiable"
