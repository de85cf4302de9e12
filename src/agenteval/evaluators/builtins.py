"""Importing this module registers every built-in evaluator."""

from agenteval.evaluators import finalresponse, trajectory
from agenteval.evaluators.llm import finalresponse as llm_finalresponse

__all__ = ["finalresponse", "llm_finalresponse", "trajectory"]
