"""Invocations aggregators: per-turn results → the metric's overall result (§4.7).

Tested in tests/evaluators/llm/operators/test_samples.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, Protocol

from agenteval.evaluators.base import EvaluateResult, TurnResult, average_turns
from agenteval.evaluators.llm.operators.registry import operator_registry
from agenteval.registry import Registry
from agenteval.schema.metric import EvalMetric


class InvocationsAggregator(Protocol):
    """Combines one result per turn into the metric result; raises ``OperatorError``.

    One whose score never leaves the range of its turns' scores may say so with
    ``keeps_score_range = True`` (a template metric's threshold is then checked).
    """

    def aggregate(self, turns: Sequence[TurnResult], metric: EvalMetric) -> EvaluateResult:
        """The overall score and status; ``turns`` must come back, one per turn, in order."""
        ...


invocations_aggregators: Registry[InvocationsAggregator] = operator_registry(
    "invocations aggregator"
)


class Average:
    """Mean score of the evaluated turns; none evaluated → ``not_evaluated``, score 0.

    Unlike Go, the turn results are kept when none was evaluated: here a turn is
    ``not_evaluated`` only when its judge call failed, and its reason must reach
    the result file (Go's empty list is then reported as a count mismatch, §10.6).
    """

    # A mean stays within the range of what it averages.
    keeps_score_range: ClassVar[bool] = True

    def aggregate(self, turns: Sequence[TurnResult], metric: EvalMetric) -> EvaluateResult:
        """Average the evaluated turns against the metric threshold."""
        return average_turns(list(turns), metric.threshold)


invocations_aggregators.register("average", Average())
