"""What the agent spent per case, eval set and run: exact sums, unpriced turns said, never guessed."""

from __future__ import annotations

from decimal import Decimal

from agenteval.judge.prices import Price, PriceTable
from agenteval.results.agent_usage import AgentUsage, case_agent_usage, summed
from agenteval.schema.evalset import Invocation, Usage

TABLE = PriceTable({"acme:a1": Price(Decimal("0.15"), Decimal("0.6"))}, "test prices")


def turn(usage: Usage | None) -> Invocation:
    return Invocation(usage=usage)


def test_a_case_sums_its_turns_at_the_tables_prices_exactly() -> None:
    turns = [
        turn(Usage(input_tokens=1200, output_tokens=300, inference_calls=2, model="acme:a1")),
        turn(Usage(input_tokens=800, output_tokens=100, inference_calls=1, model="acme:a1")),
        turn(None),
    ]
    spent = AgentUsage()
    spent.add_turns(turns, TABLE)
    # (2000 × 0.15 + 400 × 0.6) / 1e6
    assert spent.cost_usd == Decimal("0.00054")
    assert case_agent_usage(turns, TABLE) == {
        "turns": 2,
        "turnsWithoutUsage": 1,
        "inferenceCalls": 3,
        "inputTokens": 2000,
        "outputTokens": 400,
        "unpricedTurns": 0,
        "costUsd": 0.00054,
    }


def test_turns_without_a_price_or_a_single_model_are_counted_apart() -> None:
    turns = [
        turn(Usage(input_tokens=10, output_tokens=1, inference_calls=1, model="acme:other")),
        turn(Usage(input_tokens=10, output_tokens=1, inference_calls=2, model="")),
        turn(Usage(input_tokens=10, output_tokens=1, inference_calls=1, model="acme:other")),
        turn(Usage(input_tokens=1_000_000, output_tokens=0, inference_calls=1, model="acme:a1")),
    ]
    data = case_agent_usage(turns, TABLE)
    assert data is not None
    assert (data["costUsd"], data["unpricedTurns"]) == (0.15, 3)
    assert data["unpricedModels"] == ["acme:other", "(no single model named)"]


def test_no_usage_at_all_gives_nothing() -> None:
    assert case_agent_usage([turn(None)], TABLE) is None
    assert summed([None, {"turns": 0}]) is None


def test_cases_add_up_to_the_eval_set_and_models_are_united() -> None:
    first = {"turns": 2, "inputTokens": 5, "costUsd": 0.00054, "unpricedTurns": 1,
             "unpricedModels": ["x:y"]}  # fmt: skip
    second = {"turns": 1, "inputTokens": 7, "costUsd": 0.00117, "unpricedTurns": 2,
              "unpricedModels": ["x:y", "z:w"]}  # fmt: skip
    total = summed([first, second, "not usage"])
    assert total is not None
    assert (total["turns"], total["inputTokens"], total["unpricedTurns"]) == (3, 12, 3)
    assert Decimal(repr(total["costUsd"])) == Decimal("0.00171")  # not 0.0017100000000000001
    assert total["unpricedModels"] == ["x:y", "z:w"]


def test_a_later_share_absorbed_counts_as_its_turns_added_here_would() -> None:
    """--jobs: a worker's eval-set total is added exactly (its Decimal, not the float a file
    holds) and its unpriced models come after these, once each."""
    turns = [
        turn(Usage(input_tokens=3, output_tokens=7, inference_calls=1, model="acme:a1")),
        turn(Usage(input_tokens=1, output_tokens=0, inference_calls=1, model="acme:other")),
        turn(None),
        turn(Usage(input_tokens=123_457, output_tokens=11, inference_calls=2, model="x:z")),
        turn(
            Usage(input_tokens=7 * 10**15 + 1, output_tokens=3, inference_calls=1, model="acme:a1")
        ),
        turn(Usage(input_tokens=5, output_tokens=5, inference_calls=1, model="acme:other")),
    ]
    whole, first, later = AgentUsage(), AgentUsage(), AgentUsage()
    whole.add_turns(turns, TABLE)
    first.add_turns(turns[:3], TABLE)
    later.add_turns(turns[3:], TABLE)
    first.absorb(later)
    assert first == whole
    assert whole.unpriced_models == ["acme:other", "x:z"]
    # Through the file's float the sum would lose digits ($1,050,000,000.00000195 has 18).
    read_back = AgentUsage()
    read_back.add_turns(turns[:3], TABLE)
    read_back.add(later.to_json())
    assert read_back.cost_usd != whole.cost_usd
