"""The ``agenteval`` console script: a Ctrl-C while the tool is still importing is not a traceback.

Importing the command line takes a few hundred milliseconds (typer, rich, pydantic); a
signal in that window used to print a ``KeyboardInterrupt`` traceback.  This module
imports nothing heavy itself, so the guard is in place from the first moment.

Tested in tests/cli/test_signal_trials.py (signals from start-up on, through ``-m agenteval``).
"""

from __future__ import annotations

import os
import signal
import sys
from types import FrameType
from typing import Any

EXIT_INTERRUPTED = 3

_pending: list[int] = []


def main() -> None:
    """Run the command line; an interrupt during start-up exits 3 with one line."""
    # SIGTERM as SIGINT until a command installs its own policy: a clean stop that removes
    # a half-written temp file, instead of death on the spot.
    signal.signal(signal.SIGINT, _raise_interrupt)
    signal.signal(signal.SIGTERM, _raise_interrupt)
    sys.unraisablehook = _quiet_interrupts(sys.unraisablehook)
    try:
        from agenteval.cli import main as cli_main
    except KeyboardInterrupt:
        _interrupted()
    if _pending:  # the interrupt landed where Python swallows exceptions
        _interrupted()
    try:
        cli_main()
    except KeyboardInterrupt:
        _interrupted()


def _raise_interrupt(signum: int, frame: FrameType | None) -> None:
    _pending.append(signum)
    raise KeyboardInterrupt


def _quiet_interrupts(previous: Any) -> Any:
    """An unraisable hook that drops a KeyboardInterrupt raised inside a weakref callback or
    ``__del__``: the signal is remembered and acted on at the next check, not printed."""

    def hook(unraisable: Any) -> None:
        if isinstance(unraisable.exc_value, KeyboardInterrupt):
            return
        previous(unraisable)

    return hook


def _interrupted() -> None:
    for stream, text in ((sys.stdout, ""), (sys.stderr, "interrupted\n")):
        try:
            stream.write(text)
            stream.flush()
        except (OSError, ValueError):
            pass
    # os._exit: the interpreter's own shutdown could be interrupted again mid-way.
    os._exit(EXIT_INTERRUPTED)


__all__ = ["main"]
