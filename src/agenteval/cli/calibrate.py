"""``agenteval calibrate RESULT --labels FILE``: flags → CalibrateSettings → calibrate/.

Exit codes in calibrate/command.py. Tested in tests/calibrate/test_calibrate.py.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from agenteval.calibrate.command import CalibrateSettings, run_calibrate
from agenteval.cli.guard import exit_with


def calibrate_command(
    result: Annotated[
        Path, typer.Argument(metavar="RESULT", help="A result file, run document or directory.")
    ],
    labels: Annotated[
        Path,
        typer.Option(
            "--labels",
            metavar="FILE",
            help="Human labels: JSONL (or CSV) lines of evalSetId, evalId, metricName, "
            "invocationId?, rubricId?, runId? and label pass|fail, score or category.",
        ),
    ],
    as_json: Annotated[bool, typer.Option("--json", help="Print the calibration as JSON.")] = False,
    html: Annotated[
        Path | None,
        typer.Option("--html", metavar="FILE", help="Also write the calibration as an HTML page."),
    ] = None,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the κ bootstrap interval.")] = 0,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Tracebacks on errors.")] = False,
) -> None:
    """How well judge metrics agree with human labels: accuracy, κ, confusion, suggested threshold."""
    settings = CalibrateSettings(result, labels, as_json, html, seed)
    out = Console(highlight=False, soft_wrap=True)
    err = Console(stderr=True, highlight=False, soft_wrap=True)
    exit_with(verbose, lambda: run_calibrate(settings, out, err))
