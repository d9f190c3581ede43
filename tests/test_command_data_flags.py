"""A program that makes some of its flags from data: flags a factory makes from a dataclass's fields are read
(its fields, its bases', less what the call excludes); a flag the reading cannot rule out is unverifiable, never
missing."""

from __future__ import annotations

import json
from pathlib import Path

from anchor_audit.cli import main

from .hostile.conftest import make_code_repo, make_skill

SERVE = """\
import argparse

from acme.cli.options import add_config_flags


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int)
    add_config_flags(parser)
    parser.parse_args()
"""
OPTIONS = """\
from dataclasses import dataclass, fields


@dataclass
class ServeConfig:
    batch_size: int = 1
    workers: int = 2


def add_config_flags(parser):
    for field in fields(ServeConfig):
        parser.add_argument(f"--{field.name.replace('_', '-')}", type=field.type)
"""

# A factory class given the dataclass by its caller, as a training program builds its flag groups.
TRAIN = """\
import argparse

from acme.cli.groups import FlagGroup
from acme.config import TrainConfig


def parse():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-path")
    skipped = ["seed"]
    FlagGroup(TrainConfig, exclude=skipped).build(parser)
    return parser.parse_args()
"""
GROUPS = """\
from dataclasses import fields


class FlagGroup:
    def __init__(self, config_class, exclude=None):
        self.config_class = config_class
        self.exclude = set(exclude or [])

    def _name(self, name, prefix=None):
        if prefix:
            name = prefix + "_" + name
        return "--" + name.replace("_", "-")

    def build(self, parser):
        for f in fields(self.config_class):
            if f.name in self.exclude or f.init is False:
                continue
            names = [self._name(f.name)]
            if f.type is bool and f.default is True:
                names = [self._name(f.name, prefix="no")]
            parser.add_argument(*names)
"""
CONFIG_INIT = "from .train import TrainConfig\n"
CONFIG_BASE = """\
from dataclasses import dataclass


@dataclass
class ParallelConfig:
    tensor_parallel_size: int = 1
"""
CONFIG_TRAIN = """\
from dataclasses import dataclass, field

from .base import ParallelConfig


@dataclass
class TrainConfig(ParallelConfig):
    micro_batch_size: int = 1
    fused_kernels: bool = True
    seed: int = 1234
    step: int = field(default=0, init=False)
    log_every: int = field(default=10, metadata={"flags": {"arg_names": ["--log-interval"]}})
"""


def _report(tmp_path: Path, capsys, files: dict[str, str], body: str) -> dict[str, dict]:
    repo = make_code_repo(tmp_path / "code", {"src/acme/__init__.py": "", "src/acme/cli/__init__.py": "", **files})
    skill = make_skill(tmp_path / "skill", body)
    main(["check", "--repo", str(repo.path), "--ref", "v1", "--format", "json", str(skill)])
    (report,) = json.loads(capsys.readouterr().out)["skills"]
    return {p["path"].split()[-1]: p for p in report["promises"] if p["kind"] == "command"}


def _train(tmp_path: Path, capsys, flags: str, **changed: str) -> dict[str, dict]:
    files = {"src/acme/cli/train.py": TRAIN, "src/acme/cli/groups.py": GROUPS, "src/acme/config/__init__.py":
             CONFIG_INIT, "src/acme/config/base.py": CONFIG_BASE, "src/acme/config/train.py": CONFIG_TRAIN}  # fmt: skip
    files |= {f"src/acme/{name.replace('__', '/')}.py": text for name, text in changed.items()}
    return _report(tmp_path, capsys, files, f"```bash\npython -m acme.cli.train {flags}\n```\n")


def test_a_flag_made_from_a_field_the_factory_names_exists_and_one_it_does_not_is_unverifiable(
    tmp_path: Path, capsys
) -> None:
    files = {"src/acme/cli/serve.py": SERVE, "src/acme/cli/options.py": OPTIONS}
    found = _report(
        tmp_path, capsys, files, "```bash\npython -m acme.cli.serve --port 80 --batch-size 4 --queue 2\n```\n"
    )
    assert found["--port"]["status"] == "exists"
    made = found["--batch-size"]
    assert (
        made["status"] == "exists" and made["detail"] == "made from ServeConfig.batch_size (src/acme/cli/options.py:6)"
    )
    unread = found["--queue"]  # the factory's own loop may filter or add: not read
    assert unread["status"] == "unverifiable"
    assert "it also makes flags from data not read (src/acme/cli/options.py:12)" in unread["detail"]


def test_where_every_flag_is_written_out_a_flag_not_among_them_is_missing(tmp_path: Path, capsys) -> None:
    written = 'def add_config_flags(parser):\n    parser.add_argument("--workers", type=int)\n'
    flag = _report(tmp_path, capsys, {"src/acme/cli/serve.py": SERVE, "src/acme/cli/options.py": written},
                   "```bash\npython -m acme.cli.serve --batch-size 4\n```\n")["--batch-size"]  # fmt: skip
    assert flag["status"] == "missing" and "not among the 2 flags it defines" in flag["detail"]


def test_flags_a_factory_makes_from_the_class_its_caller_gives_are_read_through_bases_and_re_exports(
    tmp_path: Path, capsys
) -> None:
    found = _train(tmp_path, capsys, "--data-path d --tensor-parallel-size 2 --micro-batch 4 --no-fused-kernels")
    assert found["--data-path"]["status"] == "exists"
    base = found["--tensor-parallel-size"]
    assert base["status"] == "exists"
    assert base["detail"] == "made from TrainConfig.tensor_parallel_size (src/acme/config/base.py:6)"
    assert found["--micro-batch"]["detail"].startswith("abbreviates --micro-batch-size, made from TrainConfig.")
    assert found["--no-fused-kernels"]["status"] == "exists"


def test_a_flag_the_complete_reading_rules_out_is_missing_with_its_reason(tmp_path: Path, capsys) -> None:
    found = _train(tmp_path, capsys, "--seed 1 --step 3 --fused-kernels --log-every 5 --log-interval 5 --micro-btch 2")
    for excluded in ("--seed", "--step"):  # excluded by the call; init=False
        assert found[excluded]["status"] == "missing", found[excluded]
    # a True-default bool is written --no-NAME only; a field that names its own flags is those
    assert found["--fused-kernels"]["status"] == "missing"
    assert found["--log-every"]["status"] == "missing"
    assert found["--log-interval"]["status"] == "exists"
    typo = found["--micro-btch"]
    assert typo["status"] == "missing"
    assert typo["detail"] == (
        "not among the 1 flag it writes out nor the 4 flags it makes from the fields of 1 class; closest: --micro-batch-size"
    )


def test_a_class_the_reading_cannot_find_leaves_a_flag_unverifiable(tmp_path: Path, capsys) -> None:
    elsewhere = TRAIN.replace("from acme.config import TrainConfig", "from outside.config import TrainConfig")
    found = _train(tmp_path, capsys, "--micro-batch-size 4", cli__train=elsewhere)
    flag = found["--micro-batch-size"]
    assert flag["status"] == "unverifiable"
    assert "makes flags from data not read (src/acme/cli/train.py:11)" in flag["detail"]


def test_exclusions_not_written_out_leave_a_flag_unverifiable(tmp_path: Path, capsys) -> None:
    computed = TRAIN.replace('skipped = ["seed"]', "skipped = load_skipped()")
    flag = _train(tmp_path, capsys, "--seed 4", cli__train=computed)["--seed"]
    assert flag["status"] == "unverifiable" and "(src/acme/cli/train.py:11)" in flag["detail"]


def test_a_factory_read_before_the_module_that_calls_it_is_still_called(tmp_path: Path, capsys) -> None:
    program = "import acme.cli.groups\nfrom acme.cli.flags import parse\n\nparse()\n"
    found = _train(tmp_path, capsys, "--micro-batch-size 4 --micro-btch 2", cli__train=program, cli__flags=TRAIN)
    assert found["--micro-batch-size"]["status"] == "exists"
    assert found["--micro-btch"]["status"] == "missing"  # every data-made flag read: the typo is ruled out


def test_the_flags_a_program_makes_are_remembered_by_commit_never_across_commits(tmp_path: Path, capsys) -> None:
    """One cache, two refs: the dataclass gains a field at v2; the flag it makes exists at v2 and is still not
    among v1's (what the walk of v1 remembered is not v2's answer, nor the other way round)."""
    files = {"src/acme/__init__.py": "", "src/acme/cli/__init__.py": "", "src/acme/cli/train.py": TRAIN,
             "src/acme/cli/groups.py": GROUPS, "src/acme/config/__init__.py": CONFIG_INIT,
             "src/acme/config/base.py": CONFIG_BASE, "src/acme/config/train.py": CONFIG_TRAIN}  # fmt: skip
    repo = make_code_repo(tmp_path / "code", files)
    repo.edit("src/acme/config/train.py", "    seed: int = 1234\n", "    seed: int = 1234\n    warmup_steps: int = 0\n")
    repo.commit("a warmup", tag="v2")
    skill = make_skill(tmp_path / "skill", "```bash\npython -m acme.cli.train --warmup-steps 5\n```\n")

    def status(ref: str) -> str:
        main(["check", "--repo", str(repo.path), "--ref", ref, "--format", "json", str(skill)])
        (report,) = json.loads(capsys.readouterr().out)["skills"]
        (flag,) = [p for p in report["promises"] if p["path"].endswith("--warmup-steps")]
        return str(flag["status"])

    assert [status("v1"), status("v2"), status("v1")] == ["missing", "exists", "missing"]


def test_a_command_remembered_by_commit_is_judged_for_its_own_flags_on_its_own_line(tmp_path: Path, capsys) -> None:
    """The same program run twice with other flags: each command gets its own flags' results, on the line it is
    written on, in a cold run and again in a warm one after the commands swapped places."""
    written = 'def add_config_flags(parser):\n    parser.add_argument("--workers", type=int)\n'
    repo = make_code_repo(tmp_path / "code", {"src/acme/__init__.py": "", "src/acme/cli/__init__.py": "",
                                              "src/acme/cli/serve.py": SERVE, "src/acme/cli/options.py": written})  # fmt: skip
    good, typo = "python -m acme.cli.serve --port 80", "python -m acme.cli.serve --prot 80"
    skill = make_skill(tmp_path / "skill", f"```bash\n{good}\n```\n\nThen:\n\n```bash\n{typo}\n```\n")

    def judged() -> list[tuple[str, str, int]]:
        main(["check", "--repo", str(repo.path), "--ref", "v1", "--format", "json", str(skill)])
        (report,) = json.loads(capsys.readouterr().out)["skills"]
        return [(p["path"], p["status"], p["line"]) for p in report["promises"] if p["kind"] == "command"]

    program = "python -m acme.cli.serve"
    assert judged() == [(program, "exists", 7), (f"{program} --port", "exists", 7),
                        (program, "exists", 13), (f"{program} --prot", "missing", 13)]  # fmt: skip
    skill_md = skill / "SKILL.md"
    skill_md.write_text(skill_md.read_text(encoding="utf-8").replace(good, "GOOD").replace(typo, good).replace(
        "GOOD", typo), encoding="utf-8")  # fmt: skip
    assert judged() == [(program, "exists", 7), (f"{program} --prot", "missing", 7),
                        (program, "exists", 13), (f"{program} --port", "exists", 13)]  # fmt: skip


def test_a_program_importing_more_modules_than_are_read_leaves_its_unwritten_flags_unverifiable(
    tmp_path: Path, capsys
) -> None:
    """The factory's module lies past the modules read for a program (its 49 helpers import four each, read
    first): it was not read, so a flag not written out may still be made, and is never called missing."""
    from anchor_audit.checks.madeflags import MAX_FOLLOWED

    helpers = {f"src/acme/util/h{i}.py": "".join(f"import acme.util.s{i}_{j}\n" for j in range(4)) for i in range(49)}
    helpers |= {f"src/acme/util/s{i}_{j}.py": "x = 1\n" for i in range(49) for j in range(4)}
    assert 1 + 50 + len(helpers) - 49 > MAX_FOLLOWED  # the program, its imports, theirs: more than are read
    train = "".join(f"import acme.util.h{i}\n" for i in range(49)) + "import acme.cli.setup\n" + TRAIN
    files = {"src/acme/util/__init__.py": "", "src/acme/cli/setup.py": "from acme.cli.groups import FlagGroup\n",
             **helpers}  # fmt: skip
    said = _train(tmp_path, capsys, "--micro-batch-size 2 --data-path d --nothing-like-it", **{"cli__train": train},
                  **{k.removeprefix("src/acme/").removesuffix(".py").replace("/", "__"): v for k, v in files.items()})
    assert said["--data-path"]["status"] == "exists"
    for flag in ("--micro-batch-size", "--nothing-like-it"):
        assert said[flag]["status"] == "unverifiable", said[flag]
        assert "modules it imports past the" in said[flag]["detail"]


def test_a_program_whose_imports_run_over_lines_is_followed_through_them(tmp_path: Path, capsys) -> None:
    """The modules a program imports are read for their imports from the lines up to their last one: an import
    in brackets or continued by a backslash is followed all the same (the factory lies in the module it names)."""
    train = TRAIN.replace("from acme.cli.groups import FlagGroup\n", "from acme.cli.groups import (\n    FlagGroup,\n)\n")
    train = train.replace("from acme.config import TrainConfig\n", "from acme.config import \\\n    TrainConfig\n")
    assert train != TRAIN
    found = _train(tmp_path, capsys, "--tensor-parallel-size 2 --micro-batch-size 4", cli__train=train)
    made = found["--tensor-parallel-size"]
    assert made["status"] == "exists", made
    assert made["detail"] == "made from TrainConfig.tensor_parallel_size (src/acme/config/base.py:6)"


def test_a_parser_in_an_imported_module_is_read_however_its_calls_are_spaced(tmp_path: Path, capsys) -> None:
    """A module the program imports is parsed for its flags only where its text calls an option function: a
    call written with a space or across lines before its bracket is still one."""
    run = "from acme.cli.arguments import build\n\n\ndef main():\n    build().parse_args()\n"
    arguments = ('import argparse\n\n\ndef build():\n    parser = argparse.ArgumentParser()\n'
                 '    parser.add_argument (\n        "--depth", type=int)\n    return parser\n')  # fmt: skip
    plain = "VALUE = 'add_argument is named here, never called'\n"
    files = {"src/acme/cli/run.py": run, "src/acme/cli/arguments.py": arguments, "src/acme/cli/plain.py": plain}
    found = _report(tmp_path, capsys, files, "```bash\npython -m acme.cli.run --depth 3 --width 2\n```\n")
    assert found["--depth"]["status"] == "exists", found["--depth"]
    assert found["--width"]["status"] == "missing", found["--width"]
