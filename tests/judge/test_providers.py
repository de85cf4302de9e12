"""Every judge provider over real HTTP: retries, final failures, cache, offline, secrets, defaults.

Each test runs against a loopback server speaking that provider's wire format
(``tests/judge_server.py --provider``); what differs per provider (error
shapes, retry hints, credentials) is the server's and the backend's business,
and the client must behave the same for all five.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from judge_support import (
    HUNYUAN_ID,
    HUNYUAN_KEY,
    PROVIDERS,
    cache_files,
    fast_options,
    key_for,
    provider_server,
    settings_for,
)

from agenteval.judge import (
    JudgeCacheMiss,
    JudgeClient,
    JudgeOptions,
    JudgeRejected,
    JudgeReply,
    JudgeRequest,
    JudgeSettings,
    JudgeUnavailable,
    PreparedCall,
    resolve_settings,
)
from agenteval.judge.usage import Usage
from agenteval.schema.metric import JudgeModel
from judge_server import JudgeServer, Reply

NEW = ("anthropic", "gemini", "ollama", "hunyuan")
OK = Reply(content="reasoning: fine\nis_the_agent_response_valid: valid", prompt_tokens=13)
KEY = "sk-test-providers-0123456789abcdef"


@pytest.fixture(params=PROVIDERS)
def server(request: pytest.FixtureRequest) -> Iterator[JudgeServer]:
    """A loopback judge for each provider in turn."""
    with provider_server(request.param) as started:
        yield started


def call(settings: JudgeSettings, options: JudgeOptions | None = None) -> tuple[JudgeReply, Usage]:
    """One judge call through a fresh client: the reply and the run's usage."""

    async def go() -> tuple[JudgeReply, Usage]:
        async with JudgeClient(options or fast_options()) as client:
            request = JudgeRequest.user_prompt(settings, "Is the answer right?")
            reply = await client.complete(request, metric_name="m")
            return reply, client.usage.total

    return asyncio.run(go())


def delays(caplog: pytest.LogCaptureFixture) -> list[float]:
    found = [re.search(r" in ([0-9.]+) s after", r.getMessage()) for r in caplog.records]
    return [float(m.group(1)) for m in found if m]


@pytest.mark.parametrize(
    "fault",
    [
        Reply.rate_limited(retry_after="0.04"),
        Reply.overloaded(),
        Reply.status_error(500),
        Reply.dropped(),
    ],
    ids=["429", "529", "500", "dropped"],
)
def test_retryable_faults_are_retried_and_counted(
    server: JudgeServer, fault: Reply, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="agenteval.judge")
    server.enqueue(fault, OK)
    reply, usage = call(settings_for(server, api_key=KEY))
    assert reply.text == OK.content
    assert server.count == 2
    assert (usage.calls, usage.retries, usage.failed_calls) == (1, 1, 0)
    assert (usage.prompt_tokens, usage.completion_tokens) == (13, 7)
    if fault.drop:
        return
    if fault.status == 429 and server.provider != "hunyuan":
        # The provider's own hint: Retry-After, or Gemini's RetryInfo.retryDelay in the body.
        assert delays(caplog) == [0.04]


def test_rate_limit_hint_in_seconds_is_honoured(
    server: JudgeServer, caplog: pytest.LogCaptureFixture
) -> None:
    if server.provider == "hunyuan":
        pytest.skip("Tencent Cloud's RequestLimitExceeded carries no retry hint")
    caplog.set_level(logging.INFO, logger="agenteval.judge")
    server.enqueue(Reply.rate_limited(retry_after="1"), OK)
    started = asyncio.run(_timed(settings_for(server, api_key=KEY)))
    assert delays(caplog) == [1.0]
    assert started >= 0.9


async def _timed(settings: JudgeSettings) -> float:
    loop = asyncio.get_running_loop()
    begin = loop.time()
    async with JudgeClient(fast_options()) as client:
        await client.complete(JudgeRequest.user_prompt(settings, "q"), metric_name="m")
    return loop.time() - begin


def test_retries_run_out_as_unavailable(server: JudgeServer) -> None:
    server.default = Reply.status_error(503, "try later")
    with pytest.raises(JudgeUnavailable) as caught:
        call(settings_for(server, api_key=KEY), fast_options(retries=2))
    assert server.count == 3
    assert "try later" in str(caught.value)


def test_401_fails_at_once_naming_endpoint_provider_and_model(server: JudgeServer) -> None:
    key = key_for(server.provider, KEY)
    server.enqueue(Reply.status_error(401, f"invalid credentials {key}"))
    settings = settings_for(server, api_key=KEY, model="judge-401")
    with pytest.raises(JudgeRejected) as caught:
        call(settings)
    assert server.count == 1
    message = str(caught.value)
    assert settings.endpoint in message and "'judge-401'" in message
    assert f"{server.provider} judge model" in message
    assert caught.value.status == 401
    for secret in (key, *key.split(":")):
        assert secret not in message


def test_cache_rerun_makes_no_request_and_offline_answers_from_it(
    server: JudgeServer, tmp_path: Path
) -> None:
    cache = tmp_path / "cache.sqlite"
    settings = settings_for(server, api_key=KEY)
    server.default = OK
    first, _ = call(settings, fast_options(cache_path=cache))
    assert server.count == 1 and not first.cached
    again, usage = call(settings, fast_options(cache_path=cache))
    offline, _ = call(settings, fast_options(cache_path=cache, offline=True))
    assert server.count == 1
    assert again.cached and offline.cached and usage.cache_hits == 1
    assert again.text == offline.text == first.text
    with pytest.raises(JudgeCacheMiss, match="offline: no cached judge reply"):
        call(settings, fast_options(cache_path=tmp_path / "empty.sqlite", offline=True))
    assert server.count == 1
    key = key_for(server.provider, KEY)
    for path in cache_files(cache):
        data = path.read_bytes()
        for secret in (key, *key.split(":")):
            assert secret.encode() not in data


def test_the_cache_key_includes_the_provider() -> None:
    keys = {
        PreparedCall("http://127.0.0.1:9/x", "m", {"a": 1}, 0, None, provider).cache_key()
        for provider in PROVIDERS
    }
    assert len(keys) == len(PROVIDERS)
    # openai keys are those of earlier versions, so existing caches still answer.
    assert PreparedCall("http://127.0.0.1:9/x", "m", {"a": 1}).cache_key() in keys


def test_a_retried_call_sends_the_same_body(server: JudgeServer) -> None:
    server.enqueue(Reply.status_error(502), OK)
    call(settings_for(server, api_key=KEY))
    first, second = server.recorded()
    assert first.raw == second.raw


ENV = {
    "ANTHROPIC_API_KEY": "env-anthropic",
    "ANTHROPIC_BASE_URL": "http://anthropic.env",
    "GEMINI_API_KEY": "env-gemini",
    "OLLAMA_HOST": "ollama.env:8080",
    "TENCENTCLOUD_SECRET_ID": "env-id",
    "TENCENTCLOUD_SECRET_KEY": "env-key",
    "OPENAI_API_KEY": "env-openai",
}


@pytest.mark.parametrize(
    ("provider", "environ", "endpoint", "key"),
    [
        ("anthropic", {}, "https://api.anthropic.com/v1/messages", ""),
        ("anthropic", ENV, "http://anthropic.env/v1/messages", "env-anthropic"),
        (
            "gemini",
            {},
            "https://generativelanguage.googleapis.com/v1beta/models/judge:generateContent",
            "",
        ),
        (
            "gemini",
            {**ENV, "GOOGLE_API_KEY": "env-google"},
            "https://generativelanguage.googleapis.com/v1beta/models/judge:generateContent",
            "env-google",
        ),
        ("gemini", ENV, None, "env-gemini"),
        ("ollama", {}, "http://localhost:11434/api/chat", ""),
        ("ollama", ENV, "http://ollama.env:8080/api/chat", ""),
        ("hunyuan", {}, "https://hunyuan.tencentcloudapi.com/", ""),
        ("hunyuan", ENV, None, "env-id:env-key"),
    ],
)
def test_empty_base_url_and_key_come_from_defaults_and_environment(
    provider: str, environ: dict[str, str], endpoint: str | None, key: str
) -> None:
    settings = resolve_settings(
        JudgeModel.model_validate({"providerName": provider, "modelName": "judge"}), environ
    )
    if endpoint is not None:
        assert settings.endpoint == endpoint
    assert settings.api_key.reveal() == key


@pytest.mark.parametrize(
    ("base", "endpoint"),
    [
        ("localhost", "http://localhost:11434/api/chat"),
        ("http://10.0.0.2", "http://10.0.0.2:80/api/chat"),
        ("https://ollama.example:9000/", "https://ollama.example:9000/api/chat"),
        ("ollama.com", "https://ollama.com:443/api/chat"),
    ],
)
def test_ollama_host_is_read_as_go_reads_ollama_host(base: str, endpoint: str) -> None:
    model = JudgeModel.model_validate({"providerName": "ollama", "modelName": "m", "baseURL": base})
    assert resolve_settings(model, {}).endpoint == endpoint


def test_configured_values_win_over_the_environment() -> None:
    model = JudgeModel.model_validate(
        {
            "providerName": "hunyuan",
            "modelName": "hunyuan-turbos-latest",
            "baseURL": "hunyuan.example",
            "apiKey": f"{HUNYUAN_ID}:{HUNYUAN_KEY}",
        }
    )
    settings = resolve_settings(model, ENV)
    assert settings.endpoint == "https://hunyuan.example/"
    assert settings.api_key.reveal() == f"{HUNYUAN_ID}:{HUNYUAN_KEY}"
    assert HUNYUAN_KEY not in repr(settings) and HUNYUAN_KEY not in settings.describe()


def test_hunyuan_key_of_two_unset_variables_falls_back_to_the_environment() -> None:
    model = JudgeModel.model_validate({"providerName": "hunyuan", "modelName": "m", "apiKey": ":"})
    assert resolve_settings(model, ENV).api_key.reveal() == "env-id:env-key"
    assert not resolve_settings(model, {}).api_key
