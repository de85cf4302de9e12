"""The ``agenteval`` command line: flags → a frozen settings object → the API → exit code.

One module per command (``run``, ``validate``, ``show``, ``diff``, ``merge``, ``schema``,
``report``, ``evaluators``, ``history`` and ``trend``, ``store``; ``import`` is
``importers/command.py``), the options several share (``options.py``), the command made
of a frozen settings class whose fields declare the flags (``flags.py``), the error console
and guard (``guard.py``), and the program that registers them (``program.py``; ``app``,
the typer app with every command, is built when first asked for).  Which reports a
run writes is decided in ``report/run_reports.py``, so the Python API writes the same ones.

May import anything below it (``api``, ``report``, ``store``, …); nothing imports it but
``entry.py`` and ``__main__.py``.

Tested in tests/cli/test_app.py.
"""

import typer

from agenteval.cli.program import full_app, main


def __getattr__(name: str) -> typer.Typer:
    # ``app`` (every command) is built on first use: ``main`` imports only the command it runs.
    if name == "app":
        return full_app()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["app", "main"]
