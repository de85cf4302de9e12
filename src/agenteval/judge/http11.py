"""A lean HTTP/1.1 keep-alive connection pool for judge calls, as an httpx transport.

Why not a general client underneath: at 64 judge calls in flight against a
50 ms judge, the client has to turn around ~1,300 calls a second on one core.
Measured with bench/judge_throughput.py (server in its own process, two
cores): httpx's own transport spent ~12 ms of CPU per call there (15x the
ideal time), httpx over aiohttp 0.67 ms (1.24x).  This pool writes each
request in one piece and parses the reply with httptools (llhttp, in C): the
whole judge call costs 0.25-0.3 ms and the run takes 1.11-1.14x the ideal.

Scope is what an API call needs: one request with a complete body, one
complete reply (Content-Length, chunked or close-delimited), keep-alive reuse,
TLS, httpx's four timeouts and exception classes.  Requests that an
environment proxy applies to are handed to :class:`AiohttpJudgeTransport`,
which speaks to proxies; everything else goes straight to the origin.
"""

from __future__ import annotations

import asyncio
import ssl
from dataclasses import dataclass
from typing import cast

import httptools
import httpx

from agenteval.judge.transport import AiohttpJudgeTransport, EnvironmentProxies, default_ssl_context

# (scheme, host, port): connections are reused only for the origin they were opened to.
Origin = tuple[str, str, int]

_DEFAULT_PORTS = {"http": 80, "https": 443}
_HTTP_VERSION = b"HTTP/1.1"


@dataclass(frozen=True)
class _Reply:
    status: int
    headers: list[tuple[bytes, bytes]]
    body: bytes
    reusable: bool


class _StaleConnection(Exception):
    """A reused connection closed before a single reply byte: the server had dropped it."""


class _Connection(asyncio.Protocol):
    """One connection to one origin, carrying one exchange at a time."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self.transport: asyncio.Transport | None = None
        self.closed = False
        self.idle_since = 0.0
        self.exchanges = 0
        self._parser = httptools.HttpResponseParser(self)
        self._reply: asyncio.Future[_Reply] | None = None
        self._headers: list[tuple[bytes, bytes]] = []
        self._body: list[bytes] = []
        self._status = 0
        self._received = False
        self._until_close = False
        self._head = False
        self._last_data = 0.0
        self._read_timeout: float | None = None
        self._timer: asyncio.TimerHandle | None = None

    # asyncio.Protocol

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)

    def data_received(self, data: bytes) -> None:
        reply = self._reply
        if reply is None or reply.done():
            # Bytes nobody asked for: the connection's state is unknown, so it is not reused.
            self.close()
            return
        self._received = True
        self._last_data = self._loop.time()
        try:
            self._parser.feed_data(data)
        except httptools.HttpParserError as exc:
            self._fail(httpx.RemoteProtocolError(f"malformed HTTP reply: {exc}"))
            self.close()

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        reply = self._reply
        if reply is None or reply.done():
            return
        if self._until_close and self._status:
            self._finish(reusable=False)
        elif not self._received and self.exchanges > 1:
            reply.set_exception(_StaleConnection())
        else:
            detail = f": {exc}" if exc else ""
            reply.set_exception(
                httpx.RemoteProtocolError(f"server closed the connection before replying{detail}")
            )

    # httptools callbacks

    def on_header(self, name: bytes, value: bytes) -> None:
        self._headers.append((name, value))

    def on_headers_complete(self) -> None:
        self._status = self._parser.get_status_code()
        if self._head and self._status >= 200:
            # A HEAD reply has no body, whatever its Content-Length says; llhttp would wait for one.
            self._finish(reusable=False)
            return
        if self._status >= 200 and self._status not in (204, 304):
            names = {name.lower() for name, _ in self._headers}
            self._until_close = b"content-length" not in names and (
                b"transfer-encoding" not in names
            )

    def on_body(self, body: bytes) -> None:
        self._body.append(body)

    def on_message_complete(self) -> None:
        if self._status < 200:
            # An informational reply (100 Continue, 103 Early Hints): the real one follows.
            self._headers, self._body, self._status = [], [], 0
            return
        self._finish(reusable=self._parser.should_keep_alive())

    # one exchange

    async def exchange(self, data: bytes, read_timeout: float | None, head: bool) -> _Reply:
        """Write one request and wait for its complete reply."""
        assert self.transport is not None
        reply: asyncio.Future[_Reply] = self._loop.create_future()
        self._reply = reply
        self._headers, self._body, self._status = [], [], 0
        self._received = self._until_close = False
        self._head = head
        self.exchanges += 1
        self.transport.write(data)
        if read_timeout is not None:
            self._read_timeout = read_timeout
            self._last_data = self._loop.time()
            self._timer = self._loop.call_at(
                self._last_data + read_timeout, self._check_read_timeout
            )
        try:
            return await reply
        finally:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            if not reply.done() or reply.cancelled() or reply.exception() is not None:
                # Cancelled or failed half way: what the server sends next would be misread.
                self.close()
            self._reply = None

    def _check_read_timeout(self) -> None:
        # httpx's read timeout bounds the silence between reads, not the whole reply.
        reply, limit = self._reply, self._read_timeout
        if reply is None or reply.done() or limit is None:
            return
        due = self._last_data + limit
        if self._loop.time() >= due:
            self._fail(httpx.ReadTimeout(f"no reply data for {limit:g} s"))
            self.close()
        else:
            self._timer = self._loop.call_at(due, self._check_read_timeout)

    def _finish(self, reusable: bool) -> None:
        reply = self._reply
        if reply is not None and not reply.done():
            body = b"".join(self._body) if len(self._body) != 1 else self._body[0]
            reply.set_result(_Reply(self._status, self._headers, body, reusable))

    def _fail(self, exc: Exception) -> None:
        if self._reply is not None and not self._reply.done():
            self._reply.set_exception(exc)

    def close(self) -> None:
        """Close the socket; the pool forgets the connection."""
        self.closed = True
        if self.transport is not None:
            self.transport.close()


class Http11Transport(httpx.AsyncBaseTransport):
    """httpx transport over a keep-alive pool of at most ``max_connections`` connections."""

    def __init__(
        self,
        *,
        max_connections: int,
        keepalive_expiry: float = 30.0,
        ssl_context: ssl.SSLContext | None = None,
        trust_env: bool = True,
    ) -> None:
        if max_connections < 1:
            raise ValueError("max_connections must be at least 1")
        self._max_connections = max_connections
        self._keepalive_expiry = keepalive_expiry
        self._ssl_context = ssl_context
        self._trust_env = trust_env
        self.proxies = EnvironmentProxies(trust_env)
        self._idle: dict[Origin, list[_Connection]] = {}
        self._open: set[_Connection] = set()
        self._slots: asyncio.Semaphore | None = None
        self._proxied: AiohttpJudgeTransport | None = None

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """Send ``request`` and return the complete response."""
        if self.proxies.proxy_for(request.url) is not None:
            return await self._through_proxy(request)
        try:
            reply = await self._send(request)
        except httpx.TransportError as exc:
            exc.request = request
            raise
        return httpx.Response(
            reply.status,
            headers=reply.headers,
            content=reply.body,
            request=request,
            extensions={"http_version": _HTTP_VERSION},
        )

    async def _send(self, request: httpx.Request) -> _Reply:
        url = request.url
        scheme = url.scheme
        if scheme not in _DEFAULT_PORTS:
            raise httpx.UnsupportedProtocol(f"unsupported URL scheme {scheme!r}")
        origin = (scheme, url.host, url.port or _DEFAULT_PORTS[scheme])
        timeouts = request.extensions.get("timeout", {})
        data = _serialize(request, await request.aread())
        head = request.method == "HEAD"
        slots = self._slots
        if slots is None:
            # Made on first use so it belongs to the running loop.
            slots = self._slots = asyncio.Semaphore(self._max_connections)
        if slots.locked():
            try:
                async with asyncio.timeout(timeouts.get("pool")):
                    await slots.acquire()
            except TimeoutError:
                raise httpx.PoolTimeout("no free connection in the pool in time") from None
        else:
            # A free slot is taken at once; no timer to arm and cancel.
            await slots.acquire()
        try:
            connection, reply = await self._exchange(origin, data, timeouts, head)
        finally:
            slots.release()
        self._release(origin, connection, reply.reusable)
        return reply

    async def _exchange(
        self, origin: Origin, data: bytes, timeouts: dict[str, float | None], head: bool
    ) -> tuple[_Connection, _Reply]:
        read_timeout = timeouts.get("read")
        connection = self._idle_connection(origin)
        if connection is not None:
            try:
                return connection, await connection.exchange(data, read_timeout, head)
            except _StaleConnection:
                # Sent on a connection the server had already dropped: nothing reached it, so
                # one more try on a fresh connection is safe even for a POST.
                self._discard(connection)
            except BaseException:
                self._discard(connection)
                raise
        # A fresh connection is never stale: an early close comes back as RemoteProtocolError.
        connection = await self._connect(origin, timeouts.get("connect"))
        try:
            return connection, await connection.exchange(data, read_timeout, head)
        except BaseException:
            self._discard(connection)
            raise

    def _idle_connection(self, origin: Origin) -> _Connection | None:
        idle = self._idle.get(origin)
        if not idle:
            return None
        now = asyncio.get_running_loop().time()
        while idle:
            # Most recently used first: the least likely to have been dropped by the server.
            connection = idle.pop()
            transport = connection.transport
            if (
                connection.closed
                or transport is None
                or transport.is_closing()
                or now - connection.idle_since > self._keepalive_expiry
            ):
                self._discard(connection)
                continue
            return connection
        return None

    async def _connect(self, origin: Origin, timeout: float | None) -> _Connection:
        scheme, host, port = origin
        loop = asyncio.get_running_loop()
        context = None
        if scheme == "https":
            context = self._ssl_context or default_ssl_context(self._trust_env)
        try:
            async with asyncio.timeout(timeout):
                _, connection = await loop.create_connection(
                    lambda: _Connection(loop),
                    host,
                    port,
                    ssl=context,
                    server_hostname=host if context is not None else None,
                )
        except TimeoutError:
            raise httpx.ConnectTimeout(f"connecting to {host}:{port} timed out") from None
        except OSError as exc:
            # Refused, unreachable, unresolvable, or a TLS failure (ssl.SSLError is an OSError).
            raise httpx.ConnectError(f"cannot connect to {host}:{port}: {exc}") from exc
        self._open.add(connection)
        return connection

    def _release(self, origin: Origin, connection: _Connection, reusable: bool) -> None:
        if not reusable or connection.closed:
            self._discard(connection)
            return
        idle = self._idle.setdefault(origin, [])
        if len(idle) >= self._max_connections:
            self._discard(idle.pop(0))
        connection.idle_since = asyncio.get_running_loop().time()
        idle.append(connection)

    def _discard(self, connection: _Connection) -> None:
        connection.close()
        self._open.discard(connection)

    async def _through_proxy(self, request: httpx.Request) -> httpx.Response:
        if self._proxied is None:
            self._proxied = AiohttpJudgeTransport(
                max_connections=self._max_connections,
                keepalive_expiry=self._keepalive_expiry,
                ssl_context=self._ssl_context,
                trust_env=self._trust_env,
            )
        return await self._proxied.handle_async_request(request)

    async def aclose(self) -> None:
        """Close every connection, idle or not, and the proxy transport."""
        for connection in list(self._open):
            self._discard(connection)
        self._idle.clear()
        if self._proxied is not None:
            await self._proxied.aclose()
            self._proxied = None


def _serialize(request: httpx.Request, body: bytes) -> bytes:
    """The request as one byte string: one write, so Nagle never splits head and body."""
    lines = [request.method.encode("ascii"), b" ", request.url.raw_path, b" HTTP/1.1\r\n"]
    chunked = False
    for name, value in request.headers.raw:
        if b"\r" in value or b"\n" in value or b"\r" in name or b"\n" in name:
            # A header value carrying CR/LF would let it smuggle a header or a request.
            raise httpx.LocalProtocolError(f"header {name.decode('latin-1')!r} contains CR or LF")
        if name.lower() == b"transfer-encoding" and value.lower() == b"chunked":
            chunked = True
        lines += (name, b": ", value, b"\r\n")
    lines.append(b"\r\n")
    if chunked:
        # A streamed request body, read whole above; it still goes out as the header announced.
        if body:
            lines += (f"{len(body):x}\r\n".encode("ascii"), body, b"\r\n")
        lines.append(b"0\r\n\r\n")
    else:
        lines.append(body)
    return b"".join(lines)
