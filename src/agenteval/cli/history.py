"""``agenteval history`` and ``agenteval trend``: what a run store says about past runs.

The work is done in :mod:`agenteval.store.commands`; this module declares the flags
(``flags.py`` makes the commands of them).

Tested in tests/cli/test_store_history.py and tests/cli/test_store_commands.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

import typer

from agenteval.cli.flags import settings_command
from agenteval.cli.guard import stdout
from agenteval.cli.options import (
    TREND_LAST,
    BranchOpt,
    EvalSetIdOpt,
    JsonOpt,
    StoreOpt,
    VerboseOpt,
    shared_option,
)


@dataclass(frozen=True, slots=True)
class HistorySettings:
    """The flags of ``agenteval history``."""

    store: StoreOpt = None
    evalset: EvalSetIdOpt = None
    branch: BranchOpt = None
    since: Annotated[
        str | None,
        typer.Option(
            "--since", metavar="WHEN", help="Only runs started since: 2026-01-05, or 7d / 24h ago."
        ),
    ] = None
    status: Annotated[
        str | None,
        typer.Option(
            "--status",
            metavar="STATUS",
            help="Only runs that passed, failed, are incomplete or not_evaluated; or that are "
            "finished, unfinished, interrupted, partial.",
        ),
    ] = None
    last: Annotated[int, shared_option("last", "At most N runs (0 = all).", least=0)] = TREND_LAST
    json_out: JsonOpt = False
    verbose: VerboseOpt = False


@dataclass(frozen=True, slots=True)
class TrendSettings:
    """The flags of ``agenteval trend``."""

    store: StoreOpt = None
    metric: Annotated[str | None, shared_option("metric", "Only this metric.")] = None
    evalset: EvalSetIdOpt = None
    branch: BranchOpt = None
    last: Annotated[int, shared_option("last", "Over the last N finished runs.", least=1)] = (
        TREND_LAST
    )
    max_shown: Annotated[
        int, shared_option("max-shown", "Flaky and failing cases listed (0 = every case).")
    ] = 50
    json_out: JsonOpt = False
    verbose: VerboseOpt = False


def list_history(settings: HistorySettings) -> int:
    """Print the store's runs the settings select; the exit code."""
    from agenteval.store.commands import history_command

    return history_command(
        settings.store,
        stdout(),
        eval_set=settings.evalset,
        branch=settings.branch,
        since=settings.since,
        status=settings.status,
        last=settings.last,
        json_out=settings.json_out,
    )


def show_trend(settings: TrendSettings) -> int:
    """Print the trend of the store's last runs; the exit code."""
    from agenteval.store.commands import trend_command, trend_filters

    filters = trend_filters(settings.metric, settings.evalset, settings.branch, settings.last)
    return trend_command(
        settings.store,
        stdout(),
        filters,
        max_shown=settings.max_shown,
        json_out=settings.json_out,
    )


history = settings_command(
    HistorySettings,
    list_history,
    doc="List the runs in a run store, newest first: status, pass rate, metric averages, judge, commit.",
)
trend = settings_command(
    TrendSettings,
    show_trend,
    doc="Metric drift (sparklines, change points) and stable / flaky / failing cases over the last runs.",
)

__all__ = ["HistorySettings", "TrendSettings", "history", "list_history", "show_trend", "trend"]
