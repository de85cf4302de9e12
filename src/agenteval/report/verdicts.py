"""Stable pass / flaky / stable fail / incomplete / undecided of each case of a
``--num-runs N`` run.

One source for all of them: a case's passed runs out of N (the pass@k counts: a run
that was not evaluated is not a pass) and whether its status is incomplete or not
evaluated, judged by :func:`agenteval.results.flakiness.run_verdict` (an incomplete case
is never a stable pass, a case no run decided never a stable fail).
The console prints the verdict in the pass@k table, the ``--json`` run document holds it
under ``caseVerdicts`` (``{evalSetId: {evalId: {"verdict", "passedRuns", "runs",
"passRate", "wilsonLow", "wilsonHigh"}}}``, only for eval sets run more than once) and
the HTML report shows it beside pass@k.

Tested in tests/report/test_verdicts.py.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from agenteval.report.set_tally import SetReport
from agenteval.results.aggregation import incomplete_cases
from agenteval.results.flakiness import CaseVerdict, order_key, run_verdict
from agenteval.schema.result import EvalSetResult, EvalSetResultSummary
from agenteval.schema.status import EvalStatus

_NOT_EVALUATED = EvalStatus.NOT_EVALUATED

RUN_DOCUMENT_KEY = "caseVerdicts"


def pass_count_verdicts(
    pass_counts: Sequence[tuple[str, int]],
    num_runs: int,
    *,
    incomplete: Collection[str],
    undecided: Collection[str] = (),
) -> dict[str, CaseVerdict]:
    """Per evalId, the verdict of its passed runs out of ``num_runs`` (flaky first);
    ``incomplete``: the evalIds whose status is incomplete; ``undecided``: those whose
    status is not evaluated."""
    verdicts = {
        eval_id: run_verdict(
            passed, num_runs, incomplete=eval_id in incomplete, undecided=eval_id in undecided
        )
        for eval_id, passed in pass_counts
    }
    return dict(sorted(verdicts.items(), key=lambda item: order_key((item[0],), item[1])))


def report_verdicts(report: SetReport) -> dict[str, CaseVerdict]:
    """The verdicts of a tallied eval set (the console's and the run document's); empty for one run."""
    if report.num_runs <= 1:
        return {}
    return pass_count_verdicts(
        report.pass_counts,
        report.num_runs,
        incomplete=report.incomplete(),
        undecided=report.undecided(),
    )


def result_verdicts(result: EvalSetResult) -> dict[str, CaseVerdict]:
    """The verdicts of a saved result (its summary's run counts, incomplete as its cases and
    ``judgeFailures`` say); empty for one run."""
    return summary_verdicts(result.summary, incomplete=incomplete_cases(result))


def summary_verdicts(
    summary: EvalSetResultSummary | None, *, incomplete: Collection[str]
) -> dict[str, CaseVerdict]:
    """The verdicts of an eval set summary's run counts; empty for one run.

    ``incomplete``: the evalIds whose status is incomplete; the summary cannot say (trpc's
    ``overallStatus`` of a case passes beside a metric that was not evaluated).
    """
    if summary is None or (summary.num_runs or 1) <= 1:
        return {}
    cases = summary.eval_case_summaries or []
    counts = [
        (case.eval_id, case.run_status_counts.passed if case.run_status_counts else 0)
        for case in cases
    ]
    undecided = [case.eval_id for case in cases if case.overall_status is _NOT_EVALUATED]
    return pass_count_verdicts(counts, summary.num_runs, incomplete=incomplete, undecided=undecided)


def run_document_verdicts(reports: Sequence[SetReport]) -> dict[str, Any]:
    """``{"caseVerdicts": …}`` for the run document; empty when no eval set ran twice."""
    found = {
        report.eval_set_id: {
            eval_id: verdict.to_json() for eval_id, verdict in report_verdicts(report).items()
        }
        for report in reports
        if report.num_runs > 1 and report.pass_counts
    }
    return {RUN_DOCUMENT_KEY: found} if found else {}


__all__ = [
    "RUN_DOCUMENT_KEY",
    "pass_count_verdicts",
    "report_verdicts",
    "result_verdicts",
    "run_document_verdicts",
    "summary_verdicts",
]
