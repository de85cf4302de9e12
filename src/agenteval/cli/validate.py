"""``agenteval validate``: check eval sets and metric files, print every problem.

Tested in tests/cli/test_commands.py, tests/cli/test_validate_catches.py and
tests/cli/test_validate_broken.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

from rich.console import Console

from agenteval import api
from agenteval.cli.guard import exit_with, print_warnings, stdout, warnings_part
from agenteval.cli.options import (
    AgentOpt,
    EvalsetOpt,
    ExpectedAgentOpt,
    LenientOpt,
    MetricsOpt,
    PluginOpt,
    SkipOpt,
    StrictOpt,
    TracesMatchOpt,
    TracesOpt,
    VerboseOpt,
)
from agenteval.importers.otel import DEFAULT_MATCH, TracesMatch


@dataclass(frozen=True, slots=True)
class ValidateSettings:
    """The flags of ``agenteval validate``."""

    evalset: tuple[str, ...]
    metrics: str | None = None
    traces: str | None = None
    traces_match: TracesMatch = DEFAULT_MATCH
    skip_metric: tuple[str, ...] = ()
    plugin: tuple[str, ...] = ()
    strict: bool = False
    lenient: bool = False
    agent: str | None = None
    expected_agent: str | None = None

    def options(self) -> api.Options:
        """The API's options for these flags."""
        return api.Options(
            metrics=self.metrics,
            traces=self.traces,
            traces_match=self.traces_match.value,
            skip_metrics=self.skip_metric,
            plugins=self.plugin,
            strict=self.strict,
            lenient=self.lenient,
            agent=self.agent,
            expected_agent=self.expected_agent,
        )


def validate(
    evalset: EvalsetOpt,
    metrics: MetricsOpt = None,
    traces: TracesOpt = None,
    traces_match: TracesMatchOpt = DEFAULT_MATCH,
    skip_metric: SkipOpt = [],  # noqa: B006 - typer reads defaults, it never mutates them
    plugin: PluginOpt = [],  # noqa: B006
    strict: StrictOpt = False,
    lenient: LenientOpt = False,
    agent: AgentOpt = None,
    expected_agent: ExpectedAgentOpt = None,
    verbose: VerboseOpt = False,
) -> None:
    """Check eval sets and metric files; print every problem. Exit 0 when valid, 2 otherwise."""
    settings = ValidateSettings(
        tuple(evalset),
        metrics,
        traces,
        traces_match,
        tuple(skip_metric),
        tuple(plugin),
        strict,
        lenient,
        agent,
        expected_agent,
    )
    exit_with(verbose, partial(validate_inputs, settings))


def validate_inputs(settings: ValidateSettings) -> int:
    """Load and check everything the flags name; print the verdict; 0 (problems raise)."""
    prepared = api.prepare(settings.evalset, settings.options())
    warnings = print_warnings(prepared.warnings).warning_count
    cases = sum(len(p.cases) for p in prepared.plans)
    metric_count = sum(len(p.metrics) for p in prepared.plans)
    stdout().print(
        f"OK: {len(prepared.plans)} eval set(s), {cases} case(s), {metric_count} metric(s) "
        f"valid{warnings_part(warnings)}."
    )
    if settings.agent is not None:
        from agenteval.api.agent_setup import driven_cases

        Console(highlight=False).print(
            f"{driven_cases(prepared.plans)} case(s) will be driven through the agent."
        )
    return 0


__all__ = ["ValidateSettings", "validate", "validate_inputs"]
