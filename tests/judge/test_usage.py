"""The usage ledger: per metric, per eval set (a scope), per case (a context variable), in dollars."""

from __future__ import annotations

import asyncio
from decimal import Decimal

from agenteval.judge.backend import TokenUsage
from agenteval.judge.usage import UsageLedger, case_usage


def test_a_reply_is_counted_for_the_run_the_metric_the_eval_set_and_the_case() -> None:
    ledger = UsageLedger()

    async def case(name: str, cost: Decimal | None) -> dict[str, object]:
        mine = case_usage()
        ledger.count("m", "calls")
        ledger.record_tokens("m", TokenUsage(100, 10, cached_prompt_tokens=4), cost, "openai:x")
        ledger.count("m", "cache_hits")
        return mine.to_json()

    async def both() -> list[dict[str, object]]:
        return list(
            await asyncio.gather(
                asyncio.create_task(case("a", Decimal("0.25"))),
                asyncio.create_task(case("b", None)),
            )
        )

    scope = ledger.begin_scope()
    first, second = asyncio.run(both())
    ledger.end_scope()
    ledger.count("m", "calls")  # after the eval set: the run counts it, the scope does not
    assert first["costUsd"] == 0.25 and first["unpricedCalls"] == 0
    assert (first["calls"], first["cacheHits"], first["cachedPromptTokens"]) == (1, 1, 4)
    assert second["costUsd"] == 0.0 and second["unpricedModels"] == ["openai:x"]
    assert scope.total.calls == 2 and ledger.total.calls == 3
    total = ledger.to_json()["total"]
    assert isinstance(total, dict)
    assert total["costUsd"] == 0.25 and total["unpricedCalls"] == 1
    assert ledger.by_metric["m"].cost_usd == Decimal("0.25")


def test_calls_without_usage_are_counted_apart_among_the_unpriced() -> None:
    # Two replies of a priced model without usage and one of a model without a price:
    # all three have no cost, and two of them because no usage came (no price would help).
    ledger = UsageLedger()
    ledger.record_tokens("m", TokenUsage(reported=False), None, "openai:x")
    ledger.record_tokens("m", TokenUsage(reported=False), None, "openai:x")
    ledger.record_tokens("m", TokenUsage(5, 1), None, "openai:y")
    total = ledger.to_json()["total"]
    assert isinstance(total, dict)
    assert (total["unpricedCalls"], total["unreportedCalls"]) == (3, 2)
    assert total["unpricedModels"] == ["openai:x", "openai:y"]
    # Written only when some call lacked usage, as result files had it before.
    ledger = UsageLedger()
    ledger.record_tokens("m", TokenUsage(5, 1), None, "openai:y")
    total = ledger.to_json()["total"]
    assert isinstance(total, dict) and "unreportedCalls" not in total
