"""``agenteval report --html FILE``: one offline HTML page of saved runs, or the store's trend.

Tested in tests/report/test_html.py, tests/cli/test_report_writes.py and
tests/cli/test_store_history.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer

from agenteval.cli.flags import settings_command
from agenteval.cli.guard import print_warnings, stdout
from agenteval.cli.options import (
    TREND_LAST,
    StoreOpt,
    VerboseOpt,
    WroteQuietOpt,
    shared_option,
    side_option,
)
from agenteval.cli.saved_results import given_once, pinned_name, stored_inputs
from agenteval.errors import ConfigError, Problem
from agenteval.inputs.safe_text import wrote_line
from agenteval.report.html_inputs import ReportRun, load_runs
from agenteval.report.output_paths import check_outputs, write_refused


@dataclass(frozen=True, slots=True)
class ReportSettings:
    """The flags of ``agenteval report``."""

    html: Annotated[
        Path,
        typer.Option("--html", metavar="FILE", help="Where to write the HTML report."),
    ]
    results: Annotated[
        tuple[Path, ...],
        typer.Argument(
            metavar="RESULT",
            help="Result files, --json run documents, directories or stored runs (@latest, "
            "@RUN_ID, @branch:NAME); two runs are compared.",
            show_default=False,
        ),
    ] = ()
    base: Annotated[
        tuple[Path, ...],
        side_option(
            "BASE",
            "BASE result file(s) or run document to compare the results with: every "
            "file after --base up to the next option.",
        ),
    ] = ()
    tolerance: Annotated[
        float,
        shared_option(
            "tolerance", "In a comparison, score drops up to this much are not regressions."
        ),
    ] = 0.0
    title: Annotated[
        str, typer.Option("--title", metavar="TEXT", help="Page title (default: the eval sets).")
    ] = ""
    store: StoreOpt = None
    trend_page: Annotated[
        bool,
        typer.Option(
            "--trend",
            help="The store's trend page instead: metric charts, change points, flaky cases.",
        ),
    ] = False
    metric: Annotated[str | None, shared_option("metric", "--trend: only this metric.")] = None
    trend_evalset: Annotated[
        str | None, shared_option("evalset-id", "--trend: only this eval set.")
    ] = None
    branch: Annotated[str | None, shared_option("branch", "--trend: only this branch.")] = None
    last: Annotated[int, shared_option("last", "--trend: the last N finished runs.", least=1)] = (
        TREND_LAST
    )
    labels: Annotated[
        Path | None,
        typer.Option(
            "--labels",
            metavar="FILE",
            help="Add a Calibration page: these human labels against the run's judge "
            "verdicts, as agenteval calibrate compares them.",
        ),
    ] = None
    quiet: WroteQuietOpt = False
    verbose: VerboseOpt = False


def write_html_report(settings: ReportSettings) -> int:
    """Write the page the settings ask for; 0 (problems raise)."""
    problems = check_outputs({}, {"--html": settings.html})
    if problems:
        raise ConfigError(problems)
    if settings.trend_page:
        return _trend_page(settings)
    if not settings.results:
        raise ConfigError([Problem("report", "", "give result files or stored runs", "or --trend")])
    base, results = list(settings.base), list(settings.results)
    given_once(base, "BASE")
    given_once(results)
    # Results are read case by case while the page is written: the stored ones stay open.
    pinned: dict[str, str] = {}
    sides = (("BASE", len(base)), ("", len(results)))
    with stored_inputs(base + results, settings.store, pinned, sides) as paths:
        cut = len(base)
        runs = load_runs(paths[:cut]) + load_runs(paths[cut:]) if base else load_runs(paths)
        # A stored run is shown and explained by its @RUN_ID: its copy here is gone after
        # the command, and @latest names another run after the next one.
        for run in runs:
            run.sources = _pinned_names(run.sources, pinned)
            if len(run.sources) == 1 and run.sources[0] in pinned.values():
                run.label = run.sources[0]
        # What `agenteval explain` reads: the paths as given, or the compared run's own files.
        given = [str(path) for path in paths[cut:]]
        source = runs[-1].sources if len(runs) == 2 else _pinned_names(given, pinned)
        return _write_page(settings, runs, source)


def _pinned_names(sources: list[str], pinned: dict[str, str]) -> list[str]:
    """``sources`` with every file of a stored run's copy named by the run (once)."""
    return list(dict.fromkeys(pinned_name(source, pinned) for source in sources))


def _trend_page(settings: ReportSettings) -> int:
    if settings.results or settings.base or settings.labels:
        raise ConfigError(
            [
                Problem(
                    "report --trend", "", "reads the store only; give no result files or --labels"
                )
            ]
        )
    from agenteval.store.commands import trend_filters, write_trend_page

    filters = trend_filters(settings.metric, settings.trend_evalset, settings.branch, settings.last)
    written = write_trend_page(settings.store, settings.html, filters, title=settings.title)
    if not settings.quiet:
        stdout().print(wrote_line(written), highlight=False, soft_wrap=True, markup=False)
    return 0


def _write_page(settings: ReportSettings, runs: list[ReportRun], source: list[str]) -> int:
    if settings.base and len(runs) != 2:
        raise ConfigError([Problem("report", "--base", "give one run on each side to compare")])
    if len(runs) > 2:
        raise ConfigError(
            [
                Problem(
                    "report",
                    "",
                    f"{len(runs)} runs given; a report shows one run or compares two",
                    "give result files of one run, or two --json run documents",
                )
            ]
        )
    html = settings.html
    calibration = _calibration(settings, runs, source)
    with write_refused(html):
        # The page shows explain's steps under each failing metric: loading explain plugs
        # them in (report sits below explain), as for run --html.
        import agenteval.explain  # noqa: F401
        from agenteval.report.html import write_report  # jinja2: loaded only for a page

        write_report(
            html, runs, title=settings.title, tolerance=settings.tolerance,
            pages=[calibration[0]] if calibration else [],
        )  # fmt: skip
    print_warnings([warning for run in runs for warning in run.warnings], verbose=settings.verbose)
    if not settings.quiet:
        stdout().print(wrote_line(html), highlight=False, soft_wrap=True, markup=False)
    if calibration is None:
        return 0
    from agenteval.calibrate.command import report_gaps
    from agenteval.cli.guard import stderr

    return report_gaps(calibration[1], [], stderr(), ("on its Calibration page",) * 2)


def _calibration(
    settings: ReportSettings, runs: list[ReportRun], source: list[str]
) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """The Calibration page and its calibration, when --labels asks for one (``source``:
    what its ``agenteval explain`` lines read)."""
    if settings.labels is None:
        return None
    from agenteval.calibrate.report_page import calibration_page

    return calibration_page(runs, settings.labels, source)


html_report = settings_command(
    ReportSettings,
    write_html_report,
    doc="Write one offline HTML report of saved results; two runs become a comparison.",
    side_flag="--base",
)

__all__ = ["ReportSettings", "html_report", "write_html_report"]
