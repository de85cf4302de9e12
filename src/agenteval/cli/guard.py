"""What every command shares at its edges: the error console, problem lines, and the guard.

:func:`guard` runs a command's body and turns every error into one-line messages and an
exit code: bad input is ``file: json.path: problem (hint)`` lines and exit 2, an error of
ours exit 4 with a traceback only under ``--verbose``, a signal one "interrupted" line and
exit 3.

Tested in tests/cli/test_commands.py (and the other end-to-end tests in tests/cli/).
"""

from __future__ import annotations

import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import NoReturn, TypeVar

import typer
from rich.console import Console

from agenteval import entry
from agenteval.errors import AgentEvalError, ConfigError
from agenteval.exit_codes import ExitCode
from agenteval.inputs.safe_text import escape_control
from agenteval.report.log_console import make_console

# The error console's lines, shared with ``import`` (which sits below cli/): re-exported.
from agenteval.report.problem_console import (
    bad_input,
    bad_input_text,
    internal_error,
    print_problems,
    print_warnings,
    stderr,
    warnings_part,
)

T = TypeVar("T")


# True while a report is written to stdout (``run --json -``): the console of results
# then prints to stderr, so that stdout holds the report alone (``| jq`` reads it).
_STDOUT_TAKEN: ContextVar[bool] = ContextVar("stdout_taken", default=False)


@contextmanager
def stdout_taken(taken: bool) -> Iterator[None]:
    """While inside, :func:`stdout` is stderr when ``taken`` (a report goes to stdout)."""
    token = _STDOUT_TAKEN.set(taken)
    try:
        yield
    finally:
        _STDOUT_TAKEN.reset(token)


def stdout() -> Console:
    """The console of results (stdout, no highlighting, no emoji codes; stderr while a
    report takes stdout, :func:`stdout_taken`)."""
    return make_console(stderr=_STDOUT_TAKEN.get(), highlight=False, emoji=False)


def guard(verbose: bool, action: Callable[[], T]) -> T:
    """Run a command body, turning every error into one-line messages and an exit code."""
    try:
        return action()
    except ConfigError as exc:
        bad_input(exc.problems, exc.warnings, exc.causes if verbose else (), verbose=verbose)
    except AgentEvalError as exc:
        if exc.exit_code == ExitCode.INTERNAL_ERROR:
            internal_error(exc, verbose)
        if exc.exit_code == ExitCode.BAD_INPUT:  # a store that cannot be opened, …
            bad_input_text(str(exc), verbose)
        if verbose:
            traceback.print_exc()
        # The message may quote input text: printed as text, never as markup.
        stderr().print(f"error: {escape_control(str(exc))}", markup=False)
        raise typer.Exit(exc.exit_code) from None
    except KeyboardInterrupt:
        interrupted()
    except (typer.Exit, typer.Abort, BrokenPipeError):
        raise
    except Exception as exc:  # last resort: one line, traceback only on request
        if entry.interrupt_pending():  # the signal, come back as a library's own error
            interrupted()
        internal_error(exc, verbose)


def interrupted() -> NoReturn:
    """A signal ended the command: one "interrupted" line (unless printed already), exit 3."""
    if not entry.interrupt_reported():
        stderr().print("interrupted")
        entry.note_interrupted()
    raise typer.Exit(ExitCode.INCOMPLETE) from None


def exit_with(verbose: bool, action: Callable[[], int]) -> NoReturn:
    """Run ``action`` under :func:`guard` and exit with the code it returns."""
    raise typer.Exit(guard(verbose, action))


__all__ = [
    "bad_input",
    "exit_with",
    "guard",
    "internal_error",
    "print_problems",
    "print_warnings",
    "stderr",
    "stdout",
    "warnings_part",
]
