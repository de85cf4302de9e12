"""``tool_trajectory_avg_score``: compare each turn's tool calls (formats.md §5.2).

Tested in tests/evaluators/test_deterministic_evaluators.py.
"""

from __future__ import annotations

from collections.abc import Iterable

from agenteval.criteria.trajectory import check_tools
from agenteval.evaluators.base import ConfigIssue, TurnEvaluator, TurnResult, binary_turn
from agenteval.evaluators.checks.criteria import check_trajectory_criterion
from agenteval.evaluators.registry import register_evaluator
from agenteval.schema.evalset import Invocation
from agenteval.schema.metric import EvalMetric, ToolTrajectoryCriterion

# Used when a metric has no criterion: exact names, arguments and results, any order
# (ARCHITECTURE §5.2, as the trpc-agent-go docs describe it).
DEFAULT_CRITERION = ToolTrajectoryCriterion()
CRITERION_PATH = "criterion.toolTrajectory"


def trajectory_criterion(metric: EvalMetric) -> ToolTrajectoryCriterion:
    """The metric's ``criterion.toolTrajectory``, or the default one."""
    return (metric.criterion.tool_trajectory if metric.criterion else None) or DEFAULT_CRITERION


def trajectory_issues(metric: EvalMetric) -> list[ConfigIssue]:
    """The checks of the metric's tool-trajectory criterion (none without one)."""
    criterion = metric.criterion.tool_trajectory if metric.criterion else None
    if criterion is None:
        return []
    return list(check_trajectory_criterion(criterion, CRITERION_PATH))


@register_evaluator
class ToolTrajectoryEvaluator(TurnEvaluator):
    """Score 1 per turn whose tool calls match the expected ones, else 0."""

    name = "tool_trajectory_avg_score"
    description = "Tool-call trajectory match (names, arguments, results), averaged over turns"

    def check(self, metric: EvalMetric) -> Iterable[ConfigIssue]:
        """Validate the tool-trajectory criterion, if any."""
        return trajectory_issues(metric)

    def score_turn(
        self, metric: EvalMetric, actual: Invocation, expected: Invocation
    ) -> TurnResult:
        """1 when the turn's tool calls match under the metric's (or the default) criterion."""
        verdict = check_tools(
            trajectory_criterion(metric), actual.tools or (), expected.tools or (), actual, expected
        )
        return binary_turn(verdict.ok, verdict.reason, metric.threshold)
