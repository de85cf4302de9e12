"""The judge price table: exact costs, unknown models unpriced, ``--prices`` files checked.

Costs through the real client are tokens the loopback judge reported × the table's
prices, computed here by hand (``Decimal``, so the equality is exact).
"""

from __future__ import annotations

import asyncio
import json
import re
from decimal import Decimal
from pathlib import Path

import pytest
from judge_support import fast_options, provider_server, settings_for

from agenteval.errors import ConfigError
from agenteval.judge import JudgeClient, JudgeRequest
from agenteval.judge.backend import TokenUsage
from agenteval.judge.prices import (
    CallCost,
    Price,
    PriceTable,
    builtin_document,
    builtin_prices,
    load_price_file,
    run_prices,
    usage_cost,
)
from agenteval.schema.evalset import Usage
from judge_server import JudgeServer, Reply

GPT = Price(Decimal("2.5"), Decimal("10"), Decimal("1.25"))


def test_cost_is_uncached_input_plus_cached_input_plus_output() -> None:
    usage = TokenUsage(prompt_tokens=1000, completion_tokens=50, cached_prompt_tokens=200)
    # (800 × 2.5 + 200 × 1.25 + 50 × 10) / 1e6
    assert GPT.cost(usage) == (Decimal("0.00275"), "")


def test_cached_tokens_without_a_cached_price_have_no_cost() -> None:
    price = Price(Decimal("1"), Decimal("2"))
    usd, why = price.cost(TokenUsage(100, 10, cached_prompt_tokens=5))
    assert usd is None and "cached input tokens have no price" in why
    # No cached tokens: the cached price is not needed.
    assert price.cost(TokenUsage(100, 10)) == (Decimal("0.00012"), "")


def test_a_prompt_beyond_the_price_limit_or_cache_writes_have_no_cost() -> None:
    price = Price(Decimal("1"), Decimal("2"), None, max_prompt_tokens=100)
    assert price.cost(TokenUsage(101, 1))[0] is None
    assert price.cost(TokenUsage(100, 1))[0] == Decimal("0.000102")
    assert price.cost(TokenUsage(10, 1, cache_write_tokens=3))[0] is None


def test_the_upper_bound_counts_unpriced_cached_tokens_at_the_input_price() -> None:
    price = Price(Decimal("1"), Decimal("2"), None, max_prompt_tokens=1000)
    # (100 × 1 + 10 × 2) / 1e6: the 40 cached tokens billed as fresh input.
    assert price.upper_bound(TokenUsage(100, 10, cached_prompt_tokens=40)) == Decimal("0.00012")
    # A known cost is its own bound; with a cached price, the exact cost.
    assert GPT.upper_bound(TokenUsage(1000, 50, cached_prompt_tokens=200)) == Decimal("0.00275")
    # No bound at all: cache writes (billed above input) or a prompt beyond the price's limit.
    assert price.upper_bound(TokenUsage(100, 10, cache_write_tokens=5)) is None
    assert price.upper_bound(TokenUsage(1001, 10, cached_prompt_tokens=40)) is None


def test_an_agent_turn_that_wrote_to_the_prompt_cache_has_no_cost() -> None:
    table = PriceTable({"openai:gpt-4o": GPT}, "test table")
    # The token_usage example of the manual: 150 input (40 cached) + 30 output tokens.
    turn = Usage(input_tokens=150, output_tokens=30, cached_input_tokens=40, model="openai:gpt-4o")
    # (110 × 2.5 + 40 × 1.25 + 30 × 10) / 1e6
    assert usage_cost(turn, table) == CallCost(Decimal("0.000625"), "openai:gpt-4o")
    written = turn.model_copy(update={"cache_write_input_tokens": 50})
    cost = usage_cost(written, table)
    assert (cost.usd, cost.key) == (None, "openai:gpt-4o")
    # What a judge reply with the same tokens gets: never $0.000625 or any lower number.
    judge = table.cost("openai", "gpt-4o", TokenUsage(150, 30, 40, cache_write_tokens=50))
    assert cost.why == judge.why == "openai:gpt-4o: prompt-cache writes have no price in the table"


def test_a_cache_write_price_prices_the_writes_and_bounds_the_budget() -> None:
    # Anthropic's usage: 1,000 fresh + 400 read from + 600 written to the prompt cache.
    claude = Price(Decimal("3"), Decimal("15"), Decimal("0.3"), None, Decimal("3.75"))
    usage = TokenUsage(2000, 100, cached_prompt_tokens=400, cache_write_tokens=600)
    # (1,000 × 3 + 400 × 0.3 + 600 × 3.75 + 100 × 15) / 1e6
    assert claude.cost(usage) == (Decimal("0.00687"), "")
    assert claude.upper_bound(usage) == Decimal("0.00687")
    # Cached tokens without a price but writes priced: a bound (cached at the input price).
    no_cached = Price(Decimal("3"), Decimal("15"), None, None, Decimal("3.75"))
    assert no_cached.cost(usage)[0] is None
    assert no_cached.upper_bound(usage) == Decimal("0.00795")
    # No write price: unknown and unbounded, whatever else is priced.
    assert Price(Decimal("3"), Decimal("15"), Decimal("0.3")).upper_bound(usage) is None


def test_a_prices_file_gives_the_cache_write_price(tmp_path: Path) -> None:
    file = tmp_path / "p.prices.json"
    entry = {"inputPerMillion": 3, "outputPerMillion": 15, "cacheWriteInputPerMillion": 3.75}
    file.write_text(json.dumps({"anthropic:claude-x": entry}))
    table = load_price_file(file)
    usage = TokenUsage(1600, 100, cache_write_tokens=600)
    assert table.cost("anthropic", "claude-x", usage) == CallCost(
        Decimal("0.00675"), "anthropic:claude-x"
    )
    file.write_text(json.dumps({"anthropic:claude-x": {**entry, "cacheWritePerMillion": 3.75}}))
    with pytest.raises(ConfigError, match="cacheWritePerMillion"):
        load_price_file(file)


def test_an_unknown_model_has_no_price_and_says_so() -> None:
    table = PriceTable({"openai:gpt-4o": GPT}, "test table")
    cost = table.cost("openai", "gpt-4o-2024-05-13", TokenUsage(10, 10))
    assert cost.usd is None
    assert cost.key == "openai:gpt-4o-2024-05-13"
    assert cost.why == "no price for openai:gpt-4o-2024-05-13 in test table"


def test_the_builtin_table_is_dated_and_valid() -> None:
    document = builtin_document()
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", document["takenOn"])
    table = builtin_prices()
    assert len(table) == len(document["prices"]) > 10
    assert document["takenOn"] in table.origin
    price = table.lookup("openai", "gpt-4o")
    assert price == GPT
    assert table.lookup("ollama", "llama3") is None  # local models are not priced


def test_a_prices_file_adds_and_replaces_entries(tmp_path: Path) -> None:
    path = tmp_path / "prices.json"
    path.write_text(
        json.dumps(
            {
                "openai:gpt-4o": {"inputPerMillion": 1, "outputPerMillion": 2},
                "ollama:llama3": {
                    "inputPerMillion": 0.5,
                    "outputPerMillion": 0.25,
                    "cachedInputPerMillion": 0,
                },
            }
        )
    )
    table = run_prices(path)
    assert table.lookup("openai", "gpt-4o") == Price(Decimal(1), Decimal(2))
    assert table.lookup("ollama", "llama3") == Price(Decimal("0.5"), Decimal("0.25"), Decimal(0))
    assert table.lookup("openai", "gpt-4o-mini") is not None  # the rest stays
    assert str(path) in table.origin


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (
            '{"openai:gpt-4o": {"inputPerMilion": 1, "outputPerMillion": 2}}',
            [
                "openai:gpt-4o\"].inputPerMilion: unknown key (did you mean 'inputPerMillion'?)",
                'openai:gpt-4o"].inputPerMillion: required key is missing',
            ],
        ),
        (
            '{"gpt-4o": {"inputPerMillion": 1, "outputPerMillion": 2}}',
            ['bad key: expected "<providerName>:<modelName>", e.g. "openai:gpt-4o"'],
        ),
        (
            # A key ending in a space named no model: the judge's calls went unpriced.
            '{"openai:m ": {"inputPerMillion": 1, "outputPerMillion": 2}}',
            ['["openai:m "]: bad key: expected "<providerName>:<modelName>"'],
        ),
        (
            '{"openai:m": {"inputPerMillion": -1, "outputPerMillion": "2"}}',
            ['"openai:m"].inputPerMillion: must be at least 0, got -1', "outputPerMillion"],
        ),
        ("[1, 2]", ["expected a JSON object of prices"]),
        ("{", ["invalid JSON"]),
    ],
)
def test_a_bad_prices_file_gives_located_problems(
    tmp_path: Path, content: str, expected: list[str]
) -> None:
    path = tmp_path / "prices.json"
    path.write_text(content)
    with pytest.raises(ConfigError) as caught:
        load_price_file(path)
    lines = [str(p) for p in caught.value.problems]
    assert len(lines) == len(expected), lines
    for line in lines:
        assert line.startswith(str(path)), line
    text = "\n".join(lines)
    for fragment in expected:
        assert fragment in text, text


@pytest.mark.parametrize(
    ("content", "looks_like", "hint"),
    [
        ('{"evalSetId": "s", "evalCases": []}', "an eval set", "pass it with --evalset"),
        ('[{"metricName": "m", "threshold": 1}]', "a metric file", "pass it with --metrics"),
        (
            '{"evalSetResultId": "r", "evalSetId": "s", "evalCaseResults": []}',
            "a result file",
            "pass it to show, diff, merge, --resume or --traces",
        ),
        (
            '{"evalSetId": "s", "evalId": "c", "metricName": "m", "label": "pass"}\n'
            '{"evalSetId": "s", "evalId": "d", "metricName": "m", "label": "fail"}\n',
            "a labels file",
            "pass it with --labels",
        ),
    ],
)
def test_a_file_of_another_kind_given_as_prices_is_named(
    tmp_path: Path, content: str, looks_like: str, hint: str
) -> None:
    # Not one "bad key" line per top-level key (an eval set's evalSetId, evalCases, ...).
    path = tmp_path / "prices.json"
    path.write_text(content)
    with pytest.raises(ConfigError) as caught:
        load_price_file(path)
    assert [str(p) for p in caught.value.problems] == [
        f"{path}: not a prices file (looks like {looks_like}) ({hint})"
    ]


@pytest.mark.parametrize("provider", ["openai", "anthropic", "gemini"])
def test_the_client_costs_each_reply_at_the_table_price(provider: str, tmp_path: Path) -> None:
    prices = PriceTable({f"{provider}:judge-model": GPT}, "test table")
    with provider_server(provider) as server:
        server.enqueue(
            Reply(content="a", prompt_tokens=1000, completion_tokens=50, cached_tokens=200),
            Reply(content="b", prompt_tokens=30, completion_tokens=7),
        )
        settings = settings_for(server)
        options = fast_options(cache_path=tmp_path / "cache.sqlite", prices=prices)

        async def go() -> JudgeClient:
            async with JudgeClient(options) as client:
                for prompt in ("one", "two", "one"):  # the third is a cache hit
                    await client.complete(
                        JudgeRequest.user_prompt(settings, prompt), metric_name="m"
                    )
            return client

        client = asyncio.run(go())
    total = client.usage.to_json()["total"]
    assert isinstance(total, dict)
    expected = (800 * 2.5 + 200 * 1.25 + 50 * 10 + 30 * 2.5 + 7 * 10) / 1_000_000
    assert client.usage.total.cost_usd == Decimal("0.002895")
    assert total["costUsd"] == pytest.approx(expected, abs=0)
    assert (total["calls"], total["cacheHits"], total["cachedPromptTokens"]) == (2, 1, 200)
    assert total["unpricedCalls"] == 0 and "unpricedModels" not in total


def test_a_run_answered_from_the_cache_costs_nothing(tmp_path: Path) -> None:
    prices = PriceTable({"openai:judge-model": GPT}, "test table")
    cache = tmp_path / "cache.sqlite"
    with JudgeServer() as server:
        server.default = Reply(content="x", prompt_tokens=100, completion_tokens=10)
        settings = settings_for(server)

        async def go() -> JudgeClient:
            async with JudgeClient(fast_options(cache_path=cache, prices=prices)) as client:
                await client.complete(JudgeRequest.user_prompt(settings, "same"), metric_name="m")
            return client

        first, second = asyncio.run(go()), asyncio.run(go())
        assert server.count == 1
    assert first.usage.total.cost_usd == Decimal("0.00035")
    assert second.usage.total.cost_usd == 0
    assert (second.usage.total.calls, second.usage.total.cache_hits) == (0, 1)


# Replies in each provider's shape that carry no usage block at all.
NO_USAGE = {
    "openai": {"choices": [{"index": 0, "message": {"role": "assistant", "content": "x"}}]},
    "anthropic": {
        "type": "message",
        "role": "assistant",
        "content": [{"type": "text", "text": "x"}],
        "stop_reason": "end_turn",
    },
    "gemini": {"candidates": [{"content": {"role": "model", "parts": [{"text": "x"}]}}]},
    "ollama": {"message": {"role": "assistant", "content": "x"}, "done": True},
    "hunyuan": {"Response": {"Choices": [{"Message": {"Role": "assistant", "Content": "x"}}]}},
}


def unusable_usage(provider: str, fault: str) -> Reply:
    """A reply whose token counts are missing, negative or impossible."""
    if fault == "missing":
        return Reply(body=json.dumps(NO_USAGE[provider]).encode())
    if fault == "negative":
        return Reply(content="x", prompt_tokens=1000, completion_tokens=-400)
    # More tokens served from the prompt cache than the whole prompt had.
    return Reply(content="x", prompt_tokens=100, completion_tokens=5, cached_tokens=400)


@pytest.mark.parametrize(
    ("provider", "fault"),
    [
        *((p, f) for p in NO_USAGE for f in ("missing", "negative")),
        ("openai", "cached-beyond-prompt"),
        ("gemini", "cached-beyond-prompt"),
    ],
)
def test_a_reply_without_usable_usage_has_no_cost_never_zero(provider: str, fault: str) -> None:
    # Counted as reported, a missing usage cost $0 and -400 completion tokens cost
    # (1000 × 2.5 − 400 × 10) / 1e6 = −$0.0015: a cheaper run than the one paid for.
    key = f"{provider}:judge-model"
    prices = PriceTable({key: GPT}, "test table")
    with provider_server(provider) as server:
        server.default = unusable_usage(provider, fault)
        settings = settings_for(server)

        async def go() -> JudgeClient:
            async with JudgeClient(fast_options(prices=prices)) as client:
                reply = await client.complete(
                    JudgeRequest.user_prompt(settings, "one"), metric_name="m"
                )
                assert reply.text == "x"
            return client

        client = asyncio.run(go())
    total = client.usage.total
    assert (total.calls, total.unpriced_calls, total.cost_usd) == (1, 1, Decimal(0))
    assert total.unpriced_models == {key}
    assert (total.prompt_tokens, total.completion_tokens, total.cached_prompt_tokens) == (0, 0, 0)
    assert client.notes == [
        (
            "judge",
            f"{key}: a reply reported no usable token usage: its tokens are not counted "
            "and its cost is unknown (no price can give it)",
        )
    ]


def test_unreported_usage_has_neither_a_cost_nor_an_upper_bound() -> None:
    unreported = TokenUsage(reported=False)
    assert GPT.cost(unreported) == (None, "a reply reported no usable token usage")
    assert GPT.upper_bound(unreported) is None


def test_a_price_given_twice_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "prices.json"
    path.write_text(
        '{"openai:gpt-4o": {"inputPerMillion": 2.5, "outputPerMillion": 10, "outputPerMillion": 0}}'
    )
    with pytest.raises(ConfigError) as caught:
        load_price_file(path)
    assert [str(p) for p in caught.value.problems] == [
        f'{path}: ["openai:gpt-4o"].outputPerMillion: key "outputPerMillion" given twice;'
        " the last value (0) is used (give each key once)"
    ]
