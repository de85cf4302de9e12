"""``agenteval history``: the stored runs, newest first, with what a team looks at.

One row per logical run (a run group is one row, ``partial`` until every shard
reported): state and outcome, pass rate, metric averages (per metric name, over its
eval sets, weighted by evaluated results), judge calls / tokens / cost (the whole cost or
unknown, with the calls that had no price: :func:`judge_cost`), the agent's model calls /
tokens / cost, commit, branch, CI job.  Filters: ``--evalset``, ``--branch``, ``--since``
(a date, a time, or ``7d`` / ``24h`` / ``30m`` ago), ``--status`` (an outcome or a state),
``--last N``.

Tested in tests/store/test_history.py.
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Connection

from agenteval.errors import ConfigError, Problem
from agenteval.results.agent_usage import summed_usd
from agenteval.store.judge_spend import PricedPart, priced_parts
from agenteval.store.queries import LogicalRun, logical_runs, stored_metrics

OUTCOMES = ("passed", "failed", "incomplete", "not_evaluated")
STATES = ("finished", "unfinished", "interrupted", "partial")
_AGO = re.compile(r"(\d+)\s*([mhdw])")
_UNITS = {"m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


def iso(seconds: float | None) -> str | None:
    """Unix seconds as ``2026-01-05T10:15:00Z`` (UTC, whole seconds)."""
    if seconds is None:
        return None
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_since(text: str, now: float | None = None) -> float:
    """``--since``: ``2026-01-05``, ``2026-01-05T10:00`` (UTC unless an offset is given), ``7d``."""
    found = _AGO.fullmatch(text.strip())
    if found is not None:
        return (now if now is not None else time.time()) - int(found[1]) * _UNITS[found[2]]
    try:
        moment = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise ConfigError(
            [Problem("--since", "", f"not a date or a time span: {text!r}", "2026-01-05 or 7d")]
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()


def check_status(status: str | None) -> None:
    """``--status`` must be an outcome or a state."""
    if status is not None and status not in OUTCOMES + STATES:
        raise ConfigError(
            [
                Problem(
                    "--status",
                    "",
                    f"unknown status {status!r}",
                    "one of " + ", ".join(OUTCOMES + STATES),
                )
            ]
        )


@dataclass(frozen=True, slots=True)
class HistoryFilters:
    """What ``history`` lists."""

    eval_set: str | None = None
    branch: str | None = None
    since: float | None = None
    status: str | None = None
    last: int | None = None


def _keep(run: LogicalRun, filters: HistoryFilters) -> bool:
    if filters.eval_set is not None and filters.eval_set not in run.eval_set_ids:
        return False
    if filters.branch is not None and run.first.branch != filters.branch:
        return False
    if filters.since is not None and run.started_at < filters.since:
        return False
    return filters.status is None or filters.status in (run.state, run.outcome)


def select_runs(conn: Connection, filters: HistoryFilters) -> list[LogicalRun]:
    """The logical runs ``filters`` keep, newest first, at most ``last``."""
    kept = [run for run in reversed(logical_runs(conn)) if _keep(run, filters)]
    return kept[: filters.last] if filters.last else kept


def metric_averages(conn: Connection, runs: Sequence[LogicalRun]) -> dict[str, dict[str, float]]:
    """Per logical run id, per metric name, the average over its evaluated results."""
    owner = {member.key: run.id for run in runs for member in run.runs}
    sums: dict[str, dict[str, list[float]]] = {}
    for row in stored_metrics(conn, list(owner)):
        acc = sums.setdefault(owner[row.run], {}).setdefault(row.metric_name, [0.0, 0.0])
        acc[0] += row.score_sum
        acc[1] += row.evaluated
    return {
        run_id: {name: total / count for name, (total, count) in sorted(by_name.items()) if count}
        for run_id, by_name in sums.items()
    }


def judge_cost(run: LogicalRun, parts: Mapping[int, PricedPart]) -> dict[str, Any]:
    """The ``judge`` keys of a run's dollars: ``costUsd`` the whole cost (None: unknown, a call
    without a price included), ``pricedCostUsd`` what the priced calls cost, ``unpricedCalls``
    (None: unknown), ``unreportedCalls`` (those of them whose reply reported no token usage;
    None: unknown) and ``unpricedModels``; ``parts``: :func:`priced_parts` of its members."""
    priced: list[float] = []
    models: set[str] = set()
    known = True
    for member in run.runs:
        part = parts.get(member.key)
        if member.judge_cost_usd is not None:
            priced.append(member.judge_cost_usd)
        elif part is not None:
            priced.append(part.cost_usd)
            models.update(part.models)
        elif member.judge["calls"] or member.judge_unpriced_calls:
            known = False
    return {
        "costUsd": run.judge_cost_usd,
        "pricedCostUsd": summed_usd(priced) if known and priced else None,
        "unpricedCalls": run.judge_unpriced_calls,
        "unreportedCalls": run.judge_unreported_calls,
        "unpricedModels": sorted(models),
    }


def history_rows(conn: Connection, filters: HistoryFilters) -> list[dict[str, Any]]:
    """The ``history --json`` rows (the console table shows the same data)."""
    runs = select_runs(conn, filters)
    averages = metric_averages(conn, runs)
    unpriced = [m.key for run in runs for m in run.runs if m.judge_unpriced_calls]
    parts = priced_parts(conn, unpriced)
    rows = []
    for run in runs:
        first = run.first
        counts = run.counts
        judge = run.judge
        shards = run.shards
        rows.append(
            {
                "runId": run.id,
                "group": run.group,
                "runs": [member.run_id for member in run.runs] if run.group else None,
                # Members a rerun of their shard replaced (queries.logical_runs): not counted.
                "replacedRuns": [member.run_id for member in run.replaced] if run.group else None,
                "shards": {"reported": shards[0], "expected": shards[1]} if shards else None,
                "state": run.state,
                "outcome": run.outcome,
                "exitCode": first.exit_code if not run.group else None,
                "startedAt": iso(run.started_at),
                "finishedAt": iso(run.finished_at),
                "durationSeconds": (
                    sum(member.duration_seconds or 0.0 for member in run.runs)
                    if run.finished_at is not None
                    else None
                ),
                "branch": first.branch,
                "commit": first.commit,
                "dirty": first.dirty,
                "ciUrl": first.ci_url,
                "agentevalVersion": first.agenteval_version,
                "origin": first.origin,
                "evalSets": run.eval_set_ids,
                "cases": {
                    "total": counts["total"],
                    "passed": counts["passed"],
                    "failed": counts["failed"],
                    "notEvaluated": counts["not_evaluated"],
                    "incomplete": counts["incomplete"],
                },
                "passRate": counts["passed"] / counts["total"] if counts["total"] else None,
                "metricAverages": averages.get(run.id, {}),
                "judge": {
                    "calls": judge["calls"],
                    "cacheHits": judge["cache_hits"],
                    "retries": judge["retries"],
                    "promptTokens": judge["prompt_tokens"],
                    "completionTokens": judge["completion_tokens"],
                    **judge_cost(run, parts),
                },
                # Beside the judge's: what the agent under test spent (None: no turn said).
                "agentUsage": run.agent_usage,
                "configHash": first.config_hash,
            }
        )
    return rows


__all__ = [
    "OUTCOMES",
    "STATES",
    "HistoryFilters",
    "check_status",
    "history_rows",
    "iso",
    "judge_cost",
    "metric_averages",
    "parse_since",
    "select_runs",
]
