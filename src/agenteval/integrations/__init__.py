"""agenteval where Python teams already work: the pytest plugin and the pre-commit hook."""
