"""fsutil: read_input (the bytes of a regular file, within a bound, whatever else is at the path) and write_all
(a run's outputs rendered straight into their staged files, all or none)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TextIO

import pytest

from anchor_audit.text.fsutil import InputFileError, WriteFailed, read_input, write_all


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


def test_an_output_is_written_to_its_staged_file_as_it_is_rendered(tmp_path: Path) -> None:
    """A catalog's report is not held whole in memory before it is written: while the renderer runs, what it
    has written is already in a file beside the target (the target itself untouched until the rename)."""
    target = tmp_path / "report.json"
    target.write_text("old\n")
    seen: list[int] = []

    def render(stream: TextIO) -> None:
        stream.write("x" * (1 << 20))
        staged = [p for p in tmp_path.iterdir() if p != target]
        seen.append(sum(p.stat().st_size for p in staged))
        assert target.read_text() == "old\n"
        stream.write("\u00e9\ud800\n")  # a lone surrogate is written as the report's bytes always were

    write_all([(target, render)])
    assert seen[0] >= 1 << 19
    assert target.read_bytes() == b"x" * (1 << 20) + "\u00e9".encode() + b"\\ud800\n"
    assert sorted(tmp_path.iterdir()) == [target]


def test_a_renderer_that_fails_leaves_every_output_as_it_was(tmp_path: Path) -> None:
    first, second = tmp_path / "a.json", tmp_path / "b.sarif"
    first.write_text("kept\n")

    def broken(stream: TextIO) -> None:
        stream.write("half")
        raise RuntimeError("a renderer's bug")

    with pytest.raises(RuntimeError):
        write_all([(first, lambda stream: stream.write("new\n")), (second, broken)])
    assert first.read_text() == "kept\n" and sorted(tmp_path.iterdir()) == [first]


def test_a_device_output_is_rendered_whole_before_it_is_written(tmp_path: Path) -> None:
    """``--output /dev/stdout``: no rename over a device, so the renderer finishes before the first byte."""
    fifo = tmp_path / "out"
    os.mkfifo(fifo)
    read = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # a reader, so writing to it does not wait
    with pytest.raises(RuntimeError):
        write_all([(fifo, lambda stream: (stream.write("half"), _fail()))])
    write_all([(fifo, lambda stream: stream.write("whole\n"))])
    assert os.read(read, 100) == b"whole\n"  # nothing of the failed render came before it
    os.close(read)
    with pytest.raises(WriteFailed):
        write_all([(tmp_path, lambda stream: stream.write("x"))])  # a folder: refused before anything


def _fail() -> None:
    raise RuntimeError("a renderer's bug")
