"""The provider registry: one entry per provider, built-in or plugin, and nothing generic importing one.

A provider registered at run time (here the test plugin's ``cohere``, and a
bare ``JudgeBackend`` that is no ``JsonJudgeBackend``) gets everything the
built-in ones get from the registry and the client: its defaults and
environment variables, its endpoint, retries honouring ``Retry-After``, a 401
that fails at once, the budgets, and cache keys that name it.
"""

from __future__ import annotations

import ast
import asyncio
import logging
import re
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from judge_support import PROVIDERS, fast_options

from agenteval.judge import (
    LOGPROBS,
    STRUCTURED_OUTPUT,
    JudgeBudgetExhausted,
    JudgeClient,
    JudgeReply,
    JudgeRequest,
    JudgeSettings,
    PreparedCall,
    judge_providers,
    register_judge_provider,
    resolve_settings,
)
from agenteval.judge.errors import JudgeRejected
from agenteval.judge.provider import missing_capability, providers_with
from agenteval.plugins import load_plugins
from agenteval.schema.metric import JudgeModel
from judge_server import JudgeServer, Reply

SOURCE = Path(__file__).resolve().parents[2] / "src" / "agenteval"
PLUGIN = Path(__file__).resolve().parents[1] / "plugins" / "cohere_judge_provider.py"
KEY = "co-test-registry-0123456789abcdef"
OK = Reply(content="reasoning: fine\nis_the_agent_response_valid: valid", prompt_tokens=13)


def imported_modules(path: Path) -> set[str]:
    """Every module ``path`` imports (``from a import b`` counts as ``a`` and ``a.b``)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def test_nothing_generic_imports_a_concrete_provider() -> None:
    # Only the providers package itself and agenteval.judge's __init__ (which loads the
    # built-ins) may import a provider module; the generic judge modules, the checks and
    # the evaluators reach providers through the registry.
    concrete = "agenteval.judge.providers"
    offenders = [
        path.relative_to(SOURCE).as_posix()
        for path in sorted(SOURCE.rglob("*.py"))
        if path.parent != SOURCE / "judge" / "providers"
        and path != SOURCE / "judge" / "__init__.py"
        and any(m == concrete or m.startswith(concrete + ".") for m in imported_modules(path))
    ]
    assert offenders == []


# A fresh interpreter: the table before anything read it, as a plugin file finds it.
FIRST_USE = """
import sys
from agenteval.plugins import register_judge_provider
from agenteval.judge.provider import judge_providers
before = "httpx" in sys.modules
@register_judge_provider("openai", default_base_url="http://127.0.0.1:9/v1")
class Mine:
    pass
spec = judge_providers.resolve("openai")
print(before, spec.backend.__name__, spec.default_base_url, "anthropic" in judge_providers)
"""


def test_built_in_providers_load_at_the_tables_first_use_and_a_plugin_still_replaces_one() -> None:
    # Importing the registry loads no HTTP stack; registering a provider loads the built-ins
    # first, so the plugin's "openai" replaces the built-in one and the others are there.
    proc = subprocess.run(
        [sys.executable, "-c", FIRST_USE], capture_output=True, text=True, timeout=60, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["False", "Mine", "http://127.0.0.1:9/v1", "True"]


def test_every_built_in_provider_is_one_registry_entry() -> None:
    assert set(PROVIDERS) <= set(judge_providers.names())
    for name in PROVIDERS:
        spec = judge_providers[name]
        assert spec.name == name
        assert spec.backend.__module__ == f"agenteval.judge.providers.{name}"
    assert providers_with(LOGPROBS) == ["gemini", "ollama", "openai"]
    assert providers_with(STRUCTURED_OUTPUT) == ["anthropic", "gemini", "ollama", "openai"]
    assert missing_capability("hunyuan", STRUCTURED_OUTPUT)
    assert not missing_capability("nosuch", LOGPROBS)  # unknown: reported elsewhere


@pytest.fixture()
def cohere(tmp_path: Path) -> Iterator[None]:
    """The test plugin's ``cohere`` provider, loaded as ``--plugin`` loads it, then forgotten.

    From a copy of its own: a plugin file runs once per content and path, like an imported
    module, so the file this worker already ran would register nothing again.
    """
    copy = tmp_path / PLUGIN.name
    shutil.copyfile(PLUGIN, copy)
    load_plugins([str(copy)])
    try:
        yield
    finally:
        judge_providers.unregister("cohere")


def cohere_settings(server: JudgeServer, **fields: str) -> JudgeSettings:
    data = {"providerName": "cohere", "modelName": "command-judge", **fields}
    data.setdefault("baseURL", f"http://127.0.0.1:{server.port}")
    data.setdefault("apiKey", KEY)
    return resolve_settings(JudgeModel.model_validate(data), environ={})


def test_a_plugin_provider_gets_its_defaults_and_environment(cohere: None) -> None:
    model = JudgeModel.model_validate({"providerName": "cohere", "modelName": "command-judge"})
    bare = resolve_settings(model, environ={})
    assert bare.endpoint == "https://api.cohere.com/v2/chat" and not bare.api_key
    env = {"CO_API_URL": "http://cohere.env:8080/", "CO_API_KEY": "env-key"}
    from_env = resolve_settings(model, environ=env)
    assert from_env.endpoint == "http://cohere.env:8080/v2/chat"
    assert from_env.api_key.reveal() == "env-key"
    assert judge_providers["cohere"].capabilities == frozenset({STRUCTURED_OUTPUT})


def call(settings: JudgeSettings, **options: object) -> tuple[JudgeReply, JudgeClient]:
    async def go() -> tuple[JudgeReply, JudgeClient]:
        async with JudgeClient(fast_options(**options)) as client:
            request = JudgeRequest.user_prompt(settings, "Is the answer right?")
            return await client.complete(request, metric_name="m"), client

    return asyncio.run(go())


def test_a_plugin_provider_is_retried_with_the_servers_hint(
    cohere: None, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="agenteval.judge")
    with JudgeServer(provider="cohere") as server:
        server.enqueue(Reply.rate_limited(retry_after="0.04"), OK)
        reply, client = call(cohere_settings(server))
        assert reply.text == OK.content and server.count == 2
    found = [re.search(r" in ([0-9.]+) s after", r.getMessage()) for r in caplog.records]
    assert [float(m.group(1)) for m in found if m] == [0.04]
    usage = client.usage.total
    assert (usage.calls, usage.retries, usage.prompt_tokens, usage.completion_tokens) == (
        1,
        1,
        13,
        7,
    )


def test_a_plugin_provider_fails_at_once_on_401_and_keeps_the_budget(cohere: None) -> None:
    with JudgeServer(provider="cohere") as server:
        server.enqueue(Reply.status_error(401, f"invalid api token {KEY}"))
        settings = cohere_settings(server)
        with pytest.raises(JudgeRejected) as caught:
            call(settings)
        assert server.count == 1
        message = str(caught.value)
        assert "HTTP 401: invalid api token" in message and KEY not in message
        assert "cohere judge model 'command-judge'" in message
        with pytest.raises(JudgeBudgetExhausted):
            call(settings, max_calls=0)
        assert server.count == 1


class BareBackend:
    """A ``JudgeBackend`` written from scratch: its calls say nothing of the provider."""

    def __init__(self, settings: JudgeSettings, http: httpx.AsyncClient | None) -> None:
        self.settings = settings
        self.http = http

    def prepare(self, request: JudgeRequest, sample_index: int) -> PreparedCall:
        """The OpenAI chat-completions body of the prompt."""
        body = {"model": self.settings.model, "messages": [m.to_json() for m in request.messages]}
        return PreparedCall(self.settings.endpoint, self.settings.model, body, sample_index)

    async def send(self, call: PreparedCall) -> JudgeReply:
        """POST it over the run's client and read ``choices[0].message.content``."""
        assert self.http is not None
        response = await self.http.post(call.endpoint, json=dict(call.body))
        return JudgeReply(text=response.json()["choices"][0]["message"]["content"])


@pytest.fixture()
def bare() -> Iterator[None]:
    register_judge_provider("bare", endpoint=lambda base, model: base + "/chat/completions")(
        BareBackend
    )
    try:
        yield
    finally:
        judge_providers.unregister("bare")


def test_the_cache_key_names_the_provider_whatever_the_backend_says(
    bare: None, judge_server: JudgeServer, tmp_path: Path
) -> None:
    cache = tmp_path / "cache.sqlite"
    model = JudgeModel.model_validate(
        {"providerName": "bare", "modelName": "m", "baseURL": judge_server.base_url}
    )
    settings = resolve_settings(model, environ={})
    reply, _ = call(settings, cache_path=cache)
    assert reply.text == judge_server.default.content and judge_server.count == 1
    with sqlite3.connect(cache) as db:
        (stored,) = [row[0] for row in db.execute("SELECT key FROM judge_replies")]
    body = judge_server.recorded()[0].body
    assert stored == PreparedCall(settings.endpoint, "m", body, 0, provider="bare").cache_key()
    assert stored != PreparedCall(settings.endpoint, "m", body, 0).cache_key()
