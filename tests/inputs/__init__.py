"""Tests of agenteval.inputs."""
