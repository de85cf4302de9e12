"""The console summary shows the gate's per-method counts and the judge usage of an eval set."""

from __future__ import annotations

import json

from rich.console import Console

from agenteval.report.console import render_results
from agenteval.schema.result import EvalCaseResult, EvalMetricResult, EvalSetResult
from agenteval.schema.status import EvalStatus


def gate_case(eval_id: str, methods: dict[str, int]) -> EvalCaseResult:
    metric = EvalMetricResult.model_validate_json(
        json.dumps(
            {
                "metricName": "gate",
                "score": 1,
                "evalStatus": "passed",
                "threshold": 1,
                "methods": methods,
            }
        )
    )
    return EvalCaseResult(
        eval_set_id="s",
        eval_id=eval_id,
        run_id=1,
        score=1,
        final_eval_status=EvalStatus.PASSED,
        overall_eval_metric_results=[metric],
    )


def test_method_counts_and_usage_line() -> None:
    result = EvalSetResult(
        eval_set_id="s",
        eval_case_results=[
            gate_case("a", {"exact": 30, "rouge": 2}),
            gate_case("b", {"exact": 7, "rouge": 50, "judge": 11}),
        ],
    )
    result.judge_usage = {
        "total": {
            "calls": 11,
            "cacheHits": 4,
            "retries": 1,
            "promptTokens": 5200,
            "completionTokens": 300,
        }
    }
    console = Console(record=True, width=120, color_system=None)
    render_results(console, [result])
    text = console.export_text()
    assert "gate decided by: 37 exact · 52 rouge · 11 judge" in text
    assert "judge: 11 calls, 4 from cache, 1 retry, 5,200 prompt + 300 completion tokens" in text
