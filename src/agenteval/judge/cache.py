"""SQLite cache of judge replies, safe to share between processes.

Key: :meth:`PreparedCall.cache_key` (sha256 of endpoint, model, full request
body and sample index; the API key is never part of it).  Row: reply text,
logprobs JSON and token usage.  The database runs in WAL mode with a busy
timeout, so several runs can read and write one file at the same time.  All
SQLite work happens on one worker thread, keeping the event loop free.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sqlite3
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TypeVar

from agenteval import settings
from agenteval.judge.backend import (
    JudgeReply,
    LogprobsFormatError,
    TokenUsage,
    logprobs_from_json,
)
from agenteval.judge.errors import JudgeConfigError
from agenteval.sqlite.busy import BUSY_TIMEOUT_SECONDS, open_when_free

DEFAULT_CACHE_PATH = Path(settings.JUDGE_CACHE_PATH)
BUSY_TIMEOUT_MS = round(BUSY_TIMEOUT_SECONDS * 1000)

_log = logging.getLogger("agenteval.judge")
T = TypeVar("T")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS judge_replies (
    key TEXT PRIMARY KEY,
    text TEXT NOT NULL,
    logprobs TEXT NOT NULL,
    prompt_tokens INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    created_at REAL NOT NULL
)
"""


def _opened(path: Path) -> sqlite3.Connection:
    """A connection to the cache file in WAL mode, its table created."""
    connection = sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
    try:
        connection.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        connection.execute("PRAGMA journal_mode = WAL")
        # WAL keeps committed data safe on a crash; only the last commits can be lost.
        connection.execute("PRAGMA synchronous = NORMAL")
        connection.execute(_SCHEMA)
    except sqlite3.Error:
        connection.close()
        raise
    return connection


class JudgeCache:
    """Judge replies by cache key in one SQLite file; use :meth:`open` and :meth:`close`."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="judge-cache")
        self._connection: sqlite3.Connection | None = None

    @classmethod
    async def open(cls, path: Path) -> JudgeCache:
        """Open (creating if needed) the cache file; raises ``JudgeConfigError`` if impossible."""
        cache = cls(path)
        try:
            await cache._run(cache._connect)
        except sqlite3.DatabaseError as exc:
            await cache.close()
            if "not a database" not in str(exc) and "malformed" not in str(exc):
                raise JudgeConfigError(f"cannot open judge cache {cache.path}: {exc}") from None
            raise JudgeConfigError(
                f"{cache.path}: not a readable cache (delete it or run with --no-cache)"
            ) from None
        except (OSError, sqlite3.Error) as exc:
            await cache.close()
            raise JudgeConfigError(f"cannot open judge cache {cache.path}: {exc}") from None
        return cache

    async def get(self, key: str) -> JudgeReply | None:
        """The cached reply for ``key``, or ``None``; a failing read counts as a miss."""
        try:
            return await self._run(lambda: self._read(key))
        except sqlite3.Error as exc:
            _log.warning("judge cache %s: read failed, treating as a miss: %s", self.path, exc)
            return None

    async def put(self, key: str, reply: JudgeReply) -> None:
        """Store ``reply`` under ``key`` (the first writer of a key wins)."""
        try:
            await self._run(lambda: self._write(key, reply))
        except sqlite3.Error as exc:
            _log.warning("judge cache %s: write failed, reply not cached: %s", self.path, exc)

    async def close(self) -> None:
        """Close the database and stop the worker thread."""
        if self._connection is not None:
            await self._run(self._disconnect)
        self._executor.shutdown(wait=True)

    async def _run(self, work: Callable[[], T]) -> T:
        return await asyncio.get_running_loop().run_in_executor(self._executor, work)

    def _connect(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # A new file another process is switching to WAL too is busy: sqlite/busy.py.
        self._connection = open_when_free(lambda: _opened(self.path))

    def _disconnect(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    def _db(self) -> sqlite3.Connection:
        if self._connection is None:
            raise sqlite3.ProgrammingError("judge cache is closed")
        return self._connection

    def _read(self, key: str) -> JudgeReply | None:
        row = (
            self._db()
            .execute(
                "SELECT text, logprobs, prompt_tokens, completion_tokens"
                " FROM judge_replies WHERE key = ?",
                (key,),
            )
            .fetchone()
        )
        if row is None:
            return None
        text, logprobs_text, prompt_tokens, completion_tokens = row
        try:
            logprobs = logprobs_from_json(json.loads(logprobs_text))
            # A row another program wrote (or damaged) may hold anything in these columns.
            usage = TokenUsage(int(prompt_tokens), int(completion_tokens))
        except (ValueError, TypeError, LogprobsFormatError) as exc:
            _log.warning("judge cache %s: unreadable row ignored: %s", self.path, exc)
            return None
        return JudgeReply(text=str(text), logprobs=logprobs, usage=usage, cached=True)

    def _write(self, key: str, reply: JudgeReply) -> None:
        self._db().execute(
            "INSERT OR IGNORE INTO judge_replies"
            " (key, text, logprobs, prompt_tokens, completion_tokens, created_at)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            (
                key,
                reply.text,
                json.dumps(reply.logprobs_json(), ensure_ascii=False),
                reply.usage.prompt_tokens,
                reply.usage.completion_tokens,
                time.time(),
            ),
        )
