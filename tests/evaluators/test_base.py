"""agenteval.evaluators.base: what a plugin's evaluator returns is checked before it counts.

A plugin file (written to a temporary directory, loaded with ``plugins=``) returns one
malformed result per metric; ``evaluate`` scores a one-turn case with it.  Each malformed
result leaves the metric not evaluated on the case, with the fault as the reason: the
case is incomplete (exit 3) -- never green, never an internal error.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agenteval.api import evaluate
from agenteval.exit_codes import ExitCode
from agenteval.schema.status import EvalStatus

PLUGIN = """
import math
from agenteval.evaluators.base import EvaluateResult, Evaluator, TurnResult
from agenteval.plugins import register_evaluator
from agenteval.schema import EvalStatus
from agenteval.schema.result import MetricDetails

PASSED = EvalStatus.PASSED


def turns(actuals, score, status=PASSED):
    return [TurnResult(score, status, MetricDetails(reason="r", score=1.0)) for _ in actuals]


RESULTS = {
    "nan": lambda a: EvaluateResult(math.nan, PASSED, turns(a, 1.0)),
    "inf": lambda a: EvaluateResult(math.inf, PASSED, turns(a, math.inf)),
    "nan_turn": lambda a: EvaluateResult(1.0, PASSED, turns(a, math.nan)),
    "above_range": lambda a: EvaluateResult(5.0, PASSED, turns(a, 5.0)),
    "no_turns": lambda a: EvaluateResult(1.0, PASSED, []),
    "extra_turns": lambda a: EvaluateResult(1.0, PASSED, turns(a, 1.0) * 3),
    "text": lambda a: "passed",
    "nothing": lambda a: None,
    "unknown_status": lambda a: EvaluateResult(1.0, "green", turns(a, 1.0, "green")),
    "text_score": lambda a: EvaluateResult("1", PASSED, turns(a, 1.0)),
    "text_turn": lambda a: EvaluateResult(1.0, PASSED, ["passed" for _ in a]),
    "extra_score": lambda a: EvaluateResult(1.0, PASSED, turns(a, 1.0), extra={"score": 3}),
    "well_formed": lambda a: EvaluateResult(0.75, "passed", turns(a, 0.75, "passed")),
}


@register_evaluator
class Malformed(Evaluator):
    name = "malformed"
    description = "returns the result its metric names"
    score_range = (0.0, 1.0)

    def evaluate(self, metric, actuals, expecteds, context):
        return RESULTS[metric.metric_name](actuals)
"""

FAULTS = {
    "nan": "score nan (not a finite number)",
    "inf": "score inf (not a finite number)",
    "nan_turn": "turn 1: score nan (not a finite number)",
    "above_range": "score 5.0 outside its score_range 0..1",
    "no_turns": "0 turn results for 1 turn (one per turn)",
    "extra_turns": "3 turn results for 1 turn (one per turn)",
    "text": "str, not an EvaluateResult",
    "nothing": "NoneType, not an EvaluateResult",
    "unknown_status": "status 'green' (not passed, failed or not_evaluated)",
    "text_score": "score '1' (not a number)",
    "text_turn": "turn 1: str, not a TurnResult with MetricDetails",
    "extra_score": "an extra that is not a dict or sets a field of the metric result",
}


def write_suite(root: Path, metric_name: str) -> Path:
    """A one-turn trace case and a metric scored by the plugin's ``malformed`` evaluator."""
    turn = {
        "userContent": {"role": "user", "content": "q"},
        "finalResponse": {"role": "assistant", "content": "a"},
    }
    case = {
        "evalId": "c",
        "evalMode": "trace",
        "conversation": [turn],
        "actualConversation": [turn],
    }
    case["sessionInput"] = {"appName": "app", "userId": "u"}
    evalset = root / "s.evalset.json"
    evalset.write_text(json.dumps({"evalSetId": "s", "evalCases": [case]}))
    metric = {"metricName": metric_name, "evaluatorName": "malformed", "threshold": 0.5}
    (root / "s.metrics.json").write_text(json.dumps([metric]))
    (root / "malformed_plugin.py").write_text(PLUGIN)
    return evalset


@pytest.mark.parametrize("kind", sorted(FAULTS))
def test_a_malformed_result_leaves_the_case_incomplete(tmp_path: Path, kind: str) -> None:
    run = evaluate(write_suite(tmp_path, kind), plugins=[str(tmp_path / "malformed_plugin.py")])
    assert (run.status, run.exit_code) == (EvalStatus.INCOMPLETE, ExitCode.INCOMPLETE)
    [case] = run.results[0].case_results()
    [overall] = case.overall_eval_metric_results or []
    assert (overall.score, overall.eval_status) == (0.0, EvalStatus.NOT_EVALUATED)
    assert overall.details is not None
    assert overall.details.reason == f"evaluator malformed returned {FAULTS[kind]}"
    assert run.results[0].judge_failures == ["c"]  # the incomplete cases, as reports read them


def test_a_well_formed_result_counts_its_status_read_from_text(tmp_path: Path) -> None:
    run = evaluate(
        write_suite(tmp_path, "well_formed"), plugins=[str(tmp_path / "malformed_plugin.py")]
    )
    assert (run.status, run.exit_code) == (EvalStatus.PASSED, ExitCode.PASSED)
    [case] = run.results[0].case_results()
    assert case.final_eval_status is EvalStatus.PASSED
    [overall] = case.overall_eval_metric_results or []
    assert (overall.score, overall.eval_status) == (0.75, EvalStatus.PASSED)
    assert overall.eval_status is EvalStatus.PASSED  # the member, not the text
