"""Loopback judge server for tests and benchmarks, speaking any judge provider's wire format.

``JudgeServer`` answers ``POST /v1/chat/completions`` on 127.0.0.1 (ephemeral
port) from an aiohttp application running on its own event loop in a thread;
with ``provider="anthropic"`` (``gemini``, ``ollama``, ``hunyuan``) it answers
that provider's endpoint in its shapes instead (see ``judge_provider_wire``),
and for hunyuan checks the TC3-HMAC-SHA256 signature of every request.
Replies are scripted: a queue served in arrival order wins, then the first
rule whose pattern matches the prompt (the message contents joined by
newlines), then ``default``.  A reply
can carry logprobs, usage numbers, extra latency and injected faults (429 with
Retry-After, 5xx, hangs, dropped connections, a 200 with an error body,
malformed JSON, empty choices).  Every request is recorded (path, headers,
body) so tests can assert what was sent and how often.

Run it as a script (``python tests/judge_server.py --provider gemini --latency 0.05``) to serve
from a separate process; it prints its base URL and serves until stdin closes.
"""

from __future__ import annotations

import argparse
import asyncio
import hmac
import json
import re
import ssl
import sys
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from aiohttp import web
from aiohttp.abc import AbstractStreamWriter
from aiohttp.http_parser import RawRequestMessage
from aiohttp.streams import StreamReader
from aiohttp.web_protocol import RequestHandler

from agenteval.judge.providers.tc3 import authorization
from judge_provider_wire import PROVIDERS, base_path, error_reply, route_ok, success_body
from judge_provider_wire import prompt_of as provider_prompt_of

VALID_VERDICT = "reasoning: matches the reference\nis_the_agent_response_valid: valid"


@dataclass
class Reply:
    """One scripted answer of the server: a chat completion or a fault."""

    content: str = VALID_VERDICT
    logprobs: list[dict[str, Any]] | None = None
    prompt_tokens: int = 11
    completion_tokens: int = 7
    # The part of prompt_tokens the provider's prompt cache served.
    cached_tokens: int = 0
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes | None = None
    delay: float = 0.0
    drop: bool = False
    reasoning_content: str | None = None
    # A failure rendered in the server's provider shape, with that provider's retry hint.
    error_message: str | None = None
    retry_hint: str | None = None
    block_reason: str | None = None
    # Characters appended to ``content`` when the reply is served: a large reply costs the
    # server's memory only then (a test's child process forked before does not count it).
    filler: int = 0
    # Stream a chunked 200 body that never ends (until the client leaves or 2 GiB are sent).
    endless: bool = False

    @property
    def served_content(self) -> str:
        """``content`` with its filler."""
        return self.content + "v" * self.filler if self.filler else self.content

    @classmethod
    def rate_limited(
        cls, retry_after: str | None = "0", retry_after_ms: str | None = None
    ) -> Reply:
        """A 429 with the provider's retry hint (``Retry-After``, Gemini's ``retryDelay``)."""
        headers: dict[str, str] = {}
        if retry_after_ms is not None:
            headers["retry-after-ms"] = retry_after_ms
        reply = cls.status_error(429, "Rate limit reached", headers=headers)
        reply.retry_hint = retry_after
        return reply

    @classmethod
    def status_error(
        cls, status: int, message: str = "server error", headers: dict[str, str] | None = None
    ) -> Reply:
        """A failure with the provider's error body (hunyuan: HTTP 200 with ``Response.Error``)."""
        return cls(status=status, error_message=message, headers=dict(headers or {}))

    @classmethod
    def overloaded(cls) -> Reply:
        """Anthropic's 529 ``overloaded_error``."""
        return cls.status_error(529, "Overloaded")

    @classmethod
    def blocked(cls, reason: str = "SAFETY") -> Reply:
        """A Gemini reply whose prompt was blocked (``promptFeedback.blockReason``)."""
        return cls(block_reason=reason)

    @classmethod
    def hang(cls, seconds: float = 30.0) -> Reply:
        """Read the request, then say nothing for ``seconds`` (or until the server stops)."""
        return cls(delay=seconds, drop=True)

    @classmethod
    def dropped(cls) -> Reply:
        """Read the request, then close the connection without an answer."""
        return cls(drop=True)

    @classmethod
    def error_body(cls, message: str = "The server had an error") -> Reply:
        """HTTP 200 whose body has an ``error`` object and no choices."""
        body = {"error": {"message": message, "type": "server_error", "param": None, "code": None}}
        return cls(body=json.dumps(body).encode())

    @classmethod
    def malformed(cls) -> Reply:
        """HTTP 200 whose body is not JSON."""
        return cls(body=b'{"id": "chatcmpl-1", "choices": [')

    @classmethod
    def endless_body(cls) -> Reply:
        """HTTP 200, chunked, no Content-Length, a body that never ends."""
        return cls(endless=True)

    @classmethod
    def no_choices(cls) -> Reply:
        """HTTP 200 with ``"choices": []``."""
        body = {"id": "chatcmpl-empty", "object": "chat.completion", "choices": []}
        return cls(body=json.dumps(body).encode())


@dataclass(frozen=True)
class RecordedRequest:
    """One request as the server received it; ``body`` is the parsed JSON (``None`` if not JSON)."""

    method: str
    path: str
    headers: dict[str, str]
    raw: bytes
    received_at: float
    provider: str = "openai"

    @cached_property
    def body(self) -> Any:
        """The request body parsed as JSON (parsed on first use: benchmarks never look)."""
        try:
            return json.loads(self.raw) if self.raw else None
        except ValueError:
            return None

    @property
    def prompt(self) -> str:
        """The message contents of the body joined by newlines."""
        return provider_prompt_of(self.body, self.provider)


def prompt_of(body: Any, provider: str = "openai") -> str:
    """Join the string contents of a request body's messages."""
    return provider_prompt_of(body, provider)


@dataclass
class Rule:
    """Replies for prompts matching ``pattern``; the last reply repeats."""

    pattern: re.Pattern[str]
    replies: list[Reply]
    used: int = 0

    def next_reply(self) -> Reply:
        """The next scripted reply of this rule."""
        reply = self.replies[min(self.used, len(self.replies) - 1)]
        self.used += 1
        return reply


class JudgeServer:
    """A scripted OpenAI-compatible chat-completions server on 127.0.0.1.

    It runs an aiohttp application on its own event loop in a daemon thread:
    thousands of requests per second with dozens waiting out their latency at
    once, and TCP_NODELAY on every accepted socket (aiohttp sets it).
    """

    def __init__(
        self,
        latency: float = 0.0,
        ssl_context: ssl.SSLContext | None = None,
        provider: str = "openai",
        tc3_keys: dict[str, str] | None = None,
    ) -> None:
        if provider not in PROVIDERS:
            raise ValueError(f"unknown provider {provider!r}")
        self.latency = latency
        self.provider = provider
        # hunyuan: SecretId -> SecretKey; requests whose signature does not verify fail.
        self.tc3_keys = dict(tc3_keys or {})
        # With a context the server speaks HTTPS (tests make one with trustme).
        self.ssl_context = ssl_context
        self.default = Reply()
        self.requests: list[RecordedRequest] = []
        self._queue: deque[Reply] = deque()
        self._rules: list[Rule] = []
        self._lock = threading.Lock()
        self._loop = asyncio.new_event_loop()
        self._thread: threading.Thread | None = None
        self._runner: web.AppRunner | None = None
        self._port = 0
        self.in_flight = 0
        self.max_in_flight = 0
        # Bytes of endless bodies sent so far (shows where a client stopped reading).
        self.endless_bytes = 0

    @property
    def port(self) -> int:
        """The ephemeral TCP port."""
        return self._port

    @property
    def base_url(self) -> str:
        """The base URL a judge model config should use (openai: ends in ``/v1``)."""
        scheme = "https" if self.ssl_context is not None else "http"
        return f"{scheme}://127.0.0.1:{self._port}{base_path(self.provider)}"

    @property
    def count(self) -> int:
        """How many requests arrived so far."""
        with self._lock:
            return len(self.requests)

    def start(self) -> JudgeServer:
        """Serve in a background thread; returns once the port is bound."""
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._serve(), self._loop).result(timeout=10)
        return self

    def stop(self) -> None:
        """Stop serving, releasing hanging handlers at once."""
        if self._thread is None:
            return
        asyncio.run_coroutine_threadsafe(self._shutdown(), self._loop).result(timeout=10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)
        self._loop.close()
        self._thread = None

    def __enter__(self) -> JudgeServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def enqueue(self, *replies: Reply) -> None:
        """Serve these replies to the next requests, in arrival order."""
        with self._lock:
            self._queue.extend(replies)

    def when(self, pattern: str, *replies: Reply, regex: bool = False) -> None:
        """Answer prompts containing ``pattern`` (or matching it as a regex) with ``replies``."""
        compiled = re.compile(pattern if regex else re.escape(pattern))
        with self._lock:
            self._rules.append(Rule(compiled, list(replies) or [Reply()]))

    def reset(self) -> None:
        """Forget recorded requests, queued replies and rules."""
        with self._lock:
            self.requests.clear()
            self._queue.clear()
            self._rules.clear()
            self.max_in_flight = self.in_flight
        self.default = Reply()

    def recorded(self) -> list[RecordedRequest]:
        """A snapshot of the recorded requests."""
        with self._lock:
            return list(self.requests)

    def bodies(self) -> list[Any]:
        """The JSON bodies of the recorded requests."""
        return [r.body for r in self.recorded()]

    def _choose(self, request: RecordedRequest) -> Reply:
        with self._lock:
            self.requests.append(request)
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            if self._queue:
                return self._queue.popleft()
            if self._rules:
                # Parsed only when a rule may look: a benchmark's thousands of calls never do.
                prompt = request.prompt
                for rule in self._rules:
                    if rule.pattern.search(prompt):
                        return rule.next_reply()
            return self.default

    async def _serve(self) -> None:
        # aiohttp's low-level server: every path reaches _handle, without an application's
        # router and middleware chain (a third of the server's CPU per request).
        server = web.Server(self._handle, request_factory=self._make_request, access_log=None)
        self._runner = web.ServerRunner(server, shutdown_timeout=0.5)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0, backlog=1024, ssl_context=self.ssl_context)
        await site.start()
        self._port = int(self._runner.addresses[0][1])

    def _make_request(
        self,
        message: RawRequestMessage,
        payload: StreamReader,
        protocol: RequestHandler,
        writer: AbstractStreamWriter,
        task: asyncio.Task[None],
    ) -> web.BaseRequest:
        # Large prompts are fine here: the limit only guards a real server's memory.
        return web.BaseRequest(
            message, payload, protocol, writer, task, self._loop, client_max_size=64 * 1024 * 1024
        )

    async def _shutdown(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
        # A handler still waiting (a hanging reply whose client went away) would be
        # destroyed pending when the loop closes ("Task was destroyed but it is pending"
        # at the test worker's exit): cancel what is left and let it finish here.
        left = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        for task in left:
            task.cancel()
        await asyncio.gather(*left, return_exceptions=True)

    async def _pause(self, seconds: float) -> None:
        # A plain sleep is the cheapest wait; on stop, the runner cancels hanging handlers.
        if seconds > 0:
            await asyncio.sleep(seconds)

    async def _handle(self, request: web.BaseRequest) -> web.StreamResponse:
        raw = await request.read()
        headers = {k.lower(): v for k, v in request.headers.items()}
        recorded = RecordedRequest(
            request.method, request.path, headers, raw, time.monotonic(), self.provider
        )
        reply = self._choose(recorded)
        try:
            await self._pause(self.latency + reply.delay)
        finally:
            with self._lock:
                self.in_flight -= 1
        if reply.drop:
            # An abort sends a reset and no response, like a crashed upstream.
            if request.transport is not None:
                request.transport.abort()
            raise asyncio.CancelledError
        if not route_ok(self.provider, request.method, request.path, headers):
            status, body, _ = error_reply(
                self.provider, 404, f"no route for {request.method} {request.path}", None
            )
            return _response(status, body, {})
        if self.provider == "hunyuan" and self.tc3_keys:
            problem = self._tc3_problem(headers, raw)
            if problem is not None:
                status, body, _ = error_reply(self.provider, 401, problem, None)
                return _response(status, body, {})
        if reply.endless:
            return await self._endless(request)
        if reply.body is not None:
            return _response(reply.status, reply.body, reply.headers)
        if reply.error_message is not None:
            status, body, extra = error_reply(
                self.provider, reply.status, reply.error_message, reply.retry_hint
            )
            return _response(status, body, {**extra, **reply.headers})
        payload = success_body(
            self.provider,
            reply.served_content,
            reply.logprobs,
            reply.prompt_tokens,
            reply.completion_tokens,
            reply.reasoning_content,
            reply.block_reason,
            reply.cached_tokens,
        )
        return _response(reply.status, payload, reply.headers)

    async def _endless(self, request: web.BaseRequest) -> web.StreamResponse:
        response = web.StreamResponse(status=200, headers={"Content-Type": "application/json"})
        response.enable_chunked_encoding()
        await response.prepare(request)
        chunk = b"x" * 65536
        try:
            await response.write(b'{"choices": [{"message": {"content": "')
            while self.endless_bytes < 2 << 30:
                await response.write(chunk)
                with self._lock:
                    self.endless_bytes += len(chunk)
        except (ConnectionError, RuntimeError):
            pass  # the client hung up: what the cap is for
        return response

    def _tc3_problem(self, headers: dict[str, str], raw: bytes) -> str | None:
        """Why a hunyuan request's TC3 signature does not verify, or ``None`` when it does."""
        given = headers.get("authorization", "")
        found = re.match(
            r"^TC3-HMAC-SHA256 Credential=([^/]+)/[^,]+, SignedHeaders=([a-z0-9;-]+), "
            r"Signature=[0-9a-f]{64}$",
            given,
        )
        if found is None:
            return "AuthFailure.SignatureFailure: no TC3-HMAC-SHA256 Authorization"
        secret_id, signed = found.group(1), found.group(2).split(";")
        if secret_id not in self.tc3_keys:
            return "AuthFailure.SecretIdNotFound: unknown SecretId"
        try:
            timestamp = int(headers.get("x-tc-timestamp", ""))
        except ValueError:
            return "AuthFailure.SignatureFailure: no X-TC-Timestamp"
        expected = authorization(
            secret_id,
            self.tc3_keys[secret_id],
            "hunyuan",
            {name: headers.get(name, "") for name in signed},
            raw,
            timestamp,
        )
        if not hmac.compare_digest(expected, given):
            return "AuthFailure.SignatureFailure: the request signature does not match"
        return None


def _response(status: int, payload: bytes, headers: dict[str, str]) -> web.Response:
    return web.Response(
        status=status, body=payload, headers=headers, content_type="application/json"
    )


def completion_body(reply: Reply, provider: str = "openai") -> bytes:
    """The JSON body of a successful reply for ``reply`` in ``provider``'s shape."""
    return success_body(
        provider,
        reply.served_content,
        reply.logprobs,
        reply.prompt_tokens,
        reply.completion_tokens,
        reply.reasoning_content,
        reply.block_reason,
    )


def _main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--latency", type=float, default=0.0, help="seconds before each answer")
    parser.add_argument(
        "--provider", choices=PROVIDERS, default="openai", help="wire format to speak"
    )
    parser.add_argument(
        "--reply",
        action="append",
        default=[],
        metavar="[PATTERN=]TEXT",
        help="answer prompts containing PATTERN (or every prompt) with TEXT; repeatable",
    )
    args = parser.parse_args(argv)
    with JudgeServer(latency=args.latency, provider=args.provider) as server:
        for item in args.reply:
            pattern, sep, text = item.partition("=")
            if not sep:
                pattern, text = "", item
            server.when(pattern, Reply(content=text.replace("\\n", "\n")))
        print(server.base_url, flush=True)
        sys.stdin.read()
    return 0


if __name__ == "__main__":
    raise SystemExit(_main(sys.argv[1:]))
