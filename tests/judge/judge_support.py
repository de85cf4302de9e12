"""Small builders shared by the judge tests (settings, options, one-call runs)."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agenteval.judge import (
    JudgeClient,
    JudgeOptions,
    JudgeReply,
    JudgeRequest,
    JudgeSettings,
    StructuredOutput,
    resolve_settings,
)
from agenteval.schema.metric import JudgeModel
from judge_server import JudgeServer, RecordedRequest

ABSENT: Any = object()

PROVIDERS = ("openai", "anthropic", "gemini", "ollama", "hunyuan")
# The hunyuan test credentials: the server verifies every TC3 signature with them.
HUNYUAN_ID = "AKIDloopbackTestSecretId0001"
HUNYUAN_KEY = "loopbackTestSecretKey000000000001"


def key_for(provider: str, key: str = "sk-test-support") -> str:
    """A test API key in the provider's form (hunyuan: ``SecretId:SecretKey``)."""
    return f"{HUNYUAN_ID}:{HUNYUAN_KEY}" if provider == "hunyuan" else key


def provider_server(provider: str, latency: float = 0.0) -> JudgeServer:
    """An unstarted loopback server speaking ``provider`` (hunyuan: checking signatures)."""
    return JudgeServer(latency=latency, provider=provider, tc3_keys={HUNYUAN_ID: HUNYUAN_KEY})


def settings_for(
    server: JudgeServer,
    *,
    model: str = "judge-model",
    api_key: str = "sk-test-support",
    variant: str = "",
    generation: Mapping[str, Any] | None = ABSENT,
    extra_fields: Mapping[str, Any] | None = None,
    base_url: str | None = None,
) -> JudgeSettings:
    """Judge settings pointing at ``server``, built through the real judgeModel schema."""
    data: dict[str, Any] = {
        "providerName": server.provider,
        "modelName": model,
        "variant": variant,
        "baseURL": server.base_url if base_url is None else base_url,
        "apiKey": key_for(server.provider, api_key),
    }
    if generation is not ABSENT:
        data["generationConfig"] = generation
    if extra_fields is not None:
        data["extraFields"] = extra_fields
    return resolve_settings(JudgeModel.model_validate(data), environ={})


def fast_options(**overrides: Any) -> JudgeOptions:
    """Options with tiny backoffs and no cache unless asked, so fault tests stay quick."""
    values: dict[str, Any] = {
        "cache_path": None,
        "backoff_base": 0.001,
        "backoff_max": 0.01,
        "timeout": 5.0,
    }
    values.update(overrides)
    return JudgeOptions(**values)


def ask(
    settings: JudgeSettings,
    prompt: str = "Is the answer right?",
    *,
    schema: StructuredOutput | None = None,
    options: JudgeOptions | None = None,
    metric: str = "metric",
    sample: int = 0,
) -> JudgeReply:
    """Make one judge call through a fresh client and return the reply."""

    async def go() -> JudgeReply:
        async with JudgeClient(options or fast_options()) as client:
            request = JudgeRequest.user_prompt(settings, prompt, schema)
            return await client.complete(request, metric_name=metric, sample_index=sample)

    return asyncio.run(go())


def last_request(server: JudgeServer) -> RecordedRequest:
    """The most recent request the server received."""
    requests = server.recorded()
    assert requests, "the server received no request"
    return requests[-1]


def cache_files(path: Path) -> list[Path]:
    """The SQLite file and its WAL/SHM companions that exist."""
    return [p for p in (path, Path(f"{path}-wal"), Path(f"{path}-shm")) if p.exists()]
