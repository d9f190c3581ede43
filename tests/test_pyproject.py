"""pyproject.toml as a repository declares it, and whether a version a skill states fits its specifiers."""

from __future__ import annotations

from pathlib import Path

import pytest

from anchor_audit.checks.pyproject import conflict, normalize, project_meta
from anchor_audit.source.git import open_git

from .conftest import GitRepo, git


@pytest.mark.parametrize(
    ("op", "stated", "specifiers", "fits"),
    [
        ("==", "2.5.1", ">=2.4,<3", True),
        ("==", "2.3", ">=2.4,<3", False),
        ("==", "3.0", ">=2.4,<3", False),
        ("==", "2.5.1", "==2.5.*", True),
        ("==", "2.6.0", "==2.5.*", False),
        ("==", "2.5.1", "!=2.5.1", False),
        ("==", "1.4.2", "~=1.4", True),
        ("==", "2.0", "~=1.4", False),
        ("==", "1.0", "", True),  # unpinned: any version fits
        (">=", "2.1", ">=2.4", False),  # the skill's floor is below the code's
        (">=", "2.4", ">=2.4.0", True),  # 2.4 is 2.4.0
        (">=", "3.0", ">=2.4,<3", False),  # at the code's bound
        ("~=", "2.6", ">=2.4,<3", True),
        (">=", "3.10", ">=3.11", False),  # "Python 3.10+" where 3.11 is required: 3.10 < 3.11 as numbers
        (">=", "3.12", ">=3.9", True),
    ],
)
def test_a_stated_version_fits_the_specifiers_as_pep_440_orders_releases(
    op: str, stated: str, specifiers: str, fits: bool
) -> None:
    assert (conflict(op, stated, specifiers) is None) is fits


def test_names_compare_as_pep_503_says() -> None:
    assert normalize("Megatron_Core") == normalize("megatron.core") == "megatron-core"


def test_pyproject_is_read_at_the_ref_first_declaration_wins_and_bad_toml_says_why(tmp_path: Path) -> None:
    (tmp_path / "code").mkdir()
    git(tmp_path / "code", "init", "-q", "-b", "main")
    repo = GitRepo(tmp_path / "code")
    repo.write(
        "pyproject.toml",
        '[project]\nrequires-python = ">=3.11"\ndependencies = ["Torch >= 2.4 ; os_name == \'posix\'"]\n'
        '[project.optional-dependencies]\ndev = ["torch==2.0", "ruff"]\n'
        '[dependency-groups]\nlint = ["mypy>=1", {include-group = "dev"}]\n'
        '[project.scripts]\nacme = "acme.cli:main"\n',
    )
    repo.commit("v1")
    meta = project_meta(open_git(str(repo.path), "HEAD"))
    assert meta is not None and meta.requires_python == ">=3.11" and meta.scripts == {"acme": "acme.cli"}
    assert meta.dependencies == {"torch": ">=2.4", "ruff": "", "mypy": ">=1"}
    repo.write("pyproject.toml", "[project\n")
    repo.commit("broken")
    broken = project_meta(open_git(str(repo.path), "HEAD"))
    assert broken is not None and broken.problem.startswith("pyproject.toml does not parse")
