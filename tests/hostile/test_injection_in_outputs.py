"""Class 2: fix's own lines, the progress line, Markdown that GitHub links after rendering, SARIF URIs."""

from __future__ import annotations

import json
import os
import pty
import re
import select
import subprocess
import sys
from pathlib import Path

import yaml
from markdown_it import MarkdownIt

from anchor_audit.text.escape import _LINKABLE

from .conftest import CODE, QUOTE, make_code_repo, make_skill, registry, run_cli

ESC = "\x1b]0;pwned\x07\x1b[2J"


def test_fix_prints_a_broken_claim_id_escaped(tmp_path: Path) -> None:
    repo = make_code_repo(tmp_path / "code")
    evil = "gate" + ESC + "\nforged: line"
    skill = make_skill(tmp_path / "skill", QUOTE.replace("if cfg.tp > 1:", "if cfg.tp > 7:"),
                       card=yaml.safe_dump({"validation_status": {evil: ["code_verified"]}}))  # fmt: skip
    claims = yaml.safe_dump({evil: {"quotes": ["pkg/plan.py:3-6"]}}, default_style='"')
    spec = registry(tmp_path / "anchors.yaml", repo.path, skill, claims="".join(f"      {ln}\n" for ln in claims.splitlines()))
    done = run_cli("fix", "--spec", str(spec))
    assert "\x1b" not in done.out + done.err and "\x07" not in done.out
    left = [line for line in done.out.splitlines() if line.startswith("left for a person")]
    assert any("claim gate\\x1b]0;pwned\\x07\\x1b[2J\\x0aforged: line is broken" in line for line in left), done.out
    assert not any(line.startswith("forged") for line in done.out.splitlines())


def test_a_folder_name_is_never_rich_markup_on_the_progress_line(tmp_path: Path) -> None:
    repo = make_code_repo(tmp_path / "code")
    root = tmp_path / "skills"
    make_skill(root / "[link=https:evil.example][blink]x")
    make_skill(root / "A-plain")  # sorted first: the last skill's line is the one left on the screen
    primary, secondary = pty.openpty()  # a real terminal on stderr, so the progress line shows
    process = subprocess.Popen(
        [sys.executable, "-m", "anchor_audit", "check", "--repo", str(repo.path), "--ref", "v1", "--all", str(root),
         "--format", "json"],
        stdout=subprocess.PIPE, stderr=secondary, stdin=subprocess.DEVNULL, env={**os.environ, "TERM": "xterm"},
    )  # fmt: skip
    os.close(secondary)
    seen = b""
    while True:
        ready, _, _ = select.select([primary], [], [], 60)
        if not ready:
            break
        try:
            chunk = os.read(primary, 65536)
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
    out, _ = process.communicate(timeout=60)
    os.close(primary)
    assert process.returncode in (0, 1) and len(json.loads(out)["skills"]) == 2
    assert b"\x1b]8;" not in seen and b"\x1b[5m" not in seen  # no hyperlink (OSC 8), no blink (SGR 5)
    assert b"[link=https:evil.example][blink]x" in seen  # the name shows as it is


def test_nothing_from_a_skill_can_become_a_link_or_mention_in_markdown(tmp_path: Path) -> None:
    files = {"www.evil.example/login.py": CODE, "@acme/security-team.py": CODE, "pkg/#12 GH-3.py": CODE}
    repo = make_code_repo(tmp_path / "code", files)
    body = "".join(QUOTE.replace("pkg/plan.py", path).replace("cfg.tp > 1", "cfg.tp > 2") for path in files)
    body += "Run `pytest tests/` then see @acme/security-team and www.evil.example (5 passed).\n"
    skill = make_skill(tmp_path / "skill", body, card="validation_status:\n  gate@acme/team: [code_verified]\n")
    md = run_cli("check", "--repo", str(repo.path), "--ref", "v1", "--format", "markdown", str(skill)).out
    assert "www.evil.example" in md and "@acme/security-team" in md
    # GitHub links mentions, references and bare www./scheme:// text after rendering, in text nodes only:
    # parse the report as CommonMark and look at every text node outside code.
    texts = [t.content for block in MarkdownIt("commonmark").enable("table").parse(md) if block.children
             for t in block.children if t.type == "text"]  # fmt: skip
    linkable = [t for t in texts if _LINKABLE.search(t)]
    assert linkable == [], linkable


def test_impact_sarif_percent_encodes_its_uris(tmp_path: Path) -> None:
    repo = make_code_repo(tmp_path / "code", {"src/w#1%.py": CODE.replace("tp", "pp")})  # its own code
    repo.edit("src/w#1%.py", "if cfg.pp > 1:", "if cfg.pp > 3:")
    repo.commit("edit", tag="v2")
    skill = make_skill(tmp_path / "skill", QUOTE.replace("pkg/plan.py", "src/w#1%.py").replace("tp", "pp"))
    out = run_cli("impact", "v1", "v2", str(skill), "--repo", str(repo.path), "--format", "sarif").out
    uris = {loc["physicalLocation"]["artifactLocation"]["uri"]
            for result in json.loads(out)["runs"][0]["results"] for loc in result["locations"]}  # fmt: skip
    assert uris == {"src/w%231%25.py"}
    assert not re.search(r'"uri": "[^"]*[#% ]', out.replace("%23", "").replace("%25", ""))
