"""cli/guard.py: a signal that comes back as a library's own error is still "interrupted".

Run in a child process: agenteval.entry's start-up guard (imported with cli.guard) owns the
process's SIGINT/SIGTERM handlers and ends the process on them.
"""

from __future__ import annotations

import signal
import subprocess
import sys

import pytest

CHILD = """
import os, sys
from enum import Enum
from pydantic import create_model
import typer
from agenteval import entry
from agenteval.cli.guard import guard

entry._state["running"] = True  # as inside main(): a command body is running
sig = int(sys.argv[1])

def send_inside_the_build(frame, event, arg):
    caller = frame.f_back
    if event == "call" and frame.f_code.co_filename.endswith("enum.py") and caller:
        if caller.f_code.co_name == "create_schema_validator":
            sys.setprofile(None)
            os.kill(os.getpid(), sig)

class Colour(Enum):
    RED = "red"

def body():
    sys.setprofile(send_inside_the_build)
    create_model("Paint", colour=(Colour, ...))  # a lazily imported model, built in the body
    return 0

try:
    guard(False, body)
except typer.Exit as exc:
    sys.exit(exc.exit_code)
"""


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_handed_back_as_a_schema_error_is_interrupted_not_a_bug(
    sig: signal.Signals,
) -> None:
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(int(sig))],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert (done.returncode, done.stderr.strip()) == (3, "interrupted"), done.stdout
