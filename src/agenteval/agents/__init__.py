"""Driving live agents: the ``cmd:`` JSON-lines protocol and AG-UI, tool mocks, simulated users."""
