"""Injected faults over real HTTP: what is retried, what fails at once, and with which message."""

from __future__ import annotations

import asyncio
import logging
import re
import socket
import time
from email.utils import formatdate

import httpx
import pytest
from judge_support import ask, fast_options, settings_for

from agenteval.errors import JudgeError
from agenteval.judge import (
    JudgeClient,
    JudgeRejected,
    JudgeReplyError,
    JudgeRequest,
    JudgeUnavailable,
)
from agenteval.judge.aiohttp_client import open_http_client
from agenteval.judge.wire import describe_failure
from judge_server import JudgeServer, Reply

KEY = "sk-test-faults-0123456789"
OK = Reply(content="reasoning: fine\nis_the_agent_response_valid: valid")


def retry_delays(caplog: pytest.LogCaptureFixture) -> list[float]:
    """The waits the client announced before each retry."""
    found = [re.search(r" in ([0-9.]+) s after", r.getMessage()) for r in caplog.records]
    return [float(m.group(1)) for m in found if m]


@pytest.mark.parametrize(
    "fault",
    [
        Reply.status_error(408, "request timeout"),
        Reply.status_error(409, "conflict"),
        Reply.rate_limited(retry_after="0"),
        Reply.status_error(500, "internal error"),
        Reply.status_error(502, "bad gateway"),
        Reply.status_error(503, "overloaded"),
        Reply.status_error(504, "gateway timeout"),
        Reply.dropped(),
    ],
    ids=["408", "409", "429", "500", "502", "503", "504", "dropped"],
)
def test_retryable_faults_succeed_on_retry(judge_server: JudgeServer, fault: Reply) -> None:
    judge_server.enqueue(fault, OK)
    reply = ask(settings_for(judge_server, api_key=KEY))
    assert reply.text == OK.content
    assert judge_server.count == 2
    bodies = judge_server.bodies()
    assert bodies[0] == bodies[1]


def test_hang_longer_than_timeout_is_retried(
    judge_server: JudgeServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="agenteval.judge")
    judge_server.enqueue(Reply.hang(30), OK)
    reply = ask(settings_for(judge_server), options=fast_options(timeout=0.3))
    assert reply.text == OK.content
    assert judge_server.count == 2
    assert "no reply within 0.3 s" in caplog.text


def test_retry_after_ms_sets_the_wait(
    judge_server: JudgeServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="agenteval.judge")
    judge_server.enqueue(Reply.rate_limited(retry_after="7", retry_after_ms="40"), OK)
    ask(settings_for(judge_server))
    assert retry_delays(caplog) == [0.04]


def test_retry_after_seconds_sets_the_wait(
    judge_server: JudgeServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="agenteval.judge")
    judge_server.enqueue(Reply.rate_limited(retry_after="0.05"), OK)
    ask(settings_for(judge_server))
    assert retry_delays(caplog) == [0.05]


def test_retry_after_http_date_sets_the_wait(
    judge_server: JudgeServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="agenteval.judge")
    # A date already past means "retry now"; the 5 s backoff would otherwise apply.
    date = formatdate(time.time() - 30, usegmt=True)
    judge_server.enqueue(Reply.rate_limited(retry_after=date), OK)
    reply = ask(settings_for(judge_server), options=fast_options(backoff_base=5.0))
    assert reply.text == OK.content
    assert retry_delays(caplog) == [0.0]


def test_retry_after_beyond_a_minute_falls_back_to_backoff(
    judge_server: JudgeServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="agenteval.judge")
    judge_server.enqueue(Reply.rate_limited(retry_after="120"), OK)
    ask(settings_for(judge_server), options=fast_options(backoff_base=0.02, backoff_max=1.0))
    (delay,) = retry_delays(caplog)
    assert 0.015 <= delay <= 0.02


def test_retries_run_out(judge_server: JudgeServer) -> None:
    judge_server.default = Reply.status_error(503, "still overloaded")
    settings = settings_for(judge_server, api_key=KEY, model="gpt-judge")
    with pytest.raises(JudgeUnavailable) as caught:
        ask(settings, options=fast_options(retries=2))
    assert judge_server.count == 3
    message = str(caught.value)
    assert "3 attempt(s)" in message
    assert "HTTP 503" in message and "still overloaded" in message
    assert settings.endpoint in message and "gpt-judge" in message
    assert KEY not in message


def test_unreachable_endpoint(judge_server: JudgeServer) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    settings = settings_for(judge_server, base_url=f"http://127.0.0.1:{port}/v1", api_key=KEY)
    with pytest.raises(JudgeUnavailable) as caught:
        ask(settings, options=fast_options(retries=1))
    message = str(caught.value)
    assert "2 attempt(s)" in message
    assert f"127.0.0.1:{port}/v1/chat/completions" in message
    # httpx-aiohttp reports a refused connection as a ConnectTimeout: the message says
    # what happened, not "timed out".
    assert "last error: connection refused ([Errno 111] " in message, message
    assert "timed out" not in message
    assert KEY not in message


def test_a_transport_timeout_still_says_timed_out(judge_server: JudgeServer) -> None:
    # The run's HTTP client on its own (the judge client's per-attempt deadline would
    # otherwise end the attempt first): aiohttp's read timeout, named.
    judge_server.enqueue(Reply.hang(30))

    async def go() -> str:
        async with open_http_client(1, 0.2) as http:
            try:
                await http.post(f"{judge_server.base_url}/chat/completions", content=b"{}")
            except httpx.TransportError as exc:
                return describe_failure(exc)
        raise AssertionError("a silent judge answered")

    assert asyncio.run(go()).startswith("timed out (")


@pytest.mark.parametrize("status", [400, 401, 403, 404, 422])
def test_non_retryable_status_fails_at_once(judge_server: JudgeServer, status: int) -> None:
    judge_server.enqueue(Reply.status_error(status, f"refused with {status}"), OK)
    settings = settings_for(judge_server, api_key=KEY, model="gpt-judge")
    with pytest.raises(JudgeRejected) as caught:
        ask(settings)
    assert judge_server.count == 1
    assert caught.value.status == status
    message = str(caught.value)
    assert f"HTTP {status}" in message and f"refused with {status}" in message
    assert settings.endpoint in message and "'gpt-judge'" in message
    assert KEY not in message


def test_redirect_is_not_followed_and_fails_at_once(judge_server: JudgeServer) -> None:
    # Following it would resend the prompt (and the key) to wherever the Location points.
    moved = Reply.status_error(307, "moved", headers={"Location": "http://127.0.0.1:1/v1"})
    judge_server.enqueue(moved, OK)
    with pytest.raises(JudgeRejected, match="HTTP 307") as caught:
        ask(settings_for(judge_server, api_key=KEY))
    assert caught.value.status == 307
    assert judge_server.count == 1


def test_wrong_path_is_a_404_naming_the_endpoint(judge_server: JudgeServer) -> None:
    settings = settings_for(judge_server, base_url=judge_server.base_url + "/nope")
    with pytest.raises(JudgeRejected, match=re.escape(settings.endpoint)) as caught:
        ask(settings)
    assert caught.value.status == 404
    assert judge_server.count == 1


def test_server_echoing_the_key_is_redacted(judge_server: JudgeServer) -> None:
    judge_server.enqueue(Reply.status_error(401, f"Incorrect API key provided: {KEY[:12]}***"))
    with pytest.raises(JudgeRejected) as caught:
        ask(settings_for(judge_server, api_key=KEY))
    assert KEY[:12] not in str(caught.value)


def test_x_should_retry_header_overrides_the_status(judge_server: JudgeServer) -> None:
    no_retry = Reply.status_error(503, "do not retry", headers={"x-should-retry": "false"})
    judge_server.enqueue(no_retry, OK)
    with pytest.raises(JudgeRejected, match="do not retry"):
        ask(settings_for(judge_server))
    assert judge_server.count == 1
    judge_server.reset()
    retry = Reply.status_error(400, "retry me", headers={"x-should-retry": "true"})
    judge_server.enqueue(retry, OK)
    assert ask(settings_for(judge_server)).text == OK.content
    assert judge_server.count == 2


@pytest.mark.parametrize(
    ("fault", "pattern"),
    [
        (Reply.error_body("Engine overloaded"), r"^response error: Engine overloaded"),
        (Reply.malformed(), r"^response error: malformed JSON"),
        (Reply.no_choices(), r"^no final response"),
    ],
    ids=["error-body", "malformed-json", "empty-choices"],
)
def test_unusable_200_replies_fail_at_once(
    judge_server: JudgeServer, fault: Reply, pattern: str
) -> None:
    judge_server.enqueue(fault, OK)
    settings = settings_for(judge_server, api_key=KEY)
    with pytest.raises(JudgeReplyError, match=pattern) as caught:
        ask(settings)
    assert judge_server.count == 1
    assert settings.endpoint in str(caught.value)
    assert KEY not in str(caught.value)


def test_failures_are_counted_and_other_calls_go_on(judge_server: JudgeServer) -> None:
    judge_server.when("broken", Reply.status_error(400, "bad"))
    settings = settings_for(judge_server)

    async def go() -> tuple[list[object], JudgeClient]:
        async with JudgeClient(fast_options()) as client:
            prompts = ["fine 1", "broken", "fine 2"]
            calls = [
                client.complete(JudgeRequest.user_prompt(settings, p), metric_name="m")
                for p in prompts
            ]
            return list(await asyncio.gather(*calls, return_exceptions=True)), client

    results, client = asyncio.run(go())
    assert [type(r).__name__ for r in results] == ["JudgeReply", "JudgeRejected", "JudgeReply"]
    assert isinstance(results[1], JudgeError)
    usage = client.usage.by_metric["m"]
    assert (usage.calls, usage.failed_calls, usage.retries) == (3, 1, 0)


def test_a_call_cancelled_on_the_wire_has_an_unknown_cost_not_zero(
    judge_server: JudgeServer,
) -> None:
    # A second Ctrl-C cancels a call whose request went out: the provider bills it, but no
    # reply says how much.  It counts as a call whose tokens and cost are unknown (so the
    # reports never show $0 as the whole), and --max-judge-tokens can no longer be kept.
    judge_server.latency = 5.0
    settings = settings_for(judge_server)

    async def go() -> JudgeClient:
        async with JudgeClient(fast_options(max_tokens=1000)) as client:
            request = JudgeRequest.user_prompt(settings, "slow")
            sent = asyncio.Event()
            task = asyncio.ensure_future(
                client.complete(request, metric_name="m", on_sent=sent.set)
            )
            await asyncio.wait_for(sent.wait(), 5)
            await asyncio.sleep(0.1)  # the request is on the wire
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            return client

    client = asyncio.run(go())
    total = client.usage.total
    assert (total.calls, total.failed_calls, total.total_tokens) == (1, 0, 0)
    assert (total.unpriced_calls, total.unreported_calls) == (1, 1)
    assert total.to_json()["unreportedCalls"] == 1
    assert client.budget.closed == "a reply reported no usable token usage"


def test_a_call_cancelled_on_the_wire_stops_the_cost_budget(judge_server: JudgeServer) -> None:
    # Under --max-judge-cost the first call goes out (5 s on the wire) and the second waits
    # for room; the first is cancelled after it was sent (a second Ctrl-C): it was billed
    # at a price no reply told.  Counting it as $0 left the whole $1 free, so the waiting
    # call went out, and every later one: the budget stops instead, and neither is sent.
    from decimal import Decimal

    from agenteval.judge import JudgeBudgetExhausted
    from agenteval.judge.prices import Price, PriceTable

    judge_server.latency = 5.0
    settings = settings_for(judge_server)
    prices = PriceTable({f"openai:{settings.model}": Price(Decimal(1), Decimal(1))}, "test")

    async def go() -> tuple[JudgeClient, list[BaseException]]:
        async with JudgeClient(fast_options(prices=prices, max_cost=Decimal(1))) as client:
            sent = asyncio.Event()
            first = asyncio.ensure_future(
                client.complete(
                    JudgeRequest.user_prompt(settings, "q0"), metric_name="m", on_sent=sent.set
                )
            )
            await asyncio.wait_for(sent.wait(), 5)
            waiting = asyncio.ensure_future(
                client.complete(JudgeRequest.user_prompt(settings, "q1"), metric_name="m")
            )
            await asyncio.sleep(0.1)  # the request is on the wire, the other call waits
            first.cancel()
            with pytest.raises(JudgeBudgetExhausted) as waited:
                await asyncio.wait_for(waiting, 2)
            later = JudgeRequest.user_prompt(settings, "q2")
            with pytest.raises(JudgeBudgetExhausted) as refused_later:
                await client.complete(later, metric_name="m")
            return client, [waited.value, refused_later.value]

    client, refused = asyncio.run(go())
    assert judge_server.count == 1
    assert [str(exc) for exc in refused] == [
        "judge budget stopped: a call was cancelled after it was sent (its cost is unknown), "
        "so max_judge_cost=1 USD could no longer be kept"
    ] * 2
    total = client.usage.total
    assert (total.calls, total.unpriced_calls, total.cost_usd) == (1, 1, Decimal(0))
    cost = client.cost_budget
    assert cost is not None and (cost.in_flight, cost.spent) == (0, Decimal(0))


def test_a_refused_reply_is_paid_for_counted_and_bounds_the_budgets(
    judge_server: JudgeServer,
) -> None:
    # The judge refuses every time, in a 200 reply that says it took 11 prompt tokens
    # (billed).  At $1000 per million input tokens each refusal costs $0.011: the $0.02
    # bound is reached after two, so the third call is never sent; the tokens and dollars
    # are in the totals (they were 0, and every call went out: no bound held).
    import json
    from decimal import Decimal

    from agenteval.judge import JudgeBudgetExhausted, JudgeReplyError, JudgeRequest
    from agenteval.judge.prices import Price, PriceTable

    message = {"role": "assistant", "content": None, "refusal": "I can't help with that."}
    choice = {"index": 0, "message": message, "finish_reason": "stop"}
    usage = {"prompt_tokens": 11, "completion_tokens": 0}
    judge_server.default = Reply(body=json.dumps({"choices": [choice], "usage": usage}).encode())
    settings = settings_for(judge_server)
    price = Price(Decimal(1000), Decimal(2000))
    prices = PriceTable({f"openai:{settings.model}": price}, "test table")

    async def go() -> tuple[JudgeClient, list[type[BaseException]]]:
        options = fast_options(prices=prices, max_cost=Decimal("0.02"), max_tokens=100)
        async with JudgeClient(options) as client:
            kinds: list[type[BaseException]] = []
            for i in range(3):
                try:
                    await client.complete(
                        JudgeRequest.user_prompt(settings, f"q{i}"), metric_name="m"
                    )
                except (JudgeReplyError, JudgeBudgetExhausted) as exc:
                    kinds.append(type(exc))
            return client, kinds

    client, kinds = asyncio.run(go())
    assert kinds == [JudgeReplyError, JudgeReplyError, JudgeBudgetExhausted]
    assert judge_server.count == 2
    total = client.usage.total
    assert (total.calls, total.failed_calls, total.prompt_tokens) == (2, 2, 22)
    assert (total.cost_usd, total.unpriced_calls) == (Decimal("0.022"), 0)
    assert client.budget.tokens == 22
