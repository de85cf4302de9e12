"""``history``: rows newest first, filters, --since forms."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import update

from agenteval.errors import ConfigError
from agenteval.schema.result import EvalSetResult
from agenteval.store import tables
from agenteval.store.adding import add_results
from agenteval.store.connection import Store
from agenteval.store.history import HistoryFilters, check_status, history_rows, iso, parse_since
from store.store_support import (
    AGENT_SPENT,
    T0,
    UNPRICED_JUDGE,
    add_history,
    scripted_result,
    with_agent_usage,
    with_judge_usage,
    write_result,
)


def test_rows_newest_first_with_pass_rate_metrics_and_commit(store: Store, tmp_path: Path) -> None:
    ids = add_history(store, tmp_path, 3, drift_from=3)
    with store.transaction() as conn:
        rows = history_rows(conn, HistoryFilters())
    assert [row["runId"] for row in rows] == ids[::-1]
    newest = rows[0]
    assert newest["state"] == "finished" and newest["outcome"] == "failed"
    assert newest["startedAt"] == "2026-01-01T03:00:00Z"
    assert newest["cases"] == {
        "total": 3,
        "passed": 1,
        "failed": 2,
        "notEvaluated": 0,
        "incomplete": 0,
    }
    assert newest["passRate"] == pytest.approx(1 / 3)
    # run 3 fails flappy and runs quality at 0.6 (drift).
    assert newest["metricAverages"] == {"exact": pytest.approx(1 / 3), "quality": 0.6}
    assert rows[1]["metricAverages"] == {"exact": pytest.approx(2 / 3), "quality": 0.9}
    assert (newest["commit"], newest["branch"], newest["origin"]) == ("c003", "main", "add")
    assert newest["evalSets"] == ["suite"]


def test_filters(store: Store, tmp_path: Path) -> None:
    main = add_history(store, tmp_path / "m", 4)
    feature = add_history(store, tmp_path / "f", 2, branch="feature", eval_set_id="other", first=6)
    with store.transaction() as conn:
        conn.execute(
            update(tables.runs).where(tables.runs.c.run_id == main[1]).values(state="running")
        )

        def ids(**kwargs: object) -> list[str]:
            return [row["runId"] for row in history_rows(conn, HistoryFilters(**kwargs))]  # type: ignore[arg-type]

        assert ids(branch="feature") == feature[::-1]
        assert ids(eval_set="other") == feature[::-1]
        assert ids(since=T0 + 4 * 3600) == [*feature[::-1], main[3]]
        assert ids(status="unfinished") == [main[1]]
        assert ids(status="failed", branch="main") == [main[3], main[2], main[0]]
        assert ids(last=2) == feature[::-1]


def test_since_forms_and_bad_values() -> None:
    assert parse_since("2026-01-01") == T0
    assert parse_since("2026-01-01T02:00") == T0 + 7200
    assert parse_since("2026-01-01T02:00+02:00") == T0
    assert parse_since("7d", now=T0) == T0 - 7 * 86400
    assert parse_since("24h", now=T0) == T0 - 86400
    assert iso(T0) == "2026-01-01T00:00:00Z"
    with pytest.raises(ConfigError, match="--since: not a date or a time span: 'yesterday'"):
        parse_since("yesterday")
    with pytest.raises(ConfigError, match="--status: unknown status 'green'"):
        check_status("green")


def test_the_agents_spend_beside_the_judges(store: Store, tmp_path: Path) -> None:
    def added(result: EvalSetResult, name: str, group: str | None = None) -> str:
        return add_results(store, [write_result(result, tmp_path / name)], run_group=group)[0]

    priced = added(with_agent_usage(scripted_result(1)), "priced")
    unpriced = added(with_agent_usage(scripted_result(2), "acme:house-model"), "unpriced")
    bare = added(scripted_result(3), "bare")
    for index in (4, 5):  # two members of one group (each its own eval set), each $0.00171
        added(with_agent_usage(scripted_result(index, f"part{index}")), f"g{index}", "nightly")
    with store.transaction() as conn:
        rows = {row["runId"]: row for row in history_rows(conn, HistoryFilters())}
    assert rows[priced]["agentUsage"] == AGENT_SPENT
    assert rows[priced]["judge"]["costUsd"] is None  # no judge ran: its keys stay as they were
    assert rows[unpriced]["agentUsage"] == {**AGENT_SPENT, "unpricedTurns": 3, "costUsd": None}
    assert rows[bare]["agentUsage"] is None
    assert rows["nightly"]["agentUsage"] == {
        **AGENT_SPENT,
        "turns": 6,
        "inferenceCalls": 12,
        "inputTokens": 14000,
        "outputTokens": 2200,
        "costUsd": 0.00342,
    }


def test_the_judges_whole_cost_or_the_calls_without_a_price(store: Store, tmp_path: Path) -> None:
    def added(priced: int, unpriced: int, name: str, group: str | None = None) -> str:
        # A group's members score eval sets of their own (one holding another's cases
        # would replace it: queries.logical_runs).
        eval_set_id = name if group else "suite"
        result = with_judge_usage(
            scripted_result(len(rows_made) + 1, eval_set_id), priced, unpriced
        )
        rows_made.append(name)
        return add_results(store, [write_result(result, tmp_path / name)], run_group=group)[0]

    rows_made: list[str] = []
    priced = added(1, 0, "priced")
    mixed = added(2, 1, "mixed")
    added(1, 0, "g1", "nightly")
    added(2, 0, "g2", "nightly")
    added(2, 0, "h1", "mixed-group")
    added(0, 2, "h2", "mixed-group")
    with store.transaction() as conn:
        rows = {row["runId"]: row["judge"] for row in history_rows(conn, HistoryFilters())}
    tokens = {"cacheHits": 0, "retries": 0}
    assert rows[priced] == {
        "calls": 1, **tokens, "promptTokens": 1000, "completionTokens": 100,
        "costUsd": 0.0045, "pricedCostUsd": 0.0045, "unpricedCalls": 0, "unreportedCalls": 0,
        "unpricedModels": [],
    }  # fmt: skip
    # $0.009 of its calls is known, the whole is not: costUsd null, never 0.009.
    assert rows[mixed] == {
        "calls": 3, **tokens, "promptTokens": 3000, "completionTokens": 300,
        "costUsd": None, "pricedCostUsd": 0.009, "unpricedCalls": 1, "unreportedCalls": 0,
        "unpricedModels": [UNPRICED_JUDGE],
    }  # fmt: skip
    # A group sums its members in Decimal (floats give 0.013499999999999998) …
    assert rows["nightly"]["costUsd"] == rows["nightly"]["pricedCostUsd"] == 0.0135
    # … and its cost is unknown when a member's is.
    assert {k: rows["mixed-group"][k] for k in ("costUsd", "pricedCostUsd", "unpricedCalls")} == {
        "costUsd": None,
        "pricedCostUsd": 0.009,
        "unpricedCalls": 2,
    }
    assert rows["mixed-group"]["unpricedModels"] == [UNPRICED_JUDGE]
