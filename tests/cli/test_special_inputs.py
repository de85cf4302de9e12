"""Inputs no run can use are refused up front: one line, exit 2, never a hang or exit 4.

Infinite and nan numbers for float options: ``--judge-timeout inf`` ended in an
OverflowError inside the HTTP client (exit 4).

FIFOs and devices given as inputs:

Every input a command reads is tried with a real FIFO (``os.mkfifo``, nothing ever writes
to it: before the check, opening it blocked the run for good) and with ``/dev/zero``
(endless: read whole it ended in a MemoryError, exit 4).  Each run is a subprocess under
a timeout, so a regression fails instead of hanging the suite.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from cli_process import run_cli
from judge_server import JudgeServer
from tests.cli.test_interrupt_resume import write_suite

TIMEOUT = 60


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return run_cli(args, timeout=TIMEOUT)


def _suite(tmp_path: Path) -> Path:
    turn = {"userContent": {"role": "user", "content": "q"},
            "finalResponse": {"role": "assistant", "content": "a"}}  # fmt: skip
    evalset = tmp_path / "s.evalset.json"
    case = {"evalId": "c", "conversation": [turn], "sessionInput": {}}
    evalset.write_text(json.dumps({"evalSetId": "s", "evalCases": [case]}))
    (tmp_path / "s.metrics.json").write_text(
        json.dumps([{"metricName": "response_match_score", "threshold": 0.5}])
    )
    return evalset


# Each command with the input under test written as {}.
COMMANDS = {
    "--traces": ["run", "-e", "{evalset}", "--traces", "{}"],
    "validate --traces": ["validate", "-e", "{evalset}", "--traces", "{}"],
    "--evalset": ["run", "-e", "{}"],
    "--metrics": ["run", "-e", "{evalset}", "--metrics", "{}"],
    "--resume": ["run", "-e", "{evalset}", "--resume", "{}"],
    "import adk": ["import", "adk", "{}", "-o", "{out}"],
    "import otel": ["import", "otel", "{}", "-o", "{out}"],
    "show": ["show", "{}"],
    "diff": ["diff", "{}", "{}"],
    "merge": ["merge", "{}", "-o", "{out}"],
    "report": ["report", "{}", "--html", "{out}/r.html"],
}


@pytest.mark.parametrize("command", COMMANDS)
def test_a_fifo_input_is_refused_up_front(tmp_path: Path, command: str) -> None:
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    evalset, out = _suite(tmp_path), tmp_path / "out"
    args = [a.format(fifo, evalset=evalset, out=out) for a in COMMANDS[command]]
    done = cli(*args)
    assert done.returncode == 2, done.stdout + done.stderr
    assert (
        f"error: {fifo}: is a named pipe (FIFO), not a regular file "
        "(write it to a regular file first)" in done.stderr
    )
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("command", COMMANDS)
def test_dev_zero_is_refused_up_front(tmp_path: Path, command: str) -> None:
    evalset, out = _suite(tmp_path), tmp_path / "out"
    args = [a.format("/dev/zero", evalset=evalset, out=out) for a in COMMANDS[command]]
    done = cli(*args)
    assert done.returncode == 2, done.stdout + done.stderr
    assert (
        "error: /dev/zero: is a character device, not a regular file "
        "(write it to a regular file first)" in done.stderr
    )
    assert not out.exists()


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("--judge-timeout", "inf"),
        ("--agent-timeout", "inf"),
        ("--rate-limit", "inf"),
        ("--judge-timeout", "nan"),
        ("--judge-timeout", "-inf"),
    ],
)
def test_infinite_numbers_are_usage_errors(
    tmp_path: Path, judge_server: JudgeServer, option: str, value: str
) -> None:
    evalset, metrics = write_suite(tmp_path, judge_server)
    done = cli("run", "-e", str(evalset), "-m", str(metrics), "--no-cache", option, value)
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"error: {option}: must be a finite number, got {value}\n" in done.stderr
    assert "internal error" not in done.stderr
    assert judge_server.count == 0
