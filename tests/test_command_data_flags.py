"""A program that makes some of its flags from data (a dataclass's fields, a table): a flag it does not write out
is unverifiable, never missing."""

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
BODY = "```bash\npython -m acme.cli.serve --port 80 --batch-size 4\n```\n"


def _flags(tmp_path: Path, capsys, options: str) -> dict[str, dict]:
    files = {"src/acme/__init__.py": "", "src/acme/cli/__init__.py": "", "src/acme/cli/serve.py": SERVE,
             "src/acme/cli/options.py": options}  # fmt: skip
    repo = make_code_repo(tmp_path / "code", files)
    skill = make_skill(tmp_path / "skill", BODY)
    main(["check", "--repo", str(repo.path), "--ref", "v1", "--format", "json", str(skill)])
    (report,) = json.loads(capsys.readouterr().out)["skills"]
    return {p["path"]: p for p in report["promises"] if p["kind"] == "command"}


def test_a_flag_the_program_may_make_from_a_dataclass_is_unverifiable(tmp_path: Path, capsys) -> None:
    found = _flags(tmp_path, capsys, OPTIONS)
    assert found["python -m acme.cli.serve --port"]["status"] == "exists"
    flag = found["python -m acme.cli.serve --batch-size"]
    assert flag["status"] == "unverifiable"
    assert "it also makes flags from data (src/acme/cli/options.py:12)" in flag["detail"]


def test_where_every_flag_is_written_out_a_flag_not_among_them_is_missing(tmp_path: Path, capsys) -> None:
    written = 'def add_config_flags(parser):\n    parser.add_argument("--workers", type=int)\n'
    flag = _flags(tmp_path, capsys, written)["python -m acme.cli.serve --batch-size"]
    assert flag["status"] == "missing" and "not among the 2 flags it defines" in flag["detail"]
