"""Hostile and broken input: one clear line and exit 2, or a result for that quote; never a crash.

The static corpus lives in tests/bad_inputs/ (see its README); inputs too large to keep are built here.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from anchor_audit.cli import main

from .conftest import DEMO, GitRepo

CORPUS = Path(__file__).parent / "bad_inputs"
CASES = sorted(p.name for p in CORPUS.iterdir() if p.is_dir())


@pytest.fixture
def demo_repo(make_repo) -> GitRepo:
    return make_repo()


def listing(path: Path) -> list[str]:
    return sorted(str(p.relative_to(path)) for p in path.rglob("*"))


@pytest.mark.parametrize("name", CASES)
def test_corpus(name: str, demo_repo: GitRepo, tmp_path: Path, capsys, cache_dir: Path) -> None:
    case = tmp_path / name
    shutil.copytree(CORPUS / name, case)
    before = listing(case)
    args = (case / "args").read_text().strip().replace("{case}", str(case)).replace("{repo}", str(demo_repo.path))
    code_line, want = (case / "expected").read_text().splitlines()[:2]
    want = want.replace("{case}", str(case)).replace("{repo}", str(demo_repo.path))

    code = main(["check", *args.split()])
    out, err = capsys.readouterr()
    assert code == int(code_line)
    stream, line = want.split(": ", 1)
    if stream == "stderr":
        assert err == line + "\n"
        assert code != 2 or out == ""
    else:
        assert line in out.splitlines()
    assert listing(case) == before  # nothing written beside the inputs
    if name == "unreachable-remote":  # a failed first fetch leaves no half-made mirror behind
        assert not (cache_dir / "git").exists() or not any((cache_dir / "git").glob("*.git"))


def run_check(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["check", *args])
    out, err = capsys.readouterr()
    return code, out, err


def registry(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "anchors.yaml"
    path.write_text(text)
    return path


def test_alias_bomb_and_deep_nesting_fail_fast(tmp_path: Path, capsys) -> None:
    bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join([f'*{chr(97 + i)}'] * 10)}]\n" for i in range(8)
    )
    code, out, err = run_check(capsys, "--spec", str(registry(tmp_path, bomb)), str(DEMO / "skills" / "demo-overlap"))
    assert (code, out) == (2, "")
    assert err.startswith(f"anchor-audit: error: {tmp_path}/anchors.yaml:") and "document too large" in err
    nested = "a: " + "[" * 500 + "]" * 500 + "\n"
    code, _, err = run_check(capsys, "--spec", str(registry(tmp_path, nested)), str(DEMO / "skills" / "demo-overlap"))
    assert code == 2 and "nested deeper than 64 levels" in err


def test_ten_thousand_fences(tmp_path: Path, capsys, demo_repo: GitRepo) -> None:
    skill = tmp_path / "skill"
    skill.mkdir()
    (skill / "SKILL.md").write_text("".join(f"```1:1:src/demo/launch.py\nx{i} = 1\n```\n" for i in range(10_000)))
    code, out, err = run_check(capsys, "--repo", str(demo_repo.path), "--ref", "v1", str(skill))
    assert (code, out) == (2, "")
    assert err == f"anchor-audit: error: {skill}/SKILL.md:6001: more than 2000 quotes; not auditing this file\n"


@pytest.fixture
def hostile_repo(make_repo, tmp_path: Path) -> GitRepo:
    repo = make_repo()
    (repo.path / "bin").mkdir()
    (repo.path / "bin" / "blob.py").write_bytes(b"x = 1\n\x00\x01\x02binary\n")
    (repo.path / "bin" / "latin1.py").write_bytes("name = 'caf\xe9'\n".encode("latin-1"))
    repo.write("bin/broken.py", "def f(:\n    x = 1\n")
    repo.write("bin/deep.py", "x = " + "(" * 3000 + "1" + ")" * 3000 + "\ny = 2\n")
    (repo.path / "bin" / "huge.py").write_bytes(b"# padding\n" * (5 * 1024 * 1024))  # 50 MB
    os.symlink("/etc/passwd", repo.path / "bin" / "outside.py")
    repo.commit("hostile files", tag="v2")
    return repo


HOSTILE_SKILL = """\
```1:1:bin/blob.py
x = 1
```

```1:1:bin/latin1.py
name = 'cafe'
```

```2:2:bin/broken.py
x = 1
```

```2:2:bin/deep.py
y = 2
```

```1:1:bin/huge.py
# padding
```

```1:1:bin/outside.py
root
```
"""


def test_hostile_files_become_results(hostile_repo: GitRepo, tmp_path: Path, capsys) -> None:
    skill = tmp_path / "skill"
    skill.mkdir()
    (skill / "SKILL.md").write_text(HOSTILE_SKILL)
    args = ["--repo", str(hostile_repo.path), "--ref", "v2", "--format", "json", str(skill)]
    code, out, err = run_check(capsys, *args)
    assert (code, err) == (1, "")
    anchors = json.loads(out)["skills"][0]["anchors"]
    got = [(a["path"], a["status"], a.get("detail", "")) for a in anchors]
    assert got == [
        ("bin/blob.py", "error", "bin/blob.py is a binary file"),
        ("bin/latin1.py", "error", "bin/latin1.py:1 is not UTF-8 (byte 11)"),  # 0-based: the e-acute
        ("bin/broken.py", "exact",
         "bin/broken.py does not parse (line 1: invalid syntax); matched as plain text, region is the whole file"),
        ("bin/deep.py", "incomplete", "brackets nest 3000 deep (more than 200); not parsed"),
        ("bin/huge.py", "incomplete", "bin/huge.py is larger than 10 MiB; not audited"),
        ("bin/outside.py", "error", "bin/outside.py is a symbolic link; links are not followed"),
    ]  # fmt: skip
