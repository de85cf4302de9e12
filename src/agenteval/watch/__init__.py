"""`agenteval run --watch`: re-score what a save changed, print what changed since the last pass."""
