"""What ``agenteval explain`` does once its flags are read: :class:`ExplainSettings` → core →
renderer (the typer command is cli/explain.py).

Tested in tests/cli/test_explain.py.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agenteval import api
from agenteval.errors import ConfigError, Problem

if TYPE_CHECKING:
    from agenteval.explain.core import Target
    from agenteval.explain.model import Explanation


@dataclass(frozen=True, slots=True)
class ExplainSettings:
    """Everything ``explain`` was asked for, checked."""

    results: tuple[str, ...]
    evalsets: tuple[str, ...]
    metrics: str | None
    traces: str | None
    plugins: tuple[str, ...]
    target: Target
    cache: str | None
    offline: bool
    json: bool
    # How a RESULT file is named in what is shown (a stored run's temp copy: its @RUN_ID).
    named: Callable[[str], str] | None = None


def _checked(settings: ExplainSettings) -> None:
    problems = []
    if settings.results and settings.evalsets:
        problems.append(
            Problem("explain", "", "give a RESULT file or --evalset, not both", "one input")
        )
    if not settings.results and not settings.evalsets:
        problems.append(
            Problem(
                "explain",
                "",
                "nothing to explain",
                "give a result file (agenteval explain RESULT --case ID --metric NAME) or "
                "--evalset PATH --metrics PATH",
            )
        )
    if settings.target.run_id < 1:
        problems.append(Problem("--run", "", f"must be at least 1, got {settings.target.run_id}"))
    if settings.target.turn is not None and settings.target.turn < 1:
        problems.append(Problem("--turn", "", f"must be at least 1, got {settings.target.turn}"))
    if problems:
        raise ConfigError(problems)


def explain(settings: ExplainSettings) -> Explanation:
    """The explanation ``settings`` ask for (the library call behind the command)."""
    from agenteval.explain.core import explain_evalset, explain_result

    _checked(settings)
    if settings.evalsets:
        options = api.Options(
            metrics=settings.metrics,
            traces=settings.traces,
            plugins=settings.plugins,
            cache=settings.cache,
            offline=settings.offline,
        )
        return explain_evalset(settings.evalsets, options, settings.target)
    from agenteval.plugins import load_plugins

    load_plugins(settings.plugins)
    judge = api.judge_options(api.Options(cache=settings.cache, offline=settings.offline))
    return explain_result(
        settings.results, settings.target, judge, settings.metrics, settings.named
    )


def render(explanation: Explanation, as_json: bool) -> int:
    """Print ``explanation`` (console, or JSON for tools); the exit code its metric gives."""
    if explanation.turn is not None and explanation.turn > len(explanation.turns):
        raise ConfigError([Problem("--turn", "", f"the case has {len(explanation.turns)} turn(s)")])
    if as_json:
        from agenteval.explain.json_output import dumps

        sys.stdout.write(dumps(explanation) + "\n")
    else:
        from agenteval.explain.console import print_explanation
        from agenteval.report.log_console import make_console

        print_explanation(explanation, make_console(highlight=False))
    return explanation.exit_code()
