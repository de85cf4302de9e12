"""The ``agenteval`` console script: a Ctrl-C while the tool is still importing is not a traceback.

Importing the command line takes a few hundred milliseconds (typer, rich, pydantic); a
signal in that window used to print a ``KeyboardInterrupt`` traceback.  This module
imports nothing heavy itself, so the guard is in place from the first moment.
"""

from __future__ import annotations

import os
import sys

EXIT_INTERRUPTED = 3


def main() -> None:
    """Run the command line; an interrupt during start-up exits 3 with one line."""
    try:
        from agenteval.cli import main as cli_main
    except KeyboardInterrupt:
        _interrupted()
    try:
        cli_main()
    except KeyboardInterrupt:
        _interrupted()


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
