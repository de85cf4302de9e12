"""``agenteval calibrate RESULT --labels FILE`` (or ``--evalset PATH --metrics PATH``, scored
on the spot from the judge cache): flags → CalibrateSettings → calibrate/.

Exit codes in calibrate/command.py. Tested in tests/calibrate/test_calibrate.py and
tests/calibrate/test_spot.py.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from agenteval.calibrate.command import CalibrateSettings, run_calibrate
from agenteval.calibrate.spot import SpotScoring
from agenteval.cli.guard import exit_with, print_warnings
from agenteval.cli.options import EvalsetOpt, MetricsOpt, PluginOpt, VerboseOpt

_CACHE = "With --evalset: the judge cache ($AGENTEVAL_CACHE)."


def calibrate_command(
    labels: Annotated[
        Path,
        typer.Option(
            "--labels",
            metavar="FILE",
            help="Human labels: JSONL (or CSV) lines of evalSetId, evalId, metricName, "
            "invocationId?, rubricId?, runId? and label pass|fail, score or category.",
        ),
    ],
    result: Annotated[
        Path | None,
        typer.Argument(
            metavar="[RESULT]",
            help="A result file, run document or directory (or --evalset instead).",
            show_default=False,
        ),
    ] = None,
    evalset: EvalsetOpt = [],  # noqa: B006 - typer reads defaults, it never mutates them
    metrics: MetricsOpt = None,
    cache: Annotated[str | None, typer.Option("--cache", metavar="FILE", help=_CACHE)] = None,
    plugin: PluginOpt = [],  # noqa: B006
    as_json: Annotated[bool, typer.Option("--json", help="Print the calibration as JSON.")] = False,
    html: Annotated[
        Path | None,
        typer.Option("--html", metavar="FILE", help="Also write the calibration as an HTML page."),
    ] = None,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the κ bootstrap interval.")] = 0,
    verbose: VerboseOpt = False,
) -> None:
    """How well judge metrics agree with human labels: accuracy, κ, confusion, suggested threshold.

    With --evalset instead of a RESULT, the labelled cases are scored on the spot, judge
    replies from the cache only.
    """
    spot_flags = evalset or metrics is not None or cache is not None or plugin
    # Any on-the-spot flag makes it spot scoring: without --evalset that is an error, not ignored.
    spot = (
        SpotScoring(tuple(evalset or ()), metrics, cache, tuple(plugin or ()))
        if spot_flags
        else None
    )
    settings = CalibrateSettings(result, labels, as_json, html, seed, spot)
    out = Console(highlight=False, soft_wrap=True)
    err = Console(stderr=True, highlight=False, soft_wrap=True)
    exit_with(verbose, lambda: run_calibrate(settings, out, err, print_warnings))
