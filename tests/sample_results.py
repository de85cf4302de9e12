"""Builders of result objects for the report, diff and merge tests.

``generated_result`` makes a seeded multi-case, multi-metric, multi-run
result the way the runner lays it out (run 1 in case order, then run 2, …;
case status from the default aggregator; summary from build_summary).
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Sequence
from typing import Any

from agenteval.results.aggregation import build_summary, default_case_aggregate
from agenteval.schema.base import dump_json
from agenteval.schema.result import (
    EvalCaseResult,
    EvalMetricResult,
    EvalMetricResultPerInvocation,
    EvalSetResult,
    MetricDetails,
)
from agenteval.schema.status import EvalStatus, status_for

P = EvalStatus.PASSED
F = EvalStatus.FAILED
N = EvalStatus.NOT_EVALUATED


def metric(
    name: str,
    score: float,
    threshold: float = 1.0,
    status: EvalStatus | None = None,
    reason: str = "",
) -> EvalMetricResult:
    """An overall metric result; status from ``score >= threshold`` unless given."""
    return EvalMetricResult(
        metric_name=name,
        score=score,
        eval_status=status if status is not None else status_for(score, threshold),
        threshold=threshold,
        details=MetricDetails(reason=reason, score=score),
    )


def case_result(
    eval_set_id: str,
    eval_id: str,
    metrics: Sequence[EvalMetricResult],
    run_id: int = 1,
    error: str = "",
    status: EvalStatus | None = None,
) -> EvalCaseResult:
    """A case result whose score and status follow the default aggregator unless given."""
    score, aggregated = default_case_aggregate(metrics)
    if error and status is None:
        score, aggregated = 0.0, F
    return EvalCaseResult(
        eval_set_id=eval_set_id,
        eval_id=eval_id,
        run_id=run_id,
        score=score,
        final_eval_status=status if status is not None else aggregated,
        error_message=error,
        overall_eval_metric_results=list(metrics) or None,
    )


def eval_set_result(
    eval_set_id: str, cases: Sequence[EvalCaseResult], num_runs: int = 1
) -> EvalSetResult:
    """An eval set result with its summary."""
    result = EvalSetResult(
        eval_set_result_id=f"app_{eval_set_id}_0000",
        eval_set_result_name=f"app_{eval_set_id}_0000",
        eval_set_id=eval_set_id,
        eval_case_results=list(cases),
    )
    result.summary = build_summary(result.case_results(), num_runs)
    return result


THRESHOLDS = {"tool_trajectory_avg_score": 0.8, "final_response_avg_score": 0.5, "rouge_l": 0.6}


def _turns(rng: random.Random, name: str, threshold: float, count: int) -> list[EvalMetricResult]:
    turns = []
    for index in range(count):
        good = rng.random() < 0.8
        score = 1.0 if good else rng.choice([0.0, 0.25, 0.5, 0.75, round(rng.random(), 3)])
        turns.append(metric(name, score, threshold, reason=f"turn {index + 1} of {name}: {score}"))
    return turns


def generated_result(
    eval_set_id: str = "gen", cases: int = 23, num_runs: int = 3, seed: int = 7
) -> EvalSetResult:
    """A seeded result with passing, failing, not-evaluated and errored cases over N runs."""
    rng = random.Random(seed)
    results: list[EvalCaseResult] = []
    for run_id in range(1, num_runs + 1):
        for index in range(cases):
            eval_id = f"case_{index:03d}"
            roll = rng.random()
            if roll < 0.06:
                results.append(
                    case_result(eval_set_id, eval_id, [], run_id, error="no trace for this case")
                )
                continue
            if roll < 0.1:
                results.append(case_result(eval_set_id, eval_id, [], run_id))
                continue
            overall: list[EvalMetricResult] = []
            per_turn: list[list[EvalMetricResult]] = []
            for name, threshold in THRESHOLDS.items():
                if rng.random() < 0.08:
                    overall.append(metric(name, 0.0, threshold, status=N))
                    continue
                turns = _turns(rng, name, threshold, 2)
                per_turn.append(turns)
                average = sum(t.score for t in turns) / len(turns)
                reasons = ";".join(t.details.reason for t in turns if t.details)
                overall.append(metric(name, average, threshold, reason=reasons))
            case = case_result(eval_set_id, eval_id, overall, run_id)
            case.eval_metric_result_per_invocation = [
                EvalMetricResultPerInvocation(eval_metric_results=[t[i] for t in per_turn])
                for i in range(2)
            ]
            results.append(case)
    return eval_set_result(eval_set_id, results, num_runs)


TOOL_CRITERION = {
    "toolTrajectory": {"toolStrategy": {"get_time": {"name": {}, "result": {"ignore": True}}}}
}
TEXT_CRITERION = {
    "finalResponse": {
        "text": {"matchStrategy": "skip", "length": {"min": 10, "max": 400}},
        "json": {"matchStrategy": "exact", "numberTolerance": 0.5},
        "rouge": {"rougeType": "rouge1", "threshold": {"f1": 0.8}},
    },
    "pluginKey": {"b": 1, "a": [1.5, None, "x"]},
}  # fmt: skip


def criteria_result(cases: int = 12, num_runs: int = 2) -> dict[str, Any]:
    """``generated_result`` as file data, each metric result carrying its metric's criterion."""
    data: dict[str, Any] = json.loads(dump_json(generated_result(cases=cases, num_runs=num_runs)))
    for case in data["evalCaseResults"]:
        metrics = list(case.get("overallEvalMetricResults") or [])
        for turn in case.get("evalMetricResultPerInvocation") or []:
            metrics += turn.get("evalMetricResults") or []
        for metric in metrics:
            tool = metric["metricName"].startswith("tool")
            metric["criterion"] = copy.deepcopy(TOOL_CRITERION if tool else TEXT_CRITERION)
    return data
