"""Opening a SQLite file another process may be opening: tried again while SQLite is busy.

Two processes opening one new file at once (two runs, two pytest-xdist workers): switching
it to WAL takes a lock SQLite refuses at once, busy timeout or not ("database is locked"):
about 1 pair in 10 of new judge caches (tests/judge/test_cache.py), 1 in 4 to 1 in 2 of new
stores (tests/store/test_connection.py) failed that way.  So the whole open (connection,
pragmas, schema) is tried again, 20 ms apart, until the busy timeout has passed; any other
error is raised at once, and the last busy one when the timeout has passed.  tenacity does
the retrying, as it does the judge's HTTP retries (judge/limits.py).

Tested in tests/sqlite/test_busy.py.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import TypeVar

from tenacity import Retrying, retry_if_exception, stop_after_delay, wait_fixed

# How long a connection waits for another process's lock (sqlite3.connect's timeout), and
# how long an open is tried again while the file is busy.
BUSY_TIMEOUT_SECONDS = 30.0
REOPEN_PAUSE_SECONDS = 0.02

T = TypeVar("T")


def is_busy(exc: BaseException) -> bool:
    """Whether ``exc`` is SQLite saying another connection holds the lock."""
    # An OperationalError made outside SQLite's C code has no code: not busy.  The code is
    # SQLite's extended one (SQLITE_BUSY_RECOVERY, _SNAPSHOT, _TIMEOUT, SQLITE_LOCKED_…):
    # its low byte is the primary code; only plain SQLITE_BUSY was recognised.
    code = getattr(exc, "sqlite_errorcode", None)
    busy = isinstance(code, int) and code & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)
    return isinstance(exc, sqlite3.OperationalError) and busy


def open_when_free(open_: Callable[[], T], *, timeout: float = BUSY_TIMEOUT_SECONDS) -> T:
    """``open_()``, called again every 20 ms while it fails busy, for up to ``timeout`` s.

    ``open_`` closes what it opened before raising: each try starts from nothing.
    """
    retrying = Retrying(
        retry=retry_if_exception(is_busy),
        stop=stop_after_delay(timeout),
        wait=wait_fixed(REOPEN_PAUSE_SECONDS),
        reraise=True,
    )
    return retrying(open_)
