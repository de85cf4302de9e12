"""The project config: ``[tool.agenteval]`` in ``pyproject.toml`` or an ``agenteval.toml``.

:mod:`~agenteval.config.project` finds and reads the file (the one reader of the table);
:mod:`~agenteval.config.run_settings` checks its keys against ``agenteval run``'s options
and turns them into the command's defaults.
"""
