"""--num-runs verdicts: one rule for the console, the run document and the HTML report."""

from __future__ import annotations

import io

from rich.console import Console

from agenteval.report.console_tables import pass_count_table
from agenteval.report.set_tally import set_report
from agenteval.report.verdicts import (
    RUN_DOCUMENT_KEY,
    pass_count_verdicts,
    result_verdicts,
    run_document_verdicts,
)
from agenteval.results.aggregation import build_summary
from agenteval.schema.result import Fingerprint
from agenteval.schema.status import EvalStatus
from sample_results import case_result, eval_set_result, generated_result, metric


def _three_runs() -> object:
    cases = []
    for run_id in (1, 2, 3):
        cases.append(case_result("s", "steady", [metric("m", 1.0)], run_id))
        cases.append(case_result("s", "flaky", [metric("m", 0.0 if run_id == 2 else 1.0)], run_id))
        cases.append(case_result("s", "broken", [metric("m", 0.0)], run_id))
    return eval_set_result("s", cases, num_runs=3)


def test_verdicts_of_a_saved_result_flaky_first() -> None:
    verdicts = result_verdicts(_three_runs())  # type: ignore[arg-type]
    assert list(verdicts) == ["flaky", "broken", "steady"]
    assert [v.verdict.value for v in verdicts.values()] == ["flaky", "stable_fail", "stable_pass"]
    assert (verdicts["flaky"].passed, verdicts["flaky"].runs) == (2, 3)


def test_the_run_document_and_the_console_read_the_same_counts() -> None:
    result = _three_runs()
    report = set_report(result)  # type: ignore[arg-type]
    document = run_document_verdicts([report])[RUN_DOCUMENT_KEY]["s"]
    from_file = {k: v.to_json() for k, v in result_verdicts(result).items()}  # type: ignore[arg-type]
    assert document == from_file
    assert document["flaky"]["verdict"] == "flaky"
    assert (
        document["flaky"]["wilsonLow"]
        == pass_count_verdicts([("flaky", 2)], 3, incomplete=())["flaky"].low
    )


def test_one_run_has_no_verdicts() -> None:
    result = generated_result(cases=3, num_runs=1)
    assert result_verdicts(result) == {}
    assert run_document_verdicts([set_report(result)]) == {}


def _incomplete_runs() -> object:
    """Three runs where `half` passes its first metric and its second is never evaluated
    (trpc's finalEvalStatus: passed each time), `listed` passes every metric but the
    result's judgeFailures names it, and `steady` passes."""
    cases = []
    unevaluated = metric("pending", 0.0, status=EvalStatus.NOT_EVALUATED)
    for run_id in (1, 2, 3):
        cases.append(case_result("s", "half", [metric("m", 1.0), unevaluated], run_id))
        cases.append(case_result("s", "listed", [metric("m", 1.0)], run_id))
        cases.append(case_result("s", "steady", [metric("m", 1.0)], run_id))
    result = eval_set_result("s", cases, num_runs=3)
    result.judge_failures = ["listed"]
    return result


def test_an_incomplete_case_is_never_a_stable_pass() -> None:
    """Both readers, the run's tally and a saved result, say incomplete; pass@k's counts
    (and trpc's summary counts) stay 3 of 3."""
    result = _incomplete_runs()
    assert {c.eval_id: c.run_status_counts.passed for c in result.summary.eval_case_summaries} == {  # type: ignore[attr-defined]
        "half": 3, "listed": 3, "steady": 3,
    }  # fmt: skip
    report = set_report(result)  # type: ignore[arg-type]
    document = run_document_verdicts([report])[RUN_DOCUMENT_KEY]["s"]
    from_file = {k: v.to_json() for k, v in result_verdicts(result).items()}  # type: ignore[arg-type]
    assert document == from_file
    assert {k: (v["verdict"], v["passedRuns"]) for k, v in document.items()} == {
        "half": ("incomplete", 3), "listed": ("incomplete", 3), "steady": ("stable_pass", 3),
    }  # fmt: skip
    assert list(document) == ["half", "listed", "steady"]


def test_a_case_never_evaluated_in_any_run_is_undecided_not_a_stable_fail() -> None:
    """A case aggregator that evaluated `none` in none of three runs (its metrics were
    evaluated, so the case is not incomplete): caseVerdicts said stable_fail 0/3; no run
    was decided, so the verdict is undecided and counts no run, as the store's trend does.
    `errored` (not evaluated with an error, which every report counts failed) stays a
    stable fail."""
    undecided = EvalStatus.NOT_EVALUATED
    cases = []
    for run_id in (1, 2, 3):
        cases.append(case_result("s", "none", [metric("m", 1.0)], run_id, status=undecided))
        cases.append(
            case_result("s", "errored", [], run_id, error="agent crashed", status=undecided)
        )
        cases.append(case_result("s", "broken", [metric("m", 0.0)], run_id))
    result = eval_set_result("s", cases, num_runs=3)
    result.fingerprint = Fingerprint(eval_set="sha256:e", case_aggregator="strict")
    result.summary = build_summary(result.case_results(), 3, custom_aggregator=True)
    report = set_report(result)
    assert report.statuses["none"] is EvalStatus.NOT_EVALUATED
    assert report.incomplete() == frozenset()
    document = run_document_verdicts([report])[RUN_DOCUMENT_KEY]["s"]
    from_file = {k: v.to_json() for k, v in result_verdicts(result).items()}
    assert document == from_file
    assert document["none"] == {
        "verdict": "undecided", "passedRuns": 0, "runs": 0, "passRate": None,
        "wilsonLow": 0.0, "wilsonHigh": 1.0,
    }  # fmt: skip
    assert {k: v["verdict"] for k, v in document.items()} == {
        "broken": "stable_fail", "errored": "stable_fail", "none": "undecided",
    }  # fmt: skip
    # The console's pass@k table says the same.
    table = pass_count_table(report.pass_counts, 3, incomplete=(), undecided=report.undecided())
    console = Console(record=True, width=160, file=io.StringIO())
    console.print(table)
    shown = " ".join(console.export_text().split())
    assert "none 0/3 undecided 0–1" in shown and "broken 0/3 stable fail 0–0.5615" in shown
