"""Tencent Hunyuan judge backend (``providerName: "hunyuan"``): API 3.0 ``ChatCompletions``.

As trpc-agent-go's ``model/hunyuan`` speaks it: ``POST`` to the service root
(default ``https://hunyuan.tencentcloudapi.com``) with ``X-TC-Action:
ChatCompletions``, ``X-TC-Version: 2023-09-01``, ``X-TC-Timestamp`` and a
TC3-HMAC-SHA256 ``Authorization`` over ``content-type;host;x-tc-action``
(:mod:`agenteval.judge.providers.tc3`), signed per attempt.  The body has ``Model``,
``Messages`` (``Role``/``Content``), and ``Temperature``, ``TopP``, ``Stop``
and ``EnableThinking`` only when non-zero (Go's ``omitempty``); the API takes
no max-tokens setting, no JSON schema and returns no logprobs.

Credentials: ``apiKey`` as ``"SecretId:SecretKey"`` (e.g.
``"${HUNYUAN_SECRET_ID}:${HUNYUAN_SECRET_KEY}"``), else
``TENCENTCLOUD_SECRET_ID``/``TENCENTCLOUD_SECRET_KEY``.  Go takes them only
from code (``hunyuan.WithSecretId``/``WithSecretKey``).  Errors come as
HTTP 200 with ``Response.Error``; limit and internal errors are retried.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit

import httpx

from agenteval.judge.backend import JudgeReply, JudgeRequest
from agenteval.judge.config import JudgeSettings
from agenteval.judge.errors import (
    JudgeConfigError,
    JudgeRejected,
    JudgeReplyError,
    JudgeTransientError,
)
from agenteval.judge.provider import (
    Connection,
    ProviderSpec,
    default_connection,
    register_judge_provider,
)
from agenteval.judge.providers.tc3 import authorization
from agenteval.judge.wire import (
    USER_AGENT,
    JsonJudgeBackend,
    decode_json,
    header_value,
    reported_usage,
    token_count,
)

ACTION = "ChatCompletions"
VERSION = "2023-09-01"
SERVICE = "hunyuan"
CONTENT_TYPE = "application/json"
# Error codes worth another attempt (Tencent Cloud API 3.0 common errors).
_RETRYABLE_CODES = ("RequestLimitExceeded", "LimitExceeded", "InternalError", "ResourceUnavailable")


def split_credentials(api_key: str) -> tuple[str, str]:
    """``"SecretId:SecretKey"`` → its two parts (empty strings when not in that form)."""
    secret_id, sep, secret_key = api_key.partition(":")
    return (secret_id, secret_key) if sep else ("", "")


def endpoint(base_url: str, model: str) -> str:
    """The service root: Tencent Cloud API 3.0 takes every action there (a bare host means https)."""
    url = base_url.strip() if "://" in base_url else "https://" + base_url.strip()
    return url if urlsplit(url).path else url + "/"


def connection(
    spec: ProviderSpec, configured: Connection, environ: Mapping[str, str]
) -> Connection:
    """The default base URL; the key as ``id:key``, else from the two Tencent Cloud variables."""
    found = default_connection(spec, configured, environ)
    # A key of just ":" is two unset ${VAR}s: the environment decides.
    if configured.api_key.strip(":"):
        return found
    secret_id = environ.get("TENCENTCLOUD_SECRET_ID", "")
    secret_key = environ.get("TENCENTCLOUD_SECRET_KEY", "")
    key = f"{secret_id}:{secret_key}" if secret_id and secret_key else ""
    return Connection(found.variant, found.base_url, key)


# Go's model/hunyuan client: HunYuanBaseUrl; credentials as "secretId:secretKey".
@register_judge_provider(
    "hunyuan",
    endpoint=endpoint,
    default_base_url="https://hunyuan.tencentcloudapi.com",
    key_env=("TENCENTCLOUD_SECRET_ID", "TENCENTCLOUD_SECRET_KEY"),
    connect=connection,
)
class HunyuanBackend(JsonJudgeBackend):
    """One Hunyuan model through Tencent Cloud API 3.0."""

    signs_each_call = True

    def __init__(
        self,
        settings: JudgeSettings,
        http: httpx.AsyncClient | None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        super().__init__(settings, http)
        self._clock = clock
        self._secret_id, self._secret_key = split_credentials(settings.api_key.reveal())
        if settings.api_key and not (self._secret_id and self._secret_key):
            raise JudgeConfigError(
                f"the apiKey of {settings.describe()} must be 'SecretId:SecretKey' "
                '(e.g. "${HUNYUAN_SECRET_ID}:${HUNYUAN_SECRET_KEY}")'
            )
        header_value(self._secret_id, settings, "SecretId")
        self._host = httpx.URL(settings.endpoint).netloc.decode("ascii")

    def secrets(self, settings: JudgeSettings) -> Sequence[str]:
        """The whole ``id:key`` string and each part on its own."""
        return [
            s
            for s in (settings.api_key.reveal(), *split_credentials(settings.api_key.reveal()))
            if s
        ]

    def build_body(self, request: JudgeRequest) -> dict[str, Any]:
        """The ``ChatCompletions`` body of ``request`` (Go's field names and omissions)."""
        settings = request.settings
        gen = settings.generation
        body: dict[str, Any] = {
            "Model": settings.model,
            "Messages": [{"Role": m.role, "Content": m.content} for m in request.messages],
        }
        if gen.top_p:
            body["TopP"] = gen.top_p
        if gen.temperature:
            body["Temperature"] = gen.temperature
        if gen.stop:
            body["Stop"] = list(gen.stop)
        if gen.thinking_enabled:
            body["EnableThinking"] = True
        return body

    def headers(self, payload: bytes) -> dict[str, str]:
        """Signed headers for one attempt (the timestamp is part of the signature)."""
        timestamp = int(self._clock())
        signed = {"Content-Type": CONTENT_TYPE, "Host": self._host, "X-TC-Action": ACTION}
        headers = {
            **signed,
            "X-TC-Timestamp": str(timestamp),
            "X-TC-Version": VERSION,
            "Accept": "application/json",
            "User-Agent": USER_AGENT,
        }
        if self._secret_id:
            headers["Authorization"] = authorization(
                self._secret_id, self._secret_key, SERVICE, signed, payload, timestamp
            )
        return headers

    def parse_reply(self, payload: bytes) -> JudgeReply:
        """``Response.Choices[0].Message.Content`` and ``Response.Usage``; ``Response.Error`` fails."""
        who = self._settings.describe()
        data = decode_json(payload, self._settings)
        response = data.get("Response")
        if not isinstance(response, dict):
            raise JudgeReplyError(f"response error: reply from {who} has no Response object")
        error = response.get("Error")
        if isinstance(error, dict):
            code = str(error.get("Code", ""))
            detail = f"{code}: {error.get('Message', '')}"
            if code.startswith(_RETRYABLE_CODES):
                raise JudgeTransientError(detail)
            status = 401 if code.startswith("AuthFailure") else 400
            raise JudgeRejected(f"response error: {detail} ({who})", status)
        choices = response.get("Choices")
        first = choices[0] if isinstance(choices, list) and choices else None
        if not isinstance(first, dict):
            raise JudgeReplyError(f"no final response ({who} sent no choices)")
        message = first.get("Message")
        content = message.get("Content", "") if isinstance(message, dict) else None
        if not isinstance(content, str):
            raise JudgeReplyError(f"response error: message content from {who} is not text")
        usage = response.get("Usage")
        used = reported_usage(
            token_count(usage, "PromptTokens"), token_count(usage, "CompletionTokens")
        )
        if not content and first.get("FinishReason") == "sensitive":
            # Tencent's content review withheld the answer: no verdict to read (paid for:
            # the error carries the reply's usage).
            raise JudgeReplyError(
                f"no final response ({who} filtered the reply: FinishReason sensitive)", used
            )
        return JudgeReply(text=content, usage=used)
