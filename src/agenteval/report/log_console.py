"""The rich Console every command prints through, friendly to CI logs when not on a terminal.

Off a terminal rich lays out for 80 columns, which wrapped evalIds and metric names in
the middle, and pads table lines with trailing spaces.  Here, without a TTY, the width
is ``$COLUMNS`` when set, else :data:`LOG_WIDTH`, and trailing blanks are cut from every
line written.  On a terminal nothing changes.

Tested in tests/report/test_log_console.py.
"""

from __future__ import annotations

import io
import os
import sys
from typing import IO, Any

from rich.console import Console

# Wide enough for long ids and reasons on one line; tables are as wide as their content.
LOG_WIDTH = 160


class TrimmedLines(io.TextIOBase):
    """A text stream that writes each finished line without its trailing blanks."""

    def __init__(self, target: IO[str]) -> None:
        self._target = target
        self._pending = ""

    def write(self, text: str) -> int:
        """Buffer ``text``; finished lines go out trimmed."""
        data = self._pending + text
        head, newline, tail = data.rpartition("\n")
        self._pending = tail
        if newline:
            lines = head.split("\n")
            self._target.write("\n".join(line.rstrip(" ") for line in lines) + "\n")
        return len(text)

    def flush(self) -> None:
        """Write an unfinished line as it is."""
        if self._pending:
            self._target.write(self._pending)
            self._pending = ""
        self._target.flush()

    def isatty(self) -> bool:
        """Never a terminal (only used off one)."""
        return False

    def fileno(self) -> int:
        """The target's descriptor."""
        return self._target.fileno()


class _ReaderMayLeave(Console):
    """A Console whose reader may leave (``agenteval run ... | head``) without ending the
    command: what it prints from then on goes nowhere, and the command goes on.

    rich's default exits 1 on the spot, so a run piped into ``head`` wrote none of its
    result files or reports (its finished work lost) and exited 1 whatever its verdict.
    """

    def on_broken_pipe(self) -> None:
        self.quiet = True  # rich drops whatever is printed from now on
        try:
            broken = self.file.fileno()
        except (AttributeError, OSError, ValueError):
            return
        # Python's own buffer may still hold text for the closed pipe: it goes nowhere too.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, broken)
        os.close(devnull)


def make_console(*, stderr: bool = False, **options: Any) -> Console:
    """A Console on stdout (or stderr): as rich makes it on a TTY, log-friendly otherwise."""
    stream = sys.stderr if stderr else sys.stdout
    try:
        terminal = stream.isatty()
    except (AttributeError, ValueError):
        terminal = False
    if terminal or "file" in options:
        return _ReaderMayLeave(stderr=stderr, **options)
    width = options.pop("width", None)
    if width is None and not os.environ.get("COLUMNS", "").isdigit():
        width = LOG_WIDTH
    trimmed: IO[str] = TrimmedLines(stream)  # type: ignore[assignment]
    return _ReaderMayLeave(file=trimmed, width=width, **options)


__all__ = ["LOG_WIDTH", "TrimmedLines", "make_console"]
