"""``tool_call_count``, ``inference_call_count``, ``token_usage``: what the agent spent.

Google ADK's names and semantics: the score is the count, per turn and for the case
(the sum over its turns, not a mean).  With no positive ``threshold`` the metric is
informational and always passes; a positive ``threshold`` is an upper bound, and a
count above it fails the metric (to allow none at all, give a threshold below 1,
e.g. 0.5).  The metric summaries follow the same rule
(:func:`agenteval.schema.status.metric_status`).

``tool_call_count`` counts the turn's tool calls (every trace has them).  The other
two read the turn's ``usage`` (:class:`agenteval.schema.evalset.Usage`), which the
``cmd:`` protocol, AG-UI events, OTLP GenAI spans, ADK's ``usage_metadata`` (``import
adk``) and trpc-agent-go's ``executionTrace`` fill in; a turn without it is not
evaluated, with the reason, never counted as 0, and its case is incomplete (exit 3)
however the other turns score: their sum falls short of what the case spent.
``token_usage`` keeps the input and output tokens in its details and, when the turn's
model has a price in the run's table (the built-in one with ``--prices`` over it),
``costUsd``.  What the agent spent is
also counted without any of these metrics (:mod:`agenteval.results.agent_usage`).

Tested in tests/evaluators/test_usage_counts.py.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, ClassVar

from agenteval.evaluators.base import EvalContext, EvaluateResult, Evaluator, TurnResult, Turns
from agenteval.evaluators.registry import register_evaluator
from agenteval.inputs.score_text import threshold_beside
from agenteval.schema.evalset import Invocation
from agenteval.schema.metric import EvalMetric
from agenteval.schema.result import DetailValue, MetricDetails
from agenteval.schema.status import (
    NOT_EVALUATED,
    UPPER_BOUND_KEY,
    UPPER_BOUND_METRICS,
    metric_status,
)

NO_USAGE = (
    "the trace carries no usage for this turn (cmd: usage lines, AG-UI, OTLP gen_ai.usage.*, "
    "ADK usage_metadata or a trpc-agent-go executionTrace)"
)


def _bound_text(metric: EvalMetric, count: float) -> str:
    if metric.threshold <= 0:
        return "informational (no threshold)"
    verdict = "within" if count <= metric.threshold else "above"
    return f"{verdict} the upper bound {threshold_beside(metric.threshold, count)}"


def turn_cost(turn: Invocation, prices: Any = None) -> Decimal | None:
    """The turn's model cost at ``prices`` (the run's table; None: the built-in one),
    None when unknown."""
    if turn.usage is None:
        return None
    from agenteval.judge.prices import usage_cost

    return usage_cost(turn.usage, prices).usd


class _CountEvaluator(Evaluator):
    """Per turn a count; the case's score is their sum."""

    unit: ClassVar[str] = ""

    def count(self, turn: Invocation, context: EvalContext) -> tuple[int | None, dict[str, Any]]:
        """The turn's count (None: unknown) and extra details."""
        raise NotImplementedError

    def evaluate(
        self, metric: EvalMetric, actuals: Turns, expecteds: Turns, context: EvalContext
    ) -> EvaluateResult:
        """Count each turn; sum them for the case."""
        turns: list[TurnResult] = []
        total, known = 0, 0
        extra: dict[str, Any] = {}
        if metric.metric_name not in UPPER_BOUND_METRICS:
            # Named apart from this evaluator: every average of it must know its threshold
            # is an upper bound (an average of 3 calls against 2 read as passed).
            extra[UPPER_BOUND_KEY] = True
        costs: list[Decimal | None] = []
        for turn in actuals:
            count, details = self.count(turn, context)
            if count is None:
                reason = f"{self.name}: not evaluated: {NO_USAGE}"
                turns.append(TurnResult(0.0, NOT_EVALUATED, MetricDetails(reason=reason)))
                continue
            known += 1
            total += count
            if "costUsd" in details:
                costs.append(details["costUsd"])
            for key in ("inputTokens", "outputTokens"):
                if key in details:
                    extra[key] = extra.get(key, 0) + details[key]
            reason = f"{count} {self.unit} ({_bound_text(metric, count)})"
            body = {
                "reason": reason,
                "score": count,
                "value": DetailValue(kind="numeric", numeric=count),
            }
            body.update(
                {
                    k: float(v) if isinstance(v, Decimal) else v
                    for k, v in details.items()
                    if v is not None
                }
            )
            turns.append(
                TurnResult(
                    float(count),
                    metric_status(self.name, count, metric.threshold),
                    MetricDetails.model_validate(body),
                )
            )
        if not known:
            return EvaluateResult(0.0, NOT_EVALUATED, turns, extra, incomplete=True)
        if costs and all(c is not None for c in costs):
            extra["costUsd"] = float(sum(c for c in costs if c is not None))
        # A turn without usage leaves the total short of what the case spent: incomplete,
        # never passed on the part that was counted.
        return EvaluateResult(
            float(total),
            metric_status(self.name, total, metric.threshold),
            turns,
            extra,
            incomplete=known < len(turns),
        )


@register_evaluator
class ToolCallCount(_CountEvaluator):
    """How many tools the agent called."""

    name = "tool_call_count"
    description = (
        "Tool calls per turn, summed per case (ADK); informational unless a threshold is "
        "given, which is an upper bound"
    )
    unit = "tool calls"

    def count(self, turn: Invocation, context: EvalContext) -> tuple[int | None, dict[str, Any]]:
        """The turn's tool calls."""
        return len(turn.tools or ()), {}


@register_evaluator
class InferenceCallCount(_CountEvaluator):
    """How many model calls the agent made."""

    name = "inference_call_count"
    description = (
        "Model (inference) calls per turn from the trace's usage, summed per case (ADK); "
        "informational unless a threshold is given, which is an upper bound"
    )
    unit = "inference calls"

    def count(self, turn: Invocation, context: EvalContext) -> tuple[int | None, dict[str, Any]]:
        """The turn's model calls, when its usage is known."""
        return (turn.usage.inference_calls if turn.usage is not None else None), {}


@register_evaluator
class TokenUsage(_CountEvaluator):
    """How many tokens the agent's model calls used."""

    name = "token_usage"
    description = (
        "Input + output tokens of the agent's model calls per turn, summed per case (ADK); "
        "informational unless a threshold is given, which is an upper bound; cost when priced"
    )
    unit = "tokens"

    def count(self, turn: Invocation, context: EvalContext) -> tuple[int | None, dict[str, Any]]:
        """Input plus output tokens, with both and the cost at the run's prices in the details."""
        usage = turn.usage
        if usage is None:
            return None, {}
        details: dict[str, Any] = {
            "inputTokens": usage.input_tokens,
            "outputTokens": usage.output_tokens,
        }
        if usage.model:
            details["model"] = usage.model
        # None: no price, so the case has no cost.
        details["costUsd"] = turn_cost(turn, context.prices)
        return usage.input_tokens + usage.output_tokens, details


__all__ = ["InferenceCallCount", "TokenUsage", "ToolCallCount", "turn_cost"]
