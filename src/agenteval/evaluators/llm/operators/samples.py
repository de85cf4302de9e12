"""Samples aggregators: the N judge samples of one turn → one turn result (§4.6).

A sample is a :class:`~agenteval.evaluators.base.TurnResult` whose status is
``passed`` iff its score >= the metric threshold.  The aggregator returns the
turn's result; the pipeline then records every sample's vote beside it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, Protocol

from agenteval.evaluators.base import TurnResult
from agenteval.evaluators.llm.operators.registry import OperatorError, operator_registry
from agenteval.registry import Registry
from agenteval.schema.metric import EvalMetric
from agenteval.schema.status import EvalStatus


class SamplesAggregator(Protocol):
    """Chooses or combines one turn's samples; raises ``OperatorError`` when it cannot.

    One that never leaves the range of its samples' scores may say so with
    ``keeps_score_range = True`` (a template metric's threshold is then checked).
    """

    def aggregate(self, samples: Sequence[TurnResult], metric: EvalMetric) -> TurnResult:
        """The turn result for these samples (in sample order)."""
        ...


samples_aggregators: Registry[SamplesAggregator] = operator_registry("samples aggregator")


class MajorityVote:
    """The first sample of the majority side; ties fail; scores are never averaged."""

    # It returns one of the samples.
    keeps_score_range: ClassVar[bool] = True

    def aggregate(self, samples: Sequence[TurnResult], metric: EvalMetric) -> TurnResult:
        """Split evaluated samples at the threshold and return a representative one."""
        if not samples:
            raise OperatorError("no samples")
        evaluated = [s for s in samples if s.status is not EvalStatus.NOT_EVALUATED]
        positive = [s for s in evaluated if s.score >= metric.threshold]
        negative = [s for s in evaluated if s.score < metric.threshold]
        if not positive and not negative:
            return samples[0]
        if len(positive) > len(negative):
            return positive[0]
        return negative[0]


samples_aggregators.register("majority_vote", MajorityVote())
