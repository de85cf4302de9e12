"""Request bodies and reply parsing over real HTTP (llm-evaluators.md §3.3–§3.4, §11-60)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from judge_support import ask, fast_options, last_request, settings_for

from agenteval.judge import (
    ChatMessage,
    JudgeClient,
    JudgeConfigError,
    JudgeRequest,
    JudgeRequestError,
    StructuredOutput,
    TokenLogprob,
    TopLogprob,
    resolve_settings,
)
from agenteval.judge.config import JudgeSettings
from agenteval.schema.metric import JudgeModel
from judge_server import JudgeServer, Reply

SCHEMA = StructuredOutput(
    name="rubric_critic_scores",
    schema={"type": "object", "properties": {"score": {"type": "number"}}},
    strict=True,
    description="Scores per rubric.",
)


def body_for(server: JudgeServer, **settings: Any) -> dict[str, Any]:
    schema = settings.pop("schema", None)
    ask(settings_for(server, **settings), "judge this", schema=schema)
    body = last_request(server).body
    assert isinstance(body, dict)
    return body


def test_absent_generation_config_sends_go_defaults(judge_server: JudgeServer) -> None:
    body = body_for(judge_server)
    assert body == {
        "model": "judge-model",
        "messages": [{"role": "user", "content": "judge this"}],
        "max_completion_tokens": 2000,
        "temperature": 0.8,
    }


def test_partial_config_gets_no_defaults_and_temperature_zero_is_sent(
    judge_server: JudgeServer,
) -> None:
    body = body_for(judge_server, generation={"temperature": 0})
    assert body["temperature"] == 0
    assert set(body) == {"model", "messages", "temperature"}


def test_scenario_60_openai_variant(judge_server: JudgeServer) -> None:
    gen = {"max_tokens": 512, "temperature": 0, "logprobs": True, "top_logprobs": 20}
    body = body_for(judge_server, generation=gen)
    assert body["max_completion_tokens"] == 512
    assert "max_tokens" not in body
    assert body["temperature"] == 0
    assert body["logprobs"] is True
    assert body["top_logprobs"] == 20
    assert "stream" not in body
    assert "stream_options" not in body


def test_scenario_60_deepseek_variant_uses_max_tokens_and_json_object(
    judge_server: JudgeServer,
) -> None:
    gen = {"max_tokens": 512, "temperature": 0}
    body = body_for(judge_server, variant="deepseek", generation=gen, schema=SCHEMA)
    assert body["max_tokens"] == 512
    assert "max_completion_tokens" not in body
    assert body["response_format"] == {"type": "json_object"}


def test_json_schema_response_format(judge_server: JudgeServer) -> None:
    body = body_for(judge_server, schema=SCHEMA)
    assert body["response_format"] == {
        "type": "json_schema",
        "json_schema": {
            "name": "rubric_critic_scores",
            "schema": {"type": "object", "properties": {"score": {"type": "number"}}},
            "strict": True,
            "description": "Scores per rubric.",
        },
    }


def test_no_schema_no_response_format(judge_server: JudgeServer) -> None:
    assert "response_format" not in body_for(judge_server)


def test_stream_is_never_sent(judge_server: JudgeServer) -> None:
    body = body_for(judge_server, generation={"stream": True, "temperature": 0.2})
    assert "stream" not in body
    assert body["temperature"] == 0.2


@pytest.mark.parametrize("max_tokens", [0, -5])
def test_max_tokens_below_one_is_dropped(judge_server: JudgeServer, max_tokens: int) -> None:
    body = body_for(judge_server, generation={"max_tokens": max_tokens})
    assert "max_completion_tokens" not in body
    assert "max_tokens" not in body


def test_only_the_first_stop_string_is_sent(judge_server: JudgeServer) -> None:
    assert body_for(judge_server, generation={"stop": ["END", "STOP"]})["stop"] == "END"
    assert "stop" not in body_for(judge_server, generation={"stop": []})


def test_sampling_and_reasoning_keys_are_sent_raw(judge_server: JudgeServer) -> None:
    gen = {
        "top_p": 0.9,
        "presence_penalty": 0.5,
        "frequency_penalty": -0.25,
        "reasoning_effort": "low",
        "thinking_tokens": 256,
        "thinking_level": "high",
        "logprobs": False,
    }
    body = body_for(judge_server, generation=gen)
    assert body["top_p"] == 0.9
    assert body["presence_penalty"] == 0.5
    assert body["frequency_penalty"] == -0.25
    assert body["reasoning_effort"] == "low"
    assert body["thinking_tokens"] == 256
    assert body["logprobs"] is False
    assert "thinking_level" not in body
    assert "top_logprobs" not in body


@pytest.mark.parametrize(
    ("variant", "enabled", "key", "value"),
    [
        ("openai", True, "thinking_enabled", True),
        ("openai", False, "thinking_enabled", False),
        ("deepseek", True, "thinking", {"type": "enabled"}),
        ("deepseek", False, "thinking", {"type": "disabled"}),
        ("glm", True, "thinking", {"type": "enabled"}),
        ("kimi", False, "thinking", {"type": "disabled"}),
        ("hunyuan", True, "thinking", {"type": "enabled"}),
        ("qwen", True, "enable_thinking", True),
        ("qwen", False, "enable_thinking", False),
        ("minimax", True, "thinking", {"type": "adaptive"}),
        ("minimax", False, "thinking", {"type": "disabled"}),
    ],
)
def test_thinking_toggle_per_variant(
    judge_server: JudgeServer, variant: str, enabled: bool, key: str, value: Any
) -> None:
    body = body_for(judge_server, variant=variant, generation={"thinking_enabled": enabled})
    assert body[key] == value
    others = {"thinking_enabled", "thinking", "enable_thinking"} - {key}
    assert not others & set(body)


def test_extra_fields_are_merged_last_and_override(judge_server: JudgeServer) -> None:
    extra = {"temperature": 0.1, "seed": 7, "metadata": {"run": "x"}, "model": "override"}
    body = body_for(judge_server, generation={"temperature": 0.5}, extra_fields=extra)
    assert body["temperature"] == 0.1
    assert body["seed"] == 7
    assert body["metadata"] == {"run": "x"}
    assert body["model"] == "override"


@pytest.mark.parametrize("logprobs", [None, False])
def test_top_logprobs_without_logprobs_fails_before_sending(
    judge_server: JudgeServer, logprobs: bool | None
) -> None:
    gen: dict[str, Any] = {"top_logprobs": 20}
    if logprobs is not None:
        gen["logprobs"] = logprobs
    with pytest.raises(JudgeRequestError, match="top_logprobs requires logprobs to be true"):
        ask(settings_for(judge_server, generation=gen))
    assert judge_server.count == 0


@pytest.mark.parametrize(
    "extra", [{"bias": float("nan")}, {"weights": [1.0, {"w": float("-inf")}]}]
)
def test_non_finite_numbers_are_refused_before_sending(
    judge_server: JudgeServer, extra: dict[str, Any]
) -> None:
    # Go's encoder refuses them; a JSON encoder that wrote null instead would change the request.
    with pytest.raises(JudgeRequestError, match="is not a JSON number"):
        ask(settings_for(judge_server, extra_fields=extra))
    assert judge_server.count == 0


def test_nulls_and_the_word_null_are_sent_as_they_are(judge_server: JudgeServer) -> None:
    settings = settings_for(judge_server, extra_fields={"user": None, "ratio": 0.5})
    ask(settings, prompt="null or NaN, said in a prompt")
    body = last_request(judge_server).body
    assert body["user"] is None and body["ratio"] == 0.5
    assert body["messages"][0]["content"] == "null or NaN, said in a prompt"


def test_headers_and_path(judge_server: JudgeServer) -> None:
    ask(settings_for(judge_server, api_key="sk-test-header"))
    request = last_request(judge_server)
    assert request.method == "POST"
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == "Bearer sk-test-header"
    assert request.headers["content-type"] == "application/json"
    assert request.headers["accept"] == "application/json"


def test_no_key_means_no_authorization_header(judge_server: JudgeServer) -> None:
    ask(settings_for(judge_server, api_key=""))
    assert "authorization" not in last_request(judge_server).headers


def test_trailing_slash_base_url_hits_the_same_path(judge_server: JudgeServer) -> None:
    ask(settings_for(judge_server, base_url=judge_server.base_url + "/"))
    assert last_request(judge_server).path == "/v1/chat/completions"


def test_messages_are_sent_in_order(judge_server: JudgeServer) -> None:
    settings = settings_for(judge_server)
    request = JudgeRequest(
        settings, (ChatMessage("system", "be strict"), ChatMessage("user", "héllo <&>"))
    )

    async def go() -> None:
        async with JudgeClient(fast_options()) as client:
            await client.complete(request, metric_name="m")

    asyncio.run(go())
    assert last_request(judge_server).body["messages"] == [
        {"role": "system", "content": "be strict"},
        {"role": "user", "content": "héllo <&>"},
    ]


def test_reply_text_usage_and_logprobs_are_parsed(judge_server: JudgeServer) -> None:
    tokens = [
        {"token": "analysis\n<score_A>", "logprob": -0.01, "bytes": [97], "top_logprobs": []},
        {
            "token": "A",
            "logprob": -0.356675,
            "top_logprobs": [
                {"token": "A", "logprob": -0.356675},
                {"token": "T", "logprob": -1.203973, "bytes": [84]},
            ],
        },
    ]
    reply_spec = Reply(content="<score_A>A</score_A>", logprobs=tokens)
    reply_spec.prompt_tokens, reply_spec.completion_tokens = 42, 9
    judge_server.enqueue(reply_spec)
    reply = ask(settings_for(judge_server, generation={"logprobs": True, "top_logprobs": 2}))
    assert reply.text == "<score_A>A</score_A>"
    assert reply.usage.prompt_tokens == 42
    assert reply.usage.completion_tokens == 9
    assert reply.logprobs == (
        TokenLogprob("analysis\n<score_A>", -0.01, (97,), ()),
        TokenLogprob(
            "A",
            -0.356675,
            None,
            (TopLogprob("A", -0.356675), TopLogprob("T", -1.203973, (84,))),
        ),
    )
    assert reply.logprobs_json() == [
        {"token": "analysis\n<score_A>", "logprob": -0.01, "bytes": [97], "top_logprobs": []},
        {
            "token": "A",
            "logprob": -0.356675,
            "top_logprobs": [
                {"token": "A", "logprob": -0.356675},
                {"token": "T", "logprob": -1.203973, "bytes": [84]},
            ],
        },
    ]


def test_missing_logprobs_mean_none(judge_server: JudgeServer) -> None:
    judge_server.enqueue(Reply(content="x", logprobs=[]))
    assert ask(settings_for(judge_server)).logprobs == ()
    judge_server.enqueue(Reply(content="x", logprobs=None))
    assert ask(settings_for(judge_server)).logprobs == ()


@pytest.mark.parametrize(("variant", "text"), [("glm", "thought it through"), ("openai", "")])
def test_reasoning_content_stands_in_for_empty_content_only_for_glm(
    judge_server: JudgeServer, variant: str, text: str
) -> None:
    judge_server.enqueue(Reply(content="", reasoning_content="thought it through"))
    assert ask(settings_for(judge_server, variant=variant)).text == text


def test_unknown_provider_is_a_config_error(judge_server: JudgeServer) -> None:
    model = JudgeModel.model_validate(
        {"providerName": "mistral", "modelName": "c", "baseURL": judge_server.base_url}
    )
    settings: JudgeSettings = resolve_settings(model, environ={})
    with pytest.raises(JudgeConfigError, match="unknown provider: mistral"):
        ask(settings)
    assert judge_server.count == 0
