"""Secret scan: the API key reaches the Authorization header and nothing else."""

from __future__ import annotations

import asyncio
import logging
import secrets
import socket
from pathlib import Path

import pytest
from judge_support import cache_files, fast_options, key_for, provider_server, settings_for

from agenteval.errors import JudgeError
from agenteval.judge import (
    JudgeClient,
    JudgeOptions,
    JudgeRequest,
    JudgeSettings,
    resolve_settings,
)
from agenteval.schema.metric import JudgeModel
from judge_server import JudgeServer, Reply


def scenario_texts(
    settings: JudgeSettings, options: JudgeOptions, server: JudgeServer
) -> list[str]:
    """Run successes and every failure kind; return the text of every outcome."""
    key = settings.api_key.reveal()
    server.when("partial echo", Reply.status_error(401, f"key {key[:14]}****{key[-4:]} invalid"))
    server.when("echo", Reply.status_error(401, f"Incorrect API key provided: {key}"))
    server.when("overloaded", Reply.status_error(503, f"busy for {key}"))
    server.when("bad json", Reply(body=f'{{"oops": "{key}"'.encode()))
    server.when("error body", Reply.error_body(f"token {key} revoked"))
    server.when("hang", Reply.hang(30))
    prompts = ["fine", "echo", "partial echo", "overloaded", "bad json", "error body", "hang"]
    texts: list[str] = []

    async def go() -> None:
        async with JudgeClient(options) as client:
            for prompt in prompts:
                request = JudgeRequest.user_prompt(settings, prompt)
                try:
                    reply = await client.complete(request, metric_name="secret-scan")
                    texts.append(repr(reply))
                except JudgeError as exc:
                    texts.extend([str(exc), repr(exc), repr(exc.args)])
            texts.append(repr(client.usage))
            texts.append(repr(client.options))
        texts.append(repr(settings))
        texts.append(str(settings))
        texts.append(f"{settings.api_key}")

    asyncio.run(go())
    return texts


def test_key_appears_nowhere_but_the_header(
    judge_server: JudgeServer,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    capsys: pytest.CaptureFixture[str],
) -> None:
    key = f"sk-test-{secrets.token_hex(16)}"
    caplog.set_level(logging.DEBUG)
    cache = tmp_path / "cache.sqlite"
    options = fast_options(cache_path=cache, retries=1, timeout=0.3)
    settings = settings_for(judge_server, api_key=key)
    texts = scenario_texts(settings, options, judge_server)

    # The key did travel, in the header and only there.
    recorded = judge_server.recorded()
    assert {r.headers["authorization"] for r in recorded} == {f"Bearer {key}"}
    assert all(key.encode() not in r.raw for r in recorded)

    joined = "\n".join(texts)
    for outcome in ["HTTP 401", "invalid", "HTTP 503", "malformed JSON", "revoked", "no reply"]:
        assert outcome in joined
    for text in texts:
        assert key not in text
        assert key[:14] not in text
    assert key not in caplog.text
    assert caplog.records, "logging was captured"
    out, err = capsys.readouterr()
    assert key not in out and key not in err
    files = cache_files(cache)
    assert files
    for path in files:
        assert key.encode() not in path.read_bytes()


def test_key_from_the_environment_and_unreachable_endpoint(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    key = f"sk-test-{secrets.token_hex(16)}"
    caplog.set_level(logging.DEBUG)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    model = JudgeModel.model_validate(
        {"providerName": "openai", "modelName": "m", "baseURL": f"http://127.0.0.1:{port}/v1"}
    )
    settings = resolve_settings(model, environ={"OPENAI_API_KEY": key})
    assert settings.api_key.reveal() == key

    async def go() -> str:
        async with JudgeClient(fast_options(cache_path=tmp_path / "c.sqlite", retries=1)) as c:
            try:
                await c.complete(JudgeRequest.user_prompt(settings, "x"), metric_name="m")
            except JudgeError as exc:
                return f"{exc}\n{exc!r}"
        return ""

    text = asyncio.run(go())
    assert "unreachable" in text or "attempt" in text
    assert key not in text
    assert key not in caplog.text


def test_key_a_header_cannot_carry_is_a_config_error_without_the_key(
    judge_server: JudgeServer,
) -> None:
    key = f"sk-тест-{secrets.token_hex(8)}"  # Cyrillic: not encodable in an HTTP header
    settings = settings_for(judge_server, api_key=key)

    async def go() -> JudgeError:
        async with JudgeClient(fast_options()) as client:
            with pytest.raises(JudgeError) as caught:
                await client.complete(JudgeRequest.user_prompt(settings, "x"), metric_name="m")
            return caught.value

    error = asyncio.run(go())
    text = f"{error}\n{error!r}\n{error.__cause__!r}\n{error.__context__!r}"
    assert "holds characters an HTTP header cannot carry" in text
    assert key not in text
    assert judge_server.count == 0


@pytest.mark.parametrize("provider", ["openai", "hunyuan"])
def test_a_key_echoed_without_its_head_is_hidden(provider: str, tmp_path: Path) -> None:
    # A judge that echoes the key's tail: an OpenAI key without its "sk-", or hunyuan's
    # SecretKey, the secret part of its "SecretId:SecretKey" apiKey.
    key = key_for(provider, f"sk-{secrets.token_hex(16)}")
    tail = key.partition(":")[2] if provider == "hunyuan" else key[3:]
    cache = tmp_path / "cache.sqlite"
    with provider_server(provider) as server:
        server.when("fails", Reply.status_error(401, f"key {tail} was revoked"))
        server.when("echoes", Reply(content=f"the key is {tail}"))
        settings = settings_for(server, api_key=key)

        async def go() -> tuple[str, str]:
            async with JudgeClient(fast_options(cache_path=cache)) as client:
                reply = await client.complete(
                    JudgeRequest.user_prompt(settings, "echoes"), metric_name="m"
                )
                with pytest.raises(JudgeError) as failure:
                    await client.complete(
                        JudgeRequest.user_prompt(settings, "fails"), metric_name="m"
                    )
            return reply.text, str(failure.value)

        text, error = asyncio.run(go())
    assert text == "the key is ***"
    assert ": key *** was revoked (" in error
    assert tail not in error
    for path in cache_files(cache):
        assert tail.encode() not in path.read_bytes()
