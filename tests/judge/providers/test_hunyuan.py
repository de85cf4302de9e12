"""Hunyuan (Tencent Cloud API 3.0) backend: signed headers, Go's body, errors in ``Response.Error``."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from typing import Any

import pytest
from judge_support import (
    ABSENT,
    HUNYUAN_ID,
    HUNYUAN_KEY,
    ask,
    last_request,
    provider_server,
    settings_for,
)

from agenteval.judge import (
    JudgeConfigError,
    JudgeRejected,
    JudgeReplyError,
    JudgeSettings,
    StructuredOutput,
    resolve_settings,
)
from agenteval.judge.providers.tc3 import authorization
from agenteval.schema.metric import JudgeModel
from judge_server import JudgeServer, Reply


@pytest.fixture
def server() -> Iterator[JudgeServer]:
    with provider_server("hunyuan") as started:
        yield started


def with_key(server: JudgeServer, api_key: str) -> JudgeSettings:
    """Settings whose apiKey is exactly ``api_key``."""
    data = {
        "providerName": "hunyuan",
        "modelName": "m",
        "baseURL": server.base_url,
        "apiKey": api_key,
    }
    return resolve_settings(JudgeModel.model_validate(data), environ={})


def sent(server: JudgeServer, generation: Any = ABSENT, **kw: Any) -> dict[str, Any]:
    ask(settings_for(server, generation=generation, model="hunyuan-turbos-latest"), **kw)
    body = last_request(server).body
    assert isinstance(body, dict)
    return body


def test_signed_headers_verify(server: JudgeServer) -> None:
    before = int(time.time())
    sent(server)
    request = last_request(server)
    headers = request.headers
    assert (request.method, request.path) == ("POST", "/")
    assert headers["x-tc-action"] == "ChatCompletions"
    assert headers["x-tc-version"] == "2023-09-01"
    assert headers["content-type"] == "application/json"
    assert headers["host"] == f"127.0.0.1:{server.port}"
    timestamp = int(headers["x-tc-timestamp"])
    assert before <= timestamp <= int(time.time())
    date = time.strftime("%Y-%m-%d", time.gmtime(timestamp))
    assert re.fullmatch(
        rf"TC3-HMAC-SHA256 Credential={HUNYUAN_ID}/{date}/hunyuan/tc3_request, "
        r"SignedHeaders=content-type;host;x-tc-action, Signature=[0-9a-f]{64}",
        headers["authorization"],
    )
    signed = {k: headers[k] for k in ("content-type", "host", "x-tc-action")}
    assert headers["authorization"] == authorization(
        HUNYUAN_ID, HUNYUAN_KEY, "hunyuan", signed, request.raw, timestamp
    )
    assert HUNYUAN_KEY.encode() not in request.raw and HUNYUAN_KEY not in str(headers)


def test_a_wrong_secret_key_fails_at_once(server: JudgeServer) -> None:
    with pytest.raises(JudgeRejected, match=r"AuthFailure\.SignatureFailure") as caught:
        ask(with_key(server, f"{HUNYUAN_ID}:not-the-key-000000"))
    assert caught.value.status == 401
    assert server.count == 1


def test_body_is_gos(server: JudgeServer) -> None:
    body = sent(
        server,
        generation={
            "temperature": 0.3,
            "top_p": 0.9,
            "stop": ["x"],
            "max_tokens": 9,
            "thinking_enabled": True,
        },
    )
    assert body == {
        "Model": "hunyuan-turbos-latest",
        "Messages": [{"Role": "user", "Content": "Is the answer right?"}],
        "TopP": 0.9,
        "Temperature": 0.3,
        "Stop": ["x"],
        "EnableThinking": True,
    }


def test_zero_values_are_left_out_as_go_omits_them(server: JudgeServer) -> None:
    body = sent(server, generation={"temperature": 0, "thinking_enabled": False})
    assert set(body) == {"Model", "Messages"}


def test_no_schema_is_sent(server: JudgeServer) -> None:
    schema = StructuredOutput("v", {"type": "object"})
    assert set(sent(server, schema=schema)) == {"Model", "Messages", "Temperature"}


def test_reply_and_usage(server: JudgeServer) -> None:
    server.enqueue(Reply(content="valid", prompt_tokens=50, completion_tokens=3))
    reply = ask(settings_for(server))
    assert reply.text == "valid"
    assert (reply.usage.prompt_tokens, reply.usage.completion_tokens) == (50, 3)


def test_parameter_error_is_final_and_named(server: JudgeServer) -> None:
    server.enqueue(Reply.status_error(400, "Temperature must be 2 or less"))
    with pytest.raises(JudgeRejected, match="InvalidParameter: Temperature must be 2 or less"):
        ask(settings_for(server))
    assert server.count == 1


def test_reply_without_response_is_a_reply_error(server: JudgeServer) -> None:
    server.enqueue(Reply(body=b'{"Choices": []}'))
    with pytest.raises(JudgeReplyError, match="no Response object"):
        ask(settings_for(server))


def test_a_reply_withheld_by_content_review_is_a_reply_error(server: JudgeServer) -> None:
    # FinishReason "sensitive" with no content: Tencent's review withheld the verdict.  Read
    # as an empty verdict it failed the case (exit 1) instead of leaving it not evaluated.
    choice = {
        "Index": 0,
        "FinishReason": "sensitive",
        "Message": {"Role": "assistant", "Content": ""},
    }
    usage = {"PromptTokens": 5, "CompletionTokens": 0, "TotalTokens": 5}
    body = {"Response": {"Choices": [choice], "Usage": usage, "RequestId": "r"}}
    server.enqueue(Reply(body=json.dumps(body).encode()))
    with pytest.raises(
        JudgeReplyError, match=r"filtered the reply: FinishReason sensitive\)$"
    ) as caught:
        ask(settings_for(server))
    assert server.count == 1
    # Paid for: the client counts the reply's 5 prompt tokens (they were dropped).
    usage = caught.value.usage
    assert usage is not None and (usage.prompt_tokens, usage.completion_tokens) == (5, 0)


def test_api_key_must_be_id_colon_key(server: JudgeServer) -> None:
    with pytest.raises(JudgeConfigError, match="must be 'SecretId:SecretKey'") as caught:
        ask(with_key(server, "just-one-part-0123456789"))
    assert "just-one-part" not in str(caught.value)
    assert server.count == 0
