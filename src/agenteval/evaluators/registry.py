"""Evaluators and case aggregators by name; plugins add to the same registries."""

from __future__ import annotations

import difflib
from collections.abc import Callable, Sequence

from agenteval.evaluators.base import Evaluator
from agenteval.schema.evalset import EvalCase
from agenteval.schema.metric import EvalMetric
from agenteval.schema.result import EvalMetricResult
from agenteval.schema.status import EvalStatus

CaseAggregator = Callable[
    [EvalCase, Sequence[EvalMetric], Sequence[EvalMetricResult]], tuple[float, EvalStatus]
]

# Built-in names of trpc-agent-go that this build may not provide yet; used for a precise error.
KNOWN_BUILTINS = (
    "tool_trajectory_avg_score",
    "final_response_avg_score",
    "llm_final_response",
    "llm_hallucinations",
    "llm_judge_template",
    "llm_verifier_pairwise",
    "llm_rubric_critic",
    "llm_rubric_reference_critic",
    "llm_rubric_response",
    "llm_rubric_knowledge_recall",
)


class EvaluatorRegistry:
    """Name → evaluator instance."""

    def __init__(self) -> None:
        self._evaluators: dict[str, Evaluator] = {}

    def register(self, evaluator: Evaluator) -> Evaluator:
        """Add (or replace) an evaluator under its ``name``."""
        if not evaluator.name:
            raise ValueError(f"{type(evaluator).__name__} has no name")
        self._evaluators[evaluator.name] = evaluator
        return evaluator

    def get(self, name: str) -> Evaluator | None:
        """The evaluator registered under ``name``, if any."""
        return self._evaluators.get(name)

    def names(self) -> list[str]:
        """Registered names, sorted."""
        return sorted(self._evaluators)

    def all(self) -> list[Evaluator]:
        """Registered evaluators, sorted by name."""
        return [self._evaluators[n] for n in self.names()]

    def closest(self, name: str) -> str | None:
        """The registered name most like ``name``, for a 'did you mean' hint."""
        matches = difflib.get_close_matches(name, self.names(), n=1, cutoff=0.5)
        return matches[0] if matches else None


evaluators = EvaluatorRegistry()
case_aggregators: dict[str, CaseAggregator] = {}


def register_evaluator(cls: type[Evaluator]) -> type[Evaluator]:
    """Class decorator: instantiate and register an evaluator."""
    evaluators.register(cls())
    return cls


def register_case_aggregator(name: str) -> Callable[[CaseAggregator], CaseAggregator]:
    """Decorator: register a case aggregator selectable with ``--case-aggregator NAME``."""

    def decorate(func: CaseAggregator) -> CaseAggregator:
        case_aggregators[name] = func
        return func

    return decorate
