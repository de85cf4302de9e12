"""OpenAI-compatible chat-completions backend over httpx (llm-evaluators.md §3.4).

The request body follows the Go ``model/openai`` provider: ``max_completion_tokens``
(``max_tokens`` for deepseek), only the first ``stop`` string, ``logprobs`` /
``top_logprobs`` with the top-logprobs check done before anything is sent,
variant-specific thinking toggles, ``json_schema`` or (deepseek) ``json_object``
response formats, and ``extraFields`` merged last.  No per-model cap of
``max_tokens`` is applied (Go clamps to a table of known model limits).

Transport: one shared ``httpx.AsyncClient`` per run over the ``httpx-aiohttp``
transport (:mod:`agenteval.judge.aiohttp_client`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

import aiohttp
import httpx
import orjson

from agenteval import __version__
from agenteval import settings as defaults
from agenteval.judge import aiohttp_client
from agenteval.judge.backend import (
    JudgeReply,
    JudgeRequest,
    LogprobsFormatError,
    PreparedCall,
    TokenUsage,
    logprobs_from_json,
)
from agenteval.judge.config import GenerationConfig, JudgeSettings
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

USER_AGENT = f"agenteval/{__version__}"

# Body key and value shape of the thinking toggle, per variant (Go variantConfigs).
_THINKING_TYPE = ("thinking", lambda on: {"type": "enabled" if on else "disabled"})
_THINKING_STYLES: dict[str, tuple[str, Any]] = {
    "deepseek": _THINKING_TYPE,
    "glm": _THINKING_TYPE,
    "kimi": _THINKING_TYPE,
    "hunyuan": _THINKING_TYPE,
    "qwen": ("enable_thinking", lambda on: on),
    "minimax": ("thinking", lambda on: {"type": "adaptive" if on else "disabled"}),
}
_DEFAULT_THINKING = ("thinking_enabled", lambda on: on)


def build_body(request: JudgeRequest) -> dict[str, Any]:
    """The chat-completions body for ``request``; raises ``JudgeRequestError`` when invalid."""
    settings = request.settings
    gen = settings.generation
    deepseek = settings.variant == "deepseek"
    if gen.top_logprobs is not None and gen.logprobs is not True:
        raise JudgeRequestError(
            "generate response: openai: top_logprobs requires logprobs to be true "
            f"({settings.describe()})"
        )
    body: dict[str, Any] = {
        "model": settings.model,
        "messages": [m.to_json() for m in request.messages],
    }
    schema = request.structured_output
    if schema is not None:
        if deepseek:
            body["response_format"] = {"type": "json_object"}
        else:
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {
                    "name": schema.name,
                    "schema": schema.schema,
                    "strict": schema.strict,
                    "description": schema.description,
                },
            }
    if gen.max_tokens is not None and gen.max_tokens >= 1:
        body["max_tokens" if deepseek else "max_completion_tokens"] = gen.max_tokens
    _add_sampling(body, gen)
    if gen.thinking_tokens is not None:
        body["thinking_tokens"] = gen.thinking_tokens
    if gen.thinking_enabled is not None:
        key, shape = _THINKING_STYLES.get(settings.variant, _DEFAULT_THINKING)
        body[key] = shape(gen.thinking_enabled)
    body.update(settings.extra_fields)
    return body


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


def _add_sampling(body: dict[str, Any], gen: GenerationConfig) -> None:
    """Sampling keys, each sent only when configured (0 is a value: ``temperature: 0`` is sent)."""
    if gen.temperature is not None:
        body["temperature"] = gen.temperature
    if gen.top_p is not None:
        body["top_p"] = gen.top_p
    if gen.stop:
        body["stop"] = gen.stop[0]
    if gen.presence_penalty is not None:
        body["presence_penalty"] = gen.presence_penalty
    if gen.frequency_penalty is not None:
        body["frequency_penalty"] = gen.frequency_penalty
    if gen.logprobs is not None:
        body["logprobs"] = gen.logprobs
    if gen.top_logprobs is not None:
        body["top_logprobs"] = gen.top_logprobs
    if gen.reasoning_effort is not None:
        body["reasoning_effort"] = gen.reasoning_effort


def decode_json(payload: bytes, settings: JudgeSettings) -> dict[str, Any]:
    """A 200 reply body as a JSON object, or ``JudgeReplyError`` (every provider reads through it)."""
    who = settings.describe()
    try:
        # The stdlib parser, not orjson: it reads the -Infinity logprobs some servers send.
        data = json.loads(payload)
    except ValueError as exc:
        raise JudgeReplyError(f"response error: malformed JSON from {who}: {exc}") from None
    if not isinstance(data, dict):
        raise JudgeReplyError(f"response error: reply from {who} is not a JSON object")
    return data


def parse_reply(payload: bytes, settings: JudgeSettings) -> JudgeReply:
    """Decode a 200 chat-completions body; raises ``JudgeReplyError`` when unusable."""
    who = settings.describe()
    data = decode_json(payload, settings)
    choices = data.get("choices")
    if not choices:
        error = data.get("error")
        if error:
            detail = error.get("message") if isinstance(error, dict) else error
            raise JudgeReplyError(f"response error: {detail} ({who})")
        raise JudgeReplyError(f"no final response ({who} sent no choices)")
    first = choices[0] if isinstance(choices, list) else None
    if not isinstance(first, dict):
        raise JudgeReplyError(f"response error: malformed choices in reply from {who}")
    message = first.get("message") or {}
    text = _content_text(message.get("content") if isinstance(message, dict) else None)
    if text is None:
        raise JudgeReplyError(f"response error: message content from {who} is not text")
    if settings.variant == "glm" and not text and isinstance(message, dict):
        reasoning = message.get("reasoning_content")
        if isinstance(reasoning, str):
            text = reasoning
    logprobs_block = first.get("logprobs")
    try:
        logprobs = logprobs_from_json(
            logprobs_block.get("content") if isinstance(logprobs_block, dict) else None
        )
    except LogprobsFormatError as exc:
        raise JudgeReplyError(f"response error: malformed logprobs from {who}: {exc}") from None
    return JudgeReply(text=text, logprobs=logprobs, usage=_usage(data.get("usage")))


def _content_text(content: Any) -> str | None:
    """Message content as text: a string, null (``""``), or a list of text parts."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list) and all(isinstance(p, dict) for p in content):
        return "".join(str(p.get("text", "")) for p in content if p.get("type") == "text")
    return None


def _usage(data: Any) -> TokenUsage:
    if not isinstance(data, dict):
        return TokenUsage()
    prompt = data.get("prompt_tokens")
    completion = data.get("completion_tokens")
    return TokenUsage(
        prompt_tokens=prompt if type(prompt) is int else 0,
        completion_tokens=completion if type(completion) is int else 0,
    )


def open_http_client(concurrency: int, timeout: float) -> httpx.AsyncClient:
    """The run's shared AsyncClient over aiohttp, ``concurrency`` connections."""
    return aiohttp_client.open_http_client(concurrency, timeout, {"User-Agent": USER_AGENT})


class OpenAIBackend:
    """The built-in ``JudgeBackend``: one OpenAI-compatible judge model over a shared client."""

    # The largest reply body read; the judge client sets the run's --judge-max-reply-bytes.
    max_reply_bytes = defaults.JUDGE_MAX_REPLY_BYTES

    def __init__(self, settings: JudgeSettings, http: httpx.AsyncClient | None) -> None:
        self._settings = settings
        self._http = http
        # Parsed once: httpx would otherwise re-parse the same URL on every call.
        self._url = httpx.URL(settings.endpoint)
        self._headers = _fixed_headers(self._url, settings)
        self._who = settings.describe()

    @property
    def settings(self) -> JudgeSettings:
        """The judge model this backend calls."""
        return self._settings

    def prepare(self, request: JudgeRequest, sample_index: int) -> PreparedCall:
        """Build and check the body; nothing is sent."""
        body = build_body(request)
        payload = encode_body(body, request.settings)
        settings = request.settings
        return PreparedCall(settings.endpoint, settings.model, body, sample_index, payload)

    async def send(self, call: PreparedCall) -> JudgeReply:
        """POST the call once; transient failures raise ``JudgeTransientError``."""
        if self._http is None:
            raise RuntimeError("this judge backend has no HTTP client (offline mode)")
        key = self._settings.api_key.reveal()
        payload = (
            call.payload if call.payload is not None else encode_body(call.body, self._settings)
        )
        if call.endpoint == self._settings.endpoint:
            url, headers = self._url, self._headers
        else:
            url = httpx.URL(call.endpoint)
            headers = _fixed_headers(url, self._settings)
        # Host and Content-Length come with ours, so httpx has no header to infer.
        request = httpx.Request(
            "POST",
            url,
            headers=[*headers, (b"Content-Length", str(len(payload)).encode("ascii"))],
            content=payload,
        )
        try:
            response = await capped_response(
                await self._http.send(request, stream=True), self.max_reply_bytes, self._who
            )
        except (httpx.TransportError, aiohttp.ClientError, OSError) as exc:
            raise JudgeTransientError(redact(describe_failure(exc), key)) from None
        status = response.status_code
        if 200 <= status < 300:
            try:
                return parse_reply(response.content, self._settings)
            except JudgeReplyError as exc:
                raise JudgeReplyError(redact(str(exc), key)) from None
        detail = redact(f"HTTP {status}: {error_detail(response)}", key)
        should_retry = response.headers.get("x-should-retry", "").lower()
        if should_retry == "true" or (should_retry != "false" and is_retryable_status(status)):
            # The client names the judge when the retries run out.
            raise JudgeTransientError(detail, retry_after=parse_retry_after(response.headers))
        raise JudgeRejected(f"response error: {detail} ({self._settings.describe()})", status)


def _fixed_headers(url: httpx.URL, settings: JudgeSettings) -> list[tuple[bytes, bytes]]:
    """The headers every call to ``url`` carries; the body's length is added per call."""
    headers = [
        (b"Host", url.netloc),
        (b"Content-Type", b"application/json"),
        (b"Accept", b"application/json"),
        (b"User-Agent", USER_AGENT.encode("ascii")),
    ]
    if settings.api_key:
        authorization = _latin1(f"Bearer {settings.api_key.reveal()}")
        if authorization is None:
            raise JudgeConfigError(
                f"the API key of {settings.describe()} holds characters an HTTP header "
                "cannot carry (check the variable it comes from)"
            )
        headers.append((b"Authorization", authorization))
    return headers


def _latin1(text: str) -> bytes | None:
    """``text`` as header bytes, or ``None``; the error is raised by the caller, outside this
    ``except``, so no exception holding the text (the key) hangs off it as its context."""
    try:
        return text.encode("latin-1")
    except UnicodeEncodeError:
        return None


def describe_failure(exc: BaseException) -> str:
    """Name a transport failure by its root cause (httpx-aiohttp maps several to one class).

    Every provider's backend names its failures through this one function.
    """
    root: BaseException = exc
    while root.__cause__ is not None:
        root = root.__cause__
    text = str(root) or str(exc)
    if isinstance(exc, httpx.TimeoutException) and not isinstance(root, aiohttp.ClientError):
        return f"timed out ({type(exc).__name__}{': ' + text if text else ''})"
    return f"{type(root).__name__}: {text}" if text else type(root).__name__


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
