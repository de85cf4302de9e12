"""Tests of agenteval.api."""
