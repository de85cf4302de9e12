"""Importing this module registers every built-in evaluator.

The deterministic ones are imported here; the judge family is imported when a registry
first needs it (:func:`agenteval.registry.defer`): a metric file naming only
deterministic metrics never loads the judge evaluators, their templates and checks.

Tested in tests/cli/test_commands.py and tests/evaluators/test_builtins.py.
"""

from agenteval.evaluators import (
    final_response_avg,
    response_match,
    trajectory,
    trajectory_f1,
    usage_counts,
)
from agenteval.registry import defer


def _load_judge_family() -> None:
    from agenteval.evaluators.llm import (  # noqa: F401
        final_response_gate,
        hallucinations,
        judge_template,
        knowledge_recall,
        llm_final_response,
        rubric_critic,
        rubric_reference_critic,
        rubric_response,
        verifier_pairwise,
    )


defer(_load_judge_family)

__all__ = [
    "final_response_avg",
    "response_match",
    "trajectory",
    "trajectory_f1",
    "usage_counts",
]
