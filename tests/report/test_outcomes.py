"""Outcome text from compact run records: the same capped text whether reasons are whole or cut."""

from __future__ import annotations

from agenteval.report.outcomes import (
    CaseOutcome,
    MetricShortfall,
    OutcomeText,
    cap,
    case_outcomes,
    run_record,
)
from agenteval.report.set_tally import REASON_KEEP
from agenteval.schema.status import EvalStatus
from sample_results import N, case_result, eval_set_result, metric
from tests.report.report_inputs import NEAR_MEAN

LONG = "why " * 1500  # 6,000 characters


def outcome_texts(outcome: CaseOutcome, keep: int | None) -> list[object]:
    text = OutcomeText(
        outcome.eval_set_id,
        outcome.eval_id,
        outcome.status,
        tuple(run_record(run, keep) for run in outcome.runs),
    )
    return [
        [s.text(cap) for s in text.shortfalls() for cap in (300, 2000, None)],
        [cap(error, limit) for error in text.errors() for limit in (300, 2000)],
        [text.unevaluated(cap) for cap in (300, 2000)],
        [text.headline(cap) for cap in (300, 2000)],
        [text.run_lines(cap) for cap in (300, 2000)],
        text.passed_runs,
        text.multi_run,
    ]


def test_reasons_cut_at_reason_keep_change_no_capped_text() -> None:
    cases = [
        case_result(
            "s", "one", [metric("a", 0.2, reason=LONG), metric("b", 0, status=N, reason=LONG)]
        ),
        case_result("s", "one", [metric("a", 0.4, reason="x" * 2001)], run_id=2),
        case_result("s", "two", [], error=LONG),
        case_result("s", "two", [metric("a", 1.0)], run_id=2),
    ]
    result = eval_set_result("s", cases, num_runs=2)
    for outcome in case_outcomes(result):
        whole = outcome_texts(outcome, None)
        cut = outcome_texts(outcome, REASON_KEEP)
        # Only the uncapped shortfall text may differ (nothing prints it uncapped from a tally).
        assert whole[1:] == cut[1:]
        assert [t for i, t in enumerate(whole[0]) if i % 3 != 2] == [
            t for i, t in enumerate(cut[0]) if i % 3 != 2
        ]


def test_case_outcome_text_is_the_records_text() -> None:
    cases = [
        case_result("s", "c", [metric("a", 0.2, reason=";;bad;"), metric("b", 1.0)]),
        case_result("s", "c", [metric("a", 0.9, reason="better")], run_id=2),
        case_result(
            "s", "c", [metric("a", 0.1, reason="worst"), metric("b", 0, status=N)], run_id=3
        ),
    ]
    (outcome,) = case_outcomes(eval_set_result("s", cases, num_runs=3))
    # Failed by its averages; incomplete, since run 3 left metric b not evaluated.
    assert outcome.status is EvalStatus.INCOMPLETE
    text = outcome.text()
    assert [r.run_id for r in text.runs] == [1, 2, 3]
    (shortfall,) = text.shortfalls()
    assert shortfall.text() == "a: average over 3 runs 0.4 < threshold 1: bad"
    assert outcome.headline() == text.headline() == f"b not evaluated; {shortfall.text()}"
    assert text.run_lines() == [
        "run 1: failed",
        "  a: score 0.2 < threshold 1: bad",
        "run 2: failed",
        "  a: score 0.9 < threshold 1: better",
        "run 3: failed",
        "  a: score 0.1 < threshold 1: worst",
        "  b: not_evaluated",
    ]
    assert text.passed_runs == 0
    assert text.runs[0].metrics[1].reason == ""  # a passing metric keeps no reason
    assert text.status is EvalStatus.INCOMPLETE


def test_runs_passed_of_an_incomplete_case_says_it_is_incomplete() -> None:
    """Bare "3/3 runs passed" beside an INCOMPLETE case read green in Markdown and GitHub."""
    runs = tuple(
        run_record(case_result("s", "c", [metric("m", 1.0)], run_id)) for run_id in (1, 2, 3)
    )
    incomplete = OutcomeText("s", "c", EvalStatus.INCOMPLETE, runs)
    passed = OutcomeText("s", "c", EvalStatus.PASSED, runs)
    assert incomplete.passed_runs == passed.passed_runs == 3
    assert incomplete.passed_runs_text() == "3/3 runs passed · a metric not evaluated"
    assert passed.passed_runs_text() == "3/3 runs passed"


def test_a_shortfall_that_rounds_to_its_threshold_is_written_apart_from_it() -> None:
    """Every CI report's "score … < threshold …" said ``0.8 < threshold 0.8`` for the mean
    of 1, 1 and 0.4, and for an average over runs that rounds to the threshold."""
    assert MetricShortfall("m", NEAR_MEAN, 0.8, "why").text() == (
        "m: score 0.7999999999999999 < threshold 0.8: why"
    )
    runs = eval_set_result(
        "s",
        [
            case_result("s", "c", [metric("m", s, 0.8)], run_id=i)
            for i, s in ((1, 0.8), (2, 0.79992))
        ],
        num_runs=2,
    )
    (outcome,) = case_outcomes(runs)
    (shortfall,) = outcome.shortfalls()
    assert shortfall.text() == "m: average over 2 runs 0.79996 < threshold 0.8"
    # Numbers apart at 4 decimals are printed as before.
    assert MetricShortfall("m", 0.631579, 0.8, "").text() == "m: score 0.6316 < threshold 0.8"


def test_a_count_metric_fails_above_its_threshold_and_says_so() -> None:
    """tool_call_count 2 against its upper bound 1 was reported "score 2 < threshold 1"."""
    F = EvalStatus.FAILED
    one = eval_set_result("s", [case_result("s", "c", [metric("tool_call_count", 2, 1, F)])])
    (outcome,) = case_outcomes(one)
    assert outcome.text().headline() == "tool_call_count: score 2 > threshold 1"
    assert outcome.text().run_lines() == ["failed", "  tool_call_count: score 2 > threshold 1"]
    runs = eval_set_result(
        "s",
        [
            case_result("s", "c", [metric("tool_call_count", n, 1, F)], run_id=i)
            for i, n in ((1, 2), (2, 3))
        ],
        num_runs=2,
    )
    (averaged,) = case_outcomes(runs)
    assert [s.text() for s in averaged.shortfalls()] == [
        "tool_call_count: average over 2 runs 2.5 > threshold 1"
    ]
