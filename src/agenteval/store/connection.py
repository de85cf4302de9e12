"""Opening a store: one SQLAlchemy engine for SQLite or PostgreSQL, errors as one located line.

SQLite goes through the standard library's ``sqlite3`` (WAL journal, ``BEGIN IMMEDIATE``
for writers so two processes queue instead of deadlocking, a 30 s busy timeout, a file
opened for reading is never created, a connection refused busy while another process
switches a new file to WAL opened again: :mod:`agenteval.sqlite.busy`); PostgreSQL
through psycopg 3.  Every failure —
unreachable server, wrong password, missing database, a read-only or full database, a
schema from a newer agenteval — becomes a :class:`StoreError`: ``URL: what went wrong
(hint)``, the URL shown without its password and the driver's text scrubbed of it.

Rows in bulk (:meth:`Store.bulk_insert`) bypass SQLAlchemy's per-row parameter handling:
PostgreSQL's ``COPY`` through psycopg, on SQLite one INSERT of 200 rows at a time.
Measured on 300,000 metric rows (CPU seconds, 2-core box): PostgreSQL 5.6 with Core's
``insert()`` executemany → 0.8 with COPY; SQLite 2.5 → 1.25 with ``executemany`` of a
one-row INSERT.  The rows are written from the recorder's own thread, and ``sqlite3``
lets go of the interpreter lock around every statement it steps: one row per statement
made that thread wait for the lock (up to 5 ms) once per row while scoring held it; 200
rows per statement waits 200 times less often.

Tested in tests/store/test_connection.py.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import quote

from sqlalchemy import Connection, Engine, Table, create_engine, event
from sqlalchemy.exc import DBAPIError, SQLAlchemyError
from sqlalchemy.pool import QueuePool

from agenteval.errors import AgentEvalError, ConfigError, Problem
from agenteval.exit_codes import ExitCode
from agenteval.inputs.file_kind import kind_of_head, wrong_kind_message
from agenteval.inputs.safe_text import escape_control
from agenteval.sqlite.busy import BUSY_TIMEOUT_SECONDS, open_when_free
from agenteval.store import tables
from agenteval.store.migrations import SchemaProblem, ensure_schema
from agenteval.store.urls import StoreUrl, store_setting

# Bulk rows on SQLite: this many rows per INSERT, within its 32,766 parameters per statement.
SQLITE_ROWS = 200
SQLITE_PARAMETERS = 32_766
PG_CONNECT_TIMEOUT = 10


class StoreError(AgentEvalError):
    """The store could not be opened, read or written: one line naming the store."""

    exit_code = ExitCode.BAD_INPUT

    def __init__(self, where: str, message: str, hint: str = "") -> None:
        self.problem = Problem(where, "", message, hint)
        super().__init__(str(self.problem))


_NOT_SQLITE = "not a SQLite database"
# Driver texts → what a user reads (the first match wins; the text is kept after it).
_KNOWN = (
    ("readonly database", "the store is read-only"),
    ("read-only transaction", "the store is read-only"),
    ("disk is full", "the store is full"),
    ("no space left on device", "the store is full"),
    ("disk quota exceeded", "the store is full"),
    ("file too large", "the store is full"),
    (
        "database is locked",
        f"the store is locked by another writer (waited {BUSY_TIMEOUT_SECONDS:g} s)",
    ),
    ("permission denied", "permission denied"),
    ("password authentication failed", "cannot connect: wrong user name or password"),
    ("connection refused", "cannot connect: connection refused"),
    ("could not translate host name", "cannot connect: unknown host"),
    ("timeout expired", "cannot connect: timed out"),
    ('role "', "cannot connect"),
    ('database "', "cannot connect"),
    ("unable to open database file", "cannot open the database file"),
    ("file is not a database", _NOT_SQLITE),
)
# What a file given as a SQLite store is read of to name its kind (a JSON document's head).
_HEAD_BYTES = 1 << 20


def describe(exc: BaseException, url: StoreUrl) -> str:
    """A driver or SQLAlchemy error as one scrubbed line: ``what (driver's words)``."""
    original = exc.orig if isinstance(exc, DBAPIError) and exc.orig is not None else exc
    text = " ".join(str(original).split())
    # psycopg repeats the address it tried; the part after "failed:" says what happened.
    if "connection to server" in text and "failed:" in text:
        text = text.rsplit("failed:", 1)[1].strip()
    text = url.scrub(text)
    lowered = text.lower()
    for needle, meaning in _KNOWN:
        if needle in lowered:
            return f"{meaning} ({text})" if meaning.lower() not in lowered else text
    return text or type(original).__name__


def store_error(exc: BaseException, url: StoreUrl, doing: str = "") -> StoreError:
    """``exc`` (from the driver or SQLAlchemy) as a :class:`StoreError` about ``url``."""
    message = describe(exc, url)
    hint = ""
    if message.startswith(_NOT_SQLITE):
        message, hint = _what_the_file_is(url, message)
    return StoreError(url.redacted(), f"{doing}: {message}" if doing else message, hint)


def _what_the_file_is(url: StoreUrl, message: str) -> tuple[str, str]:
    """(message, hint) for a file SQLite says is no database: its kind when it is a file
    agenteval reads (an eval set given as ``--store``), and the flag that takes it."""
    path = url.sqlite_path
    try:
        with (path or Path()).open("rb") as handle:
            kind = kind_of_head(handle.read(_HEAD_BYTES))
    except OSError:
        return message, ""
    if kind is None:
        return message, ""
    words, hint = wrong_kind_message("a SQLite database", kind)
    store = "--store takes a SQLite file or a postgresql:// URL"
    return words, f"{hint}; {store}" if hint else store


@cache
def _values_statement(table: Table, rows: int) -> str:
    """``INSERT INTO t (…) VALUES (?, …), (?, …)…`` for ``rows`` rows (SQLite's placeholders)."""
    columns = ", ".join(f'"{column.name}"' for column in table.columns)
    one = "(" + ", ".join("?" for _ in table.columns) + ")"
    return f'INSERT INTO "{table.name}" ({columns}) VALUES ' + ", ".join([one] * rows)


class Store:
    """An open store: the engine, the URL it came from, and transactions on it."""

    def __init__(self, url: StoreUrl, engine: Engine, *, writable: bool) -> None:
        self.url = url
        self.engine = engine
        self.writable = writable

    @property
    def where(self) -> str:
        """The store as named in messages (no password), control characters escaped: the
        URL is input (a project file's ``store``), and ``history``, ``trend`` and "stored run
        … in" printed a path's escape sequences raw to the terminal."""
        return escape_control(self.url.redacted())

    @contextmanager
    def transaction(self) -> Iterator[Connection]:
        """One transaction (a write transaction on a writable store); errors → StoreError."""
        try:
            with self.engine.begin() as conn:
                yield conn
        except SQLAlchemyError as exc:
            raise store_error(exc, self.url) from None
        except sqlite3.Error as exc:  # raised by the raw cursor of bulk_insert
            raise store_error(exc, self.url) from None
        except tables.DamagedRow as damaged:
            raise StoreError(
                self.where, f"{damaged.path}: {damaged.message}", tables.DAMAGED_HINT
            ) from None

    def bulk_insert(self, conn: Connection, table: Table, rows: Sequence[tuple[Any, ...]]) -> None:
        """Insert ``rows`` (tuples in the table's column order) in ``conn``'s transaction."""
        if not rows:
            return
        raw: Any = conn.connection.dbapi_connection
        if conn.dialect.name == "postgresql":
            columns = ", ".join(f'"{column.name}"' for column in table.columns)
            with (
                raw.cursor() as cursor,
                cursor.copy(f'COPY "{table.name}" ({columns}) FROM STDIN') as copy,
            ):
                for row in rows:
                    copy.write_row(row)
            return
        width = len(table.columns)
        # Rows per statement: one sqlite3_step (and one GIL hand-over) per SQLITE_ROWS rows.
        per = max(1, min(SQLITE_ROWS, SQLITE_PARAMETERS // width))
        whole = len(rows) - len(rows) % per
        cursor = raw.cursor()
        try:
            if whole:
                flat = [
                    tuple(value for row in rows[start : start + per] for value in row)
                    for start in range(0, whole, per)
                ]
                cursor.executemany(_values_statement(table, per), flat)
            if whole < len(rows):
                cursor.executemany(_values_statement(table, 1), rows[whole:])
        finally:
            cursor.close()

    def close(self) -> None:
        """Close every connection of the engine."""
        self.engine.dispose()


def _sqlite_connection(target: str, *, wal: bool) -> sqlite3.Connection:
    """A connection to the store file (``wal``: a writer's, switching the file to WAL)."""
    conn = sqlite3.connect(target, uri=True, timeout=BUSY_TIMEOUT_SECONDS, check_same_thread=False)
    try:
        # Transactions are begun by the engine's "begin" hook, DDL included.
        conn.isolation_level = None
        conn.execute("PRAGMA foreign_keys=ON")
        if wal:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
    except sqlite3.Error:
        conn.close()
        raise
    return conn


def _sqlite_engine(url: StoreUrl, *, write: bool) -> Engine:
    path = url.sqlite_path
    assert path is not None
    mode = "ro" if url.read_only else ("rwc" if write else "rw")
    target = f"file:{quote(str(path))}?mode={mode}"
    wal = write and not url.read_only

    def connect() -> sqlite3.Connection:
        # Two processes opening a new store at once: the switch to WAL is refused busy,
        # without the busy timeout; each new connection is opened again (sqlite/busy.py).
        return open_when_free(lambda: _sqlite_connection(target, wal=wal))

    # A pool of connections (the URL names no file, so SQLAlchemy would assume :memory:).
    engine = create_engine("sqlite+pysqlite://", creator=connect, poolclass=QueuePool)

    @event.listens_for(engine, "begin")
    def _begin(conn: Connection) -> None:
        conn.exec_driver_sql("BEGIN IMMEDIATE" if wal else "BEGIN")

    return engine


def _postgres_engine(url: StoreUrl) -> Engine:
    try:
        import psycopg  # noqa: F401 - only to say what to install when it is missing
    except ImportError:
        raise StoreError(
            url.redacted(),
            "PostgreSQL stores need psycopg 3",
            "reinstall agenteval (psycopg[binary] is one of its dependencies)",
        ) from None
    return create_engine(
        url.url,
        connect_args={"connect_timeout": PG_CONNECT_TIMEOUT, "application_name": "agenteval"},
    )


def open_store(url: StoreUrl, *, write: bool) -> Store:
    """Connect to ``url`` and check its schema (creating or migrating it when ``write``).

    ``write``: the caller will record runs (an empty database gets the schema; a SQLite file
    is created).  Reading never creates anything; it has an older schema migrated by a
    writer first (refused read-only).  Raises :class:`StoreError`.
    """
    if url.read_only and write:
        raise StoreError(url.redacted(), "the store is read-only (?mode=ro)", "drop ?mode=ro")
    path = url.sqlite_path
    if path is not None:
        if write:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StoreError(
                    url.redacted(), f"cannot create {path.parent}: {exc.strerror or exc}"
                ) from None
        elif not path.exists():
            raise StoreError(
                url.redacted(),
                "no store at this path",
                "record a run with `agenteval run --store` first",
            )
        engine = _sqlite_engine(url, write=write)
    else:
        engine = _postgres_engine(url)
    store = Store(url, engine, writable=write)
    try:
        try:
            _check_schema(store, write=write)
        except SchemaProblem as problem:
            if write or url.read_only or not problem.older:
                raise
            # A reader finding an older schema has it migrated by a writer (on SQLite a
            # reader's transaction cannot take the write lock while another reader migrates;
            # writers queue), then reads.
            open_store(url, write=True).close()
            _check_schema(store, write=False)
    except SchemaProblem as problem:
        store.close()
        raise StoreError(url.redacted(), problem.message, problem.hint) from None
    except StoreError:
        store.close()
        raise
    return store


def _check_schema(store: Store, *, write: bool) -> None:
    """The schema checked (created or migrated by a writer); SchemaProblem when unusable."""
    with store.transaction() as conn:
        ensure_schema(conn, create=write, migrate=write)


def open_for_reading(flag: str | None, needed_by: str) -> Store:
    """The store for reading (``--store``, ``$AGENTEVAL_STORE``, project file); exit 2 when none."""
    setting = store_setting(flag)
    if setting is None:
        raise ConfigError(
            [
                Problem(
                    needed_by,
                    "",
                    "needs a run store",
                    "give --store URL, or set $AGENTEVAL_STORE or store in [tool.agenteval]",
                )
            ]
        )
    return open_store(setting.parse(), write=False)


__all__ = ["Store", "StoreError", "describe", "open_for_reading", "open_store", "store_error"]
