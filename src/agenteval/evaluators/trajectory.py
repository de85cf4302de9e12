"""``tool_trajectory_avg_score``: compare each turn's tool calls (formats.md §5.2).

Tested in tests/evaluators/test_deterministic_evaluators.py.
"""

from __future__ import annotations

from collections.abc import Iterable

from agenteval.criteria.trajectory import check_tools
from agenteval.evaluators.base import (
    UNIT_RANGE,
    ConfigIssue,
    EvalContext,
    EvaluateResult,
    Evaluator,
    Turns,
    average_turns,
    binary_turn,
    require_same_length,
)
from agenteval.evaluators.checks.criteria import check_trajectory_criterion
from agenteval.evaluators.registry import register_evaluator
from agenteval.schema.metric import EvalMetric, ToolTrajectoryCriterion
from agenteval.steps.record import at_turn

# Used when a metric has no criterion: exact names, arguments and results, any order
# (ARCHITECTURE §5.2, as the trpc-agent-go docs describe it).
DEFAULT_CRITERION = ToolTrajectoryCriterion()


def trajectory_criterion(metric: EvalMetric) -> ToolTrajectoryCriterion:
    """The metric's ``criterion.toolTrajectory``, or the default one."""
    return (metric.criterion.tool_trajectory if metric.criterion else None) or DEFAULT_CRITERION


@register_evaluator
class ToolTrajectoryEvaluator(Evaluator):
    """Score 1 per turn whose tool calls match the expected ones, else 0."""

    name = "tool_trajectory_avg_score"
    description = "Tool-call trajectory match (names, arguments, results), averaged over turns"
    # Each turn scores 1 (trajectory matched) or 0; the metric score is their mean.
    score_range = UNIT_RANGE

    def check(self, metric: EvalMetric) -> Iterable[ConfigIssue]:
        """Validate the tool-trajectory criterion, if any."""
        criterion = metric.criterion.tool_trajectory if metric.criterion else None
        if criterion is None:
            return ()
        return check_trajectory_criterion(criterion, "criterion.toolTrajectory")

    def evaluate(
        self, metric: EvalMetric, actuals: Turns, expecteds: Turns, context: EvalContext
    ) -> EvaluateResult:
        """Score every turn pair with the metric's (or the default) criterion."""
        require_same_length(actuals, expecteds)
        criterion = trajectory_criterion(metric)
        turns = []
        for index, (actual, expected) in enumerate(zip(actuals, expecteds, strict=True)):
            at_turn(index)
            verdict = check_tools(
                criterion, actual.tools or (), expected.tools or (), actual, expected
            )
            turns.append(binary_turn(verdict.ok, verdict.reason, metric.threshold))
        return average_turns(turns, metric.threshold)
