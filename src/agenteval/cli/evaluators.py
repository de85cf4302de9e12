"""``agenteval evaluators``: list the registered evaluators (plugins' too).

Tested in tests/cli/test_commands.py.
"""

from __future__ import annotations

from dataclasses import dataclass

from agenteval.cli.flags import settings_command
from agenteval.cli.options import PluginOpt, VerboseOpt
from agenteval.evaluators.registry import evaluators
from agenteval.plugins import load_plugins
from agenteval.report.log_console import make_console


@dataclass(frozen=True, slots=True)
class EvaluatorsSettings:
    """The flags of ``agenteval evaluators``."""

    plugin: PluginOpt = ()
    verbose: VerboseOpt = False


def print_evaluators(settings: EvaluatorsSettings) -> int:
    """Load the ``--plugin`` modules and print the table of evaluators; 0."""
    load_plugins(settings.plugin)
    from rich.table import Table

    table = Table("evaluator", "kind", "description", title="Registered evaluators")
    for evaluator in evaluators.all():
        kind = "judge" if evaluator.needs_judge else "deterministic"
        table.add_row(evaluator.name, kind, evaluator.description)
    make_console().print(table)
    return 0


list_evaluators = settings_command(
    EvaluatorsSettings,
    print_evaluators,
    doc="List the registered evaluators with their descriptions.",
)

__all__ = ["EvaluatorsSettings", "list_evaluators", "print_evaluators"]
