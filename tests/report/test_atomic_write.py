"""agenteval.report.atomic_write: whole files or none, readable by others, no temp files left."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from agenteval.report.atomic_write import write_bytes_atomic, write_text_atomic


def test_write_creates_directories_replaces_and_leaves_no_temp_file(tmp_path: Path) -> None:
    target = tmp_path / "out" / "deep" / "r.json"
    assert write_bytes_atomic(target, b"first") == target
    write_text_atomic(target, "second é")
    assert target.read_bytes() == "second é".encode()
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o644
    assert sorted(p.name for p in target.parent.iterdir()) == ["r.json"]


def test_lone_surrogates_become_question_marks(tmp_path: Path) -> None:
    target = write_text_atomic(tmp_path / "t.md", "a\ud800b")
    assert target.read_bytes() == b"a?b"


def test_a_failed_write_keeps_the_previous_file(tmp_path: Path) -> None:
    target = write_bytes_atomic(tmp_path / "r.json", b"old")

    with pytest.raises(TypeError):
        write_bytes_atomic(target, "not bytes")  # type: ignore[arg-type]
    assert target.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["r.json"]
