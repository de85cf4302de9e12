"""Calibration as a page of the HTML report: ``agenteval report RESULT --labels FILE --html
FILE`` (:func:`calibration_page`), and ``agenteval run --labels FILE --html FILE``
(:class:`RunCalibration`, fed the run's cases as they finish).

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

from agenteval.calibrate.agreement import (
    labelled_case_items,
    labelled_cases,
    labelled_items,
    pair_labels,
    saved_cases,
)
from agenteval.calibrate.items import Item, ItemKey
from agenteval.calibrate.labels import read_labels
from agenteval.calibrate.render import page_blocks
from agenteval.errors import ConfigError
from agenteval.inputs.safe_text import escape_control
from agenteval.report.html_inputs import ReportRun
from agenteval.schema.result import EvalCaseResult, EvalSetResult

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
    return _page(data, run.label, labels_path, seed, len(runs) - 1), data


def _page(
    data: dict[str, Any], run_label: str, labels_path: Path, seed: int, run: int
) -> dict[str, Any]:
    intro = (
        f"The judge verdicts of {escape_control(run_label)} against the human labels of "
        f"{escape_control(str(labels_path))} (as agenteval calibrate shows them; κ interval "
        f"seed {seed})."
    )
    return {
        "id": PAGE_ID,
        "label": "Calibration",
        "run": run,
        "blocks": [{"text": intro}, *page_blocks(data)],
    }


class RunCalibration:
    """``run --labels FILE --html FILE``: the labelled items kept as the run's cases finish
    (a :class:`agenteval.report.run_reports.ReportPage`), the page made when it is written.

    The labels are read here, so a bad file is an error before anything is scored;
    ``source`` is what ``agenteval explain`` is given to read the run's results, and
    ``metrics`` the run's ``--metrics``.
    """

    def __init__(
        self,
        labels_path: Path,
        source: Sequence[str],
        seed: int = 0,
        metrics: str | None = None,
    ) -> None:
        self.labels_path = labels_path
        self.labels = read_labels(labels_path)
        self.source = tuple(source)
        self.metrics = metrics  # the run's --metrics: explain lines name it, not FILE
        self.seed = seed
        self.items: dict[ItemKey, Item] = {}
        # The calibration the page shows (None until it is made).
        self.data: dict[str, Any] | None = None
        self._wanted = labelled_cases(self.labels)
        self._set_id = ""

    def begin_set(self, eval_set_id: str, num_runs: int) -> None:
        """The eval set whose cases come next."""
        self._set_id = eval_set_id

    def add(self, case: EvalCaseResult) -> None:
        """Keep the items of a case some label names."""
        if (self._set_id, case.eval_id, case.run_id or 1) in self._wanted:
            self.items.update(labelled_case_items(self._set_id, case, self.labels))

    def end_set(self, head: EvalSetResult) -> None:
        """Nothing to do at the end of an eval set."""

    def page(self) -> dict[str, Any]:
        """The Calibration tab of the run's page (:attr:`data` holds its calibration);
        ValueError when two labels find one item, so the run's page is a report that could
        not be written (the run's other reports still are: report/report_jobs.py)."""
        try:
            found = pair_labels(
                " ".join(self.source), self.labels, self.items, self.seed, self.source, self.metrics
            )
        except ConfigError as exc:
            raise ValueError("; ".join(str(p) for p in exc.problems)) from exc
        self.data = found.to_json()
        return _page(self.data, "this run", self.labels_path, self.seed, 0)


__all__ = ["PAGE_ID", "RunCalibration", "calibration_page", "run_cases"]
