"""The aiohttp-based httpx transport: environment proxies, NO_PROXY, error mapping."""

from __future__ import annotations

import asyncio

import httpx
import pytest
from judge_support import ask, fast_options, settings_for

from agenteval.judge import JudgeUnavailable
from agenteval.judge.transport import AiohttpJudgeTransport, EnvironmentProxies
from judge_server import JudgeServer

PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY")


@pytest.fixture(autouse=True)
def clean_proxy_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Start each test with no proxy variable in either case."""
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)


def test_http_proxy_from_the_environment_is_used(
    judge_server: JudgeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The loopback server plays the proxy for a host that does not resolve.
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{judge_server.port}")
    settings = settings_for(judge_server, base_url="http://judge.invalid/v1")
    reply = ask(settings)
    assert reply.text
    (request,) = judge_server.recorded()
    assert request.headers["host"] == "judge.invalid"
    assert request.path == "/v1/chat/completions"


def test_no_proxy_bypasses_the_proxy(
    judge_server: JudgeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{judge_server.port}")
    monkeypatch.setenv("NO_PROXY", "judge.invalid")
    settings = settings_for(judge_server, base_url="http://judge.invalid/v1")
    with pytest.raises(JudgeUnavailable):
        ask(settings, options=fast_options(retries=0))
    assert judge_server.count == 0


def test_proxy_decision_per_scheme_and_host(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.example:3128")
    monkeypatch.setenv("NO_PROXY", "internal.example")
    proxies = EnvironmentProxies()
    assert proxies.proxy_for(httpx.URL("https://api.example/v1")) == "http://proxy.example:3128"
    assert proxies.proxy_for(httpx.URL("http://api.example/v1")) is None
    assert proxies.proxy_for(httpx.URL("https://internal.example/v1")) is None
    assert (
        EnvironmentProxies(trust_env=False).proxy_for(httpx.URL("https://api.example/v1")) is None
    )


def test_transport_speaks_httpx(judge_server: JudgeServer) -> None:
    async def go() -> tuple[httpx.Response, type[Exception]]:
        async with httpx.AsyncClient(transport=AiohttpJudgeTransport(max_connections=2)) as http:
            ok = await http.post(f"{judge_server.base_url}/chat/completions", json={"m": 1})
            try:
                await http.get("http://127.0.0.1:1/")
            except httpx.TransportError as exc:
                return ok, type(exc)
        raise AssertionError("port 1 answered")

    response, error = asyncio.run(go())
    assert response.status_code == 200
    assert response.json()["choices"][0]["message"]["content"]
    assert response.headers["content-type"].startswith("application/json")
    assert issubclass(error, httpx.ConnectError)
    assert judge_server.bodies() == [{"m": 1}]
