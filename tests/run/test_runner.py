"""agenteval.run.runner: cases x metrics x runs become case results in Go's layout (formats.md §4, §6).

Plans are built by hand around the built-in ``exact_match`` evaluator and two small
evaluators defined here (one awaited, one that refuses a case), so every number below
can be worked out from the turns.
"""

from __future__ import annotations

import asyncio
import os
import threading
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import agenteval.evaluators.builtins  # noqa: F401  (registers the built-ins)
from agenteval.evaluators.base import (
    EvalContext,
    EvaluateResult,
    Evaluator,
    EvaluatorError,
    Turns,
    average_turns,
    binary_turn,
)
from agenteval.evaluators.registry import evaluators
from agenteval.inputs.lazy_cases import LoadedCases
from agenteval.results.merging import merge_results, plan_merge
from agenteval.run.runner import (
    EvalSetPlan,
    PlannedMetric,
    RunSettings,
    StopSignal,
    evaluate_case,
    planned_runs,
    run_evalset,
    stream_evalset,
    work_in_order,
)
from agenteval.schema.evalset import EvalCase
from agenteval.schema.metric import EvalMetric
from agenteval.schema.result import EvalCaseResult, EvalMetricResult, EvalSetResult
from agenteval.schema.status import EvalStatus

P, F = EvalStatus.PASSED, EvalStatus.FAILED


def invocation(answer: str) -> dict[str, Any]:
    """One turn whose final answer is ``answer``."""
    return {
        "userContent": {"role": "user", "content": "q"},
        "finalResponse": {"role": "assistant", "content": answer},
    }


def case(eval_id: str, actual: Sequence[str], expected: Sequence[str]) -> EvalCase:
    """A trace-mode case: the recorded answers against the reference answers."""
    return EvalCase.model_validate(
        {
            "evalId": eval_id,
            "evalMode": "trace",
            "sessionInput": {"appName": "app", "userId": "u-7"},
            "actualConversation": [invocation(a) for a in actual],
            "conversation": [invocation(e) for e in expected],
        }
    )


def metric(name: str, threshold: float = 1.0) -> EvalMetric:
    """A metric without a criterion."""
    return EvalMetric.model_validate({"metricName": name, "threshold": threshold})


class LengthAtMost(Evaluator):
    """Awaited evaluator: a turn passes when its answer has at most 4 characters."""

    name = "test_length_at_most_4"
    is_async = True

    async def aevaluate(
        self, metric: EvalMetric, actuals: Turns, expecteds: Turns, context: EvalContext
    ) -> EvaluateResult:
        """Yield to the loop once, then score each turn."""
        await asyncio.sleep(0)
        turns = []
        for turn in actuals:
            text = turn.final_response.content if turn.final_response else ""
            turns.append(binary_turn(len(text) <= 4, f"{len(text)} chars", metric.threshold))
        return average_turns(turns, metric.threshold)


class Refuses(Evaluator):
    """Refuses every case with an evaluator error."""

    name = "test_refuses"

    def evaluate(
        self, metric: EvalMetric, actuals: Turns, expecteds: Turns, context: EvalContext
    ) -> EvaluateResult:
        """Always an evaluator error."""
        raise EvaluatorError(f"cannot score {context.case.eval_id}")


def plan(cases: list[EvalCase], *planned: tuple[EvalMetric, Evaluator]) -> EvalSetPlan:
    """A plan of ``cases`` with the given metrics and their evaluators."""
    metrics = [PlannedMetric(m, e) for m, e in planned]
    return EvalSetPlan(
        path=Path("s.evalset.json"),
        eval_set_id="s",
        cases=LoadedCases(cases),
        metrics=metrics,
        all_metrics=[m for m, _ in planned],
    )


def exact() -> tuple[EvalMetric, Evaluator]:
    """The built-in exact_match metric with threshold 1."""
    evaluator = evaluators.get("exact_match")
    assert evaluator is not None
    return metric("exact_match"), evaluator


CASES = [case("c1", ["Paris"], ["Paris"]), case("c2", ["4", "blue"], ["4", "red"])]


def test_planned_runs_go_run_by_run_and_skip_resumed_ones() -> None:
    settings = RunSettings(num_runs=2, skip=frozenset({("s", "c1", 2)}))
    pairs = planned_runs(plan(CASES, exact()), settings)
    assert [(run_id, c.eval_id) for run_id, c in pairs] == [(1, "c1"), (1, "c2"), (2, "c2")]


def test_each_case_gets_per_turn_and_overall_results() -> None:
    result = asyncio.run(run_evalset(plan(CASES, exact()), RunSettings()))
    c1, c2 = result.eval_case_results
    assert (c1.eval_id, c1.final_eval_status, c1.score) == ("c1", P, 1.0)
    # One turn of two matches: the metric's mean 0.5 misses threshold 1; the case scores 0.
    assert (c2.eval_id, c2.final_eval_status, c2.score) == ("c2", F, 0.0)
    [overall] = c2.overall_eval_metric_results or []
    assert (overall.metric_name, overall.score, overall.eval_status) == ("exact_match", 0.5, F)
    per_turn = c2.eval_metric_result_per_invocation or []
    assert [[r.score for r in t.eval_metric_results or []] for t in per_turn] == [[1.0], [0.0]]
    assert per_turn[1].actual_invocation is not None
    final = per_turn[1].actual_invocation.final_response
    assert final is not None and final.content == "blue"
    assert uuid.UUID(c1.session_id).version == 4 and c1.session_id != c2.session_id
    assert c1.user_id == "u-7"


def test_session_ids_stay_distinct_v4_uuids_past_each_read_of_entropy() -> None:
    # 300 cases use more than one 4 KiB read of os.urandom (256 ids a read).
    cases = [
        EvalCase.model_validate({**CASES[0].model_dump(), "evalId": f"c{i}"}) for i in range(300)
    ]
    result = asyncio.run(run_evalset(plan(cases, exact()), RunSettings()))
    ids = [c.session_id for c in result.eval_case_results]
    assert len(set(ids)) == 300
    assert all(uuid.UUID(i).version == 4 and str(uuid.UUID(i)) == i for i in ids)


def test_a_forked_child_does_not_repeat_its_parents_session_ids() -> None:
    read, write = os.pipe()
    asyncio.run(run_evalset(plan(CASES, exact()), RunSettings()))  # entropy read in the parent
    pid = os.fork()
    if pid == 0:  # the child: its next ids, then out at once
        child = asyncio.run(run_evalset(plan(CASES, exact()), RunSettings()))
        os.write(write, " ".join(c.session_id for c in child.eval_case_results).encode())
        os._exit(0)
    os.close(write)
    os.waitpid(pid, 0)
    child_ids = os.read(read, 4096).decode().split()
    os.close(read)
    parent = asyncio.run(run_evalset(plan(CASES, exact()), RunSettings()))
    assert len(child_ids) == 2
    assert not set(child_ids) & {c.session_id for c in parent.eval_case_results}


def test_runs_repeat_and_the_summary_counts_them() -> None:
    done: list[int] = []
    settings = RunSettings(num_runs=3, on_case_done=lambda: done.append(1))
    result = asyncio.run(run_evalset(plan(CASES, exact()), settings))
    assert [(r.run_id, r.eval_id) for r in result.eval_case_results] == [
        (1, "c1"),
        (1, "c2"),
        (2, "c1"),
        (2, "c2"),
        (3, "c1"),
        (3, "c2"),
    ]
    assert len(done) == 6
    summary = result.summary
    assert summary is not None
    assert (summary.num_runs, summary.run_status_counts.failed) == (3, 3)
    # Run mean of exact_match: (1 + 0.5) / 2 in each run.
    assert [r.metric_summaries[0].average_score for r in summary.run_summaries] == [0.75] * 3


def test_awaited_and_direct_evaluators_in_one_case() -> None:
    length = LengthAtMost()
    cases = [case("c1", ["Paris"], ["Paris"]), case("c2", ["ok"], ["no"])]
    result = asyncio.run(
        run_evalset(plan(cases, exact(), (metric("short"), length)), RunSettings())
    )
    scores = {
        r.eval_id: [(m.metric_name, m.score) for m in r.overall_eval_metric_results or []]
        for r in result.eval_case_results
    }
    assert scores == {
        "c1": [("exact_match", 1.0), ("short", 0.0)],
        "c2": [("exact_match", 0.0), ("short", 1.0)],
    }
    assert [r.final_eval_status for r in result.eval_case_results] == [F, F]


def test_an_evaluator_error_fails_only_its_case() -> None:
    settings = RunSettings()
    [c1] = CASES[:1]
    failed = asyncio.run(
        evaluate_case(plan(CASES, exact(), (metric("r"), Refuses())), c1, 1, settings)
    )
    assert failed.final_eval_status is F
    assert failed.error_message == "run evaluation for metric r: cannot score c1"
    assert failed.overall_eval_metric_results is None


class Crashes(Evaluator):
    """A buggy evaluator: divides by zero on case c2, scores every other case 1."""

    name = "test_crashes"

    def evaluate(
        self, metric: EvalMetric, actuals: Turns, expecteds: Turns, context: EvalContext
    ) -> EvaluateResult:
        """1 per turn, except on c2."""
        zero = 0 if context.case.eval_id == "c2" else 1
        return average_turns(
            [binary_turn(1 / zero == 1, "", metric.threshold) for _ in actuals], metric.threshold
        )


def test_an_evaluator_that_raises_leaves_its_metric_unevaluated_and_the_run_going() -> None:
    settings = RunSettings()
    result = asyncio.run(run_evalset(plan(CASES, exact(), (metric("m"), Crashes())), settings))
    c1, c2 = result.eval_case_results
    # c1 is scored as if nothing had happened.
    assert [(m.metric_name, m.eval_status) for m in c1.overall_eval_metric_results or []] == [
        ("exact_match", P),
        ("m", P),
    ]
    # c2 keeps exact_match's score; its other metric is not evaluated on each of its 2 turns,
    # with where the evaluator raised.
    assert not c2.error_message
    exact_result, crashed = c2.overall_eval_metric_results or []
    assert (exact_result.score, exact_result.eval_status) == (0.5, F)
    assert (crashed.score, crashed.eval_status) == (0.0, EvalStatus.NOT_EVALUATED)
    reason = "evaluator test_crashes raised ZeroDivisionError: division by zero (at test_runner.py:"
    turns = [t.eval_metric_results or [] for t in c2.eval_metric_result_per_invocation or []]
    assert [r[1].eval_status for r in turns] == [EvalStatus.NOT_EVALUATED] * 2
    assert all(r[1].details is not None and r[1].details.reason.startswith(reason) for r in turns)
    # Go's case status (a failed metric wins); every report shows the case INCOMPLETE,
    # since the run lists it among those it could not evaluate.
    assert c2.final_eval_status is F
    assert settings.incomplete == {("s", "c2")}


def test_a_case_without_its_turns_fails_with_the_layout_error() -> None:
    broken = EvalCase.model_validate({"evalId": "c9", "evalMode": "trace", "conversation": []})
    result = asyncio.run(evaluate_case(plan([broken], exact()), broken, 1, RunSettings()))
    assert (result.final_eval_status, result.error_message) == (F, "session input is nil")


def test_case_aggregator_decides_and_its_failures_are_reported() -> None:
    def best(
        _: EvalCase, __: Sequence[EvalMetric], results: Sequence[EvalMetricResult]
    ) -> tuple[float, EvalStatus]:
        top = max(r.score or 0.0 for r in results)
        return top, P if top >= 1 else F

    def broken(*_: object) -> tuple[float, EvalStatus]:
        raise RuntimeError("no")

    def nan(*_: object) -> tuple[float, EvalStatus]:
        return float("nan"), P

    two = plan(CASES, exact(), (metric("short"), LengthAtMost()))
    c2 = CASES[1]
    result = asyncio.run(evaluate_case(two, c2, 1, RunSettings(case_aggregator=best)))
    # exact_match 0.5, short 1.0 ("4" and "blue" both have at most 4 characters): best is 1.
    assert (result.score, result.final_eval_status) == (1.0, P)
    # An aggregator's bug gives no verdict: the case is incomplete (exit 3), not failed by
    # the agent, and its metric results are kept.
    for aggregator, message in (
        (broken, "case aggregator raised RuntimeError: no (at test_runner.py:"),
        (nan, "case aggregator returned an invalid result (score nan"),
    ):
        settings = RunSettings(case_aggregator=aggregator)
        result = asyncio.run(evaluate_case(two, c2, 1, settings))
        assert result.error_message.startswith(message)
        assert settings.incomplete == {(two.eval_set_id, c2.eval_id)}
        scores = [(m.metric_name, m.score) for m in result.overall_eval_metric_results or []]
        assert scores == [("exact_match", 0.5), ("short", 1.0)]


def test_a_stopped_run_starts_nothing_and_is_marked_partial() -> None:
    stop = threading.Event()
    stop.set()
    for planned in (exact(), (metric("short"), LengthAtMost())):
        result = asyncio.run(run_evalset(plan(CASES, planned), RunSettings(stop=stop)))
        assert result.eval_case_results == []
        assert result.partial is True


def test_stop_signal_calls_back_now_or_later() -> None:
    signal = StopSignal()
    calls: list[str] = []
    signal.on_stop(lambda: calls.append("early"))
    assert calls == [] and not signal.event.is_set()
    signal.request()
    signal.on_stop(lambda: calls.append("late"))
    assert calls == ["early", "late"] and signal.event.is_set()


class SlowFirst(Evaluator):
    """Awaited evaluator whose earlier cases take longer: they finish in reverse order."""

    name = "test_slow_first"
    is_async = True

    def __init__(self, finished: list[str]) -> None:
        self.finished = finished

    async def aevaluate(
        self, metric: EvalMetric, actuals: Turns, expecteds: Turns, context: EvalContext
    ) -> EvaluateResult:
        """Sleep longer the earlier the case is, then pass."""
        index = int(context.case.eval_id[1:])
        await asyncio.sleep(0.002 * (40 - index))
        self.finished.append(context.case.eval_id)
        return average_turns([binary_turn(True, "", 1.0) for _ in actuals], 1.0)


def test_results_are_delivered_in_file_order_with_a_bounded_window() -> None:
    finished: list[str] = []
    cases = [case(f"c{i}", ["a"], ["a"]) for i in range(40)]
    delivered: list[str] = []
    settings = RunSettings(num_runs=2, window=7)
    planned = plan(cases, (metric("slow"), SlowFirst(finished)))
    asyncio.run(
        stream_evalset(planned, settings, lambda r: delivered.append(f"{r.run_id}{r.eval_id}"))
    )
    expected = [f"{run}c{i}" for run in (1, 2) for i in range(40)]
    assert delivered == expected
    # They did finish out of order: within each window of 7 the later case finished first.
    assert finished[:7] != sorted(finished[:7], key=lambda e: int(e[1:]))


def test_resumed_cases_take_their_place_as_merge_orders_them() -> None:
    cases = [case(f"c{i}", ["a"], ["a"]) for i in range(6)]
    planned = plan(cases, exact())
    earlier = [
        case_result_of("c4", 1),
        case_result_of("c0", 2),
        case_result_of("c1", 1),
        case_result_of("gone", 1),
        case_result_of("c5", 2),
    ]
    skip = frozenset(("s", r.eval_id, r.run_id) for r in earlier)
    resumed_result = EvalSetResult(eval_set_id="s", eval_case_results=earlier)
    # As --resume plans them: in file order (work_in_order puts them in the plan's order).
    (resumed,) = plan_merge([resumed_result])
    settings = RunSettings(num_runs=2, skip=skip)
    order = [
        f"{item.run_id}{item.eval_id}"
        if isinstance(item, EvalCaseResult)
        else f"{item[0]}{item[1].eval_id}*"
        for item in work_in_order(planned, settings, resumed)
    ]
    assert order == [
        "1c0*",
        "1c1",
        "1c2*",
        "1c3*",
        "1c4",
        "1c5*",
        "1gone",
        "2c0",
        "2c1*",
        "2c2*",
        "2c3*",
        "2c4*",
        "2c5",
    ]
    fresh = [
        EvalCaseResult(eval_set_id="s", eval_id=item[1].eval_id, run_id=item[0])
        for item in work_in_order(planned, settings, resumed)
        if isinstance(item, tuple)
    ]
    (merged,) = merge_results(
        [resumed_result, EvalSetResult(eval_set_id="s", eval_case_results=fresh)],
        case_order={"s": [c.eval_id for c in cases]},
    )
    assert [f"{c.run_id}{c.eval_id}" for c in merged.case_results()] == [
        o.rstrip("*") for o in order
    ]


def case_result_of(eval_id: str, run_id: int) -> EvalCaseResult:
    """A finished case result of an earlier run."""
    return EvalCaseResult(eval_set_id="s", eval_id=eval_id, run_id=run_id)


class HangsOnFirst(Evaluator):
    """Awaited evaluator that never returns for ``c0`` and passes every other case."""

    name = "test_hangs_on_first"
    is_async = True

    async def aevaluate(
        self, metric: EvalMetric, actuals: Turns, expecteds: Turns, context: EvalContext
    ) -> EvaluateResult:
        """Wait for ever on c0 (like a judge call that hangs), pass the rest."""
        if context.case.eval_id == "c0":
            await asyncio.Event().wait()
        return average_turns([binary_turn(True, "", 1.0) for _ in actuals], 1.0)


def test_a_halt_cancels_what_is_in_flight_and_delivers_what_finished() -> None:
    """The second signal: the hung first case (the one delivery waits on) is cancelled and
    left out; the cases that finished behind it are still delivered, in order."""
    cases = [case(f"c{i}", ["a"], ["a"]) for i in range(5)]
    signals = StopSignal()
    settings = RunSettings(stop=signals.event, signals=signals)
    delivered: list[str] = []

    async def run() -> None:
        asyncio.get_running_loop().call_later(0.3, signals.halt)
        await asyncio.wait_for(
            stream_evalset(
                plan(cases, (metric("hang"), HangsOnFirst())),
                settings,
                lambda r: delivered.append(r.eval_id),
            ),
            10,
        )

    asyncio.run(run())
    assert delivered == ["c1", "c2", "c3", "c4"]
