"""The terminal report on a real terminal (a pseudo-terminal 120 columns wide): a long detail wraps under its
own indent, not at column 0."""

from __future__ import annotations

import fcntl
import os
import pty
import struct
import subprocess
import sys
import termios
from pathlib import Path

from .hostile.conftest import make_code_repo, make_skill

CARD = ('validated_on: "2026-01-10"\nvalidation_status:\n  files_there:\n    - file_exists\n'
        "evidence:\n  - pkg/plan.py\n  - docs/" + "a-rather-long-folder-name/" * 6 + "gone.md\n")  # fmt: skip


def _on_a_terminal(args: list[str], columns: int, cwd: Path) -> str:
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 40, columns, 0, 0))
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", "NO_COLOR", "FORCE_COLOR")}
    done = subprocess.Popen([sys.executable, "-m", "anchor_audit", *args, "--color", "never"], cwd=cwd, env=env,
                            stdin=follower, stdout=follower, stderr=subprocess.DEVNULL)  # fmt: skip
    os.close(follower)
    out = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        out += chunk
    done.wait(timeout=60)
    os.close(leader)
    return out.decode("utf-8").replace("\r\n", "\n")


def test_a_long_claim_detail_wraps_under_its_indent_on_a_120_column_terminal(tmp_path: Path) -> None:
    repo = make_code_repo(tmp_path / "code")
    make_skill(tmp_path / "skill", card=CARD)
    out = _on_a_terminal(["check", "--repo", str(repo.path), "--ref", "v1", "skill"], 120, tmp_path)
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("    missing: file"))
    wrapped = lines[start + 1 : start + 3]  # the detail is longer than the terminal: its rest on the next lines
    assert all(line.startswith("    docs/") or line.startswith("    r-long") for line in wrapped[:1])
    assert all(line.startswith("    ") and line.strip() for line in wrapped)
    evidence = next(i for i, line in enumerate(lines) if line.startswith("  evidence"))
    assert lines[evidence + 1].startswith("  ")  # a reference's line wraps under its indent too
    assert all(len(line) <= 120 for line in lines)
