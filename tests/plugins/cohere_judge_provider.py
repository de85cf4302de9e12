"""Test plugin: a judge provider agenteval does not ship, Cohere's v2 Chat API (``providerName: "cohere"``).

``POST {baseURL}/v2/chat`` with ``Authorization: Bearer``; the messages go as
they are, ``temperature``, ``p``, ``max_tokens`` and ``stop_sequences`` when
configured, a scorer's schema as ``response_format: {type: json_object,
json_schema}``.  The reply's text blocks are joined; usage comes from
``usage.tokens``.  An empty ``baseURL`` / ``apiKey`` falls back to ``CO_API_URL``
/ ``CO_API_KEY`` (the Cohere SDKs' variables), then ``https://api.cohere.com``.
This plugin reads no logprobs, so it declares JSON-schema output only.

Everything else (retries, Retry-After, 401 fast-fail, budgets, cache, key
redaction, the reply size cap) is the judge client's and ``JsonJudgeBackend``'s,
as for the built-in providers.
"""

from __future__ import annotations

from typing import Any

import httpx

from agenteval.judge import STRUCTURED_OUTPUT, JudgeReply, JudgeRequest, JudgeSettings, TokenUsage
from agenteval.judge.errors import JudgeReplyError
from agenteval.judge.wire import JsonJudgeBackend, decode_json, int_field, json_headers
from agenteval.plugins import register_judge_provider


def endpoint(base_url: str, model: str) -> str:
    """``{baseURL}/v2/chat``."""
    return base_url.rstrip("/") + "/v2/chat"


@register_judge_provider(
    "cohere",
    endpoint=endpoint,
    default_base_url="https://api.cohere.com",
    base_url_env=("CO_API_URL",),
    key_env=("CO_API_KEY",),
    capabilities=(STRUCTURED_OUTPUT,),
)
class CohereBackend(JsonJudgeBackend):
    """One Cohere model over the v2 Chat API."""

    def __init__(self, settings: JudgeSettings, http: httpx.AsyncClient | None) -> None:
        super().__init__(settings, http)
        self._fixed = json_headers(settings, "Authorization", "Bearer ")

    def build_body(self, request: JudgeRequest) -> dict[str, Any]:
        """The v2 Chat body of ``request``."""
        gen = request.settings.generation
        body: dict[str, Any] = {
            "model": request.settings.model,
            "messages": [m.to_json() for m in request.messages],
        }
        if gen.temperature is not None:
            body["temperature"] = gen.temperature
        if gen.top_p is not None:
            body["p"] = gen.top_p
        if gen.max_tokens is not None and gen.max_tokens >= 1:
            body["max_tokens"] = gen.max_tokens
        if gen.stop:
            body["stop_sequences"] = list(gen.stop)
        if request.structured_output is not None:
            schema = request.structured_output.schema
            body["response_format"] = {"type": "json_object", "json_schema": schema}
        return body

    def headers(self, payload: bytes) -> dict[str, str]:
        """The fixed headers with the bearer key."""
        return self._fixed

    def error_detail(self, response: httpx.Response) -> str:
        """Cohere's ``message`` field, else the body's start."""
        try:
            data = response.json()
        except ValueError:
            data = None
        if isinstance(data, dict) and isinstance(data.get("message"), str):
            return str(data["message"])
        return super().error_detail(response)

    def parse_reply(self, payload: bytes) -> JudgeReply:
        """``message.content``'s text blocks joined; usage from ``usage.tokens``."""
        who = self.settings.describe()
        data = decode_json(payload, self.settings)
        message = data.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, list) or not all(isinstance(b, dict) for b in content):
            raise JudgeReplyError(f"no final response ({who} sent no message content)")
        texts = [b.get("text") for b in content if b.get("type") == "text"]
        if not all(isinstance(t, str) for t in texts):
            raise JudgeReplyError(f"response error: a text block from {who} is not text")
        usage = data.get("usage")
        tokens = usage.get("tokens") if isinstance(usage, dict) else None
        return JudgeReply(
            text="".join(str(t) for t in texts),
            usage=TokenUsage(int_field(tokens, "input_tokens"), int_field(tokens, "output_tokens")),
        )
