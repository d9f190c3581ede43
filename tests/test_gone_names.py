"""A name the prose cites that the code no longer defines anywhere, but did when the skill was last written."""

from __future__ import annotations

import json

from anchor_audit.cli import main

from .conftest import GitRepo, empty_repo, git

SKILL = (
    "---\nname: builder\ndescription: builds models\n---\n\n# Builder\n\n"
    "Mix in `CombinedProjectionMixin` and call `setup_projection()`; configure with `BuildConfig`.\n"
    "Schedule with `build_scheduler()`.\n"
    "Wrap the model in torch's `FullyShardedDataParallel`.\n"
)
MIXINS = "class CombinedProjectionMixin:\n    pass\n\n\ndef setup_projection(model):\n    return model\n"


PLANNER = "---\nname: planner\ndescription: plans\n---\n\nCall `build_scheduler()`.\n"


def _package(tmp_path, files: dict[str, str]) -> GitRepo:
    """A repository that is the Python package ``acme`` (pyproject.toml at its root), with ``files`` written."""
    repo = empty_repo(tmp_path / "code")
    for path, text in {"pyproject.toml": '[project]\nname = "acme"\n', "src/acme/__init__.py": "", **files}.items():
        repo.write(path, text)
    return repo


def repository(tmp_path, planner: bool = False) -> GitRepo:
    """The skill written beside code that defines what it cites; later commits remove two of those names (and
    a second skill, ``planner``, written at the second commit)."""
    repo = _package(tmp_path, {"src/acme/models/__init__.py": "", "src/acme/models/mixins.py": MIXINS,
                               "src/acme/models/config.py": "class BuildConfig:\n    layers: int = 2\n",
                               "src/acme/recipes.py": "def build_scheduler(cfg):\n    return cfg\n",
                               "skills/builder/SKILL.md": SKILL})  # fmt: skip
    repo.commit("the builder and its skill", date="2026-02-01T00:00:00")
    repo.write("src/acme/models/config.py", "class BuildConfig:\n    layers: int = 4\n")
    if planner:
        repo.write("skills/planner/SKILL.md", PLANNER)
    repo.commit("more layers", date="2026-03-01T00:00:00")
    repo.write("src/acme/models/mixins.py", "def unrelated():\n    pass\n")
    repo.commit("drop the combined projection", date="2026-04-01T00:00:00")
    repo.write("src/acme/recipes.py", "def build(cfg):\n    return cfg\n")  # the package's helper goes ...
    repo.write("tests/test_recipes.py", "def build_scheduler(cfg):\n    return cfg\n")  # ... a test keeps one
    repo.commit("recipes build themselves", date="2026-05-01T00:00:00")
    return repo


def symbols(repo: GitRepo, capsys, *where: str) -> dict[str, tuple[str, str]]:
    code = main(["check", "--repo", str(repo.path), "--ref", "main", "--format", "json", "-q", *where])
    assert code in (0, 1)
    skill = json.loads(capsys.readouterr().out)["skills"][0]
    return {p["path"]: (p["status"], p.get("detail", "")) for p in skill["promises"] if p["kind"] == "symbol"}


def _alone_and_together(repo: GitRepo, capsys, monkeypatch, tmp_path, names: tuple[str, str]) -> tuple[dict, dict, str]:
    """Each skill's symbols checked alone, then both in one run with git traced: (alone, together, the trace)."""
    alone = {name: symbols(repo, capsys, "--in-repo", f"skills/{name}") for name in names}
    trace = tmp_path / "trace"
    monkeypatch.setenv("GIT_TRACE", str(trace))
    code = main(["check", "--repo", str(repo.path), "--ref", "main", "--format", "json", "-q", "--no-cache",
                 "--in-repo", *(f"skills/{name}" for name in names)])  # fmt: skip
    monkeypatch.delenv("GIT_TRACE")
    assert code == 1
    together = {s["name"]: {p["path"]: (p["status"], p.get("detail", "")) for p in s["promises"] if p["kind"] == "symbol"}
                for s in json.loads(capsys.readouterr().out)["skills"]}  # fmt: skip
    return alone, together, trace.read_text()


def test_a_name_gone_since_the_skill_was_written_is_missing_with_the_commit_that_removed_it(tmp_path, capsys) -> None:
    repo = repository(tmp_path)
    removed = git(repo.path, "rev-parse", "HEAD~1")
    written = git(repo.path, "rev-parse", "HEAD~3")
    found = symbols(repo, capsys, "--in-repo", "skills/builder")
    assert found["BuildConfig"][0] == "exists"
    status, detail = found["CombinedProjectionMixin"]
    assert status == "missing"
    assert detail == (f"the package defines it nowhere now; src/acme/models/mixins.py defined it at {written[:10]} (2026-02-01), "
                      f"when that line of skills/builder/SKILL.md was written; removed in {removed[:10]} (2026-04-01)")
    assert found["setup_projection()"][0] == "missing"
    status, detail = found["build_scheduler()"]  # only a test defines it now: the package's is gone
    assert status == "missing" and detail.startswith("the package defines it nowhere now; src/acme/recipes.py defined it at")
    assert detail.endswith(f"removed in {git(repo.path, 'rev-parse', 'HEAD')[:10]} (2026-05-01)")
    assert "FullyShardedDataParallel" not in found  # nobody's here, then or now: not said


def test_a_skill_beside_a_shallow_copy_says_nothing_of_what_it_cannot_know(tmp_path, capsys) -> None:
    repo = repository(tmp_path)
    shallow = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{repo.path}", str(shallow))
    found = symbols(GitRepo(shallow), capsys, "--in-repo", "skills/builder")
    assert "CombinedProjectionMixin" not in found and found["BuildConfig"][0] == "exists"
    assert found["build_scheduler()"][0] == "unverifiable"  # "defined only in tests", as without history


def test_the_commits_many_skills_were_written_at_are_searched_in_one_grep_each_as_alone(
    tmp_path, capsys, monkeypatch
) -> None:
    """Each skill's names are looked for in the tree of the commit that wrote its lines; a run of many skills
    tells those trees beforehand, and the first asked is searched with the others in one ``git grep``."""
    repo = repository(tmp_path, planner=True)
    alone, together, trace = _alone_and_together(repo, capsys, monkeypatch, tmp_path, ("builder", "planner"))
    assert together == alone
    assert together["planner"]["build_scheduler()"][0] == together["builder"]["CombinedProjectionMixin"][0] == "missing"
    written = [git(repo.path, "rev-parse", f"{rev}^{{tree}}").strip() for rev in ("HEAD~3", "HEAD~2")]
    past = [line for line in trace.splitlines() if "built-in: git grep" in line and written[0] in line]
    assert len(past) == 1 and written[1] in past[0], past



PATTERNS = (
    "# Patterns\n\n"
    "Projection layers come from the package's mixins.\n\n"
    "Use `CombinedProjectionMixin` for fused projections, or `sigmoid(x)` written by hand.\n"
)


def test_a_name_a_page_cites_is_dated_by_the_pages_own_line_and_is_never_private_on_its_own(tmp_path, capsys) -> None:
    """A page of the skill's folder names a mixin the package removed since that page's line was written: missing,
    dated by the page's own history (not by SKILL.md's). A math function the package keeps only in private form
    (``_sigmoid``) is no finding on a page, where tables of math and other projects' names abound: unverifiable."""
    skill_md = "---\nname: builder\ndescription: builds\n---\n\nSee [patterns](references/patterns.md).\n"
    repo = _package(tmp_path, {"src/acme/mixins.py": MIXINS, "src/acme/mathops.py": "def _sigmoid(x):\n    return x\n",
                               "skills/builder/SKILL.md": skill_md, "skills/builder/references/patterns.md": PATTERNS})
    repo.commit("the builder, its skill and its patterns", date="2026-02-01T00:00:00")
    written = git(repo.path, "rev-parse", "HEAD")
    repo.write("src/acme/mixins.py", "def unrelated():\n    pass\n")
    removed = repo.commit("drop the combined projection", date="2026-04-01T00:00:00")
    found = symbols(repo, capsys, "--in-repo", "skills/builder")
    assert found["CombinedProjectionMixin"] == ("missing", (
        f"the package defines it nowhere now; src/acme/mixins.py defined it at {written[:10]} (2026-02-01), when "
        f"that line of skills/builder/references/patterns.md was written; removed in {removed[:10]} (2026-04-01)"))
    assert found["sigmoid(x)"] == ("unverifiable", "src/acme/mathops.py has _sigmoid: the name became private; "
                                   "named in a page, not in SKILL.md: re-verify")


def test_in_a_repository_that_is_no_python_package_the_names_a_skill_cites_are_not_dated(tmp_path, capsys) -> None:
    """A repository of skills, or of C code, with Python files but no pyproject.toml or setup.py at its root: the
    names its skills call are other projects', so no line is dated by the history and nothing is said missing."""
    repo = repository(tmp_path)
    repo.remove("pyproject.toml")
    repo.commit("no longer a package", date="2026-06-01T00:00:00")
    found = symbols(repo, capsys, "--in-repo", "skills/builder")
    assert "CombinedProjectionMixin" not in found and "setup_projection()" not in found
    assert found["BuildConfig"][0] == "exists"  # a name defined at the ref is found all the same


PRESETS = (
    "BASE_LAYERS = 4\n"
    "SMALL_PRESET_V1 = dict(layers=BASE_LAYERS)\n"
    "PACKED_PRESET = 1\n"
    "UNTUNED_PRESET: int = 3\n"
)
PRESETS_SKILL = (
    "---\nname: presets\ndescription: picks a preset\n---\n\n# Presets\n\n"
    "Start from `SMALL_PRESET_V1` with `BASE_LAYERS` layers, or `PACKED_PRESET`.\n"
    "`TUNED_PRESET` is the hardware vendor's; set `ACME_LOG_LEVEL` to see the choice.\n"
    "A benchmark lists its presets in `ALL_PRESETS`.\n"
)


def test_a_constant_the_package_assigned_when_the_line_was_written_and_assigns_nowhere_now_is_missing(
    tmp_path, capsys
) -> None:
    """A module's constant in a code span (``SMALL_PRESET_V1``) is a name like a class's: assigned now, it holds;
    assigned when its line was written and nowhere now, it is missing with the commit that removed it; still named
    by the package's code though no longer assigned (``PACKED_PRESET, OTHER = ...``), nothing is said.  A word
    in capitals the package never assigned (an environment variable; ``TUNED_PRESET``, which only
    ``UNTUNED_PRESET`` contains) is not said.  A constant only the tests assign is theirs, and holds."""
    repo = _package(tmp_path, {"src/acme/presets.py": PRESETS, "skills/presets/SKILL.md": PRESETS_SKILL,
                               "tests/bench_presets.py": "ALL_PRESETS = ['small']\n",
                               "src/acme/env.py": "import os\n\nLEVEL = os.environ.get('ACME_LOG_LEVEL')\n"})
    written = repo.commit("presets and their skill", date="2026-02-01T00:00:00")
    repo.write("src/acme/presets.py", "BASE_LAYERS = 4\nPACKED_PRESET, OTHER = 1, 2\nUNTUNED_PRESET: int = 3\n")
    removed = repo.commit("drop the first preset", date="2026-04-01T00:00:00")
    found = symbols(repo, capsys, "--in-repo", "skills/presets")
    assert found["BASE_LAYERS"] == ("exists", "src/acme/presets.py")
    assert found["ALL_PRESETS"] == ("exists", "tests/bench_presets.py")
    assert found["SMALL_PRESET_V1"] == ("missing", (
        f"the package defines it nowhere now; src/acme/presets.py defined it at {written[:10]} (2026-02-01), when "
        f"that line of skills/presets/SKILL.md was written; removed in {removed[:10]} (2026-04-01)"))
    assert "PACKED_PRESET" not in found  # still named by the code (assigned in a tuple): not said gone
    assert "TUNED_PRESET" not in found and "ACME_LOG_LEVEL" not in found


def test_the_constants_of_many_skills_are_searched_for_in_their_past_trees_in_one_grep(tmp_path, capsys, monkeypatch):
    """Two skills written at two commits cite constants the package removed since: their two trees are searched
    for the constants' names, as whole words, in one ``git grep``, and each skill is told what it is alone."""
    big = "---\nname: big\ndescription: a big preset\n---\n\nUse `BIG_PRESET_V2`.\n"
    repo = _package(tmp_path, {"src/acme/presets.py": PRESETS, "skills/presets/SKILL.md": PRESETS_SKILL})
    repo.commit("presets and their skill", date="2026-02-01T00:00:00")
    repo.write("src/acme/presets.py", PRESETS + "BIG_PRESET_V2 = 3\n")
    repo.write("skills/big/SKILL.md", big)
    repo.commit("a big preset and its skill", date="2026-03-01T00:00:00")
    repo.write("src/acme/presets.py", "BASE_LAYERS = 4\n")
    repo.commit("presets go", date="2026-04-01T00:00:00")
    alone, together, trace = _alone_and_together(repo, capsys, monkeypatch, tmp_path, ("presets", "big"))
    assert together == alone
    assert together["big"]["BIG_PRESET_V2"][0] == together["presets"]["SMALL_PRESET_V1"][0] == "missing"
    trees = [git(repo.path, "rev-parse", f"{rev}^{{tree}}").strip() for rev in ("HEAD~2", "HEAD~1")]
    words = [line for line in trace.splitlines() if "built-in: git grep" in line and " -w " in line
             and trees[0] in line]  # fmt: skip
    assert len(words) == 1 and trees[1] in words[0], words


SETTINGS_SKILL = (
    "---\nname: tuner\ndescription: tunes\n---\n\n# Tuner\n\n"
    "Set `overlap_grads=True` and `cfg.model.fused_norms = False`; read `train.warmup_steps`.\n"
    "Inherited: `ckpt.async_writes=True`. Nobody's: `yaml_only_key=3`.\n"
)
TUNER_CONFIG = (
    "from dataclasses import dataclass\n\n\n@dataclass\nclass TrainConfig:\n    warmup_steps: int = 10\n"
    "    overlap_grads: bool = False\n    fused_norms: bool = True\n"
)


def test_a_setting_the_prose_assigns_is_found_where_a_class_annotates_it_here_or_in_a_submodule(
    tmp_path, capsys
) -> None:
    """A setting written with its value (``overlap_grads=True``, ``cfg.model.fused_norms = False``) or through its
    section (``train.warmup_steps``) is there where a class annotates it, the submodule's classes too (a class here
    may inherit them); one no class annotates (a key of a YAML file) is not said."""
    lib = empty_repo(tmp_path / "lib")
    lib.write("core/checkpoint_config.py", "class CheckpointConfig:\n    async_writes: bool = False\n")
    lib.commit("the library's checkpointing")
    repo = _package(tmp_path, {"src/acme/config.py": TUNER_CONFIG, "skills/tuner/SKILL.md": SETTINGS_SKILL})
    git(repo.path, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(lib.path), "third/lib")
    repo.commit("the tuner", date="2026-02-01T00:00:00")
    found = symbols(repo, capsys, "--in-repo", "--submodule", f"third/lib={lib.path}", "skills/tuner")
    assert found == {
        "overlap_grads=True": ("exists", "src/acme/config.py"),
        "cfg.model.fused_norms = False": ("exists", "src/acme/config.py"),
        "train.warmup_steps": ("exists", "src/acme/config.py"),
        "ckpt.async_writes=True": ("exists", "third/lib/core/checkpoint_config.py"),
    }


def test_a_setting_no_class_annotates_any_more_is_not_said_gone(tmp_path, capsys) -> None:
    """The class annotated ``overlap_grads`` when the skill's line was written; a later commit renamed it. A class
    may inherit a field from a package not at hand, so a setting annotated nowhere is not said at all, never
    missing; one still annotated exists."""
    repo = _package(tmp_path, {"src/acme/config.py": TUNER_CONFIG, "skills/tuner/SKILL.md": SETTINGS_SKILL})
    repo.commit("the tuner", date="2026-02-01T00:00:00")
    repo.write("src/acme/config.py", TUNER_CONFIG.replace("overlap_grads", "overlap_grad_reduce"))
    repo.commit("rename the overlap", date="2026-03-01T00:00:00")
    found = symbols(repo, capsys, "--in-repo", "skills/tuner")
    assert "overlap_grads=True" not in found
    assert found["train.warmup_steps"] == ("exists", "src/acme/config.py")


def test_a_setting_whose_class_moved_into_a_submodule_is_there(tmp_path, capsys) -> None:
    """The repository annotated ``async_writes`` when the skill's line was written; its class now inherits the field
    from a submodule's class and writes the name nowhere itself: the setting is there, in the submodule."""
    lib = empty_repo(tmp_path / "lib")
    lib.write("core/checkpoint_config.py", "class CheckpointConfig:\n    async_writes: bool = False\n")
    lib.commit("the library's checkpointing")
    skill = "---\nname: saver\ndescription: saves\n---\n\nSave with `ckpt.async_writes=True`.\n"
    repo = _package(tmp_path, {"src/acme/config.py": "class SaveConfig:\n    async_writes: bool = False\n",
                               "skills/saver/SKILL.md": skill})  # fmt: skip
    repo.commit("the saver", date="2026-02-01T00:00:00")
    repo.write("src/acme/config.py", "from core.checkpoint_config import CheckpointConfig as SaveConfig\n")
    git(repo.path, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(lib.path), "third/lib")
    repo.commit("the library's checkpointing", date="2026-03-01T00:00:00")
    found = symbols(repo, capsys, "--in-repo", "--submodule", f"third/lib={lib.path}", "skills/saver")
    assert found == {"ckpt.async_writes=True": ("exists", "third/lib/core/checkpoint_config.py")}
