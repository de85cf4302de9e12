"""Retry policy, rate limit, concurrency bound, budgets and usage accounting."""

from __future__ import annotations

import asyncio
import itertools
import json
import random
from decimal import Decimal
from email.utils import formatdate
from pathlib import Path

import pytest
from judge_support import fast_options, settings_for

from agenteval.judge import (
    JudgeBudgetExhausted,
    JudgeClient,
    JudgeOptions,
    JudgeReply,
    JudgeRequest,
    JudgeSettings,
)
from agenteval.judge.limits import RetryPolicy, is_retryable_status, parse_retry_after, rate_limiter
from judge_server import JudgeServer, Reply

NOW = 1_445_412_480.0  # Wed, 21 Oct 2015 07:28:00 GMT


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"retry-after-ms": "250"}, 0.25),
        ({"retry-after-ms": "250", "retry-after": "9"}, 0.25),
        ({"retry-after-ms": "soon", "retry-after": "9"}, 9.0),
        ({"retry-after": "3"}, 3.0),
        ({"retry-after": "1.5"}, 1.5),
        ({"retry-after": "Wed, 21 Oct 2015 07:28:02 GMT"}, 2.0),
        ({"retry-after": "Wed, 21 Oct 2015 07:27:50 GMT"}, -10.0),
        ({"retry-after": "whenever"}, None),
        ({"retry-after": "nan"}, None),
        ({}, None),
    ],
)
def test_parse_retry_after(headers: dict[str, str], expected: float | None) -> None:
    assert parse_retry_after(headers, now=NOW) == expected


def test_fixed_now_matches_the_date_vector() -> None:
    assert formatdate(NOW, usegmt=True) == "Wed, 21 Oct 2015 07:28:00 GMT"


@pytest.mark.parametrize(
    ("status", "retry"),
    [
        (408, True),
        (409, True),
        (429, True),
        (500, True),
        (503, True),
        (599, True),
        (400, False),
        (401, False),
        (403, False),
        (404, False),
        (422, False),
    ],
)
def test_retryable_statuses(status: int, retry: bool) -> None:
    assert is_retryable_status(status) is retry


def test_backoff_doubles_caps_and_jitters() -> None:
    policy = RetryPolicy()
    rng = random.Random(7)
    for retry, ceiling in [(0, 0.5), (1, 1.0), (2, 2.0), (3, 4.0), (4, 8.0), (5, 8.0), (9, 8.0)]:
        for _ in range(50):
            delay = policy.delay(retry, None, rng)
            assert 0.75 * ceiling <= delay <= ceiling


def test_server_hint_wins_within_a_minute() -> None:
    policy = RetryPolicy()
    rng = random.Random(1)
    assert policy.delay(3, 0.25, rng) == 0.25
    assert policy.delay(0, 60.0, rng) == 60.0
    assert policy.delay(0, -3.0, rng) == 0.0
    assert 0.375 <= policy.delay(0, 61.0, rng) <= 0.5


def test_rate_limiter_spaces_starts_evenly_and_banks_no_idle_time() -> None:
    interval = 0.1  # 600 per minute

    async def go() -> tuple[list[float], list[float]]:
        loop = asyncio.get_running_loop()
        limiter = rate_limiter(600)

        async def start() -> float:
            await limiter.acquire()
            return loop.time()

        first = await asyncio.gather(*(start() for _ in range(4)))
        await asyncio.sleep(4 * interval)  # idle time is not banked into a burst
        second = await asyncio.gather(*(start() for _ in range(2)))
        return sorted(first), sorted(second)

    first, second = asyncio.run(go())
    # Lower bounds only: a busy machine may start later, never sooner.
    for starts in (first, second):
        gaps = [b - a for a, b in itertools.pairwise(starts)]
        assert all(gap >= 0.95 * interval for gap in gaps), gaps


def test_rate_limit_must_be_positive() -> None:
    with pytest.raises(ValueError):
        rate_limiter(0)


def test_rate_limited_client_still_answers(judge_server: JudgeServer) -> None:
    settings = settings_for(judge_server)
    replies = run_calls(settings, [f"p{i}" for i in range(3)], fast_options(rate_limit_rpm=6000))
    assert all(isinstance(r, JudgeReply) for r in replies)
    assert judge_server.count == 3


def run_calls(
    settings: JudgeSettings,
    prompts: list[str],
    options: JudgeOptions,
    *,
    metric: str = "m",
    parallel: bool = False,
    client_out: list[JudgeClient] | None = None,
) -> list[object]:
    """Ask each prompt once; exceptions are returned in place of replies."""

    async def go() -> list[object]:
        async with JudgeClient(options) as client:
            if client_out is not None:
                client_out.append(client)

            async def one(prompt: str) -> object:
                try:
                    request = JudgeRequest.user_prompt(settings, prompt)
                    return await client.complete(request, metric_name=metric)
                except JudgeBudgetExhausted as exc:
                    return exc

            if parallel:
                return list(await asyncio.gather(*(one(p) for p in prompts)))
            return [await one(p) for p in prompts]

    return asyncio.run(go())


def test_concurrency_bounds_calls_in_flight(judge_server: JudgeServer) -> None:
    judge_server.latency = 0.2
    settings = settings_for(judge_server)
    prompts = [f"prompt {i}" for i in range(20)]
    replies = run_calls(settings, prompts, fast_options(concurrency=4), parallel=True)
    assert all(isinstance(r, JudgeReply) for r in replies)
    assert judge_server.count == 20
    assert judge_server.max_in_flight == 4


def test_max_calls_budget_stops_new_calls(judge_server: JudgeServer) -> None:
    settings = settings_for(judge_server)
    results = run_calls(settings, [f"p{i}" for i in range(5)], fast_options(max_calls=3))
    kinds = [type(r).__name__ for r in results]
    assert kinds == ["JudgeReply"] * 3 + ["JudgeBudgetExhausted"] * 2
    assert "max_judge_calls=3" in str(results[3])
    assert judge_server.count == 3


def test_max_calls_budget_holds_under_concurrency(judge_server: JudgeServer) -> None:
    judge_server.latency = 0.05
    settings = settings_for(judge_server)
    prompts = [f"p{i}" for i in range(12)]
    results = run_calls(settings, prompts, fast_options(max_calls=5), parallel=True)
    assert sum(isinstance(r, JudgeReply) for r in results) == 5
    assert judge_server.count == 5


def test_max_tokens_budget_stops_after_the_limit_is_reached(judge_server: JudgeServer) -> None:
    # Each default reply costs 11 + 7 = 18 tokens: 18 < 30, 36 >= 30.
    settings = settings_for(judge_server)
    results = run_calls(settings, ["a", "b", "c", "d"], fast_options(max_tokens=30))
    kinds = [type(r).__name__ for r in results]
    assert kinds == ["JudgeReply", "JudgeReply", "JudgeBudgetExhausted", "JudgeBudgetExhausted"]
    assert "max_judge_tokens=30" in str(results[2])
    assert judge_server.count == 2


def test_zero_call_budget_sends_nothing(judge_server: JudgeServer) -> None:
    results = run_calls(settings_for(judge_server), ["a"], fast_options(max_calls=0))
    assert isinstance(results[0], JudgeBudgetExhausted)
    assert judge_server.count == 0


def test_cache_hits_are_served_after_the_budget_is_spent(
    judge_server: JudgeServer, tmp_path: Path
) -> None:
    settings = settings_for(judge_server)
    options = fast_options(max_calls=1, cache_path=tmp_path / "cache.sqlite")
    results = run_calls(settings, ["a", "a", "b"], options)
    assert [type(r).__name__ for r in results] == [
        "JudgeReply",
        "JudgeReply",
        "JudgeBudgetExhausted",
    ]
    assert judge_server.count == 1


def test_usage_is_counted_per_metric_and_per_run(judge_server: JudgeServer, tmp_path: Path) -> None:
    judge_server.when("alpha", Reply(content="a", prompt_tokens=100, completion_tokens=10))
    judge_server.when("beta", Reply.status_error(500), Reply(content="b", prompt_tokens=7))
    settings = settings_for(judge_server)
    options = fast_options(cache_path=tmp_path / "cache.sqlite")

    async def go() -> JudgeClient:
        async with JudgeClient(options) as client:
            for prompt, metric in [("alpha 1", "m1"), ("alpha 2", "m1"), ("beta", "m2")]:
                request = JudgeRequest.user_prompt(settings, prompt)
                await client.complete(request, metric_name=metric)
            # Same request again: a cache hit costs no tokens.
            await client.complete(JudgeRequest.user_prompt(settings, "alpha 1"), metric_name="m1")
            return client

    client = asyncio.run(go())
    assert client.usage.to_json() == {
        "total": {
            "calls": 3,
            "cacheHits": 1,
            "failedCalls": 0,
            "retries": 1,
            "promptTokens": 207,
            "completionTokens": 27,
            "cachedPromptTokens": 0,
            "costUsd": 0.0,
            "unpricedCalls": 3,
            "unpricedModels": ["openai:judge-model"],
        },
        "byMetric": {
            "m1": {
                "calls": 2,
                "cacheHits": 1,
                "failedCalls": 0,
                "retries": 0,
                "promptTokens": 200,
                "completionTokens": 20,
                "cachedPromptTokens": 0,
                "costUsd": 0.0,
                "unpricedCalls": 2,
                "unpricedModels": ["openai:judge-model"],
            },
            "m2": {
                "calls": 1,
                "cacheHits": 0,
                "failedCalls": 0,
                "retries": 1,
                "promptTokens": 7,
                "completionTokens": 7,
                "cachedPromptTokens": 0,
                "costUsd": 0.0,
                "unpricedCalls": 1,
                "unpricedModels": ["openai:judge-model"],
            },
        },
    }
    assert client.budget.calls == 3
    assert client.budget.tokens == 234


@pytest.mark.parametrize(
    "bad",
    [
        {"concurrency": 0},
        {"retries": -1},
        {"timeout": 0},
        {"rate_limit_rpm": 0},
        {"max_calls": -1},
        {"max_tokens": -5},
    ],
)
def test_invalid_options_are_refused(bad: dict[str, float]) -> None:
    with pytest.raises(ValueError):
        JudgeOptions(**bad)  # type: ignore[arg-type]


def test_max_tokens_budget_stops_at_a_reply_without_usage(judge_server: JudgeServer) -> None:
    # The reply has no usage block: counting it as 0 tokens would let every call through.
    body = {"choices": [{"index": 0, "message": {"role": "assistant", "content": "x"}}]}
    judge_server.default = Reply(body=json.dumps(body).encode())
    settings = settings_for(judge_server)
    results = run_calls(settings, ["a", "b", "c"], fast_options(max_tokens=30))
    kinds = [type(r).__name__ for r in results]
    assert kinds == ["JudgeReply", "JudgeBudgetExhausted", "JudgeBudgetExhausted"]
    assert str(results[1]) == (
        "judge budget stopped: a reply reported no usable token usage, so "
        "max_judge_tokens=30 could no longer be kept"
    )
    assert judge_server.count == 1


def test_a_sample_cancelled_before_it_was_sent_is_no_call(judge_server: JudgeServer) -> None:
    # Three samples of one turn with room for two calls, one at a time: sample 1 goes out,
    # sample 2 waits for the slot, sample 3 is refused and the turn's samples are
    # cancelled.  Sample 2 never left: it is no call and its place in the budget is free,
    # so the next turn's single call still goes out.
    from agenteval.evaluators.llm.pipeline import collect_samples

    judge_server.latency = 0.3
    settings = settings_for(judge_server)

    async def go() -> tuple[JudgeClient, JudgeReply]:
        async with JudgeClient(fast_options(max_calls=2, concurrency=1)) as client:
            turn = JudgeRequest.user_prompt(settings, "three samples")
            with pytest.raises(JudgeBudgetExhausted, match="max_judge_calls=2"):
                await collect_samples(client, turn, "m", range(3))
            next_turn = JudgeRequest.user_prompt(settings, "next turn")
            return client, await client.complete(next_turn, metric_name="m")

    client, reply = asyncio.run(go())
    assert reply.text
    assert client.usage.total.calls == 2  # sample 1 (on the wire: it finishes) and the next turn
    assert client.budget.calls == 2


def test_a_sample_on_the_wire_when_its_turn_is_refused_is_paid_counted_and_cached(
    judge_server: JudgeServer, tmp_path: Path
) -> None:
    # Three samples with room for two calls, one at a time: sample 0 is on the wire when
    # sample 2 is refused.  Sample 0 was paid for: it finishes, its 11 + 7 tokens and their
    # dollars are counted and its reply is cached; sample 1, never sent, is cancelled.  The
    # turn asked again with a larger budget gets sample 0 from the cache.
    from agenteval.evaluators.llm.pipeline import collect_samples
    from agenteval.judge.prices import Price, PriceTable

    judge_server.latency = 0.3
    settings = settings_for(judge_server)
    price = Price(Decimal(1000), Decimal(2000))
    prices = PriceTable({f"openai:{settings.model}": price}, "test table")
    cache = tmp_path / "cache.sqlite"
    turn = JudgeRequest.user_prompt(settings, "three samples")

    async def refused() -> JudgeClient:
        options = fast_options(max_calls=2, concurrency=1, cache_path=cache, prices=prices)
        async with JudgeClient(options) as client:
            with pytest.raises(JudgeBudgetExhausted, match="max_judge_calls=2"):
                await collect_samples(client, turn, "m", range(3))
            return client

    client = asyncio.run(refused())
    total = client.usage.total
    assert judge_server.count == 1
    assert (total.calls, total.failed_calls, total.prompt_tokens, total.completion_tokens) == (
        1, 0, 11, 7
    )  # fmt: skip
    assert (total.cost_usd, total.unpriced_calls) == (Decimal("0.025"), 0)  # 11e-3 + 14e-3
    assert (client.budget.calls, client.budget.tokens) == (1, 18)

    async def again() -> tuple[JudgeClient, list[JudgeReply]]:
        async with JudgeClient(fast_options(cache_path=cache)) as client:
            return client, await collect_samples(client, turn, "m", range(3))

    client, replies = asyncio.run(again())
    assert len(replies) == 3 and [r.cached for r in replies] == [True, False, False]
    assert (client.usage.total.cache_hits, client.usage.total.calls) == (1, 2)
    assert judge_server.count == 3


def _failing_turn(judge_server: JudgeServer, second: Reply) -> tuple[JudgeClient, float]:
    """Two samples of one turn sent at once: the first to arrive is refused (400) after
    0.3 s, which fails the turn; the other is answered ``second``, then 503 for ever."""
    from agenteval.evaluators.llm.pipeline import collect_samples
    from agenteval.judge import JudgeRejected

    refused = Reply.status_error(400, "bad request")
    refused.delay = 0.3
    judge_server.enqueue(refused, second)
    judge_server.default = Reply.status_error(503, "overloaded")
    settings = settings_for(judge_server)

    async def go() -> tuple[JudgeClient, float]:
        async with JudgeClient(fast_options(concurrency=2, retries=4)) as client:
            turn = JudgeRequest.user_prompt(settings, "two samples")
            started = asyncio.get_running_loop().time()
            # The turn's own failure, never the other sample's "not retried".
            with pytest.raises(JudgeRejected, match="bad request"):
                await collect_samples(client, turn, "m", range(2))
            return client, asyncio.get_running_loop().time() - started

    return asyncio.run(go())


def test_a_sample_on_the_wire_when_its_turn_fails_is_not_retried(
    judge_server: JudgeServer,
) -> None:
    # The other sample's request was on the wire when the turn failed: it finishes (a 503
    # 0.3 s later), and is not tried again (it was, up to 4 more times, for a failed turn).
    overloaded = Reply.status_error(503, "overloaded")
    overloaded.delay = 0.6
    client, _ = _failing_turn(judge_server, overloaded)
    total = client.usage.total
    assert judge_server.count == 2
    assert (total.calls, total.retries, total.failed_calls) == (2, 0, 2)
    assert client.budget.calls == 2


def test_a_sample_waiting_to_retry_when_its_turn_fails_stops_waiting(
    judge_server: JudgeServer,
) -> None:
    # The other sample was told to retry in 5 s; the turn fails at 0.3 s: the wait ends
    # then, and the retry is neither made nor counted.
    client, elapsed = _failing_turn(judge_server, Reply.rate_limited("5"))
    total = client.usage.total
    assert judge_server.count == 2
    assert (total.calls, total.retries, total.failed_calls) == (2, 0, 2)
    assert elapsed < 2.0


def test_a_stop_ends_a_retrys_backoff_at_once_and_refuses_the_retry(
    judge_server: JudgeServer,
) -> None:
    # Told to retry in 30 s (Retry-After); the stop comes 0.3 s later, from a signal
    # handler's side (stop_new_calls): the call is refused then, not 30 s later.
    from agenteval.judge import JudgeInterrupted

    judge_server.enqueue(Reply.rate_limited("30"))
    settings = settings_for(judge_server)

    async def go() -> tuple[JudgeClient, float]:
        async with JudgeClient(fast_options(concurrency=1, retries=4)) as client:
            loop = asyncio.get_running_loop()
            loop.call_later(0.3, client.stop_new_calls)
            started = loop.time()
            with pytest.raises(JudgeInterrupted):
                await client.complete(JudgeRequest.user_prompt(settings, "q"), metric_name="m")
            return client, loop.time() - started

    client, elapsed = asyncio.run(go())
    assert elapsed < 5.0
    assert judge_server.count == 1  # the retry was never sent
    total = client.usage.total
    assert (total.calls, total.retries) == (1, 0)


def test_a_stop_ends_a_calls_wait_for_the_rate_limit_at_once(judge_server: JudgeServer) -> None:
    # At 6 calls a minute, four calls start 10 s apart; the stop comes 0.3 s in, after the
    # first was sent: the three waiting for the rate limit are refused then, not 10, 20 and
    # 30 s later when each would have had its turn.
    from agenteval.judge import JudgeInterrupted

    settings = settings_for(judge_server)

    async def go() -> tuple[JudgeClient, list[object], float]:
        async with JudgeClient(fast_options(concurrency=4, rate_limit_rpm=6)) as client:
            loop = asyncio.get_running_loop()
            loop.call_later(0.3, client.stop_new_calls)
            started = loop.time()
            requests = [JudgeRequest.user_prompt(settings, f"q{i}") for i in range(4)]
            results = await asyncio.gather(
                *(client.complete(r, metric_name="m") for r in requests), return_exceptions=True
            )
            return client, list(results), loop.time() - started

    client, results, elapsed = asyncio.run(go())
    assert elapsed < 5.0
    assert sum(isinstance(r, JudgeReply) for r in results) == 1
    assert sum(isinstance(r, JudgeInterrupted) for r in results) == 3
    assert judge_server.count == 1
    assert (client.usage.total.calls, client.budget.calls) == (1, 1)


def test_a_stop_refuses_a_call_waiting_for_room_in_the_cost_budget_at_once(
    judge_server: JudgeServer,
) -> None:
    # Under --max-judge-cost, before any priced reply, calls go one at a time: the first
    # is on the wire for 3 s, the other three wait for room in the budget.  The stop
    # comes 0.3 s in: the three are refused then, unsent (they waited for the first call
    # to finish, 3 s later); the first finishes and is paid for.
    from agenteval.judge import JudgeInterrupted
    from agenteval.judge.prices import Price, PriceTable

    judge_server.latency = 3.0
    settings = settings_for(judge_server)
    prices = PriceTable({f"openai:{settings.model}": Price(Decimal(1), Decimal(1))}, "test")

    async def go() -> tuple[JudgeClient, list[tuple[object, float]]]:
        options = fast_options(concurrency=4, prices=prices, max_cost=Decimal(1))
        async with JudgeClient(options) as client:
            loop = asyncio.get_running_loop()
            loop.call_later(0.3, client.stop_new_calls)
            started = loop.time()

            async def one(prompt: str) -> tuple[object, float]:
                request = JudgeRequest.user_prompt(settings, prompt)
                try:
                    outcome: object = await client.complete(request, metric_name="m")
                except JudgeInterrupted as exc:
                    outcome = exc
                return outcome, loop.time() - started

            return client, list(await asyncio.gather(*(one(f"q{i}") for i in range(4))))

    client, ended = asyncio.run(go())
    replies = [when for outcome, when in ended if isinstance(outcome, JudgeReply)]
    refused = [when for outcome, when in ended if isinstance(outcome, JudgeInterrupted)]
    assert len(replies) == 1 and replies[0] >= 3.0
    assert len(refused) == 3 and max(refused) < 1.5
    assert judge_server.count == 1
    assert (client.usage.total.calls, client.budget.calls) == (1, 1)
    cost = client.cost_budget
    assert cost is not None and (cost.in_flight, cost.spent) == (0, Decimal("0.000018"))


def test_max_judge_cost_reserves_each_models_own_costliest_call(
    judge_server: JudgeServer,
) -> None:
    # Two judge models priced as a --prices file does, the dear one 1000× the cheap one:
    # a call is 11 + 7 tokens, $0.000018 cheap and $0.018 dear.  Under a $0.03 bound at
    # concurrency 8, a cheap call is priced first, then six dear calls ask to start.  Each
    # reserved the run's costliest call so far, the cheap one: all six went out at once,
    # $0.108 for a $0.03 bound.  A model with no priced reply yet starts alone, and each
    # call reserves its own model's costliest: the second dear call starts below the
    # bound, ends above it, and the four others are never sent.
    from agenteval.judge.prices import parse_price_file

    judge_server.latency = 0.2
    cheap = settings_for(judge_server, model="cheap")
    dear = settings_for(judge_server, model="dear")
    prices = parse_price_file(
        {
            "openai:cheap": {"inputPerMillion": 1, "outputPerMillion": 1},
            "openai:dear": {"inputPerMillion": 1000, "outputPerMillion": 1000},
        },
        "prices.json",
    )
    bound, dear_call = Decimal("0.03"), Decimal("0.018")

    async def go() -> tuple[JudgeClient, list[object]]:
        options = fast_options(concurrency=8, prices=prices, max_cost=bound)
        async with JudgeClient(options) as client:
            requests = [JudgeRequest.user_prompt(cheap, "c0")]
            requests += [JudgeRequest.user_prompt(dear, f"d{i}") for i in range(6)]
            results = await asyncio.gather(
                *(client.complete(r, metric_name="m") for r in requests), return_exceptions=True
            )
            return client, list(results)

    client, results = asyncio.run(go())
    assert sum(isinstance(r, JudgeReply) for r in results) == 3
    assert sum(isinstance(r, JudgeBudgetExhausted) for r in results) == 4
    assert judge_server.count == 3
    assert [r.body["model"] for r in judge_server.recorded()] == ["cheap", "dear", "dear"]
    cost = client.cost_budget
    assert cost is not None and cost.in_flight == 0
    assert cost.spent == Decimal("0.036018")
    assert bound <= cost.spent <= bound + dear_call
