"""The ``agenteval explain`` command: flags → :class:`ExplainSettings` → core → renderer.

Tested in tests/cli/test_explain.py.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated

import typer

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
    return explain_result(settings.results, settings.target, judge, settings.metrics)


def _render(explanation: Explanation, as_json: bool) -> int:
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


Guard = Callable[[bool, Callable[[], int]], int]


def make_explain_command(guard: Guard) -> Callable[..., None]:
    """The typer command, with the command line's error handling (``cli._guard``) given by
    the caller: explain sits below the command line and must not import it."""

    def explain_command(
        result: Annotated[
            list[str] | None,
            typer.Argument(
                metavar="RESULT",
                help="Result file(s), --json run document(s) or a directory of them.",
                show_default=False,
            ),
        ] = None,
        case: Annotated[
            str, typer.Option("--case", metavar="ID", help="The evalId to explain.")
        ] = "",
        metric: Annotated[
            str, typer.Option("--metric", metavar="NAME", help="The metricName to explain.")
        ] = "",
        evalset: Annotated[
            list[str] | None,
            typer.Option(
                "--evalset",
                "-e",
                metavar="PATH",
                help="Score on the spot from this eval set (instead of a RESULT). Repeatable.",
            ),
        ] = None,
        metrics: Annotated[
            str | None,
            typer.Option(
                "--metrics",
                "-m",
                metavar="PATH",
                help="Metric file: with --evalset as for run; with a RESULT, the metric to score "
                "instead of the saved criterion.",
            ),
        ] = None,
        traces: Annotated[
            str | None,
            typer.Option("--traces", metavar="FILE", help="Actual turns, as for run --traces."),
        ] = None,
        run_id: Annotated[
            int, typer.Option("--run", metavar="N", help="Which run of --num-runs (default 1).")
        ] = 1,
        turn: Annotated[
            int | None, typer.Option("--turn", metavar="N", help="Show only this turn (1-based).")
        ] = None,
        eval_set: Annotated[
            str | None,
            typer.Option(
                "--eval-set", metavar="ID", help="The evalSetId, when several hold the case."
            ),
        ] = None,
        plugin: Annotated[
            list[str] | None,
            typer.Option(
                "--plugin", metavar="MODULE", help="Import this module to register plugins."
            ),
        ] = None,
        cache: Annotated[
            str | None,
            typer.Option(
                "--cache", metavar="FILE", help="SQLite judge cache (also $AGENTEVAL_CACHE)."
            ),
        ] = None,
        offline: Annotated[
            bool,
            typer.Option(
                "--offline", help="Judge replies only from the cache; say which are missing."
            ),
        ] = False,
        as_json: Annotated[bool, typer.Option("--json", help="Print JSON for tools.")] = False,
        verbose: Annotated[
            bool, typer.Option("--verbose", "-v", help="Tracebacks on errors.")
        ] = False,
    ) -> None:
        """Show every step that made one score: criterion, comparison, judge, thresholds."""
        from agenteval.explain.core import Target

        if not case or not metric:
            missing = "--case" if not case else "--metric"
            raise typer.BadParameter(f"{missing} is required", param_hint=missing)
        settings = ExplainSettings(
            results=tuple(result or ()),
            evalsets=tuple(evalset or ()),
            metrics=metrics,
            traces=traces,
            plugins=tuple(plugin or ()),
            target=Target(case, metric, run_id, turn, eval_set),
            cache=cache if cache is not None else api.default_cache_path(),
            offline=offline,
            json=as_json,
        )
        raise typer.Exit(guard(verbose, lambda: _render(explain(settings), as_json)))

    return explain_command
