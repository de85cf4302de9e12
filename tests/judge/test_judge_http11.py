"""The keep-alive HTTP/1.1 pool under the judge client, over real loopback sockets.

Wire-level cases use a raw TCP server in the test's own event loop that reads
one request at a time and answers with scripted bytes, so the exact framing
(chunked, close-delimited, informational replies, dropped connections) is
under the test's control.  TLS goes through the aiohttp judge server with a
trustme certificate authority.
"""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest
import trustme
from judge_support import ask, settings_for

from agenteval.judge.http11 import Http11Transport
from agenteval.judge.httpclient import JudgeHttpClient
from judge_server import JudgeServer

OK_BODY = b'{"ok": true}'


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
    max_open: int = 0
    closed_by_client: int = 0
    port: int = 0
    _server: asyncio.Server | None = None

    async def start(self) -> RawServer:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def stop(self) -> None:
        assert self._server is not None
        self._server.close()

    def url(self, path: str = "/v1/chat/completions") -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        self.open_connections += 1
        self.max_open = max(self.max_open, self.open_connections)
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = 0
                for line in head.split(b"\r\n"):
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":", 1)[1])
                body = await reader.readexactly(length)
                self.requests.append(head + body)
                step = self.script.pop(0) if len(self.script) > 1 else self.script[0]
                if step.delay:
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
            self.closed_by_client += 1
        finally:
            self.open_connections -= 1
            writer.close()


def run_with(
    script: list[Exchange],
    body: Callable[[RawServer, JudgeHttpClient], Awaitable[object]],
    *,
    max_connections: int = 4,
    timeout: httpx.Timeout | float = 5.0,
) -> tuple[RawServer, object]:
    """Start a raw server and a pooled client, run ``body``, close both."""

    async def go() -> tuple[RawServer, object]:
        server = await RawServer(script).start()
        client = JudgeHttpClient(
            transport=Http11Transport(max_connections=max_connections, trust_env=False),
            timeout=timeout,
        )
        try:
            result = await body(server, client)
        finally:
            await client.aclose()
            await asyncio.sleep(0.01)  # let the server see the close
            await server.stop()
        return server, result

    return asyncio.run(go())


def test_content_length_reply_and_the_request_on_the_wire() -> None:
    async def body(server: RawServer, client: JudgeHttpClient) -> httpx.Response:
        return await client.post(server.url("/v1/chat/completions?x=1"), content=b'{"m": 1}')

    server, response = run_with([Exchange(ok_reply(extra=b"X-Trace: abc\r\n"))], body)
    assert isinstance(response, httpx.Response)
    assert response.status_code == 200
    assert response.json() == {"ok": True}
    assert response.headers["x-trace"] == "abc"
    assert response.http_version == "HTTP/1.1"
    (request,) = server.requests
    head, _, sent = request.partition(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    assert lines[0] == b"POST /v1/chat/completions?x=1 HTTP/1.1"
    assert f"Host: 127.0.0.1:{server.port}".encode() in lines
    assert b"Content-Length: 8" in lines
    assert sent == b'{"m": 1}'


def test_chunked_reply_is_reassembled() -> None:
    reply = (
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        b"5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n"
    )

    async def body(server: RawServer, client: JudgeHttpClient) -> list[bytes]:
        first = await client.get(server.url())
        second = await client.get(server.url())
        return [first.content, second.content]

    server, contents = run_with([Exchange(reply)], body)
    assert contents == [b"hello world", b"hello world"]
    assert server.connections == 1  # a chunked reply leaves the connection reusable


def test_close_delimited_reply_reads_to_the_end() -> None:
    reply = b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nall of this is the body"

    async def body(server: RawServer, client: JudgeHttpClient) -> list[bytes]:
        return [(await client.get(server.url())).content for _ in range(2)]

    server, contents = run_with([Exchange(reply, close=True)], body)
    assert contents == [b"all of this is the body"] * 2
    assert server.connections == 2  # nothing is reused after a close-delimited body


def test_informational_reply_before_the_real_one() -> None:
    reply = b"HTTP/1.1 100 Continue\r\n\r\n" + ok_reply()

    async def body(server: RawServer, client: JudgeHttpClient) -> httpx.Response:
        return await client.post(server.url(), content=b"{}")

    _, response = run_with([Exchange(reply)], body)
    assert isinstance(response, httpx.Response)
    assert (response.status_code, response.content) == (200, OK_BODY)


def test_keep_alive_reuses_one_connection() -> None:
    async def body(server: RawServer, client: JudgeHttpClient) -> list[int]:
        return [(await client.post(server.url(), content=b"{}")).status_code for _ in range(5)]

    server, statuses = run_with([Exchange(ok_reply())], body)
    assert statuses == [200] * 5
    assert server.connections == 1
    assert len(server.requests) == 5


def test_a_connection_the_server_dropped_while_idle_is_replaced_silently() -> None:
    # The server answers and then closes without saying so (no Connection: close), as an
    # idle-timeout would; the next request finds the pooled connection dead and reconnects.
    async def body(server: RawServer, client: JudgeHttpClient) -> list[bytes]:
        first = await client.post(server.url(), content=b"{}")
        await asyncio.sleep(0.05)
        second = await client.post(server.url(), content=b"{}")
        return [first.content, second.content]

    server, contents = run_with([Exchange(ok_reply(), close=True)], body)
    assert contents == [OK_BODY, OK_BODY]
    assert server.connections == 2
    assert len(server.requests) == 2


def test_a_reused_connection_closed_before_any_reply_byte_is_retried_on_a_fresh_one() -> None:
    # The race an idle timeout makes: the request leaves on a connection the server is
    # closing.  Nothing came back, so the pool sends it again on a new connection.
    script = [Exchange(ok_reply()), Exchange(b"", close=True), Exchange(ok_reply())]

    async def body(server: RawServer, client: JudgeHttpClient) -> list[bytes]:
        return [(await client.post(server.url(), content=b"{}")).content for _ in range(2)]

    server, contents = run_with(script, body)
    assert contents == [OK_BODY, OK_BODY]
    assert (server.connections, len(server.requests)) == (2, 3)


def test_a_fresh_connection_closed_before_any_reply_byte_is_an_error() -> None:
    async def body(server: RawServer, client: JudgeHttpClient) -> str:
        with pytest.raises(httpx.RemoteProtocolError) as info:
            await client.post(server.url(), content=b"{}")
        return str(info.value)

    server, message = run_with([Exchange(b"", close=True)], body)
    assert "closed the connection before replying" in str(message)
    assert len(server.requests) == 1  # not retried: a new connection is not stale


def test_reply_cut_short_is_a_transport_error() -> None:
    cut = ok_reply(b'{"ok": true, "more": "x"}')[:-5]

    async def body(server: RawServer, client: JudgeHttpClient) -> type[Exception]:
        try:
            await client.post(server.url(), content=b"{}")
        except httpx.TransportError as exc:
            assert exc.request.url == httpx.URL(server.url())
            return type(exc)
        raise AssertionError("a cut reply was accepted")

    _, error = run_with([Exchange(cut, close=True)], body)
    assert error is httpx.RemoteProtocolError


def test_garbage_instead_of_http_is_a_protocol_error() -> None:
    async def body(server: RawServer, client: JudgeHttpClient) -> str:
        with pytest.raises(httpx.RemoteProtocolError) as info:
            await client.post(server.url(), content=b"{}")
        return str(info.value)

    _, message = run_with([Exchange(b"SSH-2.0-OpenSSH_9.6\r\n\r\n")], body)
    assert "malformed HTTP reply" in str(message)


def test_read_timeout_is_silence_between_reads_not_the_whole_reply() -> None:
    head = b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\n"
    trickle = Exchange(head, pieces=[(0.15, b"a"), (0.15, b"b"), (0.15, b"c")])

    async def body(server: RawServer, client: JudgeHttpClient) -> bytes:
        return (await client.get(server.url())).content

    # 0.45 s in all, never more than 0.15 s of silence: a 0.3 s read timeout lets it through.
    _, content = run_with([trickle], body, timeout=httpx.Timeout(5.0, read=0.3))
    assert content == b"abc"

    async def silent(server: RawServer, client: JudgeHttpClient) -> None:
        with pytest.raises(httpx.ReadTimeout):
            await client.get(server.url())

    server, _ = run_with([Exchange(ok_reply(), delay=1.0)], silent, timeout=httpx.Timeout(0.2))
    assert server.requests


def test_pool_bounds_connections_and_times_out_waiting() -> None:
    async def body(server: RawServer, client: JudgeHttpClient) -> list[int]:
        replies = await asyncio.gather(
            *(client.post(server.url(), content=b"{}") for _ in range(6))
        )
        return [r.status_code for r in replies]

    server, statuses = run_with([Exchange(ok_reply(), delay=0.05)], body, max_connections=2)
    assert statuses == [200] * 6
    assert server.max_open == 2

    async def starved(server: RawServer, client: JudgeHttpClient) -> None:
        slow = asyncio.ensure_future(client.get(server.url()))
        await asyncio.sleep(0.05)
        with pytest.raises(httpx.PoolTimeout):
            await client.get(server.url())
        await slow

    run_with(
        [Exchange(ok_reply(), delay=0.5)],
        starved,
        max_connections=1,
        timeout=httpx.Timeout(5.0, pool=0.1),
    )


def test_head_reply_has_no_body_whatever_its_length_says() -> None:
    async def body(server: RawServer, client: JudgeHttpClient) -> httpx.Response:
        return await client.head(server.url())

    _, response = run_with([Exchange(b"HTTP/1.1 200 OK\r\nContent-Length: 12\r\n\r\n")], body)
    assert isinstance(response, httpx.Response)
    assert (response.status_code, response.content) == (200, b"")


def test_header_with_a_line_break_is_refused_before_sending() -> None:
    async def body(server: RawServer, client: JudgeHttpClient) -> None:
        with pytest.raises(httpx.LocalProtocolError):
            await client.post(
                server.url(), content=b"{}", headers={"Authorization": "Bearer a\r\nX-Evil: 1"}
            )

    server, _ = run_with([Exchange(ok_reply())], body)
    assert server.requests == []


def test_connect_failures_and_unsupported_schemes() -> None:
    async def go() -> None:
        async with JudgeHttpClient(transport=Http11Transport(max_connections=1)) as client:
            with pytest.raises(httpx.ConnectError, match=r"127\.0\.0\.1:1\b"):
                await client.get("http://127.0.0.1:1/")
            with pytest.raises(httpx.UnsupportedProtocol):
                await client.send(httpx.Request("GET", "ftp://127.0.0.1/x"))

    asyncio.run(go())


def test_closing_the_client_closes_pooled_connections() -> None:
    async def body(server: RawServer, client: JudgeHttpClient) -> int:
        await client.get(server.url())
        return server.open_connections

    server, open_before_close = run_with([Exchange(ok_reply())], body)
    assert open_before_close == 1
    assert server.open_connections == 0
    assert server.closed_by_client == 1


def test_plain_sends_skip_httpx_wrapping_but_auth_hooks_and_redirects_still_work() -> None:
    seen: list[str] = []

    async def hook(request: httpx.Request) -> None:
        seen.append(request.method)

    redirect = b"HTTP/1.1 302 Found\r\nLocation: /next\r\nContent-Length: 0\r\n\r\n"

    async def body(server: RawServer, client: JudgeHttpClient) -> list[int]:
        codes = [(await client.get(server.url(), auth=("user", "pw"))).status_code]
        client.event_hooks = {"request": [hook], "response": []}
        codes.append((await client.get(server.url(), follow_redirects=True)).status_code)
        return codes

    server, codes = run_with([Exchange(ok_reply()), Exchange(redirect), Exchange(ok_reply())], body)
    assert codes == [200, 200]
    assert b"Authorization: Basic dXNlcjpwdw==" in server.requests[0]
    assert server.requests[2].startswith(b"GET /next HTTP/1.1")
    assert seen == ["GET", "GET"]


def test_judge_calls_over_tls_with_a_trusted_authority(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    authority = trustme.CA()
    server_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    authority.issue_cert("127.0.0.1").configure_cert(server_context)
    with JudgeServer(ssl_context=server_context) as server:
        assert server.base_url.startswith("https://127.0.0.1:")
        settings = settings_for(server)

        async def call(client_context: ssl.SSLContext | None) -> bytes:
            transport = Http11Transport(max_connections=2, ssl_context=client_context)
            async with JudgeHttpClient(transport=transport) as client:
                response = await client.post(settings.endpoint, json={"messages": []})
                return response.content

        trusting = ssl.create_default_context()
        authority.configure_trust(trusting)
        assert b"chat.completion" in asyncio.run(call(trusting))
        with pytest.raises(httpx.ConnectError, match="CERTIFICATE_VERIFY_FAILED"):
            asyncio.run(call(None))
        assert server.count == 1

        # The judge client as a run builds it, trusting the authority through SSL_CERT_FILE.
        bundle = tmp_path / "ca.pem"
        authority.cert_pem.write_to_path(str(bundle))
        monkeypatch.setenv("SSL_CERT_FILE", str(bundle))
        assert ask(settings).text
        assert server.count == 2
