"""Test plugin: an evaluator that never reaches a verdict (its metric is not evaluated).

Every turn is ``not_evaluated`` and the result says ``incomplete``, as an evaluator that
finds a case lacks what its metric needs does: the case is INCOMPLETE everywhere while
trpc-agent-go's ``finalEvalStatus`` of each run passes on the case's other metrics.
"""

from __future__ import annotations

from agenteval.evaluators.base import EvalContext, EvaluateResult, Evaluator, TurnResult, Turns
from agenteval.plugins import register_evaluator
from agenteval.schema import EvalMetric, EvalStatus
from agenteval.schema.result import MetricDetails

REASON = "no verdict yet"


@register_evaluator
class Unevaluated(Evaluator):
    """Leaves its metric not evaluated on every case."""

    name = "unevaluated"
    description = "never evaluates its metric (a test plugin)"

    def evaluate(
        self,
        metric: EvalMetric,
        actuals: Turns,
        expecteds: Turns,
        context: EvalContext,
    ) -> EvaluateResult:
        """Every turn not evaluated, the case incomplete."""
        details = MetricDetails(reason=REASON, score=0.0)
        turns = [TurnResult(0.0, EvalStatus.NOT_EVALUATED, details) for _ in actuals]
        return EvaluateResult(0.0, EvalStatus.NOT_EVALUATED, turns, incomplete=True)
