"""How reports word judge cost: dollars, unpriced calls, per metric, the costliest cases."""

from __future__ import annotations

import pytest

from agenteval.report.judge_cost import CostliestCases, cost_text, metric_costs_text, usd


@pytest.mark.parametrize(
    ("amount", "text"),
    [
        (0, "$0"),
        (0.0135, "$0.0135"),
        (0.000231, "$0.000231"),
        (0.1, "$0.10"),
        (0.5, "$0.50"),
        (12.5, "$12.50"),
        (1234.567, "$1,234.57"),
    ],
)
def test_usd(amount: float, text: str) -> None:
    assert usd(amount) == text


def test_cost_text_never_shows_a_partial_sum_as_the_whole() -> None:
    assert cost_text({"costUsd": 0.0135, "unpricedCalls": 0}) == "$0.0135"
    assert (
        cost_text({"costUsd": 0.01, "unpricedCalls": 2, "unpricedModels": ["openai:x"]})
        == "$0.01 + 2 calls without a price (openai:x)"
    )
    assert (
        cost_text({"costUsd": 0, "unpricedCalls": 1, "unpricedModels": ["openai:x"]})
        == "cost unknown: no price for 1 call (openai:x) (give --prices FILE)"
    )
    assert cost_text({"calls": 3}) == ""  # a result written before judge calls were priced
    assert cost_text(None) == ""


def test_metric_costs_costliest_first() -> None:
    by_metric = {"a": {"costUsd": 0.001}, "b": {"costUsd": 0.002}, "c": {"costUsd": 0}}
    assert metric_costs_text(by_metric) == "b $0.002 · a $0.001"


def test_costliest_cases_keeps_the_top_three_first_arrival_first_on_ties() -> None:
    kept = CostliestCases()
    for label, cost in [("a", 0.1), ("b", 0.3), ("c", 0.2), ("d", 0.3), ("e", 0.05)]:
        kept.add(label, {"costUsd": cost})
    kept.add("f", None)
    assert kept.costliest() == [("b", 0.3), ("d", 0.3), ("c", 0.2)]
