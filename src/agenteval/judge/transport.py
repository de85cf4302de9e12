"""An httpx transport over one aiohttp session, lean enough for a busy judge pool.

httpx's own async transport slows to a crawl with dozens of concurrent
connections, and the ``httpx-aiohttp`` transport spends more CPU per call than
the request itself on loopback (it streams the body chunk by chunk, rebuilds
headers through ``httpx.Headers`` and, with ``trust_env``, hops to a thread
twice per request).  This transport keeps the httpx API (``AsyncClient``,
``Request``, ``Response`` and its exceptions) and does the minimum per call:
hand the raw headers and body to aiohttp, read the whole reply, wrap it.

Proxies come from the environment (``HTTP_PROXY``/``HTTPS_PROXY``/``ALL_PROXY``
and ``NO_PROXY``), decided once per scheme and host.  Cookies are not kept.
"""

from __future__ import annotations

import functools
import os
import ssl
import urllib.request

import aiohttp
import httpx


def default_ssl_context(trust_env: bool) -> ssl.SSLContext:
    """httpx's default TLS context (certifi, or SSL_CERT_FILE/SSL_CERT_DIR with ``trust_env``)."""
    if not trust_env:
        return _ssl_context(None, None)
    return _ssl_context(os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR"))


@functools.cache
def _ssl_context(cert_file: str | None, cert_dir: str | None) -> ssl.SSLContext:
    # Loading the CA bundle takes tens of milliseconds, so one context serves every client
    # with the same trust settings; httpx reads the two variables itself.
    return httpx.create_ssl_context(trust_env=cert_file is not None or cert_dir is not None)


class EnvironmentProxies:
    """``HTTP_PROXY``/``HTTPS_PROXY``/``ALL_PROXY`` and ``NO_PROXY``, decided once per scheme and host."""

    def __init__(self, trust_env: bool = True) -> None:
        self._env_proxies = urllib.request.getproxies() if trust_env else {}
        self._decided: dict[tuple[str, str], str | None] = {}

    def proxy_for(self, url: httpx.URL) -> str | None:
        """The environment's proxy for ``url``, or ``None`` (NO_PROXY honoured)."""
        key = (url.scheme, url.host)
        if key not in self._decided:
            proxy = self._env_proxies.get(url.scheme) or self._env_proxies.get("all")
            if proxy and urllib.request.proxy_bypass(url.host):
                proxy = None
            self._decided[key] = proxy or None
        return self._decided[key]


class AiohttpJudgeTransport(httpx.AsyncBaseTransport):
    """Sends httpx requests through a lazily created aiohttp ``ClientSession``."""

    def __init__(
        self,
        *,
        max_connections: int,
        keepalive_expiry: float = 30.0,
        ssl_context: ssl.SSLContext | None = None,
        trust_env: bool = True,
    ) -> None:
        self._max_connections = max_connections
        self._keepalive_expiry = keepalive_expiry
        self._ssl = ssl_context or default_ssl_context(trust_env)
        self.proxies = EnvironmentProxies(trust_env)
        self._session: aiohttp.ClientSession | None = None

    def _session_now(self) -> aiohttp.ClientSession:
        # Created inside the running loop, on first use.
        if self._session is None:
            connector = aiohttp.TCPConnector(
                limit=self._max_connections,
                keepalive_timeout=self._keepalive_expiry,
                ssl=self._ssl,
            )
            self._session = aiohttp.ClientSession(
                connector=connector,
                cookie_jar=aiohttp.DummyCookieJar(),
                auto_decompress=False,
                trust_env=False,
            )
        return self._session

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """Send ``request`` and return the complete response."""
        session = self._session_now()
        timeouts = request.extensions.get("timeout", {})
        timeout = aiohttp.ClientTimeout(
            total=None,
            connect=timeouts.get("pool"),
            sock_connect=timeouts.get("connect"),
            sock_read=timeouts.get("read"),
        )
        headers = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in request.headers.raw]
        body = await request.aread()
        try:
            async with session.request(
                request.method,
                str(request.url),
                headers=headers,
                data=body or None,
                allow_redirects=False,
                compress=False,
                timeout=timeout,
                proxy=self.proxies.proxy_for(request.url),
            ) as reply:
                content = await reply.read()
                status, raw_headers, reason = reply.status, reply.raw_headers, reply.reason
        except (TimeoutError, aiohttp.ServerTimeoutError) as exc:
            raise httpx.ReadTimeout(str(exc) or "read timed out", request=request) from exc
        except aiohttp.ClientConnectorError as exc:
            raise httpx.ConnectError(str(exc), request=request) from exc
        except aiohttp.ClientError as exc:
            raise httpx.ReadError(f"{type(exc).__name__}: {exc}", request=request) from exc
        return httpx.Response(
            status,
            headers=list(raw_headers),
            content=content,
            request=request,
            extensions={"http_version": b"HTTP/1.1", "reason_phrase": (reason or "").encode()},
        )

    async def aclose(self) -> None:
        """Close the session and its connections."""
        if self._session is not None:
            await self._session.close()
            self._session = None
