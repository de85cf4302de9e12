"""What the judge spent in dollars, as a stored run's ``judge_cost_usd``,
``judge_unpriced_calls`` (from schema version 3) and ``judge_unreported_calls`` (version 4).

Each eval set's ``judgeUsage`` total sums only the calls whose model had a price
(``costUsd``) and counts the others (``unpricedCalls``, ``unpricedModels``).  The run's
``judge_cost_usd`` is the run's whole cost or NULL, as ``agent_cost_usd`` is: NULL when any
call had no price (``judge_unpriced_calls`` says how many), so ``SUM``/``AVG`` over the column
never take a partial sum for a whole (they skip the unknown, and ``COUNT(judge_cost_usd)``
says how many were known).  Keeping the priced part in the column instead would make every
query over it wrong unless it also checked a second column.  The priced part and the
unpriced models' names stay in each ``run_sets.judge_usage``; ``history`` reads them there
(:func:`priced_parts`) only for the listed runs with unpriced calls: measured 0.21 s on
SQLite, 0.37 s on PostgreSQL for 10,000 such runs (``history --last 0``; the rest of
``history_rows`` took 0.58 s / 1.1 s), nothing worth a column for the default 20.

``judge_unreported_calls`` counts those of the unpriced calls whose reply reported no token
usage (``unreportedCalls``): no price would give their cost, so ``history`` says so instead of
asking for ``--prices`` (report.judge_cost words both, the run's console the same).

All three are NULL (unknown) when no eval set's total carries a cost (written before
agenteval priced judge calls; no judge asked) or when one made calls without one.
Dollars are added in Decimal from each float's shortest form, as ``judge.usage`` adds the
calls: a run's ``judge_cost_usd`` is its run document's ``judgeUsage.total.costUsd`` digit
for digit.

Tested in tests/store/test_judge_spend.py.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from sqlalchemy import Connection, select

from agenteval.report.judge_cost import saved_count
from agenteval.results.agent_usage import exact_usd, usd_json
from agenteval.store import tables

COST_COLUMN = "judge_cost_usd"
UNPRICED_COLUMN = "judge_unpriced_calls"
UNREPORTED_COLUMN = "judge_unreported_calls"
# The columns judge_cost_columns fills, every one NULL when the cost is unknown.
COLUMNS = (COST_COLUMN, UNPRICED_COLUMN, UNREPORTED_COLUMN)
UNKNOWN: Mapping[str, Any] = dict.fromkeys(COLUMNS)
# Run keys per IN (...) list.
_IN_CHUNK = 500


def _dollars(value: object) -> Decimal | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return exact_usd(value)


def _total(usage: object) -> Mapping[str, Any]:
    total = usage.get("total") if isinstance(usage, Mapping) else None
    return total if isinstance(total, Mapping) else {}


def judge_cost_columns(usages: Iterable[object]) -> dict[str, Any]:
    """``judge_cost_usd``, ``judge_unpriced_calls`` and ``judge_unreported_calls`` of a run
    from its eval sets' ``judgeUsage`` objects (module docstring: the whole cost, else NULL)."""
    priced: list[Decimal] = []
    unpriced = unreported = 0
    unknown = False
    for usage in usages:
        total = _total(usage)
        cost = _dollars(total.get("costUsd"))
        if cost is None:
            unknown = unknown or bool(saved_count(total.get("calls")))
            continue
        priced.append(cost)
        calls = saved_count(total.get("unpricedCalls"))
        unpriced += calls
        unreported += min(saved_count(total.get("unreportedCalls")), calls)
    if unknown or not priced:
        return dict(UNKNOWN)
    whole = usd_json(sum(priced, Decimal()))
    return {
        COST_COLUMN: None if unpriced else whole,
        UNPRICED_COLUMN: unpriced,
        UNREPORTED_COLUMN: unreported,
    }


def stored_usage(text: str) -> Mapping[str, Any] | None:
    """A ``run_sets.judge_usage`` value read back; None when it is not a JSON object."""
    try:
        usage = json.loads(text)
    except ValueError:
        return None
    return usage if isinstance(usage, Mapping) else None


@dataclass(frozen=True, slots=True)
class PricedPart:
    """Of a run with unpriced judge calls: what its priced calls cost, and the models
    without a price."""

    cost_usd: float
    models: tuple[str, ...]


def priced_parts(conn: Connection, keys: Sequence[int]) -> dict[int, PricedPart]:
    """:class:`PricedPart` per run of ``keys``, from its eval sets' stored ``judge_usage``
    (a run whose stored usage is not JSON is left out: unknown)."""
    sets = tables.run_sets
    found: dict[int, list[Mapping[str, Any]]] = {}
    damaged: set[int] = set()
    for start in range(0, len(keys), _IN_CHUNK):
        query = (
            select(sets.c.run, sets.c.judge_usage)
            .where(sets.c.run.in_(keys[start : start + _IN_CHUNK]), sets.c.judge_usage.is_not(None))
            .order_by(sets.c.run, sets.c.position)
        )
        for key, text in conn.execute(query):
            usage = stored_usage(text)
            if usage is None:
                damaged.add(key)
            else:
                found.setdefault(key, []).append(_total(usage))
    parts = {}
    for key, totals in found.items():
        if key in damaged:
            continue
        models = {
            str(model)
            for total in totals
            if isinstance(total.get("unpricedModels"), list)
            for model in total["unpricedModels"]
        }
        costs = [_dollars(total.get("costUsd")) or Decimal() for total in totals]
        parts[key] = PricedPart(usd_json(sum(costs, Decimal())), tuple(sorted(models)))
    return parts


__all__ = [
    "COLUMNS",
    "COST_COLUMN",
    "UNKNOWN",
    "UNPRICED_COLUMN",
    "UNREPORTED_COLUMN",
    "PricedPart",
    "judge_cost_columns",
    "priced_parts",
    "stored_usage",
]
