"""Calibration as a page of the HTML report: ``agenteval report RESULT --labels FILE --html
FILE``.

The labels are compared with the judge verdicts of the report's run (of a comparison, the
new run) exactly as ``agenteval calibrate`` compares them with a saved result, and the page
shows the console's text (:func:`agenteval.calibrate.render.page_blocks`): the same numbers,
each disagreement (and each labelled item the judge did not evaluate) linked to its case's
view in the same report, with its ``agenteval explain`` line.

Tested in tests/calibrate/test_report_page.py (in real Chromium).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from agenteval.calibrate.agreement import labelled_items, pair_labels, saved_cases
from agenteval.calibrate.labels import read_labels
from agenteval.calibrate.render import page_blocks
from agenteval.report.html_inputs import ReportRun
from agenteval.report.safe_text import escape_control
from agenteval.schema.result import EvalCaseResult

PAGE_ID = "calibration"


def run_cases(run: ReportRun) -> Iterator[tuple[str, EvalCaseResult]]:
    """Every case of a report's run with its evalSetId (whole results, then parts read)."""
    for result in run.results:
        for case in result.eval_case_results or ():
            yield result.eval_set_id, case
    yield from saved_cases(run.parts)


def calibration_page(
    runs: Sequence[ReportRun], labels_path: Path, source: Sequence[str], seed: int = 0
) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the report's Calibration page, the ``calibrate --json`` document) of the last run;
    ``source`` is what ``agenteval explain`` is given to read that run."""
    labels = read_labels(labels_path)
    run = runs[-1]
    items = labelled_items(run_cases(run), labels)
    data = pair_labels(" ".join(source), labels, items, seed, source).to_json()
    intro = (
        f"The judge verdicts of {escape_control(run.label)} against the human labels of "
        f"{escape_control(str(labels_path))} (as agenteval calibrate shows them; κ interval "
        f"seed {seed})."
    )
    page = {
        "id": PAGE_ID,
        "label": "Calibration",
        "run": len(runs) - 1,
        "blocks": [{"text": intro}, *page_blocks(data)],
    }
    return page, data


__all__ = ["PAGE_ID", "calibration_page", "run_cases"]
