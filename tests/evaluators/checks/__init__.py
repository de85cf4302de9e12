"""Tests of agenteval.evaluators.checks."""
