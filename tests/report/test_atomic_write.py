"""agenteval.report.atomic_write: whole files or none, readable by others, no temp files left."""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

import pytest

from agenteval.report.atomic_write import StreamedFile, write_bytes_atomic, write_text_atomic


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


def no_temp_files(directory: Path) -> bool:
    return not [p for p in directory.iterdir() if p.name.endswith(".tmp")]


def test_regular_file_is_replaced_whole(tmp_path: Path) -> None:
    target = tmp_path / "deep" / "r.json"
    write_text_atomic(target, "first")
    write_text_atomic(target, "second")
    assert target.read_text() == "second"
    assert stat.S_IMODE(target.stat().st_mode) == 0o644
    assert no_temp_files(target.parent)


def test_symlink_target_is_written_and_the_link_kept(tmp_path: Path) -> None:
    real = tmp_path / "real" / "report.xml"
    real.parent.mkdir()
    real.write_text("old")
    link = tmp_path / "link.xml"
    link.symlink_to(real)
    write_text_atomic(link, "new")
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert real.read_text() == "new"
    assert no_temp_files(tmp_path) and no_temp_files(real.parent)


def test_dangling_symlink_creates_its_target(tmp_path: Path) -> None:
    link = tmp_path / "link.json"
    link.symlink_to(tmp_path / "made.json")
    write_text_atomic(link, "{}")
    assert link.is_symlink() and (tmp_path / "made.json").read_text() == "{}"


def test_fifo_is_written_through_and_stays_a_fifo(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    write_bytes_atomic(fifo, b"x" * 200_000)  # larger than a pipe buffer
    reader.join(timeout=10)
    assert received == [b"x" * 200_000]
    assert stat.S_ISFIFO(fifo.lstat().st_mode)
    assert no_temp_files(tmp_path)


def test_dev_full_gives_enospc_and_stays_a_device() -> None:
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full on this system")
    with pytest.raises(OSError) as caught:
        write_text_atomic("/dev/full", "payload")
    assert caught.value.errno == 28  # ENOSPC
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)


def test_dev_null_is_written_through() -> None:
    write_text_atomic("/dev/null", "gone")
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_dash_means_stdout(capfdbinary: pytest.CaptureFixture[bytes]) -> None:
    write_text_atomic("-", "to stdout\n")
    assert capfdbinary.readouterr().out == b"to stdout\n"


def test_directory_is_refused_by_name(tmp_path: Path) -> None:
    with pytest.raises(IsADirectoryError) as caught:
        write_text_atomic(tmp_path, "x")
    assert caught.value.filename == str(tmp_path)


def test_interrupted_write_leaves_old_file_and_no_temp(tmp_path: Path) -> None:
    """A KeyboardInterrupt (second Ctrl-C) mid-write: previous content kept, temp removed."""
    target = tmp_path / "r.json"
    target.write_text("old")

    class Interrupting(bytes):
        pass

    original_fsync = os.fsync

    def interrupt(fd: int) -> None:
        raise KeyboardInterrupt

    os.fsync = interrupt  # type: ignore[assignment]
    try:
        with pytest.raises(KeyboardInterrupt):
            write_text_atomic(target, "new")
    finally:
        os.fsync = original_fsync
    assert target.read_text() == "old"
    assert no_temp_files(tmp_path)


# --- StreamedFile ----------------------------------------------------------


def test_streamed_file_is_invisible_until_committed(tmp_path: Path) -> None:
    target = tmp_path / "out" / "r.json"
    streamed = StreamedFile(target)
    streamed.write(b"{")
    streamed.write(b"}")
    # Nothing named exists while pieces are written: not the target, not a temp file.
    assert os.listdir(tmp_path / "out") == []
    assert streamed.commit() == target
    assert target.read_bytes() == b"{}"
    assert stat.S_IMODE(target.stat().st_mode) == 0o644
    assert os.listdir(tmp_path / "out") == ["r.json"]


def test_streamed_file_replaces_an_existing_file_and_follows_a_symlink(tmp_path: Path) -> None:
    real = tmp_path / "real.json"
    real.write_bytes(b"old")
    link = tmp_path / "link.json"
    link.symlink_to(real)
    streamed = StreamedFile(link)
    streamed.write(b"new")
    streamed.commit()
    assert link.is_symlink() and real.read_bytes() == b"new"
    assert sorted(os.listdir(tmp_path)) == ["link.json", "real.json"]


def test_streamed_file_discarded_or_interrupted_leaves_the_old_file(tmp_path: Path) -> None:
    target = tmp_path / "r.json"
    target.write_bytes(b"old")
    with pytest.raises(KeyboardInterrupt), StreamedFile(target) as streamed:
        streamed.write(b"half")
        raise KeyboardInterrupt
    assert target.read_bytes() == b"old" and os.listdir(tmp_path) == ["r.json"]


def test_streamed_file_without_o_tmpfile_uses_a_named_temp_removed_on_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delattr(os, "O_TMPFILE", raising=False)
    streamed = StreamedFile(tmp_path / "r.json")
    streamed.write(b"x")
    assert len(os.listdir(tmp_path)) == 1  # the named temp file
    streamed.discard()
    assert os.listdir(tmp_path) == []
    streamed = StreamedFile(tmp_path / "r.json")
    streamed.write(b"y")
    streamed.commit()
    assert os.listdir(tmp_path) == ["r.json"]


def test_streamed_file_writes_through_a_fifo_and_dev_full() -> None:
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full on this system")
    streamed = StreamedFile("/dev/full")
    streamed.write(b"payload")
    with pytest.raises(OSError) as caught:
        streamed.commit()
    assert caught.value.errno == 28
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)


def test_streamed_file_into_a_fifo(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    streamed = StreamedFile(fifo)
    for _ in range(4):
        streamed.write(b"z" * 100_000)
    streamed.commit()
    reader.join(timeout=10)
    assert received == [b"z" * 400_000] and stat.S_ISFIFO(fifo.lstat().st_mode)
    assert os.listdir(tmp_path) == ["pipe"]


def test_streamed_file_refuses_a_directory(tmp_path: Path) -> None:
    with pytest.raises(IsADirectoryError):
        StreamedFile(tmp_path)


def test_streamed_file_gets_its_name_by_a_link_not_a_copy(tmp_path: Path) -> None:
    # The written file is the unnamed temp file itself, linked into place (same inode):
    # a copy would write and fsync the whole result file a second time.
    if not hasattr(os, "O_TMPFILE"):
        pytest.skip("no O_TMPFILE on this platform")
    target = tmp_path / "r.json"
    streamed = StreamedFile(target)
    streamed.write(b"{}")
    written = os.fstat(streamed.handle.fileno()).st_ino
    streamed.commit()
    assert target.stat().st_ino == written
    assert target.read_bytes() == b"{}"
