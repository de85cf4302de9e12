"""``agenteval calibrate``: judge metrics against human labels (κ, confusion, thresholds)."""
