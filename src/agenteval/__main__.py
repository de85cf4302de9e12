"""``python -m agenteval``.

Tested in tests/cli/test_commands.py.
"""

from agenteval.cli import main

main()
