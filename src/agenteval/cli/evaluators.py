"""``agenteval evaluators``: list the registered evaluators (plugins' too).

Tested in tests/cli/test_commands.py.
"""

from __future__ import annotations

from functools import partial

from agenteval.cli.guard import exit_with
from agenteval.cli.options import PluginOpt, VerboseOpt
from agenteval.evaluators.registry import evaluators
from agenteval.plugins import load_plugins
from agenteval.report.log_console import make_console


def list_evaluators(
    plugin: PluginOpt = [],  # noqa: B006 - typer reads defaults, it never mutates them
    verbose: VerboseOpt = False,
) -> None:
    """List the registered evaluators with their descriptions."""
    exit_with(verbose, partial(print_evaluators, tuple(plugin)))


def print_evaluators(plugins: tuple[str, ...]) -> int:
    """Load ``plugins`` and print the table of evaluators; 0."""
    load_plugins(plugins)
    from rich.table import Table

    table = Table("evaluator", "kind", "description", title="Registered evaluators")
    for evaluator in evaluators.all():
        kind = "judge" if evaluator.needs_judge else "deterministic"
        table.add_row(evaluator.name, kind, evaluator.description)
    make_console().print(table)
    return 0


__all__ = ["list_evaluators", "print_evaluators"]
