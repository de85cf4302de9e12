"""The run store's PostgreSQL tests run where Debian's PostgreSQL 15 is, and where it is not
they are skipped and the run says so in one line — never silently.

The suite is run as a user runs it (``python -m pytest``, in a child) on
tests/store/test_connection.py: two of its tests need the server, the others do not.  With
``AGENTEVAL_PG_BIN`` pointing at a directory without the binaries, the two are skipped,
the others still run, and exactly one line at the end names the cause and the fix; with
the real binaries (tests/postgres_server.py: started as the ``postgres`` user when root),
all of them run and no such line is printed.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from inner_pytest import PYTEST
from postgres_server import PG_BIN, skip_without_postgres

ROOT = Path(__file__).resolve().parents[1]
CHOSEN = "tests/store/test_connection.py"


def _pytest(env: dict[str, str]) -> list[str]:
    done = subprocess.run(
        [*PYTEST, CHOSEN],
        cwd=ROOT,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout.splitlines()


def test_missing_postgres_skips_its_tests_with_one_line(tmp_path: Path) -> None:
    missing = tmp_path / "no-postgres"
    lines = _pytest({"AGENTEVAL_PG_BIN": str(missing)})
    said = [line for line in lines if "on PostgreSQL skipped" in line]
    assert said == [
        f"2 run-store tests on PostgreSQL skipped: PostgreSQL 15 is not installed "
        f"({missing}/initdb): `make postgres` installs it"
    ]
    ran = re.search(r"\b(\d+) passed, 2 skipped\b", lines[-1])
    assert ran is not None and int(ran[1]) >= 1, lines[-1]
    # No line per skipped test: the reason appears in the one summary line only.
    assert sum(str(missing) in line for line in lines) == 1


def test_present_postgres_runs_its_tests() -> None:
    skip_without_postgres()
    lines = _pytest({"AGENTEVAL_PG_BIN": str(PG_BIN)})
    ran = re.search(r"\b(\d+) passed\b", lines[-1])
    assert ran is not None and int(ran[1]) >= 3, lines[-1]  # the two on PostgreSQL too
    assert "skipped" not in "\n".join(lines)
