"""A real PostgreSQL 15 server for the store tests: Debian's binaries, a temp directory, a socket.

``postgres_server`` (session scope) runs ``initdb`` and ``pg_ctl start`` in a fresh temp
directory, listening only on a Unix socket there (no TCP port to collide on; under
pytest-xdist every worker process has its own session and so its own server).  The
server refuses to run as root, so as root it runs as the ``postgres`` system user
(``runuser -u postgres``); otherwise as the current user.  Password authentication
(scram-sha-256) is on, so a wrong password is refused for real.

``pg_url`` (function scope) creates a fresh database per test and gives its URL,
``postgresql://agenteval:<password>@/<db>?host=<socket dir>``.

When the binaries are missing the tests skip, and the run says so in one line at its end
(tests/conftest.py's ``pytest_terminal_summary``) naming how to install them (``make
postgres``, which ``make test`` runs); tests/test_postgres_skip.py checks both ways.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

PG_BIN = Path(os.environ.get("AGENTEVAL_PG_BIN", "/usr/lib/postgresql/15/bin"))
USER = "agenteval"
PASSWORD = "pw-" + uuid.uuid4().hex[:12]
SKIP_REASON = f"PostgreSQL 15 is not installed ({PG_BIN}/initdb): `make postgres` installs it"


def _as_server_user(command: list[str]) -> list[str]:
    """``command`` run as the ``postgres`` user when we are root (the server refuses root)."""
    if os.geteuid() == 0:
        return ["runuser", "-u", "postgres", "--", *command]
    return command


class PostgresServer:
    """One PostgreSQL server in its own directory, reachable on a Unix socket."""

    def __init__(self) -> None:
        # A short path: a Unix socket path must fit in 107 bytes.
        self.root = Path(tempfile.mkdtemp(prefix="agpg-", dir="/tmp"))
        self.data = self.root / "data"
        self.log = self.root / "server.log"
        self.started = False
        if os.geteuid() == 0:
            shutil.chown(self.root, "postgres")

    def _run(self, *command: str) -> None:
        proc = subprocess.run(
            _as_server_user(list(command)), capture_output=True, text=True, timeout=120
        )
        if proc.returncode != 0:
            raise RuntimeError(
                f"{' '.join(command[:1])} failed ({proc.returncode}): {proc.stderr or proc.stdout}"
            )

    def start(self) -> PostgresServer:
        """initdb + pg_ctl start; returns self."""
        password_file = self.root / "pw"
        password_file.write_text(PASSWORD + "\n")
        if os.geteuid() == 0:
            shutil.chown(password_file, "postgres")
        self._run(
            str(PG_BIN / "initdb"),
            "-D",
            str(self.data),
            "-U",
            USER,
            f"--pwfile={password_file}",
            "--auth=scram-sha-256",
            "--no-sync",
            "--encoding=UTF8",
            "--locale=C",
        )
        options = (
            f"-k {self.root} -c listen_addresses='' -c fsync=off -c synchronous_commit=off "
            "-c full_page_writes=off -c shared_buffers=16MB -c max_connections=60"
        )
        self._run(
            str(PG_BIN / "pg_ctl"),
            "-D",
            str(self.data),
            "-o",
            options,
            "-l",
            str(self.log),
            "-w",
            "-t",
            "60",
            "start",
        )
        self.started = True
        return self

    def url(self, database: str, *, user: str = USER, password: str = PASSWORD) -> str:
        """The URL of ``database`` on this server."""
        return f"postgresql://{user}:{password}@/{database}?host={self.root}"

    def execute(self, sql: str, database: str = "postgres") -> None:
        """Run ``sql`` as the superuser (autocommit: CREATE DATABASE and the like)."""
        import psycopg

        with psycopg.connect(self.url(database), autocommit=True) as conn:
            conn.execute(sql.encode())

    def create_database(self) -> str:
        """A fresh database; returns its URL."""
        name = "t_" + uuid.uuid4().hex[:16]
        self.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def stop(self, mode: str = "fast") -> None:
        """pg_ctl stop (``immediate``: as if the server died)."""
        if self.started:
            self._run(str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "stop")
            self.started = False

    def remove(self) -> None:
        """Stop the server and delete its directory."""
        try:
            self.stop("immediate")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)


def postgres_available() -> bool:
    """Whether Debian's PostgreSQL binaries are installed."""
    return (PG_BIN / "initdb").is_file() and (PG_BIN / "pg_ctl").is_file()


def skip_without_postgres() -> None:
    """Skip the calling test, with :data:`SKIP_REASON`, where the binaries are missing."""
    if not postgres_available():
        pytest.skip(SKIP_REASON)


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """A PostgreSQL server for this test session (this xdist worker)."""
    skip_without_postgres()
    server = PostgresServer()
    try:
        yield server.start()
    finally:
        server.remove()


@pytest.fixture
def pg_url(postgres_server: PostgresServer) -> str:
    """The URL of a fresh, empty database on the session's server."""
    return postgres_server.create_database()


__all__ = [
    "PASSWORD",
    "SKIP_REASON",
    "USER",
    "PostgresServer",
    "pg_url",
    "postgres_available",
    "postgres_server",
    "skip_without_postgres",
]
