"""Importing this module registers every built-in evaluator."""

from agenteval.evaluators import finalresponse, trajectory

__all__ = ["finalresponse", "trajectory"]
