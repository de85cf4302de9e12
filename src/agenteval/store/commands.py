"""The store's commands behind the CLI: ``history``, ``trend``, ``store add``, ``store export``,
``report --store --trend``.

``cli/history.py``, ``cli/store.py`` and ``cli/report.py`` parse the flags and hand them
here; each function opens the store (reading commands never create one, but have an older
schema migrated first, ``connection.open_store``; ``store add`` creates it), does its one job
and returns the exit code.  Problems are ConfigError / StoreError: one located line, exit 2.

Tested in tests/cli/test_store_commands.py.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from sqlalchemy import Connection

from agenteval.errors import ConfigError, Problem
from agenteval.inputs.safe_text import wrote_line
from agenteval.report.atomic_write import write_bytes_atomic
from agenteval.store.baselines import PREFIX, ReferenceProblem, group_member_note, resolve
from agenteval.store.connection import open_for_reading, open_store
from agenteval.store.history import HistoryFilters, check_status, history_rows, parse_since
from agenteval.store.trend import TrendFilters, trend
from agenteval.store.urls import store_setting

if TYPE_CHECKING:
    from rich.console import Console

_T = TypeVar("_T")

# Each command imports what only it needs (result models, the page's templates, the
# terminal tables) in its own body: ``trend --json`` starts without them (0.9 s of CPU).


def eval_set_filter(value: str | None) -> str | None:
    """``--evalset`` of history and trend: an evalSetId, or an eval set file naming one."""
    if value is None:
        return None
    path = Path(value)
    if not path.is_file():
        return value
    from agenteval.inputs.loading import evalset_id_for

    return evalset_id_for(path)


def _read(flag: str | None, command: str, query: Callable[[Connection], _T]) -> tuple[_T, str]:
    """``query`` answered in one read transaction of the store ``command`` reads, and where
    that store is."""
    store = open_for_reading(flag, command)
    try:
        with store.transaction() as conn:
            return query(conn), store.where
    finally:
        store.close()


def _print_json(data: object) -> None:
    print(json.dumps(data, indent=2, ensure_ascii=False))


def history_command(
    flag: str | None,
    console: Console,
    *,
    eval_set: str | None,
    branch: str | None,
    since: str | None,
    status: str | None,
    last: int,
    json_out: bool,
) -> int:
    """``agenteval history``."""
    check_status(status)
    filters = HistoryFilters(
        eval_set=eval_set_filter(eval_set),
        branch=branch,
        since=parse_since(since) if since is not None else None,
        status=status,
        last=last or None,
    )
    rows, where = _read(flag, "history", lambda conn: history_rows(conn, filters))
    if json_out:
        _print_json(rows)
    else:
        from agenteval.store.console import render_history

        render_history(console, rows, where)
    return 0


def trend_filters(
    metric: str | None, eval_set: str | None, branch: str | None, last: int
) -> TrendFilters:
    """The filters of ``trend`` and ``report --trend``."""
    return TrendFilters(metric=metric, eval_set=eval_set_filter(eval_set), branch=branch, last=last)


def trend_command(
    flag: str | None,
    console: Console,
    filters: TrendFilters,
    *,
    max_shown: int,
    json_out: bool,
) -> int:
    """``agenteval trend``."""
    found, where = _read(flag, "trend", lambda conn: trend(conn, filters))
    if json_out:
        print(found.json_text())
    else:
        from agenteval.store.console import render_trend

        render_trend(console, found, where, max_shown or None)
    return 0


def write_trend_page(flag: str | None, html: Path, filters: TrendFilters, *, title: str) -> Path:
    """``agenteval report --store URL --trend --html FILE``."""
    from agenteval.store.trend_page import render_trend_page

    found, where = _read(flag, "report --trend", lambda conn: trend(conn, filters))
    page = render_trend_page(found, title=title or f"agenteval trend: {where}")
    from agenteval.report.output_paths import write_refused

    with write_refused(html):
        return write_bytes_atomic(html, page)


def add_command(
    flag: str | None,
    paths: Sequence[Path],
    console: Console,
    *,
    commit: str | None,
    branch: str | None,
    run_group: str | None,
    quiet: bool,
    warn: Callable[[list[Problem]], object] = lambda _: None,
) -> int:
    """``agenteval store add RESULT…`` (``warn`` prints what reading them found that is no
    error, as every command prints warnings)."""
    from agenteval.store.adding import add_read, read_additions

    setting = store_setting(flag)
    if setting is None:
        raise ConfigError(
            [Problem("store add", "", "needs a run store", "give --store URL or $AGENTEVAL_STORE")]
        )
    url = setting.parse()
    warnings: list[Problem] = []
    # Read before the store is opened: a missing or refused input left a new, empty store.
    inputs = read_additions(paths, warnings)
    store = open_store(url, write=True)
    try:
        added = add_read(
            store, inputs, commit=commit, branch=branch, run_group=run_group, warnings=warnings
        )
    finally:
        store.close()
    warn(warnings)
    if not quiet:
        for run_id in added:
            console.print(
                f"stored run {run_id} in {store.where}{group_member_note(run_group)}",
                markup=False,
                highlight=False,
            )
    return 0


def export_command(
    flag: str | None,
    reference: str,
    console: Console,
    *,
    output: Path | None,
    json_file: Path | None,
    quiet: bool,
) -> int:
    """``agenteval store export RUN``."""
    from agenteval.store.export import export_run

    if output is None and json_file is None:
        raise ConfigError(
            [
                Problem(
                    "store export", "", "nothing to write", "give --output DIR and/or --json FILE"
                )
            ]
        )
    from agenteval.report.output_paths import check_outputs, write_refused

    # Checked as run checks its outputs: -o naming a file was an internal error (exit 4).
    problems = check_outputs({"--output": output}, {"--json": json_file})
    if problems:
        raise ConfigError(problems)
    text = reference if reference.startswith(PREFIX) else PREFIX + reference
    store = open_for_reading(flag, "store export")
    try:
        try:
            with store.transaction() as conn:
                run = resolve(conn, text)
        except ReferenceProblem as problem:
            raise ConfigError([Problem(reference, "", problem.message, problem.hint)]) from None
        with write_refused(output or json_file or Path()):
            written = export_run(store, run, output, json_file)
    finally:
        store.close()
    if not quiet:
        for path in written:
            console.print(wrote_line(path), markup=False, highlight=False, soft_wrap=True)
    return 0


__all__ = [
    "add_command",
    "eval_set_filter",
    "export_command",
    "history_command",
    "trend_command",
    "trend_filters",
    "write_trend_page",
]
