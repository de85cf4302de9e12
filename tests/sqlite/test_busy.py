"""Opening a SQLite file while another connection holds its lock: tried again while busy."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest

from agenteval.sqlite.busy import is_busy, open_when_free


@pytest.fixture
def locked(tmp_path: Path) -> Iterator[tuple[Path, sqlite3.Connection]]:
    """A database file and the connection holding its write lock (ROLLBACK lets go)."""
    path = tmp_path / "db.sqlite"
    holder = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    holder.execute("CREATE TABLE t (x)")
    holder.execute("BEGIN EXCLUSIVE")
    try:
        yield path, holder
    finally:
        holder.close()


class Opener:
    """Opens the file and takes its write lock at once (no busy timeout); counts its tries."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.tries = 0

    def __call__(self) -> sqlite3.Connection:
        self.tries += 1
        connection = sqlite3.connect(self.path, timeout=0, isolation_level=None)
        try:
            connection.execute("BEGIN IMMEDIATE")
        except sqlite3.Error:
            connection.close()
            raise
        return connection


def test_a_busy_open_is_tried_again_until_the_lock_is_free(
    locked: tuple[Path, sqlite3.Connection],
) -> None:
    path, holder = locked
    opener = Opener(path)
    release = threading.Timer(0.3, holder.execute, ["ROLLBACK"])
    started = time.monotonic()
    release.start()
    try:
        with closing(open_when_free(opener)):
            waited = time.monotonic() - started
    finally:
        release.join()
    assert waited >= 0.3
    assert opener.tries > 2  # 20 ms apart


def test_a_lock_held_past_the_timeout_raises_the_busy_error(
    locked: tuple[Path, sqlite3.Connection],
) -> None:
    path, _holder = locked
    opener = Opener(path)
    started = time.monotonic()
    with pytest.raises(sqlite3.OperationalError, match="database is locked") as caught:
        open_when_free(opener, timeout=0.2)
    assert is_busy(caught.value)
    assert time.monotonic() - started >= 0.2
    assert opener.tries > 2


def test_other_errors_are_raised_at_once(tmp_path: Path) -> None:
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"this is not a database" * 100)
    tries = 0

    def not_a_database() -> None:
        nonlocal tries
        tries += 1
        with closing(sqlite3.connect(junk)) as connection:
            connection.execute("PRAGMA journal_mode=WAL")

    with pytest.raises(sqlite3.DatabaseError, match="file is not a database"):
        open_when_free(not_a_database)
    assert tries == 1
    opener = Opener(tmp_path)  # a directory: SQLITE_CANTOPEN, an OperationalError
    with pytest.raises(sqlite3.OperationalError, match="unable to open database file"):
        open_when_free(opener)
    assert opener.tries == 1
    assert not is_busy(sqlite3.OperationalError("database is locked"))  # not from SQLite


def test_an_extended_busy_code_is_busy(tmp_path: Path) -> None:
    # sqlite3 gives SQLite's extended code: a WAL reader whose snapshot a writer moved on
    # fails with SQLITE_BUSY_SNAPSHOT (517), which is busy too (only 5 and 6 were).
    path = tmp_path / "db.sqlite"
    with (
        closing(sqlite3.connect(path, isolation_level=None, timeout=0)) as reader,
        closing(sqlite3.connect(path, isolation_level=None, timeout=0)) as writer,
    ):
        reader.execute("PRAGMA journal_mode=WAL")
        reader.execute("CREATE TABLE t (x)")
        reader.execute("BEGIN")
        reader.execute("SELECT * FROM t").fetchall()
        writer.execute("INSERT INTO t VALUES (1)")
        with pytest.raises(sqlite3.OperationalError) as caught:
            reader.execute("INSERT INTO t VALUES (2)")
    assert caught.value.sqlite_errorname == "SQLITE_BUSY_SNAPSHOT"
    assert is_busy(caught.value)
    assert not is_busy(sqlite3.OperationalError("database is locked"))
