"""Stable pass / flaky / stable fail, the Wilson interval and flips."""

from __future__ import annotations

import pytest

from agenteval.results.flakiness import (
    Verdict,
    order_key,
    passed_runs_text,
    run_verdict,
    verdict_of,
    verdict_of_counts,
    wilson_interval,
)


@pytest.mark.parametrize(
    ("passed", "runs", "low", "high"),
    [
        # Reference values of the Wilson score interval at 95 % (z = 1.96).
        (0, 10, 0.0, 0.2775),
        (10, 10, 0.7225, 1.0),
        (5, 10, 0.2366, 0.7634),
        (2, 3, 0.2077, 0.9385),
        (1, 1, 0.2065, 1.0),
        (27, 30, 0.7438, 0.9654),
    ],
)
def test_wilson_interval_matches_reference_values(
    passed: int, runs: int, low: float, high: float
) -> None:
    got = wilson_interval(passed, runs)
    assert got == pytest.approx((low, high), abs=5e-5)


def test_wilson_interval_without_runs_and_out_of_range() -> None:
    assert wilson_interval(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError, match=r"within 0\.\.runs"):
        wilson_interval(4, 3)


def test_verdicts_from_counts() -> None:
    assert verdict_of_counts(3, 3).verdict is Verdict.STABLE_PASS
    assert verdict_of_counts(0, 3).verdict is Verdict.STABLE_FAIL
    assert verdict_of_counts(1, 3).verdict is Verdict.FLAKY
    assert verdict_of_counts(0, 0).verdict is Verdict.UNDECIDED
    assert verdict_of_counts(2, 3).to_json() == {
        "verdict": "flaky",
        "passedRuns": 2,
        "runs": 3,
        "passRate": pytest.approx(2 / 3),
        "wilsonLow": pytest.approx(0.2077, abs=5e-5),
        "wilsonHigh": pytest.approx(0.9385, abs=5e-5),
    }


def test_flips_skip_undecided_runs_and_name_their_positions() -> None:
    # pass, pass, fail, (incomplete), fail, pass: flips at positions 2 and 5.
    verdict = verdict_of([True, True, False, None, False, True])
    assert verdict.verdict is Verdict.FLAKY
    assert (verdict.passed, verdict.runs, verdict.flips) == (3, 5, (2, 5))
    assert verdict_of([None, None]).verdict is Verdict.UNDECIDED
    assert verdict_of([False, None, False]).flips == ()


def test_flaky_first_most_flips_first_then_failures() -> None:
    verdicts = {
        "a": verdict_of([True, True]),
        "b": verdict_of([True, False]),
        "c": verdict_of([False, False]),
        "d": verdict_of([True, False, True]),
    }
    ordered = sorted(verdicts, key=lambda k: order_key((k,), verdicts[k]))
    assert ordered == ["d", "b", "c", "a"]


@pytest.mark.parametrize("passed", [0, 2, 3])
def test_an_incomplete_case_is_incomplete_whatever_its_runs_passed(passed: int) -> None:
    """3 of 3 runs passed (trpc's finalEvalStatus) beside a metric not evaluated was a
    "stable pass"; the counts and the interval stay pass@k's, the verdict does not."""
    verdict = run_verdict(passed, 3, incomplete=True)
    counted = verdict_of_counts(passed, 3)
    assert verdict.verdict is Verdict.INCOMPLETE
    assert (verdict.passed, verdict.runs, verdict.low, verdict.high) == (
        passed, 3, counted.low, counted.high,
    )  # fmt: skip
    assert verdict.to_json()["verdict"] == "incomplete"
    assert run_verdict(passed, 3, incomplete=False) == counted


def test_a_case_no_run_decided_is_undecided_over_no_run() -> None:
    """0 of 3 runs passed, none of them decided (not evaluated) was a "stable fail"; it is
    undecided and counts no run, as verdict_of does of a history of undecided runs."""
    verdict = run_verdict(0, 3, incomplete=False, undecided=True)
    assert verdict == verdict_of([None, None, None])
    assert verdict.to_json() == {
        "verdict": "undecided", "passedRuns": 0, "runs": 0, "passRate": None,
        "wilsonLow": 0.0, "wilsonHigh": 1.0,
    }  # fmt: skip
    # An incomplete status says more than "no run decided": it stays incomplete.
    assert run_verdict(0, 3, incomplete=True, undecided=True).verdict is Verdict.INCOMPLETE


def test_incomplete_cases_come_after_the_failures_and_before_the_stable_passes() -> None:
    verdicts = {
        "a_pass": run_verdict(3, 3, incomplete=False),
        "b_incomplete": run_verdict(3, 3, incomplete=True),
        "c_fail": run_verdict(0, 3, incomplete=False),
        "d_flaky": run_verdict(1, 3, incomplete=False),
    }
    ordered = sorted(verdicts, key=lambda eval_id: order_key((eval_id,), verdicts[eval_id]))
    assert ordered == ["d_flaky", "c_fail", "b_incomplete", "a_pass"]


def test_passed_runs_text_says_why_an_incomplete_case_is_not_green() -> None:
    assert passed_runs_text(3, 3, incomplete=False) == "3/3 runs passed"
    # The status word ("incomplete") is each report's own, beside it: not said twice.
    assert passed_runs_text(3, 3, incomplete=True) == "3/3 runs passed · a metric not evaluated"
