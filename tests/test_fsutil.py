"""fsutil.read_input: the bytes of a regular file, within a bound, whatever else is at the path."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from anchor_audit.fsutil import InputFileError, read_input


@pytest.mark.parametrize("size", [0, 1, 4095, 1 << 20, (1 << 20) + 1, 3 * (1 << 20) + 7])
def test_a_file_is_read_whole_at_any_size_under_the_bound(size: int, tmp_path: Path) -> None:
    data = os.urandom(size)
    (tmp_path / "f").write_bytes(data)
    assert read_input(tmp_path / "f", 4 << 20, "a skill file") == data


def test_the_bound_is_the_last_size_read(tmp_path: Path) -> None:
    (tmp_path / "f").write_bytes(b"x" * 100)
    assert read_input(tmp_path / "f", 100, "a skill file") == b"x" * 100
    with pytest.raises(InputFileError, match=r"f: larger than 99 bytes; not a skill file"):
        read_input(tmp_path / "f", 99, "a skill file")


def test_what_is_not_a_regular_file_is_refused_by_name(tmp_path: Path) -> None:
    with pytest.raises(InputFileError, match=r"nope: no such file"):
        read_input(tmp_path / "nope", 100, "a baseline")
    with pytest.raises(InputFileError, match=r"is a folder, not a baseline"):
        read_input(tmp_path, 100, "a baseline")
    os.mkfifo(tmp_path / "pipe")  # opened without blocking, and refused before any read
    with pytest.raises(InputFileError, match=r"pipe: is a device or special file, not a baseline"):
        read_input(tmp_path / "pipe", 100, "a baseline")
