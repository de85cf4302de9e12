"""``agenteval validate``: check eval sets and metric files, print every problem.

Tested in tests/cli/test_commands.py, tests/cli/test_validate_catches.py and
tests/cli/test_validate_broken.py.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import typer
from rich.console import Console

from agenteval import api
from agenteval.cli.flags import context_settings_command
from agenteval.cli.guard import print_warnings, stdout, warnings_part
from agenteval.cli.options import CaseInputFlags, EvalSetFlags, PluginOpt, SkipOpt, VerboseOpt
from agenteval.cli.run_settings import input_options


@dataclass(frozen=True, slots=True)
class ValidateSettings(EvalSetFlags):
    """The flags of ``agenteval validate``."""

    skip_metric: SkipOpt = ()
    plugin: PluginOpt = ()
    inputs: CaseInputFlags = field(default_factory=CaseInputFlags)
    verbose: VerboseOpt = False


def validate_inputs(settings: ValidateSettings) -> int:
    """Load and check everything the flags name; print the verdict; 0 (problems raise)."""
    prepared = api.prepare(settings.evalset, input_options(settings))
    # Past SHOWN_SAVED lines the rest is counted (--verbose prints them); the count is all.
    warnings = print_warnings(prepared.warnings, verbose=settings.verbose).warning_count
    cases = sum(len(p.cases) for p in prepared.plans)
    metric_count = sum(len(p.metrics) for p in prepared.plans)
    stdout().print(
        f"OK: {len(prepared.plans)} eval set(s), {cases} case(s), {metric_count} metric(s) "
        f"valid{warnings_part(warnings)}."
    )
    if settings.inputs.agent is not None:
        from agenteval.api.agent_setup import driven_cases

        Console(highlight=False).print(
            f"{driven_cases(prepared.plans)} case(s) will be driven through the agent."
        )
    return 0


def _validate(settings: ValidateSettings, ctx: typer.Context) -> int:
    from agenteval.cli.project_config import located_in_sources, strictness_by_source

    with located_in_sources(ctx):
        return validate_inputs(strictness_by_source(settings, ctx))


validate = context_settings_command(
    ValidateSettings,
    _validate,
    doc="Check eval sets and metric files; print every problem. Exit 0 when valid, 2 otherwise.",
)

__all__ = ["ValidateSettings", "validate", "validate_inputs"]
