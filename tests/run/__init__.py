"""Tests of agenteval.run."""
