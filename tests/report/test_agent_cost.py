"""How the reports word the agent's spend: calls, tokens, dollars, what has no price or usage."""

from __future__ import annotations

from agenteval.report.agent_cost import agent_usage_text

PRICED = {"turns": 3, "inferenceCalls": 6, "inputTokens": 7000, "outputTokens": 1100,
          "costUsd": 0.00171, "unpricedTurns": 0, "turnsWithoutUsage": 0}  # fmt: skip


def test_a_priced_agent_reads_as_calls_tokens_and_dollars() -> None:
    assert agent_usage_text(PRICED) == (
        "6 model calls, 7,000 input + 1,100 output tokens · $0.00171"
    )


def test_unpriced_turns_and_turns_without_usage_are_said() -> None:
    none_priced = {**PRICED, "costUsd": 0.0, "unpricedTurns": 3, "unpricedModels": ["a:b"]}
    assert agent_usage_text(none_priced).endswith(
        "· cost unknown: no price for 3 turns (a:b) (give --prices FILE)"
    )
    some = {**PRICED, "unpricedTurns": 1, "unpricedModels": ["a:b"], "turnsWithoutUsage": 2}
    assert agent_usage_text(some).endswith(
        "· $0.00171 + 1 turn without a price (a:b) · 2 turns without usage"
    )


def test_nothing_without_usage() -> None:
    assert agent_usage_text(None) == ""
    assert agent_usage_text({"turns": 0}) == ""
    assert agent_usage_text({**PRICED, "inferenceCalls": 1}).startswith("1 model call, ")
