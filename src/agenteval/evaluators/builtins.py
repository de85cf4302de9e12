"""Importing this module registers every built-in evaluator."""

from agenteval.evaluators import finalresponse, gate, textmatch, trajectory
from agenteval.evaluators.llm import finalresponse as llm_finalresponse

__all__ = ["finalresponse", "gate", "llm_finalresponse", "textmatch", "trajectory"]
