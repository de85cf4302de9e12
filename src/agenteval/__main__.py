"""``python -m agenteval``."""

from agenteval.cli import main

main()
