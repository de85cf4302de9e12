"""agenteval.report.output_paths: destinations checked before anything is scored."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from agenteval.report.atomic_write import write_bytes_atomic
from agenteval.report.output_paths import check_output_dir, check_output_file, check_outputs


def test_fine_destinations_have_no_problem_and_create_nothing(tmp_path: Path) -> None:
    assert check_output_dir("--output", tmp_path / "new" / "deeper") == []
    assert check_output_file("--json", tmp_path / "sub" / "run.json") == []
    assert check_output_file("--json", Path("-")) == []
    assert check_output_file("--junit", Path("/dev/null")) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_fifo_without_a_reader_is_refused(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    assert [str(p) for p in check_output_file("--junit", fifo)] == [
        f"{fifo}: --junit: a FIFO nothing reads (writing would wait forever)"
        " (start its reader first, or give a file)"
    ]


def test_fifo_with_a_reader_is_held_open_until_written(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        assert check_output_file("--json", fifo) == []
        # The probe did not close its end: the reader sees no end of file yet.
        with pytest.raises(BlockingIOError):
            os.read(reader, 10)
        write_bytes_atomic(fifo, b"report")
        assert os.read(reader, 10) == b"report"
        assert os.read(reader, 10) == b""  # written and closed: the end of the file
    finally:
        os.close(reader)


def test_devices_other_than_the_intended_ones_are_refused() -> None:
    for fine in ("/dev/null", "/dev/stdout", "/dev/stderr", "/dev/fd/1", "/proc/self/fd/2"):
        assert check_output_file("--json", Path(fine)) == [], fine
    for device in ("/dev/full", "/dev/zero", "/dev/urandom"):
        if Path(device).exists():
            assert [str(p) for p in check_output_file("--json", Path(device))] == [
                f"{device}: --json: a device, not a file"
                " (give a file, -, /dev/stdout, /dev/stderr, /dev/null or a terminal)"
            ]


def test_a_terminal_is_taken() -> None:
    try:
        primary, secondary = os.openpty()
    except OSError as exc:
        pytest.skip(f"no pseudo-terminal here: {exc}")
    try:
        assert check_output_file("--markdown", Path(os.ttyname(secondary))) == []
    finally:
        os.close(primary)
        os.close(secondary)


def test_a_socket_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "s.sock"
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(path))
        (problem,) = check_output_file("--junit", path)
    assert str(problem).startswith(f"{path}: --junit: a socket, not a file (give a file,")


def test_located_problems(tmp_path: Path) -> None:
    a_file = tmp_path / "f.txt"
    a_file.write_text("x")
    problems = check_outputs(
        {"--output": a_file},
        {"--json": tmp_path, "--junit": a_file / "under" / "r.xml", "--markdown": None},
    )
    assert [str(p) for p in problems] == [
        f"{a_file}: --output is not a directory (give a directory)",
        f"{tmp_path}: --json is a directory (give a file name)",
        f"{a_file / 'under' / 'r.xml'}: --junit: Not a directory",
    ]
