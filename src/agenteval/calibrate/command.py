"""What ``agenteval calibrate RESULT --labels FILE [--json] [--html FILE] [--seed N]`` does,
or ``calibrate --evalset PATH [--metrics PATH] --labels FILE`` scored on the spot from the
judge cache (:mod:`agenteval.calibrate.spot`); the typer command is cli/calibrate.py.

Exit 0 when the calibration was printed (labels that name no scored item are
listed, and counted in a warning on stderr, never dropped), 3 when labelled items
were not evaluated by the judge (the calibration is incomplete; the rest is still
printed; on the spot the judge's reasons, cache misses among them, follow on stderr),
2 on a bad result, eval set, metrics or labels file, or an ``--html`` page that cannot be
written (every problem located), 4 on a bug.

Tested in tests/calibrate/test_calibrate.py and tests/calibrate/test_spot.py.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console

from agenteval.calibrate.spot import SpotScoring
from agenteval.errors import ConfigError, Problem
from agenteval.exit_codes import ExitCode
from agenteval.inputs.safe_text import escape_control, wrote_line
from agenteval.report.output_paths import check_outputs

# Prints warnings the way every command does (cli/guard.py's print_warnings).
Warn = Callable[[list[Problem]], object]


@dataclass(frozen=True, slots=True)
class CalibrateSettings:
    """What ``calibrate`` was asked for: a saved ``result``, or ``spot`` scoring."""

    result: Path | None
    labels: Path
    as_json: bool = False
    html: Path | None = None
    seed: int = 0
    spot: SpotScoring | None = None


def _checked(settings: CalibrateSettings) -> None:
    if settings.spot is not None and not settings.spot.evalsets:
        raise ConfigError(
            [
                Problem(
                    "calibrate",
                    "",
                    "--metrics, --cache and --plugin score on the spot",
                    "give --evalset PATH too (a RESULT needs none of them)",
                )
            ]
        )
    if (settings.result is None) == (settings.spot is None):
        raise ConfigError(
            [
                Problem(
                    "calibrate",
                    "",
                    "give a RESULT or --evalset, not both"
                    if settings.result is not None
                    else "nothing to calibrate",
                    "agenteval calibrate RESULT --labels FILE, or "
                    "agenteval calibrate --evalset PATH --metrics PATH --labels FILE",
                )
            ]
        )


def calibration(settings: CalibrateSettings, warn: Warn) -> tuple[dict[str, Any], list[str]]:
    """The ``--json`` document and, scored on the spot, why judge turns were not evaluated."""
    from agenteval.calibrate.agreement import calibrate, pair_labels
    from agenteval.calibrate.labels import read_labels
    from agenteval.calibrate.spot import score_labelled

    _checked(settings)
    labels = read_labels(settings.labels)
    if settings.spot is None:
        assert settings.result is not None
        warnings: list[Problem] = []
        found = calibrate(settings.result, labels, seed=settings.seed, warnings=warnings)
        warn(warnings)
        return found.to_json(), []
    spot = score_labelled(settings.spot, labels)
    warn(spot.warnings)
    name = " ".join(settings.spot.evalsets)
    found = pair_labels(name, labels, spot.items, settings.seed, settings.spot.explain_source())
    return found.to_json(), spot.misses


def run_calibrate(
    settings: CalibrateSettings, out: Console, err: Console, warn: Warn = lambda _: None
) -> int:
    """Read (or score), compare, print; the exit code."""
    from agenteval.calibrate.render import render_console

    # A page that cannot be written is an error before anything is read or scored, as for
    # every command's reports (report/output_paths.py).
    problems = check_outputs({}, {"--html": settings.html})
    if problems:
        raise ConfigError(problems)
    data, misses = calibration(settings, warn)
    if settings.as_json:
        sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    else:
        render_console(out, data)
    if settings.html is not None:
        _write_page(settings.html, data)
        if not settings.as_json:
            out.print(wrote_line(settings.html), highlight=False, markup=False)
    where = ("in unknownLabels", "in notEvaluated") if settings.as_json else ("above", "above")
    return report_gaps(data, misses, err, where)


def _write_page(path: Path, data: dict[str, Any]) -> None:
    """Write the ``--html`` page; ConfigError naming it when that fails all the same (a disk
    that fills up, a directory made since the check), as ``report --html`` says it."""
    from agenteval.calibrate.render import render_html
    from agenteval.report.atomic_write import write_bytes_atomic
    from agenteval.report.output_paths import write_refused

    with write_refused(path):
        write_bytes_atomic(path, render_html(data).encode("utf-8"))


def report_gaps(
    data: dict[str, Any], misses: list[str], err: Console, where: tuple[str, str]
) -> int:
    """Say on stderr what the calibration lacks: labels naming no scored item (a warning),
    labelled items and, on the spot, judge turns not evaluated (exit 3); else 0.  ``where``
    says where the unknown labels and the unevaluated items are listed."""

    def say(text: str) -> None:
        err.print(text, markup=False, highlight=False)

    unknown = len(data["unknownLabels"])
    if unknown:
        say(
            f"warning: {unknown} label{'s name' if unknown != 1 else ' names'} no scored item "
            f"(listed {where[0]})"
        )
    missed = len(data["notEvaluated"])
    if missed:
        # Labelled items without a verdict: the calibration is incomplete, as a run would be.
        say(
            f"incomplete: the judge did not evaluate {missed} labelled item"
            f"{'s' if missed != 1 else ''} (listed {where[1]})"
        )
    reasons = list(dict.fromkeys(misses))
    if reasons:
        # Every judge turn the cache could not answer, labelled or not: never dropped.
        say(
            f"incomplete: {len(reasons)} judge turn{'s' if len(reasons) != 1 else ''} not "
            "evaluated (scored from the judge cache only; `agenteval run` the eval set to "
            "fill it):"
        )
        for reason in reasons:
            say(f"  {escape_control(reason)}")
    return int(ExitCode.INCOMPLETE if missed or reasons else ExitCode.PASSED)


__all__ = ["CalibrateSettings", "Warn", "calibration", "report_gaps", "run_calibrate"]
