"""The judge's httpx client over httpx-aiohttp, against real loopback sockets.

Wire-level faults use a raw TCP server in the test's own event loop that reads
one request at a time and answers with scripted bytes (garbage, cut replies,
resets, silence).  Proxies and TLS go through the aiohttp judge server, TLS
with a trustme certificate authority trusted via ``SSL_CERT_FILE``.
"""

from __future__ import annotations

import asyncio
import shutil
import ssl
import subprocess
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

import aiohttp
import httpx
import pytest
import trustme
from judge_support import ask, fast_options, settings_for

from agenteval import __version__
from agenteval.judge import JudgeSettings, JudgeUnavailable, resolve_settings
from agenteval.judge.aiohttp_client import open_http_client
from agenteval.schema.metric import JudgeModel
from judge_server import JudgeServer

OK_BODY = b'{"ok": true}'
PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY")
URL_BEHIND_PROXY = "http://judge.example/v1/chat/completions"


@pytest.fixture(autouse=True)
def clean_proxy_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Start each test with no proxy variable in either case."""
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)


def ok_reply(body: bytes = OK_BODY, extra: bytes = b"") -> bytes:
    """A 200 with Content-Length framing."""
    return (
        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
        + extra
        + b"Content-Length: "
        + str(len(body)).encode()
        + b"\r\n\r\n"
        + body
    )


@dataclass
class Exchange:
    """What the raw server does with one request: bytes to write, then maybe close."""

    reply: bytes
    close: bool = False
    delay: float = 0.0
    pieces: list[tuple[float, bytes]] = field(default_factory=list)


@dataclass
class RawServer:
    """Reads requests off each connection and answers them from a script."""

    script: list[Exchange]
    requests: list[bytes] = field(default_factory=list)
    connections: int = 0
    open_connections: int = 0
    port: int = 0
    _server: asyncio.Server | None = None

    async def start(self) -> RawServer:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def stop(self) -> None:
        assert self._server is not None
        self._server.close()

    def url(self, host: str = "127.0.0.1") -> str:
        return f"http://{host}:{self.port}/v1/chat/completions"

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        self.open_connections += 1
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = 0
                for line in head.split(b"\r\n"):
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":", 1)[1])
                self.requests.append(head + await reader.readexactly(length))
                step = self.script.pop(0) if len(self.script) > 1 else self.script[0]
                await asyncio.sleep(step.delay)
                writer.write(step.reply)
                for pause, piece in step.pieces:
                    await writer.drain()
                    await asyncio.sleep(pause)
                    writer.write(piece)
                await writer.drain()
                if step.close:
                    break
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            self.open_connections -= 1
            writer.close()


def run_with(
    script: list[Exchange],
    body: Callable[[RawServer, httpx.AsyncClient], Awaitable[object]],
    *,
    timeout: float | httpx.Timeout = 5.0,
) -> tuple[RawServer, object]:
    """Start a raw server and the run's judge client, run ``body``, close both."""

    async def go() -> tuple[RawServer, object]:
        server = await RawServer(script).start()
        client = open_http_client(4, 5.0)
        client.timeout = httpx.Timeout(timeout)
        try:
            result = await body(server, client)
        finally:
            await client.aclose()
            await asyncio.sleep(0.01)  # let the server see the close
            await server.stop()
        return server, result

    return asyncio.run(go())


async def post(server: RawServer, client: httpx.AsyncClient, host: str = "127.0.0.1") -> bytes:
    """One POST; the reply body."""
    return (await client.post(server.url(host), content=b"{}")).content


def failure(script: list[Exchange]) -> BaseException:
    """The exception one POST raises against ``script``."""

    async def body(server: RawServer, client: httpx.AsyncClient) -> BaseException:
        try:
            await post(server, client)
        except Exception as exc:
            return exc
        raise AssertionError("the request succeeded")

    _, error = run_with(script, body)
    assert isinstance(error, BaseException)
    return error


def test_keep_alive_reuses_one_connection_and_close_releases_it() -> None:
    async def body(server: RawServer, client: httpx.AsyncClient) -> list[object]:
        replies = [await post(server, client) for _ in range(5)]
        return [replies, server.open_connections]

    server, (replies, open_before_close) = run_with([Exchange(ok_reply())], body)  # type: ignore[misc]
    assert replies == [OK_BODY] * 5
    assert (server.connections, len(server.requests), open_before_close) == (1, 5, 1)
    assert server.open_connections == 0


def test_request_on_the_wire_carries_user_agent_and_length() -> None:
    async def body(server: RawServer, client: httpx.AsyncClient) -> bytes:
        response = await client.post(server.url(), content=b'{"m": 1}')
        return response.content

    server, _ = run_with([Exchange(ok_reply())], body)
    head, _, sent = server.requests[0].partition(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    assert lines[0] == b"POST /v1/chat/completions HTTP/1.1"
    assert f"user-agent: agenteval/{__version__}".encode() in [x.lower() for x in lines]
    assert any(line.lower() == b"content-length: 8" for line in lines)
    assert sent == b'{"m": 1}'


def test_no_cookie_is_kept() -> None:
    # A named host, not an IP address: aiohttp's own jar would keep this cookie.
    script = [Exchange(ok_reply(extra=b"Set-Cookie: session=abc; Path=/\r\n"))]

    async def body(server: RawServer, client: httpx.AsyncClient) -> int:
        await post(server, client, "localhost")
        await post(server, client, "localhost")
        return len(client.cookies)

    server, kept = run_with(script, body)
    assert kept == 0
    assert len(server.requests) == 2
    assert b"cookie:" not in server.requests[1].lower()


def test_garbage_instead_of_http_is_an_error() -> None:
    # httpx-aiohttp passes aiohttp's own error on; the judge backend catches both kinds.
    error = failure([Exchange(b"SSH-2.0-OpenSSH_9.6\r\n\r\n")])
    assert isinstance(error, aiohttp.ClientResponseError)
    assert "Bad status line" in str(error)


def test_reply_cut_short_is_an_error() -> None:
    cut = ok_reply(b'{"ok": true, "more": "x"}')[:-5]

    async def body(server: RawServer, client: httpx.AsyncClient) -> BaseException:
        try:
            await post(server, client)
        except Exception as exc:
            return exc
        raise AssertionError("a cut reply was accepted")

    _, error = run_with([Exchange(cut, close=True)], body)
    assert isinstance(error, httpx.ReadError)
    assert "received 20 of 25 bytes" in str(error)


def test_connection_closed_before_any_reply_byte_is_an_error() -> None:
    error = failure([Exchange(b"", close=True)])
    assert isinstance(error, httpx.TransportError)
    assert str(error) == "Server disconnected"


def test_read_timeout_is_silence_between_reads_not_the_whole_reply() -> None:
    head = b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\n"
    trickle = Exchange(head, pieces=[(0.15, b"a"), (0.15, b"b"), (0.15, b"c")])

    async def body(server: RawServer, client: httpx.AsyncClient) -> bytes:
        return (await client.get(server.url())).content

    # 0.45 s in all, never more than 0.15 s of silence: a 0.3 s read timeout lets it through.
    _, content = run_with([trickle], body, timeout=httpx.Timeout(5.0, read=0.3))
    assert content == b"abc"

    async def silent(server: RawServer, client: httpx.AsyncClient) -> None:
        with pytest.raises(httpx.ReadTimeout):
            await client.get(server.url())

    server, _ = run_with([Exchange(ok_reply(), delay=1.0)], silent, timeout=0.2)
    assert server.requests


def test_connect_failure_is_a_transport_error_naming_the_address() -> None:
    # httpx-aiohttp maps it to ConnectTimeout; the judge names the root cause instead.
    async def go() -> None:
        async with open_http_client(1, 5.0) as client:
            with pytest.raises(
                httpx.TransportError, match=r"Cannot connect to host 127\.0\.0\.1:1 "
            ):
                await client.get("http://127.0.0.1:1/")

    asyncio.run(go())


def test_wire_faults_reach_the_judge_caller_as_unavailable_after_retries() -> None:
    # Garbage on every attempt: the backend retries, then names the judge.
    async def go() -> tuple[RawServer, str]:
        server = await RawServer([Exchange(b"garbage\r\n\r\n", close=True)]).start()
        model = JudgeModel.model_validate(
            {
                "providerName": "openai",
                "modelName": "raw",
                "baseURL": f"http://127.0.0.1:{server.port}/v1",
                "apiKey": "sk-raw-server",
            }
        )
        settings = resolve_settings(model, environ={})
        try:
            # The judge client runs its own event loop; this one keeps serving.
            message = await asyncio.to_thread(ask_failure, settings)
        finally:
            await server.stop()
        return server, message

    server, message = asyncio.run(go())
    assert "judge model 'raw'" in message
    assert "failed after 2 attempt(s)" in message
    assert len(server.requests) == 2


def ask_failure(settings: JudgeSettings) -> str:
    """The message of the ``JudgeUnavailable`` one call with one retry ends in."""
    with pytest.raises(JudgeUnavailable) as info:
        ask(settings, options=fast_options(retries=1))
    return str(info.value)


def test_http_proxy_from_the_environment_is_used(
    judge_server: JudgeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The loopback server plays the proxy for a host that does not resolve.
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{judge_server.port}")
    settings = settings_for(judge_server, base_url="http://judge.invalid/v1")
    assert ask(settings).text
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


def test_proxied_requests_keep_no_cookie_either(monkeypatch: pytest.MonkeyPatch) -> None:
    # The raw server plays the proxy; the named host would get its cookie back from a real jar.
    script = [Exchange(ok_reply(extra=b"Set-Cookie: session=abc; Path=/\r\n"))]

    async def body(server: RawServer, client: httpx.AsyncClient) -> list[bytes]:
        return [(await client.post(URL_BEHIND_PROXY, content=b"{}")).content for _ in range(2)]

    async def go() -> tuple[RawServer, object]:
        server = await RawServer(script).start()
        monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{server.port}")
        client = open_http_client(2, 5.0)
        try:
            result = await body(server, client)
        finally:
            await client.aclose()
            await server.stop()
        return server, result

    server, replies = asyncio.run(go())
    assert replies == [OK_BODY, OK_BODY]
    assert server.requests[0].startswith(b"POST " + URL_BEHIND_PROXY.encode())
    assert b"cookie:" not in server.requests[1].lower()


def test_judge_calls_over_tls_trusting_ssl_cert_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    authority = trustme.CA()
    server_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    authority.issue_cert("127.0.0.1").configure_cert(server_context)
    with JudgeServer(ssl_context=server_context) as server:
        assert server.base_url.startswith("https://127.0.0.1:")
        settings = settings_for(server)
        # Certifi does not know the test authority: the handshake fails, nothing is judged.
        with pytest.raises(JudgeUnavailable, match="CERTIFICATE_VERIFY_FAILED"):
            ask(settings, options=fast_options(retries=0))
        assert server.count == 0

        bundle = tmp_path / "ca.pem"
        authority.cert_pem.write_to_path(str(bundle))
        monkeypatch.setenv("SSL_CERT_FILE", str(bundle))
        assert ask(settings).text
        assert server.count == 1


@pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl names the hashed CA files")
def test_judge_calls_over_tls_trusting_ssl_cert_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    authority = trustme.CA()
    server_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    authority.issue_cert("127.0.0.1").configure_cert(server_context)
    directory = tmp_path / "certs"
    directory.mkdir()
    authority.cert_pem.write_to_path(str(directory / "test-ca.pem"))
    # OpenSSL looks a CA up in a directory by its subject hash (<hash>.0 links).
    subprocess.run(["openssl", "rehash", str(directory)], check=True, capture_output=True)
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.setenv("SSL_CERT_DIR", str(directory))
    with JudgeServer(ssl_context=server_context) as server:
        assert ask(settings_for(server)).text
        assert server.count == 1
