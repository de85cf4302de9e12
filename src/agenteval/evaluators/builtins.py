"""Importing this module registers every built-in evaluator.

Tested in tests/cli/test_commands.py.
"""

from agenteval.evaluators import (
    final_response_avg,
    response_match,
    trajectory,
    trajectory_f1,
    usage_counts,
)
from agenteval.evaluators.llm import (
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

__all__ = [
    "final_response_avg",
    "final_response_gate",
    "hallucinations",
    "judge_template",
    "knowledge_recall",
    "llm_final_response",
    "response_match",
    "rubric_critic",
    "rubric_reference_critic",
    "rubric_response",
    "trajectory",
    "trajectory_f1",
    "usage_counts",
    "verifier_pairwise",
]
