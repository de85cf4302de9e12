"""``python -m agenteval``."""

from agenteval.entry import main

main()
