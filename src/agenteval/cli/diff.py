"""``agenteval diff``: regressions and improvements between two results.

Tested in tests/cli/test_commands.py and tests/report/test_diff.py.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer

from agenteval.cli.flags import settings_command
from agenteval.cli.guard import print_warnings, stdout
from agenteval.cli.options import StoreOpt, VerboseOpt, shared_option, side_option
from agenteval.cli.saved_results import given_once, refuse_no_cases, stored_inputs
from agenteval.errors import ConfigError, Problem
from agenteval.exit_codes import ExitCode
from agenteval.inputs.result_inputs import ResultPart, raise_problems, read_parts, reading_warnings
from agenteval.report.gc_pause import collector_paused
from agenteval.results.merging import repeated_cases


@dataclass(frozen=True, slots=True)
class DiffSettings:
    """The flags of ``agenteval diff``."""

    base: Annotated[
        tuple[Path, ...],
        typer.Argument(
            metavar="BASE.json",
            help="BASE result file(s), then NEW after --new; or exactly two (a stored run "
            "@latest, @RUN_ID or @branch:NAME stands for a file).",
        ),
    ]
    new: Annotated[
        tuple[Path, ...],
        side_option(
            "NEW",
            "NEW result file(s) when comparing several files per side: every file "
            "after --new up to the next option.",
        ),
    ] = ()
    tolerance: Annotated[
        float, shared_option("tolerance", "Score drops up to this much are not regressions.")
    ] = 0.0
    json_out: Annotated[bool, shared_option("json", "Print the differences as JSON.")] = False
    store: StoreOpt = None
    verbose: VerboseOpt = False

    def sides(self) -> tuple[list[Path], list[Path]]:
        """The BASE and NEW files: after ``--new``, or exactly two arguments."""
        if self.new:
            return list(self.base), list(self.new)
        if len(self.base) == 2:
            return [self.base[0]], [self.base[1]]
        raise ConfigError(
            [Problem("diff", "", "give BASE.json NEW.json, or BASE files and --new NEW files")]
        )


def compare_results(settings: DiffSettings) -> int:
    """Print what changed between BASE and NEW; 3 when a side is partial (its run was cut
    short: what it did not score is not compared), else 1 when anything regressed, else 0."""
    # Imported here: other commands (a run's start-up) do not load the comparison.
    from agenteval.report.diff import diff_results, render_diff

    base_files, new_files = settings.sides()
    given_once(base_files, "BASE")
    given_once(new_files, "NEW")
    sides = (("BASE", len(base_files)), ("NEW", len(new_files)))
    with stored_inputs(
        base_files + new_files, settings.store, None, sides
    ) as paths:  # case by case
        cut = len(base_files)
        base_parts, new_parts = _read_sides(paths[:cut], paths[cut:])
        refuse_no_cases("compare", (base_parts, base_files), (new_parts, new_files))
        # A case twice on one side: diff would keep whichever file came last.
        once = "give each case and run once on each side of a diff"
        raise_problems(repeated_cases(base_parts, once) + repeated_cases(new_parts, once))
        problems: list[Problem] = []
        with collector_paused():  # cases are read and reduced one at a time
            changes = diff_results(base_parts, new_parts, settings.tolerance, problems=problems)
    warnings = reading_warnings([*base_parts, *new_parts])
    raise_problems(problems, warnings)
    print_warnings(warnings, verbose=settings.verbose)
    if changes.compared_cases == 0:
        raise ConfigError(
            [Problem("diff", "", "no case is in both BASE and NEW; nothing was compared")]
        )
    if settings.json_out:
        print(json.dumps(changes.to_json(), indent=2, ensure_ascii=False))
    else:
        render_diff(stdout(), changes)
    if changes.incomplete:  # INCOMPLETE first, as a run's verdict puts it before FAILED
        return ExitCode.INCOMPLETE
    return ExitCode.FAILED if changes.regressed else ExitCode.PASSED


def _read_sides(
    base: Sequence[Path], new: Sequence[Path]
) -> tuple[list[ResultPart], list[ResultPart]]:
    """Both sides read before either's problems are said: two missing files, two lines."""
    sides: list[list[ResultPart]] = []
    problems: list[Problem] = []
    warnings: list[Problem] = []
    causes: list[BaseException] = []
    for paths in (base, new):
        try:
            sides.append(read_parts(paths))
        except ConfigError as exc:
            sides.append([])
            problems += exc.problems
            warnings += exc.warnings
            causes += exc.causes
    if problems:
        raise ConfigError(problems, warnings, causes)
    return sides[0], sides[1]


diff = settings_command(
    DiffSettings,
    compare_results,
    doc="List regressions and improvements between two results. Exit 1 when anything "
    "regressed, 3 when a side is partial (its run was interrupted).",
    side_flag="--new",
)

__all__ = ["DiffSettings", "compare_results", "diff"]
