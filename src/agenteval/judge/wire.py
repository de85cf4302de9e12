"""The judge backends' shared part: one JSON POST per attempt over the run's ``httpx.AsyncClient``.

A provider module (:mod:`agenteval.judge.providers`, or a plugin's) subclasses
:class:`JsonJudgeBackend` and supplies the body
(:meth:`~JsonJudgeBackend.build_body`), the reply decoder, the header that
carries its key (a bearer token by default, or headers signed per attempt) and,
where the provider has one, its error-body reading and retry hint.  Sending, the reply size cap, redaction of the credentials, and the
split into retryable (``JudgeTransientError``) and final (``JudgeRejected``)
failures live here, so every provider retries, counts and names its failures
the same way; so do the helpers every provider builds with (JSON encoding
that refuses NaN, reply decoding, header checks, transport-failure names).

Tested in tests/judge/test_providers.py (faults, redaction and cache for every provider)
and tests/judge/test_client.py (failure messages).
"""

from __future__ import annotations

import errno
import json
import math
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import aiohttp
import httpx
import orjson

from agenteval import settings as defaults
from agenteval.judge.aiohttp_client import USER_AGENT
from agenteval.judge.backend import JudgeReply, JudgeRequest, PreparedCall, TokenUsage
from agenteval.judge.config import JudgeSettings
from agenteval.judge.errors import (
    JudgeConfigError,
    JudgeRejected,
    JudgeReplyError,
    JudgeRequestError,
    JudgeTransientError,
    redact,
)
from agenteval.judge.limits import is_retryable_status, parse_retry_after
from agenteval.judge.reply_cap import capped_response

__all__ = [
    "USER_AGENT",
    "JsonJudgeBackend",
    "decode_json",
    "describe_failure",
    "encode_body",
    "error_detail",
    "given",
    "header_value",
    "int_field",
    "json_headers",
    "reported_usage",
    "sdk_should_retry",
    "system_and_turns",
    "token_count",
]


def encode_body(body: Mapping[str, Any], settings: JudgeSettings) -> bytes:
    """The body as UTF-8 JSON; NaN, infinities and non-JSON values are refused before sending."""
    try:
        payload = orjson.dumps(body)
    except TypeError as exc:
        raise JudgeRequestError(
            f"generate response: request body is not valid JSON: {exc} ({settings.describe()})"
        ) from None
    # orjson writes NaN and infinities as null (Go refuses them), so a body with a null in it
    # is searched for them; most bodies have none.
    bad = _non_finite(body) if b"null" in payload else None
    if bad is not None:
        raise JudgeRequestError(
            f"generate response: request body is not valid JSON: {bad!r} is not a JSON number "
            f"({settings.describe()})"
        )
    return payload


def _non_finite(value: Any) -> float | None:
    """The first NaN or infinity inside ``value`` (dicts, lists, tuples), or ``None``."""
    if type(value) is float:
        return None if math.isfinite(value) else value
    if isinstance(value, dict):
        value = value.values()
    elif not isinstance(value, list | tuple):
        return None
    for item in value:
        found = _non_finite(item)
        if found is not None:
            return found
    return None


def decode_json(payload: bytes, settings: JudgeSettings) -> dict[str, Any]:
    """A 2xx reply body as a JSON object, or ``JudgeReplyError`` (every provider reads through it)."""
    who = settings.describe()
    try:
        # The stdlib parser, not orjson: it reads the -Infinity logprobs some servers send.
        data = json.loads(payload)
    except ValueError as exc:
        raise JudgeReplyError(f"response error: malformed JSON from {who}: {exc}") from None
    if not isinstance(data, dict):
        raise JudgeReplyError(f"response error: reply from {who} is not a JSON object")
    return data


def describe_failure(exc: BaseException) -> str:
    """Name a transport failure by what happened: connection refused, timed out, or its root cause.

    httpx-aiohttp maps several aiohttp errors to one httpx class (a refused
    connection arrives as ``httpx.ConnectTimeout``), so the cause chain decides.
    """
    chain = [exc]
    while chain[-1].__cause__ is not None:
        chain.append(chain[-1].__cause__)
    root = chain[-1]
    text = str(root) or str(exc)
    if any(_refused(link) for link in chain):
        return f"connection refused ({text})" if text else "connection refused"
    named = f"{type(root).__name__}: {text}" if text else type(root).__name__
    # aiohttp's timeouts are TimeoutErrors; httpx's own transport ends its chain in httpcore's.
    timed_out = any(isinstance(link, TimeoutError) for link in chain) or (
        isinstance(exc, httpx.TimeoutException)
        and not isinstance(root, OSError | aiohttp.ClientError)
    )
    return f"timed out ({named})" if timed_out else named


def _refused(exc: BaseException) -> bool:
    return isinstance(exc, ConnectionRefusedError) or (
        isinstance(exc, OSError) and exc.errno == errno.ECONNREFUSED
    )


def error_detail(response: httpx.Response, *, with_kind: bool = False) -> str:
    """The server's error message (prefixed by its type or status if asked), or the body's start.

    OpenAI's messages stand alone; the other providers' backends prefix the error's kind.
    """
    try:
        data = response.json()
    except ValueError:
        data = None
    if isinstance(data, Mapping):
        error = data.get("error")
        if isinstance(error, Mapping) and isinstance(error.get("message"), str):
            kind = (error.get("type") or error.get("status")) if with_kind else None
            prefix = f"{kind}: " if isinstance(kind, str) and kind else ""
            return prefix + str(error["message"])
        if isinstance(error, str):
            return error
    text = response.text.strip()
    return text[:300] if text else response.reason_phrase or "no body"


def sdk_should_retry(response: httpx.Response) -> bool:
    """The OpenAI and Anthropic SDKs' rule: ``x-should-retry`` wins, else 408/409/429/5xx."""
    hint = str(response.headers.get("x-should-retry", "")).lower()
    if hint in ("true", "false"):
        return hint == "true"
    return is_retryable_status(response.status_code)


def header_value(text: str, settings: JudgeSettings, what: str = "API key") -> str:
    """``text`` if an HTTP header can carry it (latin-1), else a config error without the text."""
    try:
        text.encode("latin-1")
    except UnicodeEncodeError:
        ok = False
    else:
        ok = True
    if not ok:
        raise JudgeConfigError(
            f"the {what} of {settings.describe()} holds characters an HTTP header "
            "cannot carry (check the variable it comes from)"
        )
    return text


def int_field(data: Any, name: str) -> int:
    """``data[name]`` when it is an integer, else 0 (usage numbers are advisory)."""
    value = data.get(name) if isinstance(data, dict) else None
    return value if type(value) is int else 0


def token_count(data: Any, name: str, *, required: bool = True) -> int | None:
    """``data[name]`` as a token count; None when it is not a non-negative integer.

    An absent count is 0 when not ``required`` (a provider that leaves out zero counts,
    or an optional part such as cached tokens), else None like a malformed one.
    """
    if not isinstance(data, dict):
        return None
    value = data.get(name)
    if value is None and not required:
        return 0
    return value if type(value) is int and value >= 0 else None


def reported_usage(
    prompt: int | None, completion: int | None, cached: int | None = 0, written: int | None = 0
) -> TokenUsage:
    """The usage of a reply from its :func:`token_count` counts.

    A missing or impossible count (None, or cached and written tokens beyond the prompt)
    makes the usage unreported: its tokens and cost are unknown, which a report and a
    budget must say rather than count the reply as free.
    """
    if prompt is None or completion is None or cached is None or written is None:
        return TokenUsage(reported=False)
    usage = TokenUsage(prompt, completion, cached_prompt_tokens=cached, cache_write_tokens=written)
    return usage if usage.usable else TokenUsage(reported=False)


def system_and_turns(request: JudgeRequest) -> tuple[list[str], list[tuple[str, str]]]:
    """The request's system texts and its other messages as ``(role, text)`` pairs."""
    system = [m.content for m in request.messages if m.role == "system"]
    turns = [(m.role, m.content) for m in request.messages if m.role != "system"]
    return system, turns


def given(fields: Mapping[str, Any]) -> dict[str, Any]:
    """``fields`` without the unset (``None``) ones: a body sends only what is configured."""
    return {key: value for key, value in fields.items() if value is not None}


def json_headers(
    settings: JudgeSettings,
    key_header: str,
    key_prefix: str = "",
    extra: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """A JSON call's fixed headers: type, accept, user agent, ``extra``, then the API key if any."""
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json",
        "User-Agent": USER_AGENT,
        **(extra or {}),
    }
    if settings.api_key:
        headers[key_header] = key_prefix + header_value(settings.api_key.reveal(), settings)
    return headers


class JsonJudgeBackend:
    """A judge backend that POSTs one JSON body per attempt; subclasses speak one provider."""

    # Whether the headers depend on the body or the time (a signature): then built per call
    # by an override of ``headers``; else they are ``json_headers`` with the key sent as
    # ``key_header: key_prefix + key``, plus ``fixed_headers``, built once.
    signs_each_call = False
    key_header: ClassVar[str] = "Authorization"
    key_prefix: ClassVar[str] = "Bearer "
    fixed_headers: ClassVar[Mapping[str, str]] = {}
    # The largest reply body read; the judge client sets the run's --judge-max-reply-bytes.
    max_reply_bytes = defaults.JUDGE_MAX_REPLY_BYTES

    def __init__(self, settings: JudgeSettings, http: httpx.AsyncClient | None) -> None:
        self._settings = settings
        self._http = http
        self._secrets = self.secrets(settings)
        # Parsed once: httpx would otherwise parse the same URL and headers on every call.
        self._url = httpx.URL(settings.endpoint)
        self._raw_headers: list[tuple[bytes, bytes]] | None = None
        self._fixed = (
            {}
            if self.signs_each_call
            else json_headers(settings, self.key_header, self.key_prefix, self.fixed_headers)
        )

    @property
    def settings(self) -> JudgeSettings:
        """The judge model this backend calls."""
        return self._settings

    # -- what a provider supplies -------------------------------------------------------

    def secrets(self, settings: JudgeSettings) -> Sequence[str]:
        """Every credential string that must never appear in a message."""
        key = settings.api_key.reveal()
        return [key] if key else []

    def build_body(self, request: JudgeRequest) -> dict[str, Any]:
        """The provider's request body; raise ``JudgeRequestError`` to refuse it unsent."""
        raise NotImplementedError

    def headers(self, payload: bytes) -> dict[str, str]:
        """The headers of one attempt carrying ``payload`` (credentials included)."""
        return self._fixed

    def parse_reply(self, payload: bytes) -> JudgeReply:
        """Decode a 2xx reply; raise ``JudgeReplyError`` (or ``JudgeTransientError``)."""
        raise NotImplementedError

    def error_detail(self, response: httpx.Response) -> str:
        """The server's error message for a non-2xx reply: ``kind: error.message`` or the body."""
        return error_detail(response, with_kind=True)

    def retry_hint(self, response: httpx.Response) -> float | None:
        """Seconds the server asks us to wait before the next attempt."""
        return parse_retry_after(response.headers)

    def should_retry(self, response: httpx.Response) -> bool:
        """Whether a non-2xx reply is worth another attempt."""
        return is_retryable_status(response.status_code)

    # -- the shared part ---------------------------------------------------------------

    def prepare(self, request: JudgeRequest, sample_index: int) -> PreparedCall:
        """Build and check the body; nothing is sent."""
        body = self.build_body(request)
        body.update(request.settings.extra_fields)
        settings = request.settings
        payload = encode_body(body, settings)
        return PreparedCall(
            settings.endpoint, settings.model, body, sample_index, payload, settings.provider
        )

    def redact(self, text: str) -> str:
        """``text`` with every credential hidden."""
        for secret in self._secrets:
            text = redact(text, secret)
        return text

    async def send(self, call: PreparedCall) -> JudgeReply:
        """POST the call once; transient failures raise ``JudgeTransientError``."""
        if self._http is None:
            raise RuntimeError("this judge backend has no HTTP client (offline mode)")
        payload = (
            call.payload if call.payload is not None else encode_body(call.body, self._settings)
        )
        url = self._url if call.endpoint == self._settings.endpoint else httpx.URL(call.endpoint)
        # A ready stream makes httpx infer no headers, so Host and Content-Length come with ours.
        request = httpx.Request(
            "POST",
            url,
            headers=[
                (b"Host", url.netloc),
                *self._encoded_headers(payload),
                (b"Content-Length", str(len(payload)).encode("ascii")),
            ],
            stream=httpx.ByteStream(payload),
        )
        try:
            response = await capped_response(
                await self._http.send(request, stream=True),
                self.max_reply_bytes,
                self._settings.describe(),
            )
        except (httpx.TransportError, aiohttp.ClientError, OSError) as exc:
            # aiohttp-based transports may let their own errors through unwrapped.
            raise JudgeTransientError(self.redact(describe_failure(exc))) from None
        status = response.status_code
        if 200 <= status < 300:
            try:
                return self.parse_reply(response.content)
            except JudgeReplyError as exc:
                raise JudgeReplyError(self.redact(str(exc)), exc.usage) from None
            except JudgeTransientError as exc:
                raise JudgeTransientError(self.redact(str(exc)), exc.retry_after) from None
            except JudgeRejected as exc:
                raise JudgeRejected(self.redact(str(exc)), exc.status) from None
        detail = self.redact(f"HTTP {status}: {self.error_detail(response)}")
        if self.should_retry(response):
            raise JudgeTransientError(detail, retry_after=self.retry_hint(response))
        raise JudgeRejected(f"response error: {detail} ({self._settings.describe()})", status)

    def _encoded_headers(self, payload: bytes) -> list[tuple[bytes, bytes]]:
        if self._raw_headers is not None:
            return self._raw_headers
        encoded = [
            (name.encode("latin-1"), value.encode("latin-1"))
            for name, value in self.headers(payload).items()
            if name.lower() != "host"
        ]
        if not self.signs_each_call:
            self._raw_headers = encoded
        return encoded
