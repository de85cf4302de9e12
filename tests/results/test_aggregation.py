"""Aggregation of results: formats.md §6.6 and §7, with hand-computed numbers."""

from __future__ import annotations

import math
import random
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from agenteval.exit_codes import ExitCode
from agenteval.results.aggregation import (
    PASS_AT_K_KEY,
    PASS_HAT_K_KEY,
    CaseSummaryData,
    Outcome,
    SummaryTally,
    _averaged_case_status,
    build_summary,
    case_pass_rates,
    case_statuses,
    default_case_aggregate,
    metric_summaries,
    overall_status,
    pass_at_k,
    pass_hat_k,
    pass_rates,
    results_outcome,
    run_outcome,
    uses_custom_aggregator,
)
from agenteval.schema.gojson import model_to_go_json_bytes, to_go_json_bytes
from agenteval.schema.result import (
    EvalCaseResult,
    EvalMetricResult,
    EvalSetResult,
    EvalSetResultSummary,
    Fingerprint,
    MetricSummary,
    StatusCounts,
)
from agenteval.schema.status import EvalStatus
from tests.sample_results import case_result as sample_case
from tests.sample_results import metric as sample_metric
from trpc_fixtures import FIXTURES

P = EvalStatus.PASSED
F = EvalStatus.FAILED
N = EvalStatus.NOT_EVALUATED


def metric(name: str, score: float, status: EvalStatus, threshold: float) -> EvalMetricResult:
    return EvalMetricResult(metric_name=name, score=score, eval_status=status, threshold=threshold)


def case(
    eval_id: str,
    run_id: int,
    status: EvalStatus,
    metrics: list[EvalMetricResult],
    error: str = "",
) -> EvalCaseResult:
    return EvalCaseResult(
        eval_set_id="set",
        eval_id=eval_id,
        run_id=run_id,
        final_eval_status=status,
        error_message=error,
        overall_eval_metric_results=metrics or None,
    )


def counts(model: StatusCounts | None) -> tuple[int, int, int]:
    if model is None:
        return (0, 0, 0)
    return (model.passed, model.failed, model.not_evaluated)


MetricRow = tuple[str, float, EvalStatus, float, tuple[int, int, int]]


def metric_row(summary: MetricSummary) -> MetricRow:
    return (
        summary.metric_name,
        round(summary.average_score, 12),
        summary.eval_status,
        summary.threshold,
        counts(summary.status_counts),
    )


# --- §6.6 default aggregator ---------------------------------------------------


@pytest.mark.parametrize(
    ("statuses", "expected"),
    [
        ([P, P], (1.0, P)),
        ([P, F], (0.0, F)),
        ([P, N], (1.0, P)),
        ([N, N], (0.0, N)),
        ([], (0.0, N)),
    ],
)
def test_default_case_aggregate(
    statuses: list[EvalStatus], expected: tuple[float, EvalStatus]
) -> None:
    results = [metric(f"m{i}", 0.5, s, 0.5) for i, s in enumerate(statuses)]
    assert default_case_aggregate(results) == expected


def test_default_case_aggregate_rejects_unknown() -> None:
    with pytest.raises(ValueError, match="unknown"):
        default_case_aggregate([metric("m", 1, EvalStatus.UNKNOWN, 1)])


# --- §7 metric summaries -----------------------------------------------------------


def test_metric_summary_skips_not_evaluated_and_keeps_first_threshold() -> None:
    results = [
        metric("m", 1.0, P, 0.6),
        metric("m", 0.9, N, 0.1),  # counted, but its score must not enter the mean
        metric("m", 0.5, F, 0.9),  # a later threshold is ignored
    ]
    (summary,) = metric_summaries(results)
    # (1.0 + 0.5) / 2 = 0.75 >= 0.6 (the first threshold) → passed
    assert metric_row(summary) == ("m", 0.75, P, 0.6, (1, 1, 1))


def test_metric_summary_all_not_evaluated() -> None:
    (summary,) = metric_summaries([metric("m", 0.7, N, 0.5), metric("m", 0.2, N, 0.5)])
    assert metric_row(summary) == ("m", 0.0, N, 0.5, (0, 0, 2))


def test_metric_summaries_sorted_by_name() -> None:
    results = [metric("b", 1, P, 1), metric("B", 1, P, 1), metric("a", 0, F, 1)]
    assert [s.metric_name for s in metric_summaries(results)] == ["B", "a", "b"]


# --- §7 summary: one run -------------------------------------------------------------


def test_single_run_summary() -> None:
    results = [
        case("beta", 1, P, [metric("traj", 1, P, 1), metric("final", 0.8, P, 0.5)]),
        case("alpha", 1, F, [metric("traj", 0, F, 1), metric("final", 0.4, F, 0.5)]),
        case("gamma", 1, N, []),
    ]
    summary = build_summary(results, 1)
    assert summary.overall_status is F
    assert summary.num_runs == 1
    assert counts(summary.run_status_counts) == (0, 1, 0)
    (run,) = summary.run_summaries or []
    assert (run.run_id, run.overall_status, counts(run.case_status_counts)) == (1, F, (1, 1, 1))
    assert [metric_row(m) for m in run.metric_summaries or []] == [
        ("final", 0.6, P, 0.5, (1, 1, 0)),  # (0.8 + 0.4) / 2
        ("traj", 0.5, F, 1.0, (1, 1, 0)),
    ]
    cases = summary.eval_case_summaries or []
    assert [(c.eval_id, c.overall_status, counts(c.run_status_counts)) for c in cases] == [
        ("alpha", F, (0, 1, 0)),
        ("beta", P, (1, 0, 0)),
        ("gamma", N, (0, 0, 1)),
    ]
    alpha_run = (cases[0].run_summaries or [])[0]
    assert [(m.metric_name, m.score, m.eval_status) for m in alpha_run.metric_results or []] == [
        ("final", 0.4, F),
        ("traj", 0.0, F),
    ]
    assert cases[2].metric_summaries is None
    assert (cases[2].run_summaries or [])[0].metric_results is None
    # one run: no pass@k keys anywhere
    assert PASS_AT_K_KEY not in (summary.model_extra or {})
    assert PASS_AT_K_KEY not in (cases[0].model_extra or {})


def test_single_run_uses_the_aggregator_verdict() -> None:
    # A weighted custom aggregator passed the case although one metric failed.
    results = [case("c", 1, P, [metric("a", 1, P, 1), metric("b", 0, F, 1)])]
    summary = build_summary(results, 1)
    (c,) = summary.eval_case_summaries or []
    assert c.overall_status is P
    assert summary.overall_status is P
    assert [metric_row(m) for m in c.metric_summaries or []] == [
        ("a", 1.0, P, 1.0, (1, 0, 0)),
        ("b", 0.0, F, 1.0, (0, 1, 0)),
    ]


def test_single_run_error_turns_not_evaluated_into_failed() -> None:
    results = [case("broken", 1, N, [], error="no trace for case broken")]
    summary = build_summary(results, 1)
    (c,) = summary.eval_case_summaries or []
    assert c.overall_status is F
    assert (c.run_summaries or [])[0].error_message == "no trace for case broken"
    assert summary.overall_status is F
    # the run itself only summarizes finalEvalStatus: not_evaluated
    assert (summary.run_summaries or [])[0].overall_status is N


def test_legacy_results_without_run_id_count_as_run_one() -> None:
    results = [case("a", 0, P, [metric("m", 1, P, 1)])]
    summary = build_summary(results, 1)
    assert [r.run_id for r in summary.run_summaries or []] == [1]
    assert counts((summary.run_summaries or [])[0].case_status_counts) == (1, 0, 0)


def test_run_id_beyond_num_runs_is_an_error() -> None:
    with pytest.raises(ValueError, match="runId 3"):
        build_summary([case("a", 3, P, [])], 2)


# --- §7 summary: several runs ----------------------------------------------------------


def three_runs() -> list[EvalCaseResult]:
    return [
        case("x", 1, P, [metric("m", 0.9, P, 0.7), metric("k", 1, P, 1)]),
        case("y", 1, F, [metric("m", 0.2, F, 0.7), metric("k", 1, P, 1)]),
        case("x", 2, F, [metric("m", 0.6, F, 0.7), metric("k", 1, P, 1)]),
        case("y", 2, F, [metric("m", 0.5, F, 0.7), metric("k", 0, F, 1)]),
        case("x", 3, P, [metric("m", 0.75, P, 0.7), metric("k", 1, P, 1)]),
        case("y", 3, P, [metric("m", 0.8, P, 0.7), metric("k", 1, P, 1)]),
    ]


def test_multi_run_summary() -> None:
    summary = build_summary(three_runs(), 3)
    assert summary.num_runs == 3
    runs = summary.run_summaries or []
    assert [(r.run_id, r.overall_status, counts(r.case_status_counts)) for r in runs] == [
        (1, F, (1, 1, 0)),
        (2, F, (0, 2, 0)),
        (3, P, (2, 0, 0)),
    ]
    assert counts(summary.run_status_counts) == (1, 2, 0)
    assert [metric_row(m) for m in runs[1].metric_summaries or []] == [
        ("k", 0.5, F, 1.0, (1, 1, 0)),
        ("m", 0.55, F, 0.7, (0, 2, 0)),  # (0.6 + 0.5) / 2
    ]
    x, y = summary.eval_case_summaries or []
    # x: m = (0.9 + 0.6 + 0.75) / 3 = 0.75 >= 0.7; k = 1 → passed by metric averages
    assert [metric_row(m) for m in x.metric_summaries or []] == [
        ("k", 1.0, P, 1.0, (3, 0, 0)),
        ("m", 0.75, P, 0.7, (2, 1, 0)),
    ]
    assert (x.overall_status, counts(x.run_status_counts)) == (P, (2, 1, 0))
    # y: m = (0.2 + 0.5 + 0.8) / 3 = 0.5 < 0.7 → failed
    assert metric_row((y.metric_summaries or [])[1]) == ("m", 0.5, F, 0.7, (1, 2, 0))
    assert (y.overall_status, counts(y.run_status_counts)) == (F, (1, 2, 0))
    assert [(r.run_id, r.final_eval_status) for r in x.run_summaries or []] == [
        (1, P),
        (2, F),
        (3, P),
    ]
    assert summary.overall_status is F


def test_multi_run_ignores_custom_aggregator_statuses() -> None:
    # The aggregator passed every run, but the failing metric's average decides.
    results = [case("c", run, P, [metric("a", 1, P, 1), metric("b", 0, F, 1)]) for run in (1, 2)]
    summary = build_summary(results, 2)
    (c,) = summary.eval_case_summaries or []
    assert counts(c.run_status_counts) == (2, 0, 0)
    assert c.overall_status is F
    assert summary.overall_status is F
    # every run passed, so the run-level statuses still say passed
    assert counts(summary.run_status_counts) == (2, 0, 0)


def test_multi_run_error_rule() -> None:
    results = [
        case("flaky", 1, F, [], error="judge unreachable"),
        case("flaky", 2, P, [metric("m", 1, P, 1)]),
        case("dead", 1, F, [], error="no trace"),
        case("dead", 2, N, [], error="no trace"),
    ]
    summary = build_summary(results, 2)
    dead, flaky = summary.eval_case_summaries or []
    # the erroring run contributes no metric results: the other run passes the case
    assert (flaky.eval_id, flaky.overall_status) == ("flaky", P)
    # no metric at all → not_evaluated, but an errorMessage makes it failed
    assert (dead.eval_id, dead.overall_status) == ("dead", F)
    assert [r.error_message for r in dead.run_summaries or []] == ["no trace", "no trace"]


def test_run_without_cases_is_not_evaluated() -> None:
    results = [case("a", 1, P, [metric("m", 1, P, 1)]), case("a", 3, P, [metric("m", 1, P, 1)])]
    summary = build_summary(results, 3)
    run2 = (summary.run_summaries or [])[1]
    assert run2.run_id == 2
    assert run2.overall_status is N
    assert run2.case_status_counts is None
    assert run2.metric_summaries is None
    assert counts(summary.run_status_counts) == (2, 0, 1)


def test_case_summaries_sorted_by_eval_id() -> None:
    results = [case(eval_id, 1, P, []) for eval_id in ("b", "a", "C", "é", "z")]
    summary = build_summary(results, 1)
    assert [c.eval_id for c in summary.eval_case_summaries or []] == ["C", "a", "b", "z", "é"]


def test_multi_run_pass_rates_in_summary() -> None:
    summary = build_summary(three_runs(), 3)
    x, y = summary.eval_case_summaries or []
    # x passed 2 of 3 runs: pass@1 = 2/3, pass@2 = 1 − C(1,2)/C(3,2) = 1, pass^2 = 4/9
    assert case_pass_rates(x, PASS_AT_K_KEY) == pytest.approx({"1": 2 / 3, "2": 1.0, "3": 1.0})
    assert case_pass_rates(x, PASS_HAT_K_KEY) == pytest.approx(
        {"1": 2 / 3, "2": 4 / 9, "3": 8 / 27}
    )
    # y passed 1 of 3: pass@2 = 1 − C(2,2)/C(3,2) = 2/3
    assert case_pass_rates(y, PASS_AT_K_KEY) == pytest.approx({"1": 1 / 3, "2": 2 / 3, "3": 1.0})
    overall = (summary.model_extra or {})[PASS_AT_K_KEY]
    assert overall == pytest.approx({"1": 0.5, "2": 5 / 6, "3": 1.0})
    overall_hat = (summary.model_extra or {})[PASS_HAT_K_KEY]
    assert overall_hat == pytest.approx({"1": 0.5, "2": (4 / 9 + 1 / 9) / 2, "3": (8 + 1) / 54})
    # the extra keys survive writing and reading the file
    reread = EvalSetResultSummary.model_validate_json(summary.model_dump_json(by_alias=True))
    assert (reread.model_extra or {})[PASS_AT_K_KEY] == overall


def test_unknown_status_is_an_error() -> None:
    with pytest.raises(ValueError, match="unknown"):
        build_summary([case("a", 1, EvalStatus.UNKNOWN, [])], 1)


# --- pass@k / pass^k ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("n", "c", "k", "expected"), [(10, 0, 1, 0.0), (10, 10, 1, 1.0), (5, 4, 2, 1.0)]
)
def test_pass_at_k_go_vectors(n: int, c: int, k: int, expected: float) -> None:
    assert pass_at_k(n, c, k) == expected


@pytest.mark.parametrize(
    ("n", "c", "k", "expected"), [(10, 0, 3, 0.0), (10, 10, 3, 1.0), (10, 5, 2, 0.25)]
)
def test_pass_hat_k_go_vectors(n: int, c: int, k: int, expected: float) -> None:
    assert pass_hat_k(n, c, k) == expected


def exact_pass_at_k(n: int, c: int, k: int) -> Fraction:
    return 1 - Fraction(math.comb(n - c, k), math.comb(n, k))


def test_pass_at_k_matches_exact_binomials_for_small_n() -> None:
    for n in range(1, 25):
        for c in range(n + 1):
            for k in range(1, n + 1):
                expected = float(exact_pass_at_k(n, c, k))
                assert pass_at_k(n, c, k) == pytest.approx(expected, rel=1e-13, abs=1e-15)
                hat = float(Fraction(c, n) ** k)
                assert pass_hat_k(n, c, k) == pytest.approx(hat, rel=1e-13, abs=1e-300)


@pytest.mark.parametrize(("c", "k"), [(1, 1), (10, 100), (3, 5000), (1, 9999), (500, 20)])
def test_pass_at_k_large_n_in_log_space(c: int, k: int) -> None:
    n = 10_000
    expected = float(exact_pass_at_k(n, c, k))
    assert pass_at_k(n, c, k) == pytest.approx(expected, rel=1e-10)


def test_pass_at_1_is_the_pass_rate() -> None:
    assert pass_at_k(10_000, 37, 1) == pytest.approx(37 / 10_000, rel=1e-15)
    assert pass_at_k(3, 1, 1) == pytest.approx(1 / 3, rel=1e-15)


def test_pass_hat_k_large_k_underflows_to_zero() -> None:
    assert pass_hat_k(10_000, 5_000, 10_000) == 0.0
    assert pass_hat_k(10_000, 9_999, 10_000) == pytest.approx(
        math.exp(10_000 * math.log(0.9999)), rel=1e-12
    )


def test_pass_rates_equal_single_values() -> None:
    for n, c in [(1, 0), (1, 1), (7, 3), (200, 17)]:
        at_k, hat_k = pass_rates(n, c)
        assert list(at_k) == [str(k) for k in range(1, n + 1)]
        assert at_k == {str(k): pass_at_k(n, c, k) for k in range(1, n + 1)}
        assert hat_k == {str(k): pass_hat_k(n, c, k) for k in range(1, n + 1)}


@pytest.mark.parametrize(("n", "c", "k"), [(0, 0, 1), (5, 6, 1), (5, -1, 1), (5, 2, 0), (5, 2, 6)])
def test_pass_at_k_rejects_bad_arguments(n: int, c: int, k: int) -> None:
    with pytest.raises(ValueError):
        pass_at_k(n, c, k)


# --- in-memory status and exit code --------------------------------------------------------


def result_of(cases: list[EvalCaseResult]) -> EvalSetResult:
    return EvalSetResult(eval_set_id="set", eval_case_results=cases)


def test_case_statuses_single_run() -> None:
    result = result_of(
        [
            case("ok", 1, P, [metric("m", 1, P, 1)]),
            case("err", 1, N, [], error="no trace"),
            case("none", 1, N, []),
            case("bad", 1, F, [metric("m", 0, F, 1)]),
        ]
    )
    assert case_statuses(result) == {"ok": P, "err": F, "none": N, "bad": F}


def test_case_statuses_multi_run_averages_with_first_evaluated_threshold() -> None:
    result = result_of(
        [
            case("c", 1, N, [metric("m", 0.0, N, 0.9)]),
            case("c", 2, P, [metric("m", 0.6, P, 0.5)]),
            case("c", 3, F, [metric("m", 0.4, F, 0.5)]),
        ]
    )
    # in memory: (0.6 + 0.4) / 2 = 0.5 >= 0.5 (threshold of run 2) → passed by the averages,
    # and incomplete in every report, since run 1's metric was not evaluated
    assert _averaged_case_status(result.case_results()) is P
    assert case_statuses(result) == {"c": EvalStatus.INCOMPLETE}
    # the file summary takes the first threshold seen (0.9) → failed
    summary = build_summary(result.case_results(), 3)
    assert (summary.eval_case_summaries or [])[0].overall_status is F


def test_case_statuses_multi_run_ignore_aggregator_and_keep_error_rule() -> None:
    result = result_of(
        [
            case("agg", 1, P, [metric("a", 1, P, 1), metric("b", 0, F, 1)]),
            case("agg", 2, P, [metric("a", 1, P, 1), metric("b", 0, F, 1)]),
            case("err", 1, F, [], error="boom"),
            case("err", 2, F, [], error="boom"),
        ]
    )
    assert case_statuses(result) == {"agg": F, "err": F}


def _custom_runs() -> list[EvalCaseResult]:
    """Three runs of cases whose metrics all pass (or all fail) on average, while the case
    aggregator's verdicts say otherwise."""
    good = [metric("m", 1, P, 1)]
    bad = [metric("m", 0, F, 1)]
    return [
        *(case("never", run, N, good) for run in (1, 2, 3)),
        *(case("refused", run, F, good) for run in (1, 2, 3)),
        case("flaky", 1, P, good),
        case("flaky", 2, F, good),
        case("flaky", 3, P, good),
        *(case("kind", run, P, bad) for run in (1, 2, 3)),
        case("dead", 1, N, good, error="aggregator raised"),
        case("dead", 2, N, good),
        case("dead", 3, N, good),
    ]


_CUSTOM_VERDICTS = {"never": N, "refused": F, "flaky": F, "kind": P, "dead": F}


def test_multi_run_case_status_is_the_custom_aggregators_verdicts() -> None:
    # Scored by --case-aggregator (its fingerprint names it): its verdicts decide the case
    # over several runs as over one; "0/3 runs passed" is never PASSED.
    result = result_of(_custom_runs())
    result.fingerprint = Fingerprint(eval_set="sha256:" + "0" * 64, case_aggregator="mine")
    assert uses_custom_aggregator(result)
    assert case_statuses(result) == _CUSTOM_VERDICTS
    assert results_outcome([result]) == Outcome(F, ExitCode.FAILED)
    summary = build_summary(result.case_results(), 3, custom_aggregator=True)
    cases = {c.eval_id: c.overall_status for c in summary.eval_case_summaries or []}
    assert cases == _CUSTOM_VERDICTS
    assert summary.overall_status is F
    # The same runs with no aggregator named (trpc-agent-go's files): the metric averages
    # decide, as Go does, and the default aggregator's numbers are unchanged.
    result.fingerprint = None
    averaged = {"never": P, "refused": P, "flaky": P, "kind": F, "dead": P}
    assert not uses_custom_aggregator(result)
    assert case_statuses(result) == averaged
    plain = build_summary(result.case_results(), 3)
    assert {c.eval_id: c.overall_status for c in plain.eval_case_summaries or []} == averaged


def test_one_run_of_a_custom_aggregator_is_its_verdict_either_way() -> None:
    runs = [case("never", 1, N, [metric("m", 1, P, 1)]), case("kind", 1, P, [])]
    for custom in (False, True):
        summary = build_summary(runs, 1, custom_aggregator=custom)
        statuses = [c.overall_status for c in summary.eval_case_summaries or []]
        assert statuses == [P, N]  # sorted by evalId: kind, never


def test_overall_status_and_exit_code() -> None:
    passing = result_of([case("a", 1, P, [metric("m", 1, P, 1)])])
    failing = result_of([case("b", 1, F, [metric("m", 0, F, 1)])])
    empty = result_of([case("c", 1, N, [])])
    assert overall_status([passing]) is P
    assert results_outcome([passing]).exit_code == 0
    assert overall_status([passing, failing]) is F
    assert results_outcome([passing, failing]).exit_code == 1
    assert overall_status([passing, empty]) is P
    assert overall_status([empty]) is N
    assert results_outcome([empty]).exit_code == 1
    assert results_outcome([]).exit_code == 1


def test_one_rule_decides_status_and_exit_code() -> None:
    # Every face and report asks run_outcome; here is the whole rule, row by row.
    inc = EvalStatus.INCOMPLETE
    assert run_outcome([P, P]) == Outcome(P, ExitCode.PASSED)
    assert run_outcome([P, F, N]) == Outcome(F, ExitCode.FAILED)
    assert run_outcome([N]) == Outcome(N, ExitCode.FAILED)
    assert run_outcome([]) == Outcome(N, ExitCode.FAILED)
    assert run_outcome([P, F, inc]) == Outcome(inc, ExitCode.INCOMPLETE)
    # A stop, a judge failure or an agent that never started: incomplete whatever the cases say.
    assert run_outcome([P], unfinished=True) == Outcome(inc, ExitCode.INCOMPLETE)
    passing = result_of([case("a", 1, P, [metric("m", 1, P, 1)])])
    assert results_outcome([passing]) == Outcome(P, ExitCode.PASSED)
    stopped = passing.model_copy(update={"partial": True})
    assert results_outcome([stopped]) == Outcome(inc, ExitCode.INCOMPLETE)


# --- stored Go summaries (formats.md §10.1) ---------------------------------------------------


def stored_results_with_summary() -> list[Path]:
    return sorted(
        path
        for path in FIXTURES.rglob("*.evalset_result.json")
        if '"summary"' in path.read_text(encoding="utf-8")
    )


def comparable(summary: EvalSetResultSummary) -> dict[str, Any]:
    """The summary fields §10.1 compares, numbers rounded to 1e-9."""

    def metrics(items: list[MetricSummary] | None) -> list[Any]:
        return [
            (
                m.metric_name,
                round(m.average_score, 9),
                m.eval_status,
                m.threshold,
                counts(m.status_counts),
            )
            for m in items or []
        ]

    return {
        "overallStatus": summary.overall_status,
        "numRuns": summary.num_runs,
        "runStatusCounts": counts(summary.run_status_counts),
        "runSummaries": [
            (r.overall_status, counts(r.case_status_counts), metrics(r.metric_summaries))
            for r in summary.run_summaries or []
        ],
        "evalCaseSummaries": [
            (
                c.eval_id,
                c.overall_status,
                counts(c.run_status_counts),
                metrics(c.metric_summaries),
                [
                    (
                        r.final_eval_status,
                        [
                            (m.metric_name, round(m.score, 9), m.eval_status, m.threshold)
                            for m in r.metric_results or []
                        ],
                    )
                    for r in c.run_summaries or []
                ],
            )
            for c in summary.eval_case_summaries or []
        ],
    }


STORED = stored_results_with_summary()


def test_fixtures_with_summary_found() -> None:
    names = {path.parts[len(FIXTURES.parts)] for path in STORED}
    assert {"server", "caseaggregation", "claudecode", "jieba", "skill", "toolmock"} <= names


def fixture_id(path: Path) -> str:
    return "/".join(path.relative_to(FIXTURES).parts[:-3])


@pytest.mark.parametrize("path", STORED, ids=[fixture_id(p) for p in STORED])
def test_build_summary_reproduces_stored_summary(path: Path) -> None:
    stored = EvalSetResult.model_validate_json(path.read_text(encoding="utf-8"))
    assert stored.summary is not None
    rebuilt = build_summary(stored.case_results(), stored.summary.num_runs)
    assert comparable(rebuilt) == comparable(stored.summary)


# --- INCOMPLETE cases (issue 12) ----------------------------------------------


def _with_incomplete(marked: object) -> EvalSetResult:
    from sample_results import case_result, eval_set_result, metric

    result = eval_set_result(
        "s",
        [
            case_result(
                "s",
                "judged",
                [metric("det", 1.0), metric("judge", 0.0, status=EvalStatus.NOT_EVALUATED)],
            ),
            case_result("s", "fine", [metric("det", 1.0), metric("judge", 1.0)]),
            case_result("s", "bad", [metric("det", 0.0)]),
        ],
    )
    result.judge_failures = marked  # type: ignore[assignment]
    return result


def test_a_case_listed_in_judge_failures_is_incomplete_never_passed() -> None:
    from agenteval.results.aggregation import incomplete_cases, overall_status, results_outcome

    result = _with_incomplete(["judged"])
    assert incomplete_cases(result) == ["judged"]
    assert case_statuses(result) == {
        "judged": EvalStatus.INCOMPLETE,
        "fine": EvalStatus.PASSED,
        "bad": EvalStatus.FAILED,
    }
    # Incomplete outranks failed: the run could not finish (exit 3).
    assert overall_status([result]) is EvalStatus.INCOMPLETE
    assert results_outcome([result]).exit_code == 3
    # The file's own statuses stay trpc-agent-go's.
    assert [c.final_eval_status for c in result.case_results()] == [
        EvalStatus.PASSED,
        EvalStatus.PASSED,
        EvalStatus.FAILED,
    ]


def test_every_case_with_a_not_evaluated_metric_is_incomplete_whatever_judge_failures_says() -> (
    None
):
    from agenteval.results.aggregation import incomplete_cases

    # A count (older files), none (trpc-agent-go's, an edited file) or an empty list: the
    # case whose metric was not evaluated is incomplete, never passed.
    for marked in (2, 0, [], None):
        assert incomplete_cases(_with_incomplete(marked)) == ["judged"], marked
    # A listed case counts even when its metrics say nothing of it.
    assert incomplete_cases(_with_incomplete(["fine"])) == ["fine", "judged"]


def test_emitted_case_summaries_are_the_kept_ones_as_data() -> None:
    # One run with ``emit``: each case summary is handed over as the data of its file keys,
    # which the result document writes with orjson beside the models' own text.
    results = [
        case("beta", 1, P, [metric("traj", 1, P, 1), metric("final", 1 / 3, F, 0.5)]),
        case("alpha", 1, F, [metric("traj", 0, F, 1), metric("traj", 0.25, P, 0.2)], "boom"),
        case("gamma", 1, N, []),
        case("delta", 1, N, [metric("final", 0, N, 0.5)]),
    ]
    emitted: list[dict[str, Any]] = []
    tally = SummaryTally(1, emit=emitted.append)
    for result in results:
        tally.add(result)
    streamed = tally.finish()
    kept = build_summary(results, 1)
    assert streamed.eval_case_summaries is None
    assert streamed.overall_status is kept.overall_status
    by_id = {c.eval_id: c for c in kept.eval_case_summaries or []}
    assert [data["evalId"] for data in emitted] == ["beta", "alpha", "gamma", "delta"]
    for data in emitted:
        assert to_go_json_bytes(data) == model_to_go_json_bytes(by_id[data["evalId"]])


def _random_cases(count: int, seed: int) -> list[EvalCaseResult]:
    """Cases with unround scores (sums depend on their order), some failed, some with a
    metric not evaluated, some errored."""
    rng = random.Random(seed)
    cases = []
    for index in range(count):
        metrics = [
            sample_metric("a", rng.random(), 0.5),
            sample_metric("b", rng.random(), 0.3, status=N if rng.random() < 0.1 else None),
        ]
        error = "boom" if rng.random() < 0.05 else ""
        cases.append(sample_case("s", f"c{index:04d}", metrics, error=error))
    return cases


@pytest.mark.parametrize("cut", [0, 1, 137, 299, 300])
def test_a_recording_tally_absorbed_counts_as_one_pass(cut: int) -> None:
    cases = _random_cases(300, seed=cut)
    whole_emitted: list[CaseSummaryData] = []
    whole = SummaryTally(1, emit=whole_emitted.append)
    for case in cases:
        whole.add(case)
    first_emitted: list[CaseSummaryData] = []
    first = SummaryTally(1, emit=first_emitted.append)
    part = SummaryTally(1, emit=first_emitted.append, record=True)
    for case in cases[:cut]:
        first.add(case)
    for case in cases[cut:]:
        part.add(case)
    first.absorb(part.part())
    assert first.finish() == whole.finish()
    assert first_emitted == whole_emitted
    # The floats were added one by one: the two halves' sums added would differ here.
    scores = [c.overall_eval_metric_results[0].score for c in cases]  # type: ignore[index]
    if cut == 137:
        assert sum(scores[:cut]) + sum(scores[cut:]) != sum(scores)


def test_a_tally_that_did_not_record_is_not_absorbed() -> None:
    with pytest.raises(ValueError, match="did not record"):
        SummaryTally(1).part()
    case = _random_cases(1, seed=1)[0]
    first, part = SummaryTally(2), SummaryTally(2, record=True)
    first.add(case)
    part.add(case)
    with pytest.raises(ValueError, match="share a case"):
        first.absorb(part.part())
