"""Stable pass / flaky / stable fail of each case of a ``--num-runs N`` run, for every report.

One source for all of them: a case's passed runs out of N (the pass@k counts: a run
that was not evaluated is not a pass), judged by :func:`agenteval.results.flakiness.verdict_of_counts`.
The console prints the verdict in the pass@k table, the ``--json`` run document holds it
under ``caseVerdicts`` (``{evalSetId: {evalId: {"verdict", "passedRuns", "runs",
"passRate", "wilsonLow", "wilsonHigh"}}}``, only for eval sets run more than once) and
the HTML report shows it beside pass@k.

Tested in tests/report/test_verdicts.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agenteval.report.set_tally import SetReport
from agenteval.results.flakiness import CaseVerdict, order_key, verdict_of_counts
from agenteval.schema.result import EvalSetResult, EvalSetResultSummary

RUN_DOCUMENT_KEY = "caseVerdicts"


def pass_count_verdicts(
    pass_counts: Sequence[tuple[str, int]], num_runs: int
) -> dict[str, CaseVerdict]:
    """Per evalId, the verdict of its passed runs out of ``num_runs`` (flaky first)."""
    verdicts = {eval_id: verdict_of_counts(passed, num_runs) for eval_id, passed in pass_counts}
    return dict(sorted(verdicts.items(), key=lambda item: order_key((item[0],), item[1])))


def result_verdicts(result: EvalSetResult) -> dict[str, CaseVerdict]:
    """The verdicts of a saved result (its summary's run counts); empty for one run."""
    return summary_verdicts(result.summary)


def summary_verdicts(summary: EvalSetResultSummary | None) -> dict[str, CaseVerdict]:
    """The verdicts of an eval set summary's run counts; empty for one run."""
    if summary is None or (summary.num_runs or 1) <= 1:
        return {}
    counts = [
        (case.eval_id, case.run_status_counts.passed if case.run_status_counts else 0)
        for case in summary.eval_case_summaries or []
    ]
    return pass_count_verdicts(counts, summary.num_runs)


def run_document_verdicts(reports: Sequence[SetReport]) -> dict[str, Any]:
    """``{"caseVerdicts": …}`` for the run document; empty when no eval set ran twice."""
    found = {
        report.eval_set_id: {
            eval_id: verdict.to_json()
            for eval_id, verdict in pass_count_verdicts(report.pass_counts, report.num_runs).items()
        }
        for report in reports
        if report.num_runs > 1 and report.pass_counts
    }
    return {RUN_DOCUMENT_KEY: found} if found else {}


__all__ = [
    "RUN_DOCUMENT_KEY",
    "pass_count_verdicts",
    "result_verdicts",
    "run_document_verdicts",
    "summary_verdicts",
]
