"""--num-runs verdicts: one rule for the console, the run document and the HTML report."""

from __future__ import annotations

from agenteval.report.set_tally import set_report
from agenteval.report.verdicts import (
    RUN_DOCUMENT_KEY,
    pass_count_verdicts,
    result_verdicts,
    run_document_verdicts,
)
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
    assert document["flaky"]["wilsonLow"] == pass_count_verdicts([("flaky", 2)], 3)["flaky"].low


def test_one_run_has_no_verdicts() -> None:
    result = generated_result(cases=3, num_runs=1)
    assert result_verdicts(result) == {}
    assert run_document_verdicts([set_report(result)]) == {}
