"""Classes 2-4: nothing from an input reaches a reader raw, no credential is shown or stored, nothing is run."""

from __future__ import annotations

import json
import re
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest
import yaml

from ..conftest import git
from .conftest import make_code_repo, make_skill, registry, run_cli

ESC = "\x1b]0;owned\x07\x1b[2J"
EVIL_ID = "gate`|\n# Injected <img src=x onerror=alert(1)> <!-- " + ESC


@pytest.fixture
def hostile(tmp_path: Path) -> tuple[Path, Path]:
    """A registry whose claim id, card and quoted code carry escapes, Markdown and HTML."""
    code = "class Planner:\n    def plan(self, cfg):\n        # \x1b[31mred\x1b[0m <!--\n        if cfg.tp > 1:\n            cfg.overlap = True\n"
    repo = make_code_repo(tmp_path / "code", {"pkg/evil.py": code})
    body = "```3:5:pkg/evil.py\n# \x1b[31mred\x1b[0m <!--\nif cfg.tp > 9:\n    cfg.overlap = True\n```\n"
    card = yaml.safe_dump({"validation_status": {EVIL_ID: ["code_verified", "tag" + ESC]}})
    skill = make_skill(tmp_path / "skill", body, card=card)
    claims = yaml.safe_dump({EVIL_ID: {"quotes": ["pkg/evil.py:3-5"]}}, default_style='"')
    spec = registry(tmp_path / "anchors.yaml", repo.path, skill, claims="".join(f"      {ln}\n" for ln in claims.splitlines()))
    return spec, tmp_path


@pytest.mark.parametrize("fmt", ["terminal", "json", "markdown", "sarif", "junit", "github"])
def test_no_control_character_from_an_input_reaches_any_format(hostile, fmt: str) -> None:
    spec, _ = hostile
    done = run_cli("check", "--verbose", "--spec", str(spec), "--format", fmt) if fmt == "terminal" else \
        run_cli("check", "--spec", str(spec), "--format", fmt)
    assert done.code == 1, done.err
    assert "\x1b" not in done.out and "\x07" not in done.out and "\x1b" not in done.err
    if fmt in ("json", "sarif"):
        assert EVIL_ID in done.out.encode().decode("unicode_escape", "ignore") or json.loads(done.out)
    if fmt == "junit":
        ET.fromstring(done.out)  # parses: no character XML 1.0 cannot hold


def test_markdown_keeps_every_input_inside_its_cell(hostile) -> None:
    spec, _ = hostile
    md = run_cli("check", "--spec", str(spec), "--format", "markdown").out
    assert not re.search(r"^#+ Injected", md, re.M)  # no heading injected
    prose = re.sub(r"^ *(`{3,})diff\n.*?^ *\1\n", "", md, flags=re.M | re.S)  # code blocks and spans show
    prose = re.sub(r"(`+)(?!`).*?(?<!`)\1(?!`)", "", prose)  # their text as is
    assert "<img" not in prose.replace("\\<img", "") and "<!--" not in prose.replace("\\<!--", "")
    claims = md[md.index("### Claims"):md.index("### Quotes")]
    rows = [ln for ln in claims.splitlines() if ln.startswith("| ")][2:]
    assert len(rows) == 1 and len(re.findall(r"(?<!\\)\|", rows[0])) == 5  # one row of four cells


def test_a_changed_quote_diff_in_markdown_cannot_close_its_fence(tmp_path: Path) -> None:
    repo = make_code_repo(tmp_path / "code", {"docs/a.md": "```\n# Owned here\n"})
    skill = make_skill(tmp_path / "skill", "````1:2:docs/a.md\n```\n# Owned\n````\n")
    md = run_cli("check", "--repo", str(repo.path), "--ref", "v1", "--format", "markdown", str(skill)).out
    fence = re.search(r"^  (`{4,})diff$", md, re.M)
    assert fence is not None, md
    after = md[fence.end():]
    assert after.index(f"\n  {fence.group(1)}\n") > after.index("# Owned")  # the heading stays inside the block


def test_credentials_in_the_repo_url_are_never_shown_or_stored(tmp_path: Path) -> None:
    skill = make_skill(tmp_path / "skill")
    cache = tmp_path / "cache"
    url = "http://user:s3cret-pw@127.0.0.1:9/nothing.git?private_token=t0ken"
    for fmt in ("terminal", "json"):
        done = run_cli("check", "--repo", url, "--ref", "v1", "--cache-dir", str(cache), "--format", fmt, str(skill))
        line = done.one_error_line()
        assert "s3cret" not in line and "t0ken" not in line and "http://***@127.0.0.1:9/" in line
    stored = b"".join(p.read_bytes() for p in cache.rglob("*") if p.is_file())
    assert b"s3cret" not in stored and b"t0ken" not in stored
    from anchor_audit.source.gitenv import git_env as _git_env
    from anchor_audit.source.mirror import new_mirror as _new_mirror

    _new_mirror(tmp_path / "mirror.git", url)  # the mirror a reachable remote gets: no credentials in its config
    config = (tmp_path / "mirror.git" / "config").read_text()
    assert 'url = "http://***@127.0.0.1:9/nothing.git?private_token=***"' in config and "s3cret" not in config
    env = _git_env((), url)  # they reach git only through this process's environment
    i = next(k.removeprefix("GIT_CONFIG_KEY_") for k, v in env.items() if v == f"url.{url}.insteadOf")
    assert f'"{env[f"GIT_CONFIG_VALUE_{i}"]}"' in config


def test_a_registry_dist_that_is_a_path_or_an_option_never_reaches_pip(tmp_path: Path) -> None:
    repo = make_code_repo(tmp_path / "code")
    skill = make_skill(tmp_path / "skill")
    evil = tmp_path / "evil==0.6.0"
    evil.mkdir()
    (evil / "setup.py").write_text(f"open({str(tmp_path / 'PWNED')!r}, 'w').write('x')\n")
    for dist in ("./evil", "--index-url=http://127.0.0.1:9/", "-rreqs.txt"):
        spec = registry(tmp_path / "anchors.yaml", repo.path, skill)
        spec.write_text(spec.read_text().replace("  ref: v1\n", f"  ref: v1\n  release:\n    dist: {json.dumps(dist)}\n"))
        line = run_cli("check", "--spec", str(spec), "--release", "0.6.0", cwd=tmp_path).one_error_line()
        assert "source.release.dist" in line and "is not of the form a package index project name" in line
    assert not (tmp_path / "PWNED").exists()


def test_a_submodule_url_never_gets_a_command_transport(tmp_path: Path) -> None:
    repo = make_code_repo(tmp_path / "code")
    marker = tmp_path / "PWNED"
    (repo.path / ".gitmodules").write_text(f'[submodule "m"]\n\tpath = mod\n\turl = ext::sh -c touch% {marker}\n')
    sub = make_code_repo(tmp_path / "sub")
    git(repo.path, "update-index", "--add", "--cacheinfo", f"160000,{git(sub.path, 'rev-parse', 'HEAD')},mod")
    git(repo.path, "add", ".gitmodules")
    git(repo.path, "commit", "-q", "-m", "submodule")  # not `add -A`: it would drop the gitlink with no folder
    git(repo.path, "tag", "v2")
    skill = make_skill(tmp_path / "skill", "```3:6:mod/pkg/plan.py\nif cfg.tp > 1:\n    cfg.overlap = True\nelse:\n    cfg.overlap = False\n```\n")
    done = run_cli("check", "--repo", str(repo.path), "--ref", "v2", "--allow-protocol", "ext", "--format", "json", str(skill))
    assert not marker.exists()
    (anchor,) = json.loads(done.out)["skills"][0]["anchors"]
    assert anchor["status"] == "unverifiable" and "ext:: transport can run commands" in anchor["detail"]


def test_init_drafts_yaml_no_claim_id_can_add_keys_to(tmp_path: Path) -> None:
    card = yaml.safe_dump({"validation_status": {"x:\n    path: /etc\n  y": ["code_verified"], "on": ["doc_only"]}})
    skill = make_skill(tmp_path / "skill", card=card)
    repo = make_code_repo(tmp_path / "code")
    done = run_cli("init", str(skill), "--repo", str(repo.path), "--ref", "v1")
    assert done.code == 0, done.err
    data = yaml.safe_load(done.out)
    assert set(data) == {"version", "source", "skills"}
    assert set(data["skills"]["skill"]["claims"]) == {"x:\n    path: /etc\n  y", "on"}
    assert set(data["skills"]["skill"]) == {"path", "claims"}
