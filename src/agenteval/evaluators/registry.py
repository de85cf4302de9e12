"""Evaluators and case aggregators by name; plugins add to the same registries.

Tested in tests/test_plugins.py.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from agenteval.evaluators.base import Evaluator
from agenteval.registry import Registry
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


evaluators: Registry[Evaluator] = Registry("evaluator")
case_aggregators: Registry[CaseAggregator] = Registry("case aggregator")


def register_evaluator(cls: type[Evaluator]) -> type[Evaluator]:
    """Class decorator: instantiate and register an evaluator (a later one replaces it)."""
    if not (isinstance(cls, type) and issubclass(cls, Evaluator)):
        # Registered anyway, it stopped the first run naming it with an internal error.
        raise TypeError(
            f"register_evaluator: {getattr(cls, '__name__', repr(cls))} does not derive from "
            "agenteval.evaluators.base.Evaluator"
        )
    evaluator = cls()
    if not evaluator.name:
        raise ValueError(f"{type(evaluator).__name__} has no name")
    evaluators.register(evaluator.name, evaluator)
    return cls


def register_case_aggregator(name: str) -> Callable[[CaseAggregator], CaseAggregator]:
    """Decorator: register a case aggregator selectable with ``--case-aggregator NAME``."""

    return case_aggregators.register(name)
