"""Tests of agenteval.results."""
