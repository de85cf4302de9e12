"""Ollama ``/api/chat`` backend: the request on the wire, structured output, logprobs, usage."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from judge_support import ABSENT, ask, last_request, provider_server, settings_for

from agenteval.judge import JudgeReplyError, StructuredOutput, TokenLogprob, TopLogprob
from agenteval.judge.errors import JudgeRejected
from judge_server import JudgeServer, Reply

SCHEMA = StructuredOutput(
    "verdict",
    {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]},
)


@pytest.fixture
def server() -> Iterator[JudgeServer]:
    with provider_server("ollama") as started:
        yield started


def sent(
    server: JudgeServer, generation: Any = ABSENT, api_key: str = "", **kw: Any
) -> dict[str, Any]:
    ask(settings_for(server, api_key=api_key, generation=generation, model="qwen3:8b"), **kw)
    body = last_request(server).body
    assert isinstance(body, dict)
    return body


def test_path_and_defaults_without_a_key(server: JudgeServer) -> None:
    body = sent(server)
    request = last_request(server)
    assert request.path == "/api/chat"
    assert "authorization" not in request.headers
    assert body == {
        "model": "qwen3:8b",
        "messages": [{"role": "user", "content": "Is the answer right?"}],
        "stream": False,
        "options": {"temperature": 0.8, "num_predict": 2000},
    }


def test_a_key_is_a_bearer_token(server: JudgeServer) -> None:
    sent(server, api_key="ollama-cloud-key-0123456789")
    assert last_request(server).headers["authorization"] == "Bearer ollama-cloud-key-0123456789"


def test_options_think_format_and_logprobs(server: JudgeServer) -> None:
    body = sent(
        server,
        generation={
            "temperature": 0,
            "top_p": 0.5,
            "stop": ["a", "b"],
            "max_tokens": 10,
            "thinking_enabled": False,
            "logprobs": True,
            "top_logprobs": 20,
        },
        schema=SCHEMA,
    )
    assert body["options"] == {
        "temperature": 0.0,
        "top_p": 0.5,
        "stop": ["a", "b"],
        "num_predict": 10,
    }
    assert body["think"] is False
    assert body["format"] == dict(SCHEMA.schema)
    assert (body["logprobs"], body["top_logprobs"]) == (True, 20)


def test_reply_content_logprobs_and_counts(server: JudgeServer) -> None:
    tokens = [{"token": "A", "logprob": -0.5, "top_logprobs": [{"token": "B", "logprob": -1.0}]}]
    server.enqueue(Reply(content="A", logprobs=tokens, prompt_tokens=21, completion_tokens=2))
    reply = ask(settings_for(server))
    assert reply.text == "A"
    assert reply.logprobs == (TokenLogprob("A", -0.5, None, (TopLogprob("B", -1.0),)),)
    assert (reply.usage.prompt_tokens, reply.usage.completion_tokens) == (21, 2)


def test_error_string_is_named(server: JudgeServer) -> None:
    server.enqueue(Reply.status_error(404, 'model "qwen3:8b" not found, try pulling it first'))
    with pytest.raises(JudgeRejected, match='model "qwen3:8b" not found'):
        ask(settings_for(server))
    assert server.count == 1


def test_reply_without_message_is_a_reply_error(server: JudgeServer) -> None:
    server.enqueue(Reply(body=b'{"model": "m", "done": true}'))
    with pytest.raises(JudgeReplyError, match="sent no message"):
        ask(settings_for(server))
