"""The judge's stored dollars: the whole cost or NULL, the unpriced calls counted, the priced
part and the models without a price read back for ``history``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import select, update

from agenteval.store import tables
from agenteval.store.adding import add_results
from agenteval.store.connection import Store
from agenteval.store.judge_spend import PricedPart, judge_cost_columns, priced_parts
from store.store_support import (
    JUDGE_CALL_USD,
    UNPRICED_JUDGE,
    scripted_result,
    with_judge_usage,
    write_result,
)


def _usage(priced: int, unpriced: int = 0, unreported: int = 0) -> dict[str, Any] | None:
    return with_judge_usage(scripted_result(1), priced, unpriced, unreported).judge_usage


def test_the_whole_cost_when_every_call_was_priced() -> None:
    # Eval sets of 1 and 2 priced calls: 3 × $0.0045, added in Decimal as the run document
    # adds them (floats give 0.013499999999999998).
    assert 0.0045 + 0.009 != 0.0135
    assert judge_cost_columns([_usage(1), _usage(2)]) == {
        "judge_cost_usd": 0.0135,
        "judge_unpriced_calls": 0,
        "judge_unreported_calls": 0,
    }


def test_a_call_without_a_price_makes_the_cost_unknown_not_a_partial_sum() -> None:
    # $0.009 of the priced calls is known; the run's cost is not.
    assert judge_cost_columns([_usage(2, 1), _usage(1)]) == {
        "judge_cost_usd": None,
        "judge_unpriced_calls": 1,
        "judge_unreported_calls": 0,
    }
    assert judge_cost_columns([_usage(0, 2)]) == {
        "judge_cost_usd": None,
        "judge_unpriced_calls": 2,
        "judge_unreported_calls": 0,
    }


def test_calls_whose_reply_reported_no_usage_are_counted_apart() -> None:
    # 3 unpriced calls over two eval sets, 2 of them without reported usage (no price mends those).
    assert judge_cost_columns([_usage(1, 2, 1), _usage(0, 1, 1)]) == {
        "judge_cost_usd": None,
        "judge_unpriced_calls": 3,
        "judge_unreported_calls": 2,
    }
    # A count above its eval set's unpriced calls is bounded by them (as report.judge_cost does).
    assert judge_cost_columns([_usage(0, 1, 5)])["judge_unreported_calls"] == 1


def test_no_judge_or_a_usage_without_dollars_is_unknown_not_zero() -> None:
    unknown = {
        "judge_cost_usd": None,
        "judge_unpriced_calls": None,
        "judge_unreported_calls": None,
    }
    assert judge_cost_columns([None, {}]) == unknown
    # Written before agenteval priced judge calls: calls without a costUsd.
    old = {"total": {"calls": 3, "promptTokens": 3000, "completionTokens": 300}}
    assert judge_cost_columns([old]) == unknown
    assert judge_cost_columns([_usage(2), old]) == unknown  # not $0.009 for the whole run
    # An eval set that did not ask the judge adds nothing.
    assert judge_cost_columns([_usage(2), None]) == {
        "judge_cost_usd": 0.009,
        "judge_unpriced_calls": 0,
        "judge_unreported_calls": 0,
    }


def test_priced_parts_read_the_stored_usage_of_each_run(store: Store, tmp_path: Path) -> None:
    def added(priced: int, unpriced: int, name: str) -> int:
        result = with_judge_usage(scripted_result(len(name)), priced, unpriced)
        [run_id] = add_results(store, [write_result(result, tmp_path / name)])
        with store.transaction() as conn:
            query = select(tables.runs.c.id).where(tables.runs.c.run_id == run_id)
            return int(conn.execute(query).scalar_one())

    mixed, unpriced, damaged = added(2, 1, "m"), added(0, 2, "un"), added(1, 1, "bad")
    no_judge = added(0, 0, "none")
    with store.transaction() as conn:
        sets = tables.run_sets
        conn.execute(update(sets).where(sets.c.run == damaged).values(judge_usage="{not json"))
        conn.execute(update(sets).where(sets.c.run == no_judge).values(judge_usage=None))
        found = priced_parts(conn, [mixed, unpriced, damaged, no_judge])
    assert found == {
        mixed: PricedPart(2 * JUDGE_CALL_USD, (UNPRICED_JUDGE,)),
        unpriced: PricedPart(0.0, (UNPRICED_JUDGE,)),
    }
