"""cli/guard.py: a signal that comes back as a library's own error is still "interrupted";
bad input, a store's too, ends with the count line; --verbose shows a plugin's traceback.

Run in a child process: agenteval.entry's start-up guard (imported with cli.guard) owns the
process's SIGINT/SIGTERM handlers and ends the process on them.
"""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

from cli_process import run_cli

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


def test_verbose_shows_the_traceback_of_a_plugin_that_raised(tmp_path: Path) -> None:
    # The plugin's error became a problem line; -v showed no traceback of it.
    plugin = tmp_path / "broken.py"
    plugin.write_text("def helper():\n    raise RuntimeError('boom')\n\nhelper()\n")
    quiet = run_cli(["evaluators", "--plugin", str(plugin)], cwd=tmp_path, timeout=60)
    loud = run_cli(["evaluators", "--plugin", str(plugin), "-v"], cwd=tmp_path, timeout=60)
    line = f"error: --plugin {plugin}: failed to load: RuntimeError: boom\n1 problem found.\n"
    assert (quiet.returncode, quiet.stderr) == (2, line)
    assert loud.returncode == 2
    assert loud.stderr.startswith("Traceback (most recent call last):\n")
    assert f'File "{plugin}", line 2, in helper' in loud.stderr
    assert loud.stderr.endswith("RuntimeError: boom\n" + line)


def test_a_store_error_ends_with_the_count_line_as_every_bad_input(tmp_path: Path) -> None:
    # A bare --store with no store there printed its error without "1 problem found.".
    done = run_cli(["history", "--store"], cwd=tmp_path, timeout=60)
    store = tmp_path / ".agenteval" / "history.sqlite"
    assert (done.returncode, done.stderr) == (
        2,
        f"error: sqlite:///{store}: no store at this path "
        "(record a run with `agenteval run --store` first)\n1 problem found.\n",
    )
