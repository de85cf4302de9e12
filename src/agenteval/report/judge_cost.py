"""How the reports word judge cost: dollars, calls without a price, per metric and per case.

Reads the ``judgeUsage`` JSON of a run, an eval set or a case (see
:mod:`agenteval.judge.usage`): ``costUsd`` sums the calls whose cost is known,
``unpricedCalls`` / ``unpricedModels`` say which were not, so a partial sum is
never shown as the whole.  Model names come from input files: callers escape the
text before printing it.

Tested in tests/report/test_judge_cost.py.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from agenteval.inputs.score_text import counted

# Cases listed as the costliest in an eval set's console summary.
COSTLIEST_SHOWN = 3


def usd(amount: float) -> str:
    """``$0.0123``, ``$12.50``, ``$0.000231``: cents for large amounts, 3 significant digits below."""
    if amount == 0:
        return "$0"
    if amount >= 1:
        return f"${amount:,.2f}"
    digits = max(2, 2 - math.floor(math.log10(abs(amount))))
    whole, _, decimals = f"{amount:.{digits}f}".partition(".")
    return f"${whole}.{decimals.rstrip('0').ljust(2, '0')}"


def _number(usage: Mapping[str, Any], key: str) -> float:
    value = usage.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0.0
    try:
        return float(value)
    except OverflowError:  # an integer past 1.8e308 in a saved file: as large as it gets
        return math.inf


def saved_count(value: object) -> int:
    """A count read from a saved file as a whole number (0 when it is none: not a number, or
    not finite): ``show``, the reports and the run store read them alike."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0
    if isinstance(value, float):
        return int(value) if math.isfinite(value) else 0
    return value


def _count(usage: Mapping[str, Any], key: str) -> int:
    return saved_count(usage.get(key))


def cost_text(usage: Mapping[str, Any] | None) -> str:
    """``$0.0123``, ``$0.0123 + 2 calls without a price (openai:x)``, or "" with no reply."""
    if not usage:
        return ""
    if "costUsd" not in usage and not _number(usage, "unpricedCalls"):
        return ""  # written before agenteval priced judge calls
    return priced_text(usage, "unpricedCalls", "call", unreported_key="unreportedCalls")


def judge_usage_text(usage: Mapping[str, Any] | None) -> str:
    """``12 calls, 3 from cache, 0 retries, 1,200 prompt + 300 completion tokens · $0.0123``
    of a ``judgeUsage`` (its ``total``); "" when the judge was not asked."""
    total = usage.get("total") if isinstance(usage, Mapping) else None
    if not isinstance(total, Mapping) or not (total.get("calls") or total.get("cacheHits")):
        return ""
    text = (
        f"{counted(_count(total, 'calls'), 'call')}, "
        f"{_count(total, 'cacheHits')} from cache, "
        f"{counted(_count(total, 'retries'), 'retry', 'retries')}, "
        f"{_count(total, 'promptTokens'):,} prompt + "
        f"{_count(total, 'completionTokens'):,} completion tokens"
    )
    cost = cost_text(total)
    return f"{text} · {cost}" if cost else text


def priced_text(
    usage: Mapping[str, Any], unpriced_key: str, noun: str, *, unreported_key: str = ""
) -> str:
    """``costUsd`` worded with the ``noun``s counted under ``unpriced_key`` whose cost is unknown.

    ``$0.0123``; ``$0.0123 + 2 turns without a price (openai:x)``; ``cost unknown: no
    price for 2 calls (openai:x) (give --prices FILE)``: a partial sum never reads as the whole.
    Those of them counted under ``unreported_key`` have no cost because their reply reported
    no token usage, which no price can mend: they are said apart (``1 call reported no token
    usage``), without the ``--prices`` hint unless some others lack a price.
    """
    cost = _number(usage, "costUsd")
    unpriced = _count(usage, unpriced_key)
    if not unpriced:
        return usd(cost)
    unreported = min(_count(usage, unreported_key), unpriced) if unreported_key else 0
    no_price = unpriced - unreported
    models = usage.get("unpricedModels")
    # A placeholder such as "(no single model named)" is not put in a second pair of brackets.
    names = [str(m) for m in models] if isinstance(models, list) else []
    named = ", ".join(n[1:-1] if n[:1] == "(" and n[-1:] == ")" else n for n in names)
    which = f" ({named})" if named else ""
    if cost == 0:
        parts = [f"no price for {counted(no_price, noun)}"] if no_price else []
        if unreported:
            parts.append(f"{counted(unreported, noun)} reported no token usage")
        hint = " (give --prices FILE)" if no_price else ""
        return f"cost unknown: {', '.join(parts)}{which}{hint}"
    parts = [f"{counted(no_price, noun)} without a price"] if no_price else []
    if unreported:
        parts.append(f"{counted(unreported, noun)} without reported token usage")
    return f"{usd(cost)} + {', '.join(parts)}{which}"


def metric_costs_text(by_metric: Mapping[str, Any] | None) -> str:
    """``answer_rubrics $0.0021 · critic $0.0011 + 1 call without a price (openai:x)``: the
    metrics with a priced reply or an unpriced one, costliest first, each worded by
    :func:`cost_text` (a metric's partial sum never reads as its whole, as the HTML report
    words it)."""
    if not isinstance(by_metric, Mapping):
        return ""
    costs = [
        (name, _number(usage, "costUsd"), cost_text(usage))
        for name, usage in by_metric.items()
        if isinstance(usage, Mapping)
        and (_number(usage, "costUsd") > 0 or _count(usage, "unpricedCalls"))
    ]
    costs.sort(key=lambda item: (-item[1], item[0]))
    return " · ".join(f"{name} {text}" for name, _, text in costs)


def costliest_text(cases: Iterable[tuple[str, str]]) -> str:
    """``refund_flow $0.0042, status $0.0031 + 1 call without a price (openai:x)``: the
    (label, cost as worded) of :meth:`CostliestCases.worded`."""
    return ", ".join(f"{eval_id} {cost}" for eval_id, cost in cases)


class CostliestCases:
    """The few costliest cases of an eval set, kept as case results pass (bounded memory).

    Ranked by the dollars known; ``word`` says a kept case's cost (:func:`cost_text` of a
    ``judgeUsage``), so a case with calls or turns without a price shows them, not its
    priced part as the whole."""

    def __init__(
        self,
        keep: int = COSTLIEST_SHOWN,
        word: Callable[[Mapping[str, Any]], str] = cost_text,
    ) -> None:
        self._keep = keep
        self._word = word
        # (cost, arrival, label, the case's usage); the arrival is unique, so no tie
        # compares two usages.
        self._heap: list[tuple[float, int, str, Mapping[str, Any]]] = []
        self._seen = 0

    def add(self, label: str, usage: Any) -> None:
        """Count one case result's ``judgeUsage`` (anything else is ignored)."""
        if not isinstance(usage, Mapping):
            return
        cost = _number(usage, "costUsd")
        if cost <= 0:
            return
        # The arrival number breaks ties: the earlier case stays, as a stable sort would keep it.
        item = (cost, -self._seen, label, usage)
        self._seen += 1
        if len(self._heap) < self._keep:
            heapq.heappush(self._heap, item)
        else:
            heapq.heappushpop(self._heap, item)

    def absorb(self, part: CostliestCases) -> None:
        """Count ``part``'s cases after every case added here (the earlier still wins a tie)."""
        for cost, order, label, usage in part._heap:
            item = (cost, order - self._seen, label, usage)
            if len(self._heap) < self._keep:
                heapq.heappush(self._heap, item)
            else:
                heapq.heappushpop(self._heap, item)
        self._seen += part._seen

    def worded(self) -> list[tuple[str, str]]:
        """(label, cost as worded) of the costliest cases, costliest first."""
        return [(label, self._word(usage)) for _, _, label, usage in self._ranked()]

    def _ranked(self) -> list[tuple[float, int, str, Mapping[str, Any]]]:
        return sorted(self._heap, key=lambda item: item[:2], reverse=True)


__all__ = [
    "COSTLIEST_SHOWN",
    "CostliestCases",
    "cost_text",
    "costliest_text",
    "judge_usage_text",
    "metric_costs_text",
    "priced_text",
    "saved_count",
    "usd",
]
