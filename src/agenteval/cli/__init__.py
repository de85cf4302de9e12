"""The ``agenteval`` command line: flags → a frozen settings object → the API → exit code.

One module per command (``run``, ``validate``, ``show``, ``diff``, ``merge``, ``schema``,
``report``, ``evaluators``, ``history`` and ``trend``, ``store``; ``import`` is
``importers/command.py``), the options several share (``options.py``), the command made
of a frozen settings class whose fields declare the flags (``flags.py``), the error console
and guard (``guard.py``), and the app that registers them (``app.py``).  Which reports a
run writes is decided in ``report/run_reports.py``, so the Python API writes the same ones.

May import anything below it (``api``, ``report``, ``store``, …); nothing imports it but
``entry.py`` and ``__main__.py``.
"""

from agenteval.cli.app import app, main

__all__ = ["app", "main"]
