"""What ``agenteval calibrate RESULT --labels FILE [--json] [--html FILE] [--seed N]`` does
(the typer command is cli/calibrate.py).

Exit 0 when the calibration was printed (labels that name no scored item are
listed, and counted in a warning on stderr, never dropped), 3 when labelled items
were not evaluated by the judge (the calibration is incomplete; the rest is still
printed), 2 on a bad result or labels file (every problem located), 4 on a bug.

Tested in tests/calibrate/test_calibrate.py.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console

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


__all__ = ["CalibrateSettings", "run_calibrate"]
