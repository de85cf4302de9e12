"""Stable pass / flaky / stable fail, the Wilson interval and flips."""

from __future__ import annotations

import pytest

from agenteval.results.flakiness import (
    Verdict,
    order_key,
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
