"""The ``agenteval`` console script: a signal at any moment ends with one "interrupted" line.

The guard is this module's first statement and imports nothing (``_signal`` is built in and
loaded with the interpreter, ``sys`` too; the package's ``__init__`` imports nothing either),
so from the first line of agenteval's own code a SIGINT or SIGTERM is caught:

* while the command line is imported (typer, rich, pydantic: a few hundred milliseconds) and
  parsed: ``KeyboardInterrupt``, caught below or by ``cli.guard.guard`` → "interrupted", exit 3
  (so is any other exception that escapes with a signal pending: see
  :func:`interrupt_pending`);
* while a command runs, that command's policy decides (``run_signals.py`` for ``run``);
* once the command is over (its exit code known, its reports written) and the process is on
  its way out — ``main``'s own frame, or anything after it: runpy, atexit — the handler ends
  the process on the spot with the line and exit 3 instead of raising into code that would
  print a traceback or die by the signal (exit status 130).

"Exactly one line": commands that print their own interrupted line (the run's INTERRUPTED
verdict, ``_guard``'s "interrupted") call :func:`note_interrupted`, and the line is not
printed twice.  A signal before this module's first line — the interpreter's own start-up,
``site``, runpy locating the package — is the interpreter's, as for any Python program.

Tested in tests/cli/test_signal_trials.py (signals at chosen imports, right after the summary).
"""

import _signal  # type: ignore[import-not-found]  # built in: importing it runs no code
import os  # loaded by the interpreter's start-up (site, runpy) already
import sys

EXIT_INTERRUPTED = 3

_pending: list[int] = []
# running: inside main's try (a KeyboardInterrupt is caught there); done: the command is over.
_state = {"running": False, "done": False, "reported": False}
# The command's exit status (SystemExit.code); 1 until known, as for an uncaught exception.
_status: list[object] = [1]


def _flush(stream: "Any", text: str) -> None:
    try:
        stream.write(text)
        stream.flush()
    except (OSError, ValueError, RuntimeError):  # RuntimeError: a reentrant flush
        pass


def _interrupted() -> None:
    _flush(sys.stdout, "")
    _flush(sys.stderr, "" if _state["reported"] else "interrupted\n")
    # os._exit: the interpreter's own shutdown could be interrupted again mid-way.
    os._exit(EXIT_INTERRUPTED)


def _on_signal(signum: int, frame: "FrameType | None") -> None:
    _pending.append(signum)
    running = _state["running"] and not _state["done"]
    if not running or (frame is not None and frame.f_code is _MAIN_CODE):
        # Before the command line runs or once it is over: nothing to save or clean up, and
        # no handler above would catch the exception.
        _interrupted()
    raise KeyboardInterrupt


_MAIN_CODE: object = None  # main's code object, once main is defined
_signal.signal(_signal.SIGINT, _on_signal)
# SIGTERM as SIGINT until a command installs its own policy: a clean stop that removes a
# half-written temp file, instead of death on the spot.
_signal.signal(_signal.SIGTERM, _on_signal)

import atexit  # noqa: E402  (after the guard: a first import may read a file)
import contextlib  # noqa: E402

TYPE_CHECKING = False  # typing is not imported before the guard is in place
if TYPE_CHECKING:
    from types import FrameType
    from typing import Any


def main() -> None:
    """Run the command line; a signal before, during or after it exits 3 with one line."""
    # Registered first, so it runs last: after the other exit functions the process ends
    # with the command's status, skipping the interpreter's teardown of every module (tens
    # of milliseconds in which the signal handlers are already reset to the defaults).
    atexit.register(_leave)
    sys.unraisablehook = _quiet_interrupts(sys.unraisablehook)
    try:
        _state["running"] = True
        # No collection while the command line is imported: its tens of thousands of objects
        # (modules, classes, pydantic schemas) all live until the process ends, so the
        # collections the imports set off freed nothing; frozen, later full collections skip
        # them too.  (gc is built in: importing it reads no file.)
        import gc

        gc.disable()
        from agenteval.cli import main as cli_main

        gc.freeze()
        gc.enable()

        if _pending:  # the interrupt landed where Python swallows exceptions
            raise KeyboardInterrupt
        cli_main()
    except KeyboardInterrupt:
        _interrupted()
    except SystemExit as exc:
        _state["done"] = True
        _status[0] = exc.code
        if _pending:  # e.g. typer turned a KeyboardInterrupt into exit status 130
            _interrupted()
        raise
    except BaseException:
        if _pending:  # the interrupt came back as another exception (see interrupt_pending)
            _interrupted()
        raise
    _state["done"] = True
    _status[0] = 0


_MAIN_CODE = main.__code__


def note_interrupted() -> None:
    """A command printed its own "interrupted" line: the exit path does not print another."""
    _state["reported"] = True


def interrupt_handled() -> None:
    """The command ended on the signal as it should (``run --watch``): exit with its own status."""
    _pending.clear()


def interrupt_pending() -> bool:
    """Whether a signal came while the command ran (and was not handled as its normal end).

    Compiled code that calls back into Python may turn the ``KeyboardInterrupt`` raised there
    into an exception of its own: pydantic-core, building a model's validator while a command
    imports it, reports ``SchemaError: ... KeyboardInterrupt``.  Such an error is the signal.
    """
    return bool(_pending)


def interrupt_reported() -> bool:
    """Whether an "interrupted" line was printed already."""
    return _state["reported"]


def _quiet_interrupts(previous: "Any") -> "Any":
    """An unraisable hook that drops a KeyboardInterrupt raised inside a weakref callback or
    ``__del__``: the signal is remembered and acted on at the next check, not printed."""

    def hook(unraisable: "Any") -> None:
        if isinstance(unraisable.exc_value, KeyboardInterrupt):
            return
        previous(unraisable)

    return hook


def _leave() -> None:
    """The last exit function: flush the two streams and end with the command's status."""
    status = _status[0]
    if isinstance(status, str):  # sys.exit("message"), as the interpreter handles it
        _flush(sys.stderr, status + "\n")
        status = 1
    _flush(sys.stdout, "")
    _flush(sys.stderr, "")
    # Blocking the two signals runs the handler of one already received (pthread_sigmask
    # checks for them on its way out; ours then exits 3 with the line); from here on the
    # status is decided, and closing the two streams shows it (a reader sees their end).
    _signal.pthread_sigmask(_signal.SIG_BLOCK, {_signal.SIGINT, _signal.SIGTERM})
    for fd in (1, 2):
        with contextlib.suppress(OSError):
            os.close(fd)
    os._exit(status if isinstance(status, int) else 0 if status is None else 1)


__all__ = ["interrupt_reported", "main", "note_interrupted"]
