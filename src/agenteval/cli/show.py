"""``agenteval show``: render saved results exactly like a live run.

Tested in tests/cli/test_commands.py and tests/cli/test_result_readers.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Annotated

import typer

from agenteval.cli.guard import exit_with, stdout
from agenteval.cli.options import QuietOpt, StoreOpt, VerboseOpt
from agenteval.cli.saved_results import saved_exit_code, saved_unfinished, stored_inputs
from agenteval.errors import Problem
from agenteval.inputs.result_inputs import raise_problems, read_parts
from agenteval.report import console as console_report
from agenteval.report.gc_pause import collector_paused
from agenteval.report.run_notes import RunNotes
from agenteval.report.set_tally import source_report


@dataclass(frozen=True, slots=True)
class ShowSettings:
    """The flags of ``agenteval show``."""

    results: tuple[Path, ...]
    max_shown: int = console_report.DEFAULT_MAX_SHOWN
    store: str | None = None
    quiet: bool = False
    verbose: bool = False


def show(
    results: Annotated[
        list[Path],
        typer.Argument(
            help="Result files (*.evalset_result.json, ours or trpc-agent-go's), run documents, "
            "or stored runs (@latest, @RUN_ID, @branch:NAME)."
        ),
    ],
    max_shown: Annotated[
        int,
        typer.Option(
            "--max-shown",
            metavar="N",
            min=0,
            help="Cases per eval set printed in detail (0 = all).",
        ),
    ] = console_report.DEFAULT_MAX_SHOWN,
    store: StoreOpt = None,
    quiet: QuietOpt = False,
    verbose: VerboseOpt = False,
) -> None:
    """Render saved result files exactly like a live run; exit code as the run would have had."""
    settings = ShowSettings(tuple(results), max_shown, store, quiet, verbose)
    exit_with(verbose, partial(show_results, settings))


def show_results(settings: ShowSettings) -> int:
    """Print the saved results as the run printed them; the exit code that run had."""
    with stored_inputs(list(settings.results), settings.store) as paths:  # read case by case
        parts = read_parts(paths)
        problems: list[Problem] = []
        with collector_paused():  # cases are read and tallied one at a time
            reports = [
                source_report(
                    part,
                    max_shown=settings.max_shown or None,
                    quiet=settings.quiet,
                    verbose=settings.verbose,
                    problems=problems,
                )
                for part in parts
            ]
    raise_problems(problems)
    heads = [part.head for part in parts]
    console_report.render_reports(
        stdout(), reports, notes=RunNotes(unfinished=saved_unfinished(heads))
    )
    return saved_exit_code(heads, reports)


__all__ = ["ShowSettings", "show", "show_results"]
