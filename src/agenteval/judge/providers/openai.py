"""OpenAI-compatible chat-completions judge backend (``providerName: "openai"``, llm-evaluators.md §3.4).

The request body follows the Go ``model/openai`` provider: ``max_completion_tokens``
(``max_tokens`` for deepseek), only the first ``stop`` string, ``logprobs`` /
``top_logprobs`` with the top-logprobs check done before anything is sent,
variant-specific thinking toggles, ``json_schema`` or (deepseek) ``json_object``
response formats, and ``extraFields`` merged last.  No per-model cap of
``max_tokens`` is applied (Go clamps to a table of known model limits).

The variant (deepseek, qwen, ...) is inferred from the base URL host when
empty and picks the default base URL and key variable (Go's ``variantConfigs``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

import httpx

from agenteval.judge.backend import (
    JudgeReply,
    JudgeRequest,
    LogprobsFormatError,
    TokenUsage,
    logprobs_from_json,
)
from agenteval.judge.config import GenerationConfig, JudgeSettings
from agenteval.judge.errors import JudgeReplyError, JudgeRequestError
from agenteval.judge.provider import (
    LOGPROBS,
    STRUCTURED_OUTPUT,
    Connection,
    ProviderSpec,
    register_judge_provider,
)
from agenteval.judge.wire import (
    JsonJudgeBackend,
    decode_json,
    error_detail,
    given,
    reported_usage,
    sdk_should_retry,
    token_count,
)

DEFAULT_BASE_URL = "https://api.openai.com/v1/"

KNOWN_VARIANTS = ("openai", "deepseek", "qwen", "hunyuan", "glm", "minimax", "kimi")

# Variant → (default base URL, API-key environment variable); Go's variantConfigs.
_VARIANT_DEFAULTS: dict[str, tuple[str, str]] = {
    "deepseek": ("https://api.deepseek.com", "DEEPSEEK_API_KEY"),
    "qwen": ("https://dashscope.aliyuncs.com/compatible-mode/v1", "DASHSCOPE_API_KEY"),
    "minimax": ("https://api.minimax.io/v1", "MINIMAX_API_KEY"),
    "kimi": ("https://api.moonshot.ai/v1", "MOONSHOT_API_KEY"),
}

_HOST_VARIANTS: dict[str, str] = {
    "api.deepseek.com": "deepseek",
    "api.minimax.io": "minimax",
    "api.minimaxi.com": "minimax",
    "api.moonshot.ai": "kimi",
    "api.moonshot.cn": "kimi",
}


def infer_variant(base_url: str) -> str:
    """The OpenAI-compatible variant implied by ``base_url``'s host (case-insensitive)."""
    text = base_url.strip()
    if not text:
        return "openai"
    try:
        host = (urlsplit(text).hostname or "").lower()
    except ValueError:
        return "openai"
    return _HOST_VARIANTS.get(host, "openai")


def connection(
    spec: ProviderSpec, configured: Connection, environ: Mapping[str, str]
) -> Connection:
    """The variant (inferred when empty), then its default URL and key variable, then OpenAI's."""
    variant = configured.variant or infer_variant(configured.base_url)
    default_url, key_env = _VARIANT_DEFAULTS.get(variant, ("", ""))
    base_url = configured.base_url or default_url or spec.base_url("", environ)
    api_key = (
        configured.api_key
        or (environ.get(key_env, "") if key_env else "")
        or spec.api_key("", environ)
    )
    return Connection(variant, base_url, api_key)


def endpoint(base_url: str, model: str) -> str:
    """The base URL with a trailing ``/`` plus ``chat/completions``."""
    return (base_url if base_url.endswith("/") else base_url + "/") + "chat/completions"


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


def _add_sampling(body: dict[str, Any], gen: GenerationConfig) -> None:
    """Sampling keys, each sent only when configured (0 is a value: ``temperature: 0`` is sent)."""
    body.update(
        given(
            {
                "temperature": gen.temperature,
                "top_p": gen.top_p,
                "stop": gen.stop[0] if gen.stop else None,
                "presence_penalty": gen.presence_penalty,
                "frequency_penalty": gen.frequency_penalty,
                "logprobs": gen.logprobs,
                "top_logprobs": gen.top_logprobs,
                "reasoning_effort": gen.reasoning_effort,
            }
        )
    )


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
    if not text:
        _raise_if_refused(message, first.get("finish_reason"), who, _usage(data.get("usage")))
    logprobs_block = first.get("logprobs")
    try:
        logprobs = logprobs_from_json(
            logprobs_block.get("content") if isinstance(logprobs_block, dict) else None
        )
    except LogprobsFormatError as exc:
        raise JudgeReplyError(f"response error: malformed logprobs from {who}: {exc}") from None
    return JudgeReply(text=text, logprobs=logprobs, usage=_usage(data.get("usage")))


def _raise_if_refused(message: Any, finish_reason: Any, who: str, usage: TokenUsage) -> None:
    """An empty answer the model refused or the provider filtered: no verdict to read,
    as Anthropic's ``stop_reason: refusal`` and Gemini's blocked candidates (paid for:
    the error carries the reply's ``usage``)."""
    refusal = message.get("refusal") if isinstance(message, dict) else None
    if isinstance(refusal, str) and refusal.strip():
        raise JudgeReplyError(f"no final response ({who} refused: {refusal.strip()})", usage)
    if finish_reason == "content_filter":
        raise JudgeReplyError(
            f"no final response ({who} filtered the reply: finish_reason content_filter)", usage
        )


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
    # The share of the prompt served from OpenAI's prompt cache (billed at the cached price).
    details = data.get("prompt_tokens_details") if isinstance(data, dict) else None
    cached = token_count(details, "cached_tokens", required=False) if details is not None else 0
    return reported_usage(
        token_count(data, "prompt_tokens"), token_count(data, "completion_tokens"), cached
    )


@register_judge_provider(
    "openai",
    endpoint=endpoint,
    default_base_url=DEFAULT_BASE_URL,
    base_url_env=("OPENAI_BASE_URL",),
    key_env=("OPENAI_API_KEY",),
    capabilities=(LOGPROBS, STRUCTURED_OUTPUT),
    connect=connection,
)
class OpenAIBackend(JsonJudgeBackend):
    """One OpenAI-compatible judge model: ``Authorization: Bearer``, chat-completions bodies."""

    def build_body(self, request: JudgeRequest) -> dict[str, Any]:
        """The chat-completions body of ``request``."""
        return build_body(request)

    def parse_reply(self, payload: bytes) -> JudgeReply:
        """``choices[0].message.content``, its logprobs and ``usage``."""
        return parse_reply(payload, self._settings)

    def error_detail(self, response: httpx.Response) -> str:
        """``error.message`` on its own (OpenAI's messages name their kind)."""
        return error_detail(response)

    def should_retry(self, response: httpx.Response) -> bool:
        """``x-should-retry`` wins as in OpenAI's SDKs; else 408/409/429/5xx."""
        return sdk_should_retry(response)
