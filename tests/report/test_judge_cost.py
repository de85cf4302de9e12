"""How reports word judge cost: dollars, unpriced calls, per metric, the costliest cases."""

from __future__ import annotations

import pytest

from agenteval.inputs.score_text import counted
from agenteval.report.agent_cost import agent_cost_text
from agenteval.report.judge_cost import (
    CostliestCases,
    cost_text,
    judge_usage_text,
    metric_costs_text,
    priced_text,
    saved_count,
    usd,
)


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
    unnamed = {"costUsd": 0.5, "unpricedTurns": 2, "unpricedModels": ["(no single model named)"]}
    assert priced_text(unnamed, "unpricedTurns", "turn") == (
        "$0.50 + 2 turns without a price (no single model named)"
    )
    unnamed["unpricedModels"] = ["acme:x", "(no single model named)"]
    assert priced_text(unnamed, "unpricedTurns", "turn").endswith(
        "without a price (acme:x, no single model named)"
    )
    assert cost_text({"calls": 3}) == ""  # a result written before judge calls were priced
    assert cost_text(None) == ""


def test_cost_text_says_a_reply_without_usage_is_why_its_cost_is_unknown() -> None:
    # No price would give these calls' cost: their replies reported no token usage.
    unreported = {"costUsd": 0, "unpricedCalls": 1, "unreportedCalls": 1, "unpricedModels": ["o:m"]}
    assert cost_text(unreported) == "cost unknown: 1 call reported no token usage (o:m)"
    both = {"costUsd": 0, "unpricedCalls": 3, "unreportedCalls": 2, "unpricedModels": ["o:m"]}
    assert cost_text(both) == (
        "cost unknown: no price for 1 call, 2 calls reported no token usage (o:m) "
        "(give --prices FILE)"
    )
    partial = {"costUsd": 0.01, "unpricedCalls": 2, "unreportedCalls": 2, "unpricedModels": ["o:m"]}
    assert cost_text(partial) == "$0.01 + 2 calls without reported token usage (o:m)"
    mixed = {"costUsd": 0.01, "unpricedCalls": 3, "unreportedCalls": 1}
    assert (
        cost_text(mixed) == "$0.01 + 2 calls without a price, 1 call without reported token usage"
    )
    # More unreported than unpriced (a hand-edited file) is not a negative count.
    assert cost_text({"costUsd": 0, "unpricedCalls": 1, "unreportedCalls": 5}) == (
        "cost unknown: 1 call reported no token usage"
    )


def test_counted_and_the_usage_line_say_one_call_and_one_retry() -> None:
    assert [counted(n, "call") for n in (0, 1, 2)] == ["0 calls", "1 call", "2 calls"]
    assert counted(1, "retry", "retries") == "1 retry"
    assert counted(3, "retry", "retries") == "3 retries"
    usage = {"total": {"calls": 1, "cacheHits": 0, "retries": 1, "promptTokens": 11,
                       "completionTokens": 7, "costUsd": 0.5}}  # fmt: skip
    assert judge_usage_text(usage) == (
        "1 call, 0 from cache, 1 retry, 11 prompt + 7 completion tokens · $0.50"
    )


def test_metric_costs_costliest_first() -> None:
    by_metric = {"a": {"costUsd": 0.001}, "b": {"costUsd": 0.002}, "c": {"costUsd": 0}}
    assert metric_costs_text(by_metric) == "b $0.002 · a $0.001"


def test_a_metrics_cost_with_unpriced_calls_is_never_its_priced_part_alone() -> None:
    # a's priced part was printed as "a $0.003", the whole; b, whose calls all lack a
    # price, was left out (the HTML report said both, as cost_text words them).
    by_metric = {
        "a": {"costUsd": 0.003, "unpricedCalls": 1, "unpricedModels": ["openai:x"]},
        "b": {"costUsd": 0, "unpricedCalls": 2, "unpricedModels": ["openai:y"]},
        "c": {"costUsd": 0.004, "unpricedCalls": 0},
    }
    assert metric_costs_text(by_metric) == (
        "c $0.004 · a $0.003 + 1 call without a price (openai:x) · "
        "b cost unknown: no price for 2 calls (openai:y) (give --prices FILE)"
    )


def test_a_costliest_case_with_unpriced_calls_says_so() -> None:
    kept = CostliestCases()
    kept.add("a", {"costUsd": 0.2, "unpricedCalls": 0})
    kept.add("b", {"costUsd": 0.3, "unpricedCalls": 2, "unpricedModels": ["openai:x"]})
    kept.add("c", {"costUsd": 0, "unpricedCalls": 1})  # no dollar known: not ranked
    assert kept.worded() == [("b", "$0.30 + 2 calls without a price (openai:x)"), ("a", "$0.20")]
    turns = CostliestCases(word=agent_cost_text)
    turns.add("a", {"costUsd": 0.001, "unpricedTurns": 1, "unpricedModels": ["a:b"]})
    assert turns.worded() == [("a", "$0.001 + 1 turn without a price (a:b)")]


def test_costliest_cases_keeps_the_top_three_first_arrival_first_on_ties() -> None:
    kept = CostliestCases()
    for label, cost in [("a", 0.1), ("b", 0.3), ("c", 0.2), ("d", 0.3), ("e", 0.05)]:
        kept.add(label, {"costUsd": cost})
    kept.add("f", None)
    assert kept.worded() == [("b", "$0.30"), ("d", "$0.30"), ("c", "$0.20")]


def test_a_saved_count_too_large_for_a_float_is_worded_not_raised() -> None:
    """A hand-edited result with a 401-digit call count: show exited 4 (OverflowError)."""
    big = 10**400
    text = judge_usage_text(
        {"total": {"calls": big, "retries": 1, "unpricedCalls": big, "costUsd": 0.5}}
    )
    assert text.startswith(f"{big} calls, 0 from cache, 1 retry, ")
    assert text.endswith(f"$0.50 + {big} calls without a price")
    # Not a number (NaN) counts nothing, as a missing count does.
    assert judge_usage_text({"total": {"calls": 2, "retries": float("nan")}}).startswith(
        "2 calls, 0 from cache, 0 retries, "
    )


def test_judge_usage_reads_every_saved_count_alike() -> None:
    # A saved file's cache hits and tokens are read as its calls are: a string token count
    # made ``show`` exit 4 (ValueError from the thousands format), a string of cache hits
    # reached the terminal raw (an escape sequence), a float was printed as "3.0".
    usage = {"calls": 2, "cacheHits": "\x1b[31m", "promptTokens": "x", "completionTokens": 3.0}
    assert judge_usage_text({"total": usage}) == (
        "2 calls, 0 from cache, 0 retries, 0 prompt + 3 completion tokens"
    )


@pytest.mark.parametrize("cut", range(7))
def test_costliest_cases_absorbed_keep_what_one_pass_keeps(cut: int) -> None:
    costs = [("a", 0.1), ("b", 0.3), ("c", 0.2), ("d", 0.3), ("e", 0.05), ("f", 0.3)]
    whole, first, part = CostliestCases(), CostliestCases(), CostliestCases()
    for label, cost in costs:
        whole.add(label, {"costUsd": cost})
    for label, cost in costs[:cut]:
        first.add(label, {"costUsd": cost})
    for label, cost in costs[cut:]:
        part.add(label, {"costUsd": cost})
    first.absorb(part)
    assert first.worded() == whole.worded() == [("b", "$0.30"), ("d", "$0.30"), ("f", "$0.30")]


def test_a_saved_count_is_read_alike_everywhere() -> None:
    # show, the reports and the run store read a saved count with this one function.
    assert [saved_count(v) for v in (3, 3.0, 2.9, True, "3", None, float("nan"))] == [
        3, 3, 2, 0, 0, 0, 0,
    ]  # fmt: skip
    assert saved_count(float("inf")) == 0 and saved_count(10**400) == 10**400


def test_counted_says_one_or_many_grouped_when_asked() -> None:
    assert counted(1, "retry", "retries") == "1 retry"
    assert counted(2, "retry", "retries") == "2 retries"
    assert counted(12_000, "span") == "12000 spans"
    assert counted(12_000, "span", grouped=True) == "12,000 spans"
