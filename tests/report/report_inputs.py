"""Results that exercise every branch of the reports: multi-run, incomplete, partial, odd text.

Built on ``sample_results.generated_result`` (the runner's layout: run 1 in case
order, then run 2, …) and then bent: judgeFailures as a list or an old count,
runs missing as in an interrupted run, reasons past every cap with control
characters and XML/Markdown syntax, judge votes that disagree, gate method
counts, judge usage, durations and timestamps, no summary.
"""

from __future__ import annotations

import json
import random
import subprocess
from pathlib import Path

from pydantic import BaseModel

from agenteval.inputs.loading import load_result
from agenteval.results.aggregation import incomplete_cases
from agenteval.schema.result import (
    EvalCaseResult,
    EvalMetricResult,
    EvalSetResult,
    MetricDetails,
)
from agenteval.schema.status import EvalStatus
from sample_results import generated_result
from tests.cli.test_commands import agenteval_cli, answer, user
from trpc_fixtures import FIXTURES

ODD = "a|b *c* <tag> & `x` \x1b[31mred\x00 \u2028 \ud800 ::error::forged\r\nnext"


def fixture_results() -> list[EvalSetResult]:
    """Every stored result file of the trpc-agent-go examples."""
    return [load_result(path) for path in sorted(FIXTURES.rglob("*.evalset_result.json"))]


# The mean of the turn scores 1, 1 and 0.4 of near_threshold_run: below 0.8, 0.8 at 4 decimals.
NEAR_MEAN = (1 + 1 + 0.4) / 3


def near_threshold_run(
    root: Path, *flags: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``agenteval run FLAGS`` of an eval set (trace mode, in ``root``) whose one case
    ``near`` has three turns scored by response_match_score against threshold 0.8: two
    answers as expected (1) and one of 4 words holding the 1 expected (ROUGE-1 F1 0.4).
    The metric's score and average, 0.7999999999999999, fail 0.8 and round to it."""
    turns = [
        ("q1", "paris", "paris"),
        ("q2", "blue", "blue"),
        ("q3", "seven", "seven eight nine ten"),
    ]
    case = {
        "evalId": "near",
        "conversation": [{"userContent": user(q), "finalResponse": answer(w)} for q, w, _ in turns],
        "actualConversation": [
            {"userContent": user(q), "finalResponse": answer(got)} for q, _, got in turns
        ],
        "evalMode": "trace",
        "sessionInput": {"userId": "u"},
    }
    evalset = root / "near.evalset.json"
    evalset.write_text(json.dumps({"evalSetId": "near", "evalCases": [case]}))
    metrics = [{"metricName": "response_match_score", "threshold": 0.8}]
    (root / "near.metrics.json").write_text(json.dumps(metrics))
    return agenteval_cli("run", "--evalset", str(evalset), "--no-progress", *flags, env=env)


def _put(model: BaseModel, key: str, value: object) -> None:
    """Set an extra (non-Go) key of a result object."""
    assert model.model_extra is not None
    model.model_extra[key] = value


def _bend(result: EvalSetResult, rng: random.Random) -> None:
    """Long and odd reasons and errors, judge votes, gate methods (in place)."""
    for case in result.case_results():
        if case.error_message and rng.random() < 0.5:
            case.error_message = f"{ODD} " + "e" * rng.choice([10, 2500])
        for metric in case.overall_eval_metric_results or []:
            roll = rng.random()
            if roll < 0.15 and metric.details is not None:
                metric.details.reason = ";" + ODD + " " + "r" * rng.choice([290, 310, 1999, 2600])
            elif roll < 0.25:
                _put(metric, "methods", {"exact": rng.randint(0, 5), "judge": 2, "odd": True})
        for turn in case.eval_metric_result_per_invocation or []:
            for metric in turn.eval_metric_results or []:
                if metric.details is not None and rng.random() < 0.2:
                    samples = [{"status": rng.choice(["passed", "failed"])} for _ in range(3)]
                    _put(metric.details, "samples", samples)
                    _put(metric.details, "agreement", 0.6667)
                    _put(metric.details, "unstable", rng.random() < 0.7)


def varied_results() -> dict[str, EvalSetResult]:
    """Named generated results covering the reports' branches."""
    made: dict[str, EvalSetResult] = {}
    for runs in (1, 2, 3):
        rng = random.Random(runs)
        result = generated_result(f"gen{runs}", cases=37, num_runs=runs, seed=runs + 10)
        _bend(result, rng)
        made[f"plain{runs}"] = result
        incomplete = generated_result(f"inc{runs}", cases=29, num_runs=runs, seed=runs + 20)
        _bend(incomplete, rng)
        incomplete.judge_failures = incomplete_cases(
            incomplete.model_copy(update={"judge_failures": 1})
        )
        incomplete.judge_usage = {
            "total": {"calls": 12, "cacheHits": 3, "retries": 1, "promptTokens": 12345}
        }
        made[f"incomplete{runs}"] = incomplete
        counted = generated_result(f"count{runs}", cases=19, num_runs=runs, seed=runs + 30)
        counted.judge_failures = 4  # an older file: a count, not the ids
        counted.summary = None
        made[f"counted{runs}"] = counted
    partial = generated_result("partial", cases=31, num_runs=3, seed=41)
    _bend(partial, random.Random(5))
    # Interrupted in run 3: the later cases of runs 2 and 3 never finished.
    kept = [
        case
        for case in partial.case_results()
        if case.run_id == 1 or int(case.eval_id.split("_")[1]) < 10 * (4 - case.run_id)
    ]
    partial.eval_case_results = kept
    partial.partial = True
    partial.summary = None
    _put(partial, "durationSeconds", 12.5)
    partial.creation_timestamp = 1_700_000_000.25
    made["partial"] = partial
    made["unordered"] = _unordered()
    made["empty"] = EvalSetResult(eval_set_id="empty", eval_case_results=[])
    return made


def _unordered() -> EvalSetResult:
    """Runs out of runId order with scores whose float sum depends on the order."""
    cases: list[EvalCaseResult] = []
    for run_id in (2, 1, 3):
        for index in range(4):
            score = [0.1, 0.7, 0.2, 0.4][(index + run_id) % 4]
            status = EvalStatus.PASSED if score >= 0.3 else EvalStatus.FAILED
            metric = EvalMetricResult(
                metric_name="m",
                score=score,
                eval_status=status,
                threshold=1 / 3,
                details=MetricDetails(reason=f"run {run_id}", score=score),
            )
            cases.append(
                EvalCaseResult(
                    eval_set_id="unordered",
                    eval_id=f"c{index}",
                    run_id=run_id,
                    score=score,
                    final_eval_status=status,
                    overall_eval_metric_results=[metric],
                )
            )
    return EvalSetResult(eval_set_id="unordered", eval_case_results=cases)
