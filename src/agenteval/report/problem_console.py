"""Problem and warning lines on stderr, and the ending of a bad-input report: one home for
every command, the typer commands of cli/ (through cli/guard.py) and ``import`` alike.

Bad input is ``error: file: json.path: problem (hint)`` lines, the warnings found beside
them, then ``N problems found.`` and exit 2; a traceback only under ``--verbose``.

Tested in tests/cli/test_guard.py, tests/importers/test_command.py (``import``'s bad input)
and tests/cli/test_one_verdict.py (the bound on a run's printed warnings).
"""

from __future__ import annotations

import traceback
from collections.abc import Sequence
from typing import NoReturn

import typer
from rich.console import Console
from rich.markup import escape as markup_escape

from agenteval.errors import Problem
from agenteval.exit_codes import ExitCode
from agenteval.inputs.safe_text import escape_control
from agenteval.report.log_console import make_console
from agenteval.report.run_notes import SHOWN_SAVED, RunNotes, bounded, count_text


def stderr() -> Console:
    """The console of errors and warnings (stderr, no highlighting, long lines kept whole)."""
    # No emoji codes: ``openai:m: …`` in a message is text, not ``:m:`` (Ⓜ).
    return make_console(stderr=True, highlight=False, soft_wrap=True, emoji=False)


def print_problems(problems: Sequence[Problem], *, warning: bool = False) -> None:
    """One ``error:`` (or ``warning:``) line per problem, input text escaped."""
    err = stderr()
    label = "warning" if warning else "error"
    style = "yellow" if warning else "red"
    for problem in problems:
        # The problem quotes input text: no markup in it, no control characters.
        text = markup_escape(escape_control(str(problem)))
        err.print(f"[{style}]{label}:[/{style}] {text}", markup=True, highlight=False)


def print_warnings(warnings: Sequence[Problem], *, verbose: bool, kept: str = "") -> RunNotes:
    """Print ``warnings`` (never hidden; a flood of one kind collapsed); return them as notes.

    Every command prints its warnings here, under one bound: past :data:`SHOWN_SAVED`
    lines (all under ``verbose``) one more line counts the rest, saying where every one
    is kept (``kept``, e.g. the --json document) and that --verbose prints them (every
    command that prints warnings has it): 200 eval sets with one warning each print 51
    lines.  The notes keep them all, so verdict and count lines say the true total.
    """
    notes = RunNotes.of(warnings)
    shown, rest = bounded(notes.warnings, None if verbose else SHOWN_SAVED)
    print_problems(shown, warning=True)
    if rest:
        where = f"{kept}; " if kept else ""
        stderr().print(
            f"[yellow]warning:[/yellow] … and {rest:,} more warnings "
            f"({markup_escape(where)}--verbose prints them)",
            markup=True,
            highlight=False,
        )
    return notes


def warnings_part(count: int) -> str:
    """`` · 2 warnings`` for a verdict line ("" without any)."""
    return f" · {count_text(count)}" if count else ""


def bad_input(
    problems: list[Problem],
    warnings: Sequence[Problem] = (),
    tracebacks: Sequence[BaseException] = (),
    *,
    verbose: bool = False,
) -> NoReturn:
    """Bad input, however found (a file, a flag, the command line itself): the
    ``tracebacks`` asked for with --verbose, an ``error:`` line per problem, the warnings
    found beside them (bounded as :func:`print_warnings` bounds them; all under
    ``verbose``), and the ``N problems found.`` line; exit 2."""
    for cause in tracebacks:
        traceback.print_exception(cause)
    # The errors first (they are why nothing ran), then the warnings found beside them.
    print_problems(problems)
    problems_found(len(problems), print_warnings(warnings, verbose=verbose).warning_count)


def bad_input_text(text: str, verbose: bool) -> NoReturn:
    """Bad input said by an exception of its own (a store that cannot be opened, a file
    that cannot be read): its traceback under --verbose, ``error: text``, the count; exit 2."""
    if verbose:
        traceback.print_exc()
    # The message may quote input text: printed as text, never as markup.
    stderr().print(f"error: {escape_control(text)}", markup=False)
    problems_found(1)


def problems_found(count: int, warnings: int = 0) -> NoReturn:
    """The line that ends every bad-input report (``1 problem found.``); exit 2."""
    stderr().print(f"{count} problem{'s' if count != 1 else ''} found{warnings_part(warnings)}.")
    raise typer.Exit(ExitCode.BAD_INPUT) from None


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


__all__ = [
    "bad_input",
    "bad_input_text",
    "internal_error",
    "print_problems",
    "print_warnings",
    "problems_found",
    "stderr",
    "warnings_part",
]
