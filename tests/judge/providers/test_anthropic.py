"""Anthropic Messages API backend: the request as it goes over the wire, replies and errors."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest
from judge_support import ABSENT, ask, fast_options, last_request, provider_server, settings_for

from agenteval.judge import (
    ChatMessage,
    JudgeClient,
    JudgeReplyError,
    JudgeRequest,
    JudgeRequestError,
    StructuredOutput,
)
from agenteval.judge.errors import JudgeRejected
from judge_server import JudgeServer, Reply

KEY = "sk-ant-test-0123456789abcdef"
SCHEMA = StructuredOutput(
    "verdict",
    {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]},
)


@pytest.fixture
def server() -> Iterator[JudgeServer]:
    with provider_server("anthropic") as started:
        yield started


def sent(
    server: JudgeServer, generation: Any = ABSENT, model: str = "claude-haiku-4-5", **kw: Any
) -> dict[str, Any]:
    ask(settings_for(server, api_key=KEY, generation=generation, model=model), **kw)
    body = last_request(server).body
    assert isinstance(body, dict)
    return body


def test_headers_and_path(server: JudgeServer) -> None:
    ask(settings_for(server, api_key=KEY))
    request = last_request(server)
    assert (request.method, request.path) == ("POST", "/v1/messages")
    assert request.headers["x-api-key"] == KEY
    assert request.headers["anthropic-version"] == "2023-06-01"
    assert request.headers["content-type"] == "application/json"
    assert "authorization" not in request.headers


def test_body_with_the_judge_defaults(server: JudgeServer) -> None:
    body = sent(server)
    assert body == {
        "model": "claude-haiku-4-5",
        "max_tokens": 2000,
        "messages": [{"role": "user", "content": "Is the answer right?"}],
        "temperature": 0.8,
    }


def test_max_tokens_is_always_sent_with_gos_default(server: JudgeServer) -> None:
    assert sent(server, generation={"temperature": 0})["max_tokens"] == 4096
    assert sent(server, generation={"max_tokens": 0})["max_tokens"] == 4096
    assert sent(server, generation={"max_tokens": 77})["max_tokens"] == 77


def test_sampling_fields(server: JudgeServer) -> None:
    body = sent(server, generation={"temperature": 0, "top_p": 0.5, "stop": ["END", "STOP"]})
    assert (body["temperature"], body["top_p"], body["stop_sequences"]) == (
        0.0,
        0.5,
        ["END", "STOP"],
    )
    assert "stop" not in body


def test_structured_output_goes_to_output_config(server: JudgeServer) -> None:
    body = sent(server, schema=SCHEMA)
    assert body["output_config"] == {
        "format": {"type": "json_schema", "schema": dict(SCHEMA.schema)}
    }
    assert "response_format" not in body


@pytest.mark.parametrize(
    ("model", "generation", "thinking", "effort"),
    [
        (
            "claude-haiku-4-5",
            {"thinking_enabled": True, "thinking_tokens": 1024},
            {"type": "enabled", "budget_tokens": 1024},
            None,
        ),
        ("claude-haiku-4-5", {"thinking_enabled": True}, None, None),
        ("claude-haiku-4-5", {"thinking_enabled": False}, None, None),
        (
            "claude-sonnet-4-6",
            {"thinking_enabled": True, "reasoning_effort": "low"},
            {"type": "adaptive", "display": "summarized"},
            "low",
        ),
        ("claude-opus-4-7-20260101", {"thinking_enabled": False}, {"type": "disabled"}, None),
    ],
)
def test_thinking_as_go_builds_it(
    server: JudgeServer, model: str, generation: dict[str, Any], thinking: Any, effort: Any
) -> None:
    body = sent(server, generation=generation, model=model)
    assert body.get("thinking") == thinking
    assert body.get("output_config", {}).get("effort") == effort


def test_always_thinking_model_refuses_disabled_thinking(server: JudgeServer) -> None:
    with pytest.raises(
        JudgeRequestError, match="thinking cannot be disabled for model claude-mythos-5"
    ):
        ask(settings_for(server, model="claude-mythos-5", generation={"thinking_enabled": False}))
    assert server.count == 0


def test_system_messages_go_to_system(server: JudgeServer) -> None:
    settings = settings_for(server, api_key=KEY)

    async def go() -> None:
        async with JudgeClient(fast_options()) as client:
            request = JudgeRequest(
                settings, (ChatMessage("system", "Be strict."), ChatMessage("user", "q"))
            )
            await client.complete(request, metric_name="m")

    asyncio.run(go())
    body = last_request(server).body
    assert body["system"] == [{"type": "text", "text": "Be strict."}]
    assert body["messages"] == [{"role": "user", "content": "q"}]


def test_reply_text_skips_thinking_and_usage_is_read(server: JudgeServer) -> None:
    server.enqueue(
        Reply(
            content="the verdict",
            reasoning_content="pondering",
            prompt_tokens=40,
            completion_tokens=9,
        )
    )
    reply = ask(settings_for(server))
    assert reply.text == "the verdict"
    assert (reply.usage.prompt_tokens, reply.usage.completion_tokens) == (40, 9)
    assert reply.logprobs == ()


def test_error_type_is_named(server: JudgeServer) -> None:
    server.enqueue(Reply.status_error(400, "max_tokens: too large"))
    with pytest.raises(JudgeRejected, match="invalid_request_error: max_tokens: too large"):
        ask(settings_for(server))


def test_x_should_retry_false_is_final(server: JudgeServer) -> None:
    server.enqueue(Reply.status_error(500, "broken", headers={"x-should-retry": "false"}))
    with pytest.raises(JudgeRejected, match="broken"):
        ask(settings_for(server))
    assert server.count == 1


def test_malformed_reply_is_a_reply_error(server: JudgeServer) -> None:
    server.enqueue(Reply(body=b'{"type": "message", "content": "nope"}'))
    with pytest.raises(JudgeReplyError, match="no content blocks"):
        ask(settings_for(server))


def test_a_refusal_is_a_reply_error_carrying_its_usage(server: JudgeServer) -> None:
    # stop_reason "refusal" with no text: no verdict, but paid for, so the client counts
    # its 9 + 2 tokens (they were dropped).
    body = {
        "type": "message",
        "content": [],
        "stop_reason": "refusal",
        "usage": {"input_tokens": 9, "output_tokens": 2},
    }
    server.enqueue(Reply(body=json.dumps(body).encode()))
    with pytest.raises(JudgeReplyError, match=r"refused: stop_reason refusal\)$") as caught:
        ask(settings_for(server))
    usage = caught.value.usage
    assert usage is not None and (usage.prompt_tokens, usage.completion_tokens) == (9, 2)
