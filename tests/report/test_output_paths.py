"""agenteval.report.output_paths: destinations checked before anything is scored."""

from __future__ import annotations

import os
from pathlib import Path

from agenteval.report.output_paths import check_output_dir, check_output_file, check_outputs


def test_fine_destinations_have_no_problem_and_create_nothing(tmp_path: Path) -> None:
    assert check_output_dir("--output", tmp_path / "new" / "deeper") == []
    assert check_output_file("--json", tmp_path / "sub" / "run.json") == []
    assert check_output_file("--json", Path("-")) == []
    assert check_output_file("--junit", Path("/dev/null")) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_fifo_is_accepted_without_opening_it(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    assert check_output_file("--junit", fifo) == []  # opening it would block: no reader


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
