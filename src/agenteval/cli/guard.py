"""What every command shares at its edges: the error console, problem lines, and the guard.

:func:`guard` runs a command's body and turns every error into one-line messages and an
exit code: bad input is ``file: json.path: problem (hint)`` lines and exit 2, an error of
ours exit 4 with a traceback only under ``--verbose``, a signal one "interrupted" line and
exit 3.

Tested in tests/cli/test_commands.py (and the other end-to-end tests in tests/cli/).
"""

from __future__ import annotations

import traceback
from collections.abc import Callable, Sequence
from typing import NoReturn, TypeVar

import typer
from rich.console import Console
from rich.markup import escape as markup_escape

from agenteval import entry
from agenteval.errors import AgentEvalError, ConfigError, Problem
from agenteval.exit_codes import ExitCode
from agenteval.inputs.safe_text import escape_control
from agenteval.report.log_console import make_console
from agenteval.report.run_notes import RunNotes, count_text

T = TypeVar("T")


def stderr() -> Console:
    """The console of errors and warnings (stderr, no highlighting, long lines kept whole)."""
    # No emoji codes: ``openai:m: …`` in a message is text, not ``:m:`` (Ⓜ).
    return make_console(stderr=True, highlight=False, soft_wrap=True, emoji=False)


def stdout() -> Console:
    """The console of results (stdout, no highlighting, no emoji codes)."""
    return make_console(highlight=False, emoji=False)


def print_problems(problems: list[Problem], *, warning: bool = False) -> None:
    """One ``error:`` (or ``warning:``) line per problem, input text escaped."""
    err = stderr()
    label = "warning" if warning else "error"
    style = "yellow" if warning else "red"
    for problem in problems:
        # The problem quotes input text: no markup in it, no control characters.
        text = markup_escape(escape_control(str(problem)))
        err.print(f"[{style}]{label}:[/{style}] {text}", markup=True, highlight=False)


def print_warnings(warnings: list[Problem]) -> RunNotes:
    """Print ``warnings`` (never hidden; a flood of one kind collapsed); return them as notes."""
    notes = RunNotes.of(warnings)
    print_problems(list(notes.warnings), warning=True)
    return notes


def warnings_part(count: int) -> str:
    """`` · 2 warnings`` for a verdict line ("" without any)."""
    return f" · {count_text(count)}" if count else ""


def bad_input(
    problems: list[Problem],
    warnings: Sequence[Problem] = (),
    tracebacks: Sequence[BaseException] = (),
) -> NoReturn:
    """Bad input, however found (a file, a flag, the command line itself): the
    ``tracebacks`` asked for with --verbose, an ``error:`` line per problem, the warnings
    found beside them, and the ``N problems found.`` line; exit 2."""
    for cause in tracebacks:
        traceback.print_exception(cause)
    # The errors first (they are why nothing ran), then the warnings found beside them.
    print_problems(problems)
    _problems_found(len(problems), print_warnings(list(warnings)).warning_count)


def _problems_found(count: int, warnings: int = 0) -> NoReturn:
    """The line that ends every bad-input report (``1 problem found.``); exit 2."""
    stderr().print(f"{count} problem{'s' if count != 1 else ''} found{warnings_part(warnings)}.")
    raise typer.Exit(ExitCode.BAD_INPUT) from None


def guard(verbose: bool, action: Callable[[], T]) -> T:
    """Run a command body, turning every error into one-line messages and an exit code."""
    try:
        return action()
    except ConfigError as exc:
        bad_input(exc.problems, exc.warnings, exc.causes if verbose else ())
    except AgentEvalError as exc:
        if exc.exit_code == ExitCode.INTERNAL_ERROR:
            internal_error(exc, verbose)
        if verbose:
            traceback.print_exc()
        # The message may quote input text: printed as text, never as markup.
        stderr().print(f"error: {escape_control(str(exc))}", markup=False)
        if exc.exit_code == ExitCode.BAD_INPUT:  # a store that cannot be opened, …
            _problems_found(1)
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


def internal_error(exc: Exception, verbose: bool) -> NoReturn:
    """An exception nobody raised on purpose: say it is our bug, exit 4."""
    # The exception's text may quote input (rich's MarkupError quotes the markup it refused):
    # printed as text, or this handler raises the same error again.
    stderr().print(
        f"internal error: {type(exc).__name__}: {escape_control(str(exc))} "
        "(this is a bug in agenteval)",
        markup=False,
    )
    if verbose:
        traceback.print_exc()
    else:
        stderr().print("(run with --verbose for the traceback)")
    raise typer.Exit(ExitCode.INTERNAL_ERROR) from None


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
