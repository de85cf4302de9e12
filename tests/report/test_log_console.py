"""agenteval.report.log_console: wide, unpadded output off a terminal."""

from __future__ import annotations

import io
import os
import subprocess
import sys

from rich.table import Table

from agenteval.report.log_console import LOG_WIDTH, TrimmedLines, make_console


def test_trimmed_lines() -> None:
    sink = io.StringIO()
    stream = TrimmedLines(sink)
    stream.write("a   \nb ")
    stream.write("  \nc  ")
    assert sink.getvalue() == "a\nb\n"
    stream.flush()
    assert sink.getvalue() == "a\nb\nc  "


def run_table(columns: str | None) -> str:
    code = (
        "from rich.table import Table\n"
        "from agenteval.report.log_console import make_console\n"
        "t = Table('metric', 'status')\n"
        "t.add_row('m' * 120, 'ok')\n"
        "make_console().print(t)\n"
    )
    env = {"PATH": "/usr/bin:/bin"}
    if columns is not None:
        env["COLUMNS"] = columns
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60
    )
    return done.stdout


def test_off_a_terminal_long_names_stay_on_one_line_without_padding() -> None:
    out = run_table(None)
    assert any("m" * 120 in line for line in out.splitlines())
    assert all(line == line.rstrip(" ") for line in out.splitlines())
    assert LOG_WIDTH >= 160 and Table is not None


def test_columns_is_honoured() -> None:
    out = run_table("60")
    assert not any("m" * 120 in line for line in out.splitlines())
    assert max(len(line) for line in out.splitlines()) <= 60


def test_a_reader_that_leaves_silences_the_console_without_ending_the_command() -> None:
    # rich's default raises SystemExit(1): `agenteval run ... | head` lost its result files.
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader left
    with os.fdopen(write_end, "w") as stream:
        console = make_console(file=stream)
        console.print("the first case")  # EPIPE: Python ignores SIGPIPE, so an error
        assert console.quiet
        assert os.readlink(f"/proc/self/fd/{write_end}") == "/dev/null"
        console.print("the verdict line")  # dropped, no error
        stream.write("written after it\n")
        stream.flush()  # Python's own writes go to /dev/null too
