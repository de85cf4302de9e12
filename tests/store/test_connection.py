"""Opening a store: every way it can fail is one line naming the store, never the password."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from agenteval.store.connection import StoreError, describe, open_store
from agenteval.store.context import RunContext
from agenteval.store.urls import parse_store_url
from agenteval.store.writer import RunMeta, RunRecorder
from postgres_server import PASSWORD, PostgresServer


def _refused(url_text: str, *, write: bool = True) -> str:
    with pytest.raises(StoreError) as caught:
        open_store(parse_store_url(url_text, "--store"), write=write)
    return str(caught.value)


def test_unreachable_server() -> None:
    # Port 1 on the loopback: nothing listens there.
    message = _refused("postgresql://ci:hunter2secret@127.0.0.1:1/evals")
    assert message.startswith(
        "postgresql://ci:***@127.0.0.1:1/evals: cannot connect: connection refused"
    )
    assert "hunter2secret" not in message


def test_wrong_password_and_missing_database(postgres_server: PostgresServer) -> None:
    wrong = postgres_server.url("postgres", password="not-" + PASSWORD)
    message = _refused(wrong)
    assert "cannot connect: wrong user name or password" in message
    assert 'password authentication failed for user "agenteval"' in message
    assert PASSWORD not in message
    assert "not-" not in message
    message = _refused(postgres_server.url("no_such_db"))
    assert ": cannot connect (" in message
    assert 'database "no_such_db" does not exist' in message
    assert PASSWORD not in message


def test_a_read_only_postgres_database_refuses_the_run_before_it_starts(
    postgres_server: PostgresServer, pg_url: str
) -> None:
    url = parse_store_url(pg_url, "--store")
    open_store(url, write=True).close()  # the schema is made
    database = url.url.database
    postgres_server.execute(f'ALTER DATABASE "{database}" SET default_transaction_read_only = on')
    store = open_store(url, write=True)  # an up-to-date schema needs no write
    try:
        recorder = RunRecorder(store, RunMeta("r1", 0.0, "app", 1, RunContext()))
        with pytest.raises(StoreError, match="the store is read-only"):
            recorder.start()
    finally:
        store.close()


def test_sqlite_read_only_and_not_a_database(tmp_path: Path) -> None:
    path = tmp_path / "h.sqlite"
    open_store(parse_store_url(f"sqlite:///{path}", "--store"), write=True).close()
    assert "the store is read-only (?mode=ro) (drop ?mode=ro)" in _refused(
        f"sqlite:///{path}?mode=ro"
    )
    open_store(parse_store_url(f"sqlite:///{path}?mode=ro", "--store"), write=False).close()
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"this is not a database" * 100)
    assert "not a SQLite database" in _refused(f"sqlite:///{junk}")
    assert "no store at this path" in _refused(f"sqlite:///{tmp_path}/none.sqlite", write=False)


def test_driver_texts_become_plain_words() -> None:
    url = parse_store_url("postgresql://u:pw123456@h/db", "--store")
    assert describe(sqlite3.OperationalError("database or disk is full"), url) == (
        "the store is full (database or disk is full)"
    )
    assert describe(OSError("could not extend file: No space left on device"), url).startswith(
        "the store is full"
    )
    assert describe(sqlite3.OperationalError("token pw123456 leaked"), url) == "token *** leaked"
