"""``agenteval calibrate RESULT --labels FILE [--json] [--html FILE] [--seed N]``.

Exit 0 when the calibration was printed (labels that name no scored item are
listed, and counted in a warning on stderr, never dropped), 3 when labelled items
were not evaluated by the judge (the calibration is incomplete; the rest is still
printed), 2 on a bad result or labels file (every problem located), 4 on a bug.

Tested in tests/calibrate/test_calibrate.py.
"""

from __future__ import annotations

import json
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from agenteval.errors import ConfigError
from agenteval.exit_codes import ExitCode
from agenteval.report.safe_text import escape_control


@dataclass(frozen=True, slots=True)
class CalibrateSettings:
    """What ``calibrate`` was asked for."""

    result: Path
    labels: Path
    as_json: bool = False
    html: Path | None = None
    seed: int = 0


def run_calibrate(settings: CalibrateSettings, out: Console, err: Console) -> int:
    """Read, compare, print; the exit code."""
    from agenteval.calibrate.agreement import calibrate
    from agenteval.calibrate.labels import read_labels
    from agenteval.calibrate.render import render_console, render_html
    from agenteval.report.atomic_write import write_bytes_atomic

    labels = read_labels(settings.labels)
    data = calibrate(settings.result, labels, seed=settings.seed).to_json()
    if settings.as_json:
        sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    else:
        render_console(out, data)
    if settings.html is not None:
        write_bytes_atomic(settings.html, render_html(data).encode("utf-8"))
        if not settings.as_json:
            out.print(f"wrote {escape_control(str(settings.html))}", highlight=False)
    unknown = len(data["unknownLabels"])
    if unknown:
        err.print(
            f"warning: {unknown} label{'s name' if unknown != 1 else ' names'} no scored item "
            f"(listed {'in unknownLabels' if settings.as_json else 'above'})",
            markup=False,
            highlight=False,
        )
    missed = len(data["notEvaluated"])
    if missed:
        # Labelled items without a verdict: the calibration is incomplete, as a run would be.
        err.print(
            f"incomplete: the judge did not evaluate {missed} labelled item"
            f"{'s' if missed != 1 else ''} (listed {'in notEvaluated' if settings.as_json else 'above'})",
            markup=False,
            highlight=False,
        )
        return int(ExitCode.INCOMPLETE)
    return int(ExitCode.PASSED)


def _guarded(verbose: bool, body: Callable[[], int]) -> int:
    err = Console(stderr=True, highlight=False, soft_wrap=True)
    try:
        return body()
    except ConfigError as exc:
        for problem in exc.problems:
            err.print(f"error: {escape_control(str(problem))}", markup=False)
        n = len(exc.problems)
        err.print(f"{n} problem{'s' if n != 1 else ''} found.", markup=False)
        return int(ExitCode.BAD_INPUT)
    except OSError as exc:
        err.print(f"error: {exc.filename}: {exc.strerror}", markup=False)
        return int(ExitCode.BAD_INPUT)
    except Exception as exc:
        err.print(
            f"internal error: {type(exc).__name__}: {exc} (this is a bug in agenteval)",
            markup=False,
        )
        if verbose:
            traceback.print_exc()
        return int(ExitCode.INTERNAL_ERROR)


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
    raise typer.Exit(_guarded(verbose, lambda: run_calibrate(settings, out, err)))


__all__ = ["CalibrateSettings", "calibrate_command", "run_calibrate"]
