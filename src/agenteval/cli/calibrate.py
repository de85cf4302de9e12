"""``agenteval calibrate RESULT --labels FILE`` (or ``--evalset PATH --metrics PATH``, scored
on the spot from the judge cache): flags → CalibrateFlags → CalibrateSettings → calibrate/.

Exit codes in calibrate/command.py. Tested in tests/calibrate/test_calibrate.py and
tests/calibrate/test_spot.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Annotated

import typer

from agenteval.calibrate.command import CalibrateSettings, run_calibrate
from agenteval.calibrate.spot import SpotScoring
from agenteval.cli.flags import settings_command
from agenteval.cli.guard import print_warnings
from agenteval.cli.options import EvalsetOpt, MetricsOpt, PluginOpt, VerboseOpt, shared_option
from agenteval.report.log_console import make_console

_CACHE = "With --evalset: the judge cache ($AGENTEVAL_CACHE)."


@dataclass(frozen=True, slots=True)
class CalibrateFlags:
    """The flags of ``agenteval calibrate`` (``flags.py`` makes the command of them)."""

    labels: Annotated[
        Path,
        typer.Option(
            "--labels",
            metavar="FILE",
            help="Human labels: JSONL (or CSV) lines of evalSetId, evalId, metricName, "
            "invocationId?, rubricId?, runId? and label pass|fail, score or category.",
        ),
    ]
    result: Annotated[
        Path | None,
        typer.Argument(
            metavar="RESULT",
            help="A result file, run document or directory (or --evalset instead).",
            show_default=False,
        ),
    ] = None
    evalset: EvalsetOpt = ()
    metrics: MetricsOpt = None
    cache: Annotated[str | None, shared_option("cache", _CACHE)] = None
    plugin: PluginOpt = ()
    as_json: Annotated[bool, shared_option("json", "Print the calibration as JSON.")] = False
    html: Annotated[
        Path | None,
        typer.Option("--html", metavar="FILE", help="Also write the calibration as an HTML page."),
    ] = None
    seed: Annotated[
        int, typer.Option("--seed", metavar="N", help="Seed of the κ bootstrap interval.")
    ] = 0
    verbose: VerboseOpt = False


def calibrate_flags(flags: CalibrateFlags) -> int:
    """Calibrate what the flags name; the exit code (calibrate/command.py)."""
    spot_flags = (
        flags.evalset or flags.metrics is not None or flags.cache is not None or flags.plugin
    )
    # Any on-the-spot flag makes it spot scoring: without --evalset that is an error, not ignored.
    spot = (
        SpotScoring(flags.evalset, flags.metrics, flags.cache, flags.plugin) if spot_flags else None
    )
    settings = CalibrateSettings(
        flags.result, flags.labels, flags.as_json, flags.html, flags.seed, spot
    )
    # Every command's consoles; markup off: names from the labels and the result are text.
    out = make_console(highlight=False, soft_wrap=True, emoji=False, markup=False)
    err = make_console(stderr=True, highlight=False, soft_wrap=True, emoji=False, markup=False)
    return run_calibrate(settings, out, err, partial(print_warnings, verbose=flags.verbose))


calibrate_command = settings_command(
    CalibrateFlags,
    calibrate_flags,
    doc="How well judge metrics agree with human labels: accuracy, κ, confusion, suggested "
    "threshold.\n\nWith --evalset instead of a RESULT, the labelled cases are scored on the "
    "spot, judge\nreplies from the cache only.",
)
