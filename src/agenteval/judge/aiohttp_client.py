"""The run's judge HTTP client: ``httpx.AsyncClient`` over the ``httpx-aiohttp`` transport.

Measured with bench/judge_throughput.py (2,000 calls, 50 ms loopback latency,
two shared cores, median of 3 rounds): this client took 1.18x the ideal time
at 64 calls in flight and 1.09x at 16 (0.5-0.65 ms of client CPU per call);
httpx's own async transport took 29.7x at 64.  So the maintained package meets
the 1.3x target and judge calls keep the httpx API while aiohttp moves the bytes.  httpx decides proxies from the
environment (``HTTP_PROXY``/``HTTPS_PROXY``/``ALL_PROXY``, ``NO_PROXY``) and
hands each proxied scheme its own transport; TLS trusts certifi, or
``SSL_CERT_FILE``/``SSL_CERT_DIR`` when set.  Redirects are not followed and no
cookie is kept on either layer: a judge API is stateless.
"""

from __future__ import annotations

import functools
import os
import ssl
import urllib.request
from http.client import HTTPResponse
from http.cookiejar import CookieJar
from typing import Any

import aiohttp
import httpx
from httpx_aiohttp import AiohttpTransport, HttpxAiohttpClient

from agenteval import __version__

# Every judge request names agenteval and its version.
USER_AGENT = f"agenteval/{__version__}"

# Idle keep-alive connections are kept this long (s); judges are called in bursts.
KEEPALIVE_EXPIRY = 30.0


def default_ssl_context() -> ssl.SSLContext:
    """httpx's default TLS context: certifi, or ``SSL_CERT_FILE``/``SSL_CERT_DIR`` when set."""
    return _ssl_context(os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR"))


@functools.cache
def _ssl_context(cert_file: str | None, cert_dir: str | None) -> ssl.SSLContext:
    # Loading the CA bundle takes tens of milliseconds, so one context serves every client
    # with the same trust settings; httpx reads the two variables itself.
    return httpx.create_ssl_context(trust_env=True)


class _DiscardingCookieJar(CookieJar):
    """A jar that keeps no cookies: a judge API is stateless."""

    def extract_cookies(self, response: HTTPResponse, request: urllib.request.Request) -> None:
        """Ignore the reply's cookies."""


class JudgeHttpClient(HttpxAiohttpClient):
    """``HttpxAiohttpClient`` whose aiohttp sessions (direct and proxied) keep no cookies."""

    def _init_transport(self, *args: Any, **kwargs: Any) -> httpx.AsyncBaseTransport:
        return _without_cookies(super()._init_transport(*args, **kwargs))

    def _init_proxy_transport(self, *args: Any, **kwargs: Any) -> httpx.AsyncBaseTransport:
        return _without_cookies(super()._init_proxy_transport(*args, **kwargs))


def _without_cookies(transport: httpx.AsyncBaseTransport) -> httpx.AsyncBaseTransport:
    """Give an ``AiohttpTransport`` a session factory with aiohttp's no-op cookie jar."""
    if not isinstance(transport, AiohttpTransport) or transport.client is not None:
        return transport
    limits, context = transport.limits, transport.ssl_context

    def session() -> aiohttp.ClientSession:
        # Called by the transport on its first request, inside the running event loop.
        connector = aiohttp.TCPConnector(
            limit=limits.max_connections or 0,
            keepalive_timeout=limits.keepalive_expiry or KEEPALIVE_EXPIRY,
            ssl=context,
        )
        return aiohttp.ClientSession(connector=connector, cookie_jar=aiohttp.DummyCookieJar())

    transport.client = session
    return transport


def open_http_client(
    concurrency: int,
    timeout: float,
    headers: dict[str, str] | None = None,
    client_class: type[JudgeHttpClient] = JudgeHttpClient,
) -> httpx.AsyncClient:
    """The run's shared client: ``concurrency`` connections, ``timeout`` s to connect and read.

    ``headers`` default to agenteval's ``User-Agent``.
    """
    limits = httpx.Limits(
        max_connections=concurrency,
        max_keepalive_connections=concurrency,
        keepalive_expiry=KEEPALIVE_EXPIRY,
    )
    return client_class(
        verify=default_ssl_context(),
        limits=limits,
        timeout=httpx.Timeout(timeout),
        follow_redirects=False,
        cookies=_DiscardingCookieJar(),
        headers={"User-Agent": USER_AGENT} if headers is None else headers,
        trust_env=True,
    )
