"""``agenteval show``: render saved results exactly like a live run.

Tested in tests/cli/test_commands.py and tests/cli/test_result_readers.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer

from agenteval.cli.flags import settings_command
from agenteval.cli.guard import print_problems, stdout
from agenteval.cli.options import QuietOpt, StoreOpt, VerboseOpt, shared_option
from agenteval.cli.saved_results import (
    given_once,
    saved_exit_code,
    saved_unfinished,
    saved_warnings,
    stored_inputs,
)
from agenteval.errors import Problem
from agenteval.inputs.result_inputs import raise_problems, read_parts, reading_warnings
from agenteval.report import console as console_report
from agenteval.report.gc_pause import collector_paused
from agenteval.report.run_notes import SHOWN_SAVED, RunNotes
from agenteval.report.set_tally import source_report
from agenteval.results.merging import repeated_cases


@dataclass(frozen=True, slots=True)
class ShowSettings:
    """The flags of ``agenteval show``."""

    results: Annotated[
        tuple[Path, ...],
        typer.Argument(
            metavar="RESULT",
            help="Result files (*.evalset_result.json, ours or trpc-agent-go's), run documents, "
            "or stored runs (@latest, @RUN_ID, @branch:NAME).",
        ),
    ]
    max_shown: Annotated[
        int, shared_option("max-shown", "Cases per eval set printed in detail (0 = all).")
    ] = console_report.DEFAULT_MAX_SHOWN
    store: StoreOpt = None
    quiet: QuietOpt = False
    verbose: VerboseOpt = False


def show_results(settings: ShowSettings) -> int:
    """Print the saved results as the run printed them; the exit code that run had."""
    given_once(settings.results)
    with stored_inputs(list(settings.results), settings.store) as paths:  # read case by case
        parts = read_parts(paths)
        # A directory holding two runs' files of one eval set: each case counted twice
        # ("6 of 8 cases passed · 2 eval sets" for one set of 4), as diff and merge refuse.
        raise_problems(repeated_cases(parts, "show each run's results on their own"))
        problems: list[Problem] = []
        view = console_report.ConsoleView.of_flags(
            quiet=settings.quiet, verbose=settings.verbose, max_shown=settings.max_shown
        )
        with collector_paused():  # cases are read and tallied one at a time
            reports = [source_report(part, view=view, problems=problems) for part in parts]
    # The run's own warnings (a run document keeps them) first, as the run printed them.
    saved = saved_warnings(parts)
    found = reading_warnings(parts)
    raise_problems(problems, [*(p for lines in saved.values() for p in lines), *found])
    heads = [part.head for part in parts]
    # A document's lines bounded, each counting line read as its count (run_notes).
    limit = None if settings.verbose else SHOWN_SAVED
    notes = RunNotes.of_saved(saved, found, saved_unfinished(heads), limit=limit)
    print_problems(list(notes.warnings), warning=True)
    console_report.render_reports(stdout(), reports, notes=notes)
    return saved_exit_code(heads, reports)


show = settings_command(
    ShowSettings,
    show_results,
    doc="Render saved result files exactly like a live run; exit code as the run would have had.",
)

__all__ = ["ShowSettings", "show", "show_results"]
