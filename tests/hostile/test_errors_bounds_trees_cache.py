"""Classes 5-8: one line instead of a traceback, bounded work, odd but legal trees, a cache that is not believed."""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path

import pytest

from ..conftest import git
from .conftest import make_code_repo, make_skill, registry, run_cli


@pytest.mark.parametrize(
    "ref, says",
    [
        ("HEAD@{-1}", "@{...} names a reflog entry of one clone, not a version"),
        ("v1@{1}", "@{...} names a reflog entry of one clone, not a version"),
        ("0" * 40, "unknown ref '0000000000000000000000000000000000000000'"),
    ],
)
def test_odd_refs_are_one_line(tmp_path: Path, ref: str, says: str) -> None:
    repo = make_code_repo(tmp_path / "code")
    skill = make_skill(tmp_path / "skill")
    assert says in run_cli("check", "--repo", str(repo.path), "--ref", ref, str(skill)).one_error_line()


def test_history_refuses_an_inverted_or_unknown_range(tmp_path: Path) -> None:
    repo = make_code_repo(tmp_path / "code")
    repo.write("pkg/other.py", "x = 1\n")
    repo.commit("more", tag="v2")
    skill = make_skill(tmp_path / "skill")
    base = ["history", "--repo", str(repo.path), str(skill)]
    line = run_cli(*base, "--since", "v2", "--until", "v1").one_error_line()
    assert line == "anchor-audit: error: --since v2 is not an ancestor of --until v1: no history runs from one to the other (are they the wrong way round?)"
    assert "unknown ref '0000000000000000000000000000000000000000'" in run_cli(*base, "--since", "0" * 40).one_error_line()


def test_a_full_stdout_is_one_line(tmp_path: Path) -> None:
    repo = make_code_repo(tmp_path / "code")
    skill = make_skill(tmp_path / "skill")
    import subprocess
    import sys

    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "anchor_audit", "check", "--repo", str(repo.path), "--ref", "v1",
                               "--format", "json", str(skill)], stdout=full, stderr=subprocess.PIPE, text=True, timeout=120)
    assert done.returncode == 2 and done.stderr == "anchor-audit: error: the output: cannot write: No space left on device\n"


def test_a_non_utf8_folder_name_in_a_json_report_file(tmp_path: Path) -> None:
    repo = make_code_repo(tmp_path / "code")
    root = Path(bytes(tmp_path).decode() + "/skills")
    root.mkdir()
    import os

    folder = os.path.join(os.fsencode(root), b"caf\xe9")
    os.rename(make_skill(root / "plain"), folder)
    out = tmp_path / "report.json"
    done = run_cli("check", "--repo", str(repo.path), "--ref", "v1", "--all", str(root), "--format", "json", "--output", str(out))
    assert done.code == 0, done.err
    (skill,) = json.loads(out.read_text(encoding="utf-8"))["skills"]
    assert skill["path"].endswith("caf\udce9")  # the byte kept as an escape, never a crash


@pytest.mark.parametrize("problem", ["a file", "read-only", "corrupt row"])
def test_a_bad_cache_never_fails_the_run(tmp_path: Path, problem: str) -> None:
    repo = make_code_repo(tmp_path / "code")
    skill = make_skill(tmp_path / "skill")
    cache = tmp_path / "cache"
    args = ["check", "--repo", str(repo.path), "--ref", "v1", "--cache-dir", str(cache), str(skill)]
    if problem == "a file":
        cache.write_text("in the way\n")
    elif problem == "read-only":
        cache.mkdir()
        cache.chmod(0o500)
    else:
        assert run_cli(*args).code == 0
        db = sqlite3.connect(cache / "results.sqlite3")
        db.execute("UPDATE results SET value = 'garbage'")
        db.commit()
        db.close()
    done = run_cli(*args)
    assert done.code == 0 and done.out.splitlines()[-1].endswith("exit 0 (all hold)")
    if problem == "a file":
        assert done.err.startswith(f"anchor-audit: warning: cache directory {cache} cannot be used (") and done.err.count("\n") == 1
        assert cache.read_text() == "in the way\n"
    if problem == "read-only":
        cache.chmod(0o700)


def test_a_cached_row_rewritten_to_exact_is_not_believed(tmp_path: Path) -> None:
    repo = make_code_repo(tmp_path / "code")
    skill = make_skill(tmp_path / "skill", "```3:4:pkg/plan.py\nif cfg.tp > 7:\n    cfg.overlap = True\n```\n")
    cache = tmp_path / "cache"
    args = ["check", "--format", "json", "--repo", str(repo.path), "--ref", "v1", "--cache-dir", str(cache), str(skill)]
    assert run_cli(*args).code == 1
    db = sqlite3.connect(cache / "results.sqlite3")
    forged = json.dumps({"status": "exact", "found": [3, 4], "region": [3, 4], "suggested": None, "candidate": None,
                         "diff": [], "runs": [[3, 4]], "detail": ""}, sort_keys=True)
    db.execute("UPDATE results SET value = ?", ("0" * 64 + " " + forged,))
    db.commit()
    db.close()
    done = run_cli(*args)
    assert done.code == 1 and json.loads(done.out)["skills"][0]["anchors"][0]["status"] == "changed"


def test_numbers_of_thousands_of_digits_are_one_line(tmp_path: Path) -> None:
    repo = make_code_repo(tmp_path / "code")
    big = "9" * 5000
    skill = make_skill(tmp_path / "skill", f"```{big}:{big}:pkg/plan.py\nreturn cfg\n```\n")
    assert "a line number of more than 9 digits" in run_cli("check", "--repo", str(repo.path), "--ref", "v1", str(skill)).one_error_line()
    spec = registry(tmp_path / "anchors.yaml", repo.path, make_skill(tmp_path / "s2"))
    spec.write_text(spec.read_text().replace("version: 1", f"version: {big}"))
    assert "a number of 5000 characters; too long" in run_cli("check", "--spec", str(spec)).one_error_line()


def test_a_huge_or_special_input_file_is_refused_before_it_is_read(tmp_path: Path) -> None:
    repo = make_code_repo(tmp_path / "code")
    skill = make_skill(tmp_path / "skill")
    line = run_cli("check", "--repo", str(repo.path), "--ref", "v1", "--baseline", "/dev/zero", str(skill)).one_error_line()
    assert line == "anchor-audit: error: /dev/zero: is a device or special file, not a baseline"
    huge = make_skill(tmp_path / "huge")
    with open(huge / "SKILL.md", "r+b") as handle:
        handle.truncate(1 << 30)  # a sparse 1 GiB file: reading it would take the memory
    line = run_cli("check", "--repo", str(repo.path), "--ref", "v1", str(huge), memory_bytes=1 << 30).one_error_line()
    assert line.endswith("SKILL.md: larger than 2 MiB; not a skill file")


def _similar_lines(n: int) -> str:
    return "".join(f"    value_{i % 7} = compute(x, {i % 3})\n" for i in range(n))


@pytest.mark.parametrize("case", ["2,000 elisions", "a changed quote", "a huge quote"])
def test_a_pathological_quote_is_bounded_in_time_and_memory(tmp_path: Path, case: str) -> None:
    code = "def f(x):\n" + _similar_lines(20_000)
    repo = make_code_repo(tmp_path / "code", {"pkg/big.py": code})
    if case == "2,000 elisions":
        body = "value_0 = compute(x, 0)\n...\n" * 2000 + "never_there()\n"
    elif case == "a changed quote":
        body = "".join(f"value_{i % 7} = compute(y, {i % 3})\n" for i in range(100))
    else:
        body = _similar_lines(60_000).replace("    ", "")
    skill = make_skill(tmp_path / "skill", f"```2:3:pkg/big.py\n{body}```\n")
    started = time.monotonic()
    done = run_cli("check", "--no-cache", "--format", "json", "--repo", str(repo.path), "--ref", "v1", str(skill),
                   memory_bytes=2 << 30, timeout=120)
    assert done.code == 1, done.err
    (anchor,) = json.loads(done.out)["skills"][0]["anchors"]
    assert anchor["status"] in ("incomplete", "changed") and anchor["status"] != "exact"
    print(f"{case}: {anchor['status']} in {time.monotonic() - started:.1f} s")  # figures: -s shows them


def test_in_repo_skill_folders_with_any_name_are_found(tmp_path: Path) -> None:
    body = "---\nname: x\ndescription: y\n---\n\n```3:6:pkg/plan.py\nif cfg.tp > 1:\n    cfg.overlap = True\nelse:\n    cfg.overlap = False\n```\n"
    names = ["café", "技能", "new\nline"]
    repo = make_code_repo(tmp_path / "code", {f"skills/{n}/SKILL.md": body for n in names})
    done = run_cli("check", "--format", "json", "--repo", str(repo.path), "--ref", "v1", "--in-repo", "--all", "skills")
    assert done.code == 0, done.err
    assert sorted(s["path"] for s in json.loads(done.out)["skills"]) == sorted(f"skills/{n}" for n in names)


def test_an_in_repo_skill_md_that_is_a_link_is_one_line(tmp_path: Path) -> None:
    repo = make_code_repo(tmp_path / "code")
    (repo.path / "skills" / "linked").mkdir(parents=True)
    (repo.path / "skills" / "linked" / "SKILL.md").symlink_to("/etc/passwd")
    repo.commit("a link", tag="v2")
    line = run_cli("check", "--repo", str(repo.path), "--ref", "v2", "--in-repo", "skills/linked").one_error_line()
    assert line == "anchor-audit: error: skills/linked/SKILL.md is a symbolic link; links are not followed (at v2); the skill cannot be read"
    assert git(repo.path, "rev-parse", "v2")


def test_a_repository_git_calls_dubious_is_named_so(tmp_path: Path) -> None:
    import os

    if os.geteuid() != 0:
        pytest.skip("needs root to give the repository to another user")
    repo = make_code_repo(tmp_path / "code")
    skill = make_skill(tmp_path / "skill")
    for path in [repo.path, *repo.path.rglob("*")]:
        os.lchown(path, 65534, 65534)
    line = run_cli("check", "--repo", str(repo.path), "--ref", "v1", str(skill), env={"HOME": str(tmp_path)}).one_error_line()
    assert 'belongs to another user ("dubious ownership")' in line and "unknown ref" not in line
