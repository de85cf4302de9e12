"""``agenteval explain``: flags → :class:`~agenteval.explain.command.ExplainSettings` →
the explain library → its console or JSON renderer.

Tested in tests/cli/test_explain.py.
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Annotated

import typer

from agenteval import api
from agenteval.cli.guard import guard, print_warnings
from agenteval.cli.options import StoreOpt, shared_option
from agenteval.cli.saved_results import given_once, pinned_name, stored_inputs
from agenteval.errors import ConfigError, Problem
from agenteval.explain.command import ExplainSettings, explain, render


def explain_command(
    *,  # keyword-only: the required --case and --metric follow an optional RESULT
    result: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="RESULT",
            help="Result file(s), --json run document(s), a directory of them, or a stored "
            "run (@latest, @RUN_ID, @branch:NAME).",
            show_default=False,
        ),
    ] = None,
    case: Annotated[str, shared_option("case", "The evalId to explain.")],
    metric: Annotated[str, shared_option("metric", "The metricName to explain.")],
    evalset: Annotated[
        list[str] | None,
        shared_option(
            "evalset-files",
            "Score on the spot from this eval set (instead of a RESULT). Repeatable.",
        ),
    ] = None,
    metrics: Annotated[
        str | None,
        shared_option(
            "metrics-file",
            "Metric file: with --evalset as for run; with a RESULT, the metric to score "
            "instead of the saved criterion.",
        ),
    ] = None,
    traces: Annotated[
        str | None, shared_option("traces", "Actual turns, as for run --traces.")
    ] = None,
    run_id: Annotated[
        int, typer.Option("--run", metavar="N", help="Which run of --num-runs (default 1).")
    ] = 1,
    turn: Annotated[
        int | None, typer.Option("--turn", metavar="N", help="Show only this turn (1-based).")
    ] = None,
    eval_set: Annotated[
        str | None,
        typer.Option("--eval-set", metavar="ID", help="The evalSetId, when several hold the case."),
    ] = None,
    plugin: Annotated[
        list[str] | None,
        shared_option("plugin", "Import this module or .py file to register plugins. Repeatable."),
    ] = None,
    cache: Annotated[
        str | None, shared_option("cache", "SQLite judge cache (also $AGENTEVAL_CACHE).")
    ] = None,
    offline: Annotated[
        bool, shared_option("offline", "Judge replies only from the cache; say which are missing.")
    ] = False,
    as_json: Annotated[bool, shared_option("json", "Print JSON for tools.")] = False,
    store: StoreOpt = None,
    verbose: Annotated[
        bool, shared_option("verbose", "Every warning, and tracebacks on errors.")
    ] = False,
) -> None:
    """Show every step that made one score: criterion, comparison, judge, thresholds."""
    from agenteval.explain.core import Target

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
    raise typer.Exit(guard(verbose, lambda: _explained(settings, store, verbose)))


def _refuse_empty(case: str, metric: str, eval_set: str | None) -> None:
    """An empty --case, --metric or --eval-set names nothing: bad input, not an empty id
    looked up (--case '' searched for a case '') or a flag silently dropped (--eval-set '')."""
    given = (("--case", case, "evalId"), ("--metric", metric, "metricName"))
    problems = [
        Problem(flag, "", "must not be empty", f"give the {what} to explain")
        for flag, value, what in (*given, ("--eval-set", eval_set, "evalSetId"))
        if value == ""
    ]
    if problems:
        raise ConfigError(problems)


def _explained(settings: ExplainSettings, store: str | None, verbose: bool) -> int:
    """Explain and print; a stored run is exported for the command's length and read like a
    result file, named by its @RUN_ID in what is shown."""
    target = settings.target
    _refuse_empty(target.case_id, target.metric_name, target.eval_set_id)
    given_once(settings.results)
    pinned: dict[str, str] = {}
    with stored_inputs([Path(r) for r in settings.results], store, pinned) as paths:
        read = replace(
            settings,
            results=tuple(str(path) for path in paths),
            named=partial(pinned_name, pinned=pinned),
        )
        explanation = explain(read)
        print_warnings(explanation.warnings, verbose=verbose)
        return render(explanation, settings.json)
