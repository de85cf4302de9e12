"""Anthropic Messages API judge backend (``providerName: "anthropic"``).

The body follows trpc-agent-go's ``model/anthropic``: system messages go to
``system`` as text blocks, ``max_tokens`` is always sent (4096 when the
metric sets none, as Go), ``temperature``/``top_p``/``stop_sequences`` when
configured, and the thinking toggle as Go builds it (adaptive thinking for
the models that have it, a token budget otherwise).  A scorer's JSON schema
goes to ``output_config.format`` (Anthropic's JSON outputs; Go's backend
sends none).  The API has no token logprobs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import httpx

from agenteval.judge.backend import JudgeReply, JudgeRequest
from agenteval.judge.errors import JudgeReplyError, JudgeRequestError
from agenteval.judge.provider import STRUCTURED_OUTPUT, register_judge_provider
from agenteval.judge.wire import (
    JsonJudgeBackend,
    decode_json,
    given,
    reported_usage,
    sdk_should_retry,
    system_and_turns,
    token_count,
)

ANTHROPIC_VERSION = "2023-06-01"
DEFAULT_MAX_TOKENS = 4096

# Go's model/anthropic model lists: adaptive thinking, and models that always think.
_ADAPTIVE_THINKING = (
    "claude-mythos-preview",
    "claude-fable-5",
    "claude-mythos-5",
    "claude-opus-5",
    "claude-sonnet-5",
    "claude-opus-4-8",
    "claude-4.8-opus",
    "claude-opus-4-7",
    "claude-4.7-opus",
    "claude-opus-4-6",
    "claude-4.6-opus",
    "claude-sonnet-4-6",
    "claude-4.6-sonnet",
)
_ALWAYS_THINKING = ("claude-mythos-preview", "claude-fable-5", "claude-mythos-5")


def _matches(model: str, names: tuple[str, ...]) -> bool:
    return any(model == name or model.startswith(name + "-") for name in names)


def endpoint(base_url: str, model: str) -> str:
    """``{baseURL}/v1/messages``."""
    return base_url.rstrip("/") + "/v1/messages"


# anthropic-sdk-go's defaults (the Go provider builds its client with them).
@register_judge_provider(
    "anthropic",
    endpoint=endpoint,
    default_base_url="https://api.anthropic.com",
    base_url_env=("ANTHROPIC_BASE_URL",),
    key_env=("ANTHROPIC_API_KEY",),
    capabilities=(STRUCTURED_OUTPUT,),
)
class AnthropicBackend(JsonJudgeBackend):
    """``POST {baseURL}/v1/messages`` with ``x-api-key`` and ``anthropic-version``."""

    key_header = "x-api-key"
    key_prefix = ""
    fixed_headers: ClassVar[Mapping[str, str]] = {"anthropic-version": ANTHROPIC_VERSION}

    def build_body(self, request: JudgeRequest) -> dict[str, Any]:
        """The Messages API body of ``request``."""
        settings = request.settings
        gen = settings.generation
        system, turns = system_and_turns(request)
        max_tokens = gen.max_tokens if gen.max_tokens is not None and gen.max_tokens >= 1 else 0
        body: dict[str, Any] = {
            "model": settings.model,
            "max_tokens": max_tokens or DEFAULT_MAX_TOKENS,
            "messages": [{"role": role, "content": text} for role, text in turns],
        }
        if system:
            body["system"] = [{"type": "text", "text": text} for text in system]
        body.update(
            given(
                {
                    "temperature": gen.temperature,
                    "top_p": gen.top_p,
                    "stop_sequences": list(gen.stop) if gen.stop else None,
                }
            )
        )
        output_config: dict[str, Any] = {}
        if gen.thinking_enabled is not None:
            self._thinking(body, output_config, request)
        schema = request.structured_output
        if schema is not None:
            output_config["format"] = {"type": "json_schema", "schema": schema.schema}
        if output_config:
            body["output_config"] = output_config
        return body

    def _thinking(
        self, body: dict[str, Any], output_config: dict[str, Any], request: JudgeRequest
    ) -> None:
        settings = request.settings
        gen = settings.generation
        model = settings.model
        if not gen.thinking_enabled:
            if _matches(model, _ALWAYS_THINKING):
                raise JudgeRequestError(
                    f"generate response: anthropic: thinking cannot be disabled for model "
                    f"{model} ({settings.describe()})"
                )
            if _matches(model, _ADAPTIVE_THINKING):
                body["thinking"] = {"type": "disabled"}
            return
        if _matches(model, _ADAPTIVE_THINKING):
            body["thinking"] = {"type": "adaptive", "display": "summarized"}
            if gen.reasoning_effort is not None:
                output_config["effort"] = gen.reasoning_effort
            return
        if gen.thinking_tokens is not None:
            body["thinking"] = {"type": "enabled", "budget_tokens": gen.thinking_tokens}

    def should_retry(self, response: httpx.Response) -> bool:
        """``x-should-retry`` wins as in Anthropic's SDKs; else 408/409/429/5xx (529 included)."""
        return sdk_should_retry(response)

    def parse_reply(self, payload: bytes) -> JudgeReply:
        """Text blocks joined (thinking blocks skipped); usage from ``input/output_tokens``."""
        who = self._settings.describe()
        data = decode_json(payload, self._settings)
        if data.get("type") == "error":
            error = data.get("error")
            detail = error.get("message") if isinstance(error, dict) else error
            raise JudgeReplyError(f"response error: {detail} ({who})")
        content = data.get("content")
        if not isinstance(content, list) or not all(isinstance(b, dict) for b in content):
            raise JudgeReplyError(f"response error: reply from {who} has no content blocks")
        texts = [b.get("text") for b in content if b.get("type") == "text"]
        if not all(isinstance(t, str) for t in texts):
            raise JudgeReplyError(f"response error: a text block from {who} is not text")
        usage = data.get("usage")
        # input_tokens leaves out what the prompt cache served or stored; the prompt is all three.
        fresh = token_count(usage, "input_tokens")
        read = token_count(usage, "cache_read_input_tokens", required=False)
        written = token_count(usage, "cache_creation_input_tokens", required=False)
        prompt = (
            None if fresh is None or read is None or written is None else fresh + read + written
        )
        used = reported_usage(prompt, token_count(usage, "output_tokens"), read, written)
        if not texts and data.get("stop_reason") == "refusal":
            # Paid for: the error carries the reply's usage.
            raise JudgeReplyError(f"no final response ({who} refused: stop_reason refusal)", used)
        return JudgeReply(text="".join(str(t) for t in texts), usage=used)
