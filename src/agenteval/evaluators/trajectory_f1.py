"""``tool_trajectory_f1``: partial credit per turn for the tool calls (issue 26 item 4).

``tool_trajectory_avg_score`` gives a turn 1 or 0; this evaluator scores the same
comparison gradually.  It reads the same ``criterion.toolTrajectory``: its tool
strategies decide when two calls match (``defaultStrategy: {"name": {}}`` compares
names only, adding ``"arguments": {}`` compares names and arguments), and
``orderSensitive`` picks in-order matching (longest common subsequence) instead of
any order (maximum matching of the multisets).  Without a criterion it compares
names, arguments and results exactly, in any order, as the trajectory evaluator does.

Each turn's score is the F1 of precision and recall (see
:mod:`agenteval.criteria.trajectory_f1`); its reason states the three numbers and
its details keep them, with the matched pairs and the missing and extra calls, as
``trajectoryF1``.  The metric's score is the mean over turns.

Tested in tests/evaluators/test_trajectory_f1.py.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from agenteval.criteria.trajectory_f1 import TrajectoryF1, trajectory_f1
from agenteval.evaluators.base import ConfigIssue, TurnEvaluator, TurnResult
from agenteval.evaluators.registry import register_evaluator
from agenteval.evaluators.trajectory import CRITERION_PATH, trajectory_criterion, trajectory_issues
from agenteval.schema.evalset import Invocation, Tool
from agenteval.schema.metric import EvalMetric
from agenteval.schema.result import DetailValue, MetricDetails
from agenteval.schema.status import status_for
from agenteval.steps.record import listening

NAME = "tool_trajectory_f1"
DETAILS_KEY = "trajectoryF1"


def _number(value: float) -> str:
    return f"{value:.4g}"


def _names(tools: Sequence[Tool], indexes: Sequence[int]) -> str:
    return ", ".join(tools[i].name or "(unnamed)" for i in indexes)


def f1_reason(scored: TrajectoryF1, actual: Sequence[Tool], expected: Sequence[Tool]) -> str:
    """``precision 0.6667, recall 1, F1 0.8 (any order: 2 of 3 actual calls match …)``."""
    matched = len(scored.pairs)
    reason = (
        f"precision {_number(scored.precision)}, recall {_number(scored.recall)}, "
        f"F1 {_number(scored.f1)} ({scored.order}: {matched} of {scored.actual_calls} actual "
        f"calls match {matched} of {scored.expected_calls} expected)"
    )
    missing, extra = scored.unmatched_expected(), scored.unmatched_actual()
    if missing:
        reason += f"; missing: {_names(expected, missing)}"
    if extra:
        reason += f"; extra: {_names(actual, extra)}"
    for near_miss in scored.near_misses:
        reason += f"; {near_miss}"
    return reason


def f1_details(scored: TrajectoryF1) -> dict[str, Any]:
    """The structured numbers a reader (or ``explain``) needs, under ``details.trajectoryF1``."""
    return {
        "precision": scored.precision,
        "recall": scored.recall,
        "f1": scored.f1,
        "order": scored.order,
        "matched": len(scored.pairs),
        "actualCalls": scored.actual_calls,
        "expectedCalls": scored.expected_calls,
        "pairs": [{"expected": left, "actual": right} for left, right in scored.pairs],
        "missing": scored.unmatched_expected(),
        "extra": scored.unmatched_actual(),
        "nearMisses": list(scored.near_misses),
    }


@register_evaluator
class ToolTrajectoryF1Evaluator(TurnEvaluator):
    """Per turn the F1 of the actual tool calls against the expected ones, averaged."""

    name = NAME
    description = (
        "Tool calls scored by precision/recall/F1 against the expected ones (any order or "
        "in order, the trajectory criterion's matching), averaged over turns"
    )

    def check(self, metric: EvalMetric) -> Iterable[ConfigIssue]:
        """The trajectory criterion's checks; no subset matching, no compare function."""
        issues = trajectory_issues(metric)
        # Without a criterion of its own the metric uses the default, which has neither.
        criterion = trajectory_criterion(metric)
        if criterion.subset_matching:
            issues.append(
                ConfigIssue(
                    f"{CRITERION_PATH}.subsetMatching",
                    f"{NAME} has no subset mode: extra calls lower its precision instead",
                    "remove subsetMatching (or weigh recall alone with tool_trajectory_avg_score)",
                )
            )
        if criterion.compare_name:
            issues.append(
                ConfigIssue(
                    f"{CRITERION_PATH}.compareName",
                    f"{NAME} matches calls pair by pair; a compare function judges whole turns",
                    "use tool strategies (defaultStrategy, toolStrategy) to say when calls match",
                )
            )
        return issues

    def score_turn(
        self, metric: EvalMetric, actual: Invocation, expected: Invocation
    ) -> TurnResult:
        """The F1 of the turn's tool calls (an F1 is never below 0 nor above 1)."""
        got, want = actual.tools or (), expected.tools or ()
        scored = trajectory_f1(trajectory_criterion(metric), got, want)
        recorder = listening()
        if recorder is not None:
            recorder.add(
                "trajectory_f1",
                {
                    **f1_details(scored),
                    "actualNames": [tool.name for tool in got],
                    "expectedNames": [tool.name for tool in want],
                },
            )
        details = MetricDetails.model_validate(
            {
                "reason": f1_reason(scored, got, want),
                "score": scored.f1,
                "value": DetailValue(kind="numeric", numeric=scored.f1),
                DETAILS_KEY: f1_details(scored),
            }
        )
        return TurnResult(scored.f1, status_for(scored.f1, metric.threshold), details)
