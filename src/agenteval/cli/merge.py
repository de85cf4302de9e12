"""``agenteval merge``: join shard results into the result of one full run.

Tested in tests/cli/test_merge.py, tests/cli/test_commands.py and tests/results/test_merging.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Annotated

import typer

from agenteval.checks.documents import load_checked_evalset
from agenteval.cli.guard import exit_with, print_warnings, stdout
from agenteval.cli.options import QuietOpt, StoreOpt, VerboseOpt
from agenteval.cli.saved_results import given_once, refuse_no_cases, saved_exit_code, stored_inputs
from agenteval.errors import ConfigError, Problem
from agenteval.inputs.loading import evalset_id_for, expand_evalset_paths
from agenteval.inputs.result_inputs import ResultPart, read_parts, reading_warnings
from agenteval.inputs.safe_text import wrote_line
from agenteval.report import console as console_report
from agenteval.report.merge_writer import MERGE_VIEW, spool_merge, write_merged
from agenteval.report.merge_writer import close as close_spools
from agenteval.report.output_paths import check_output_dir, check_output_file, write_refused
from agenteval.report.run_notes import RunNotes
from agenteval.results.fingerprints import digest_file
from agenteval.results.merging import Completeness, EvalSetFile, MergedSet, plan_merge


@dataclass(frozen=True, slots=True)
class MergeSettings:
    """The flags of ``agenteval merge``."""

    parts: tuple[Path, ...]
    out: Path
    evalset: tuple[str, ...] = ()
    app_name: str = "agenteval"
    allow_partial: bool = False
    store: str | None = None
    quiet: bool = False
    verbose: bool = False


def merge(
    parts: Annotated[
        list[Path],
        typer.Argument(
            metavar="SHARD", help="Shard result files (or stored runs, @RUN_ID) to join."
        ),
    ],
    out: Annotated[
        Path,
        typer.Option(
            "--output",
            "-o",
            metavar="DIR",
            help="Where to write the merged result (a file, or a directory for one file per eval set).",
        ),
    ],
    evalset: Annotated[
        list[str],
        typer.Option(
            "--evalset", metavar="PATH", help="Eval set file(s) giving the case order (optional)."
        ),
    ] = [],  # noqa: B006 - typer reads defaults, it never mutates them
    app_name: Annotated[
        str,
        typer.Option(
            "--app", metavar="NAME", help="Application name for result file names in a directory."
        ),
    ] = "agenteval",
    allow_partial: Annotated[
        bool,
        typer.Option(
            "--allow-partial",
            help="Merge although shards (or, with --evalset, cases) are missing; the merge is "
            "marked partial and exits 3.",
        ),
    ] = False,
    store: StoreOpt = None,
    quiet: QuietOpt = False,
    verbose: VerboseOpt = False,
) -> None:
    """Join shard results into one result whose summary equals a single full run."""
    settings = MergeSettings(
        tuple(parts), out, tuple(evalset), app_name, allow_partial, store, quiet, verbose
    )
    exit_with(verbose, partial(merge_results, settings))


def merge_results(settings: MergeSettings) -> int:
    """Write the merged result; the exit code the full run would have had."""
    given_once(settings.parts)
    # Checked before the shards are read, as run checks its outputs: -o naming a file was an
    # internal error (FileExistsError, exit 4) once every shard had been read and spooled.
    check = check_output_file if _one_file(settings.out) else check_output_dir
    problems = check("--output", settings.out)
    if problems:
        raise ConfigError(problems)
    with stored_inputs(list(settings.parts), settings.store) as inputs:  # read case by case
        return _merged(settings, inputs)


def _one_file(out: Path) -> bool:
    """Whether ``--output`` is the merged result itself (``*.json``, not a directory), not
    the directory of one file per eval set."""
    return out.suffix == ".json" and not out.is_dir()


def _eval_sets(specs: Sequence[str]) -> tuple[dict[str, EvalSetFile], list[Problem]]:
    """The --evalset files by eval set id, each checked as validate checks it, and their
    warnings; ConfigError lists the problems of them all."""
    paths, problems = expand_evalset_paths(specs)
    eval_sets: dict[str, EvalSetFile] = {}
    warnings: list[Problem] = []
    for path in paths:
        try:
            evalset, found = load_checked_evalset(path)
        except ConfigError as exc:
            problems.extend(exc.problems)
            warnings.extend(exc.warnings)
            continue
        warnings.extend(found)
        ids = [case.eval_id for case in evalset.cases()]
        eval_sets[evalset_id_for(path)] = EvalSetFile(str(path), digest_file(path), ids)
    if problems:
        raise ConfigError(problems, warnings)
    return eval_sets, warnings


def _merged(settings: MergeSettings, inputs: list[Path]) -> int:
    loaded = read_parts(inputs)
    try:
        planned, single, evalset_warnings = _planned(settings, loaded)
    except ConfigError as exc:
        # The warnings found reading the files so far are said beside a refusal: never hidden.
        found = reading_warnings(loaded)
        raise ConfigError(exc.problems, [*found, *exc.warnings], exc.causes) from None
    out = settings.out
    # --verbose: the printed cases' passing turns and details too, as ``run -q -v``.
    view = MERGE_VIEW._replace(verbose=settings.verbose)
    spooled = spool_merge(planned, app_name=None if single else settings.app_name, view=view)
    try:
        with write_refused(out):
            written = write_merged(spooled, out)
    finally:
        close_spools(spooled)
    console = stdout()
    # The merged run's failures and summary line; --quiet leaves out the written paths.
    reports = [item.report for item in spooled]
    # Read after the cases: a case's own warnings are found as it is read.
    shown = print_warnings(evalset_warnings + reading_warnings(loaded), verbose=settings.verbose)
    unfinished = ["interrupted"] if any(r.partial for r in reports) else []
    notes = RunNotes(shown.warnings, shown.warning_count, unfinished)
    console_report.render_reports(console, reports, notes=notes)
    if not settings.quiet:
        for path in written:
            console.print(wrote_line(path), highlight=False, soft_wrap=True, markup=False)
    return saved_exit_code([item.head for item in planned], reports)


def _planned(
    settings: MergeSettings, loaded: list[ResultPart]
) -> tuple[list[MergedSet], bool, list[Problem]]:
    """The merge planned (or refused): its eval sets, whether ``--output`` is one file, and
    the ``--evalset`` files' warnings; ``--allow-partial``'s are printed here."""
    refuse_no_cases("merge", (loaded, settings.parts))
    complete = Completeness(allow_partial=settings.allow_partial)
    complete.eval_sets, evalset_warnings = _eval_sets(settings.evalset)
    order = {key: value.eval_ids for key, value in complete.eval_sets.items()}
    try:
        planned = plan_merge(loaded, case_order=order, complete=complete)
    except ConfigError as exc:
        raise ConfigError(exc.problems, [*evalset_warnings, *exc.warnings], exc.causes) from None
    # What --allow-partial let through, said even with --quiet (the merge is not green).
    print_warnings(complete.warnings, verbose=settings.verbose)
    out = settings.out
    single = _one_file(out)
    if single and len(planned) != 1:
        problem = Problem(str(out), "", f"{len(planned)} eval sets to write; give a directory")
        raise ConfigError([problem], evalset_warnings)
    return planned, single, evalset_warnings


__all__ = ["MergeSettings", "merge", "merge_results"]
