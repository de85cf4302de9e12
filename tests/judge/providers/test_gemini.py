"""Gemini ``generateContent`` backend: the request on the wire, logprobs, blocks and retry delays."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from judge_support import ABSENT, ask, last_request, provider_server, settings_for

from agenteval.judge import JudgeReplyError, StructuredOutput, TokenLogprob, TopLogprob
from agenteval.judge.errors import JudgeUnavailable
from judge_server import JudgeServer, Reply

KEY = "AIza-test-0123456789abcdef"
SCHEMA = StructuredOutput(
    "verdict",
    {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]},
)


@pytest.fixture
def server() -> Iterator[JudgeServer]:
    with provider_server("gemini") as started:
        yield started


def sent(server: JudgeServer, generation: Any = ABSENT, **kw: Any) -> dict[str, Any]:
    ask(settings_for(server, api_key=KEY, generation=generation, model="gemini-2.5-flash"), **kw)
    body = last_request(server).body
    assert isinstance(body, dict)
    return body


def test_headers_path_and_defaults(server: JudgeServer) -> None:
    body = sent(server)
    request = last_request(server)
    assert request.path == "/v1beta/models/gemini-2.5-flash:generateContent"
    assert request.headers["x-goog-api-key"] == KEY
    assert "authorization" not in request.headers
    assert body == {
        "contents": [{"role": "user", "parts": [{"text": "Is the answer right?"}]}],
        "generationConfig": {"temperature": 0.8, "maxOutputTokens": 2000},
    }


def test_models_prefix_is_not_doubled(server: JudgeServer) -> None:
    ask(settings_for(server, model="models/gemini-2.5-pro"))
    assert last_request(server).path == "/v1beta/models/gemini-2.5-pro:generateContent"


def test_generation_config_field_names(server: JudgeServer) -> None:
    config = sent(
        server,
        generation={
            "temperature": 0,
            "top_p": 0.9,
            "max_tokens": 64,
            "stop": ["END"],
            "presence_penalty": 0.1,
            "frequency_penalty": 0.2,
            "thinking_tokens": 128,
            "thinking_enabled": True,
            "logprobs": True,
            "top_logprobs": 20,
        },
    )["generationConfig"]
    assert config == {
        "temperature": 0.0,
        "topP": 0.9,
        "maxOutputTokens": 64,
        "stopSequences": ["END"],
        "presencePenalty": 0.1,
        "frequencyPenalty": 0.2,
        "thinkingConfig": {"thinkingBudget": 128, "includeThoughts": True},
        "responseLogprobs": True,
        "logprobs": 20,
    }


def test_thinking_level_wins_over_the_budget(server: JudgeServer) -> None:
    config = sent(server, generation={"thinking_level": " low ", "thinking_tokens": 5})[
        "generationConfig"
    ]
    assert config["thinkingConfig"] == {"thinkingLevel": "low"}


def test_structured_output_schema(server: JudgeServer) -> None:
    config = sent(server, schema=SCHEMA)["generationConfig"]
    assert config["responseMimeType"] == "application/json"
    assert config["responseJsonSchema"] == dict(SCHEMA.schema)


def test_logprobs_result_is_read_back(server: JudgeServer) -> None:
    tokens = [
        {"token": "<score_A>", "logprob": -0.01, "top_logprobs": []},
        {
            "token": "B",
            "logprob": -0.2,
            "top_logprobs": [{"token": "B", "logprob": -0.2}, {"token": "A", "logprob": -1.7}],
        },
    ]
    server.enqueue(
        Reply(content="<score_A>B", logprobs=tokens, prompt_tokens=30, completion_tokens=4)
    )
    reply = ask(settings_for(server, generation={"logprobs": True, "top_logprobs": 2}))
    assert reply.logprobs == (
        TokenLogprob("<score_A>", -0.01),
        TokenLogprob("B", -0.2, None, (TopLogprob("B", -0.2), TopLogprob("A", -1.7))),
    )
    assert (reply.usage.prompt_tokens, reply.usage.completion_tokens) == (30, 4)


def test_blocked_prompt_names_the_block_reason(server: JudgeServer) -> None:
    server.enqueue(Reply.blocked("PROHIBITED_CONTENT"))
    with pytest.raises(JudgeReplyError, match="blocked the prompt: PROHIBITED_CONTENT") as caught:
        ask(settings_for(server))
    assert server.count == 1
    # Paid for: the client counts the reply's 11 + 7 tokens (they were dropped).
    usage = caught.value.usage
    assert usage is not None and (usage.prompt_tokens, usage.completion_tokens) == (11, 7)


def test_blocked_candidate_names_the_finish_reason(server: JudgeServer) -> None:
    body = b'{"candidates": [{"finishReason": "SAFETY", "index": 0}], "usageMetadata": {}}'
    server.enqueue(Reply(body=body))
    with pytest.raises(JudgeReplyError, match="blocked the candidate: SAFETY"):
        ask(settings_for(server))


def test_thought_parts_are_not_the_answer(server: JudgeServer) -> None:
    body = (
        b'{"candidates": [{"content": {"role": "model", "parts": ['
        b'{"text": "hmm", "thought": true}, {"text": "valid"}]}, "finishReason": "STOP"}],'
        b' "usageMetadata": {"promptTokenCount": 3, "candidatesTokenCount": 1, "thoughtsTokenCount": 5}}'
    )
    server.enqueue(Reply(body=body))
    reply = ask(settings_for(server))
    assert reply.text == "valid"
    assert reply.usage.completion_tokens == 6


def test_resource_exhausted_error_is_named(server: JudgeServer) -> None:
    server.default = Reply.rate_limited(retry_after="0")
    with pytest.raises(JudgeUnavailable, match="RESOURCE_EXHAUSTED: Rate limit reached"):
        ask(settings_for(server))
