"""Evaluators: score the turns of one case for one metric."""
