"""Ollama native chat API judge backend (``providerName: "ollama"``).

``POST {host}/api/chat`` with ``stream: false``.  As trpc-agent-go's
``model/ollama``: sampling settings go into ``options`` (``temperature``,
``top_p``, ``stop``, ``num_predict``), the thinking toggle into ``think``, and
the host is read like ``OLLAMA_HOST`` (scheme optional, port 11434).  A
scorer's schema goes to ``format``; ``logprobs``/``top_logprobs`` are sent as
they are and the reply's top-level ``logprobs`` read back.  Usage comes from
``prompt_eval_count``/``eval_count``.  A key, when one is set (ollama.com),
is sent as a bearer token.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from agenteval.judge.backend import (
    JudgeReply,
    JudgeRequest,
    LogprobsFormatError,
    logprobs_from_json,
)
from agenteval.judge.errors import JudgeReplyError
from agenteval.judge.provider import LOGPROBS, STRUCTURED_OUTPUT, register_judge_provider
from agenteval.judge.wire import (
    JsonJudgeBackend,
    decode_json,
    given,
    reported_usage,
    token_count,
)

# Ollama's port, where OLLAMA_HOST names none and by default.
DEFAULT_PORT = 11434


def ollama_host(base: str) -> str:
    """A host the way Go's ``model/ollama`` reads ``OLLAMA_HOST``: scheme optional, port 11434."""
    text = base.strip()
    if text == "ollama.com":
        return "https://ollama.com:443"
    if "://" not in text:
        text = "http://" + text
    parts = urlsplit(text)
    scheme = parts.scheme or "http"
    try:
        port = parts.port
    except ValueError:
        port = None
    if port is None:
        port = DEFAULT_PORT if "://" not in base.strip() else (443 if scheme == "https" else 80)
    host = parts.hostname or "127.0.0.1"
    if ":" in host:
        host = f"[{host}]"
    return f"{scheme}://{host}:{port}{parts.path.rstrip('/')}"


def endpoint(base_url: str, model: str) -> str:
    """``{host}/api/chat``."""
    return ollama_host(base_url) + "/api/chat"


# Go's model/ollama: OLLAMA_HOST, else http://localhost:11434; no key locally.
@register_judge_provider(
    "ollama",
    endpoint=endpoint,
    default_base_url=f"http://localhost:{DEFAULT_PORT}",
    base_url_env=("OLLAMA_HOST",),
    key_env=("OLLAMA_API_KEY",),
    capabilities=(LOGPROBS, STRUCTURED_OUTPUT),
)
class OllamaBackend(JsonJudgeBackend):
    """One model on an Ollama server."""

    def build_body(self, request: JudgeRequest) -> dict[str, Any]:
        """The ``/api/chat`` body of ``request``."""
        settings = request.settings
        gen = settings.generation
        options = given(
            {
                "temperature": gen.temperature,
                "top_p": gen.top_p,
                "stop": list(gen.stop) if gen.stop else None,
                "num_predict": gen.max_tokens,
            }
        )
        schema = request.structured_output
        return {
            "model": settings.model,
            "messages": [m.to_json() for m in request.messages],
            "stream": False,
            "options": options,
            **given(
                {
                    "think": gen.thinking_enabled,
                    "format": None if schema is None else schema.schema,
                    "logprobs": gen.logprobs,
                    "top_logprobs": gen.top_logprobs,
                }
            ),
        }

    def parse_reply(self, payload: bytes) -> JudgeReply:
        """``message.content``, top-level ``logprobs`` and the two eval counts."""
        who = self._settings.describe()
        data = decode_json(payload, self._settings)
        error = data.get("error")
        if error:
            raise JudgeReplyError(f"response error: {error} ({who})")
        message = data.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if content is None:
            raise JudgeReplyError(f"no final response ({who} sent no message)")
        if not isinstance(content, str):
            raise JudgeReplyError(f"response error: message content from {who} is not text")
        try:
            logprobs = logprobs_from_json(data.get("logprobs"))
        except LogprobsFormatError as exc:
            raise JudgeReplyError(f"response error: malformed logprobs from {who}: {exc}") from None
        return JudgeReply(
            text=content,
            logprobs=logprobs,
            # Ollama leaves prompt_eval_count out when its own cache held the whole prompt.
            usage=reported_usage(
                token_count(data, "prompt_eval_count", required=False),
                token_count(data, "eval_count"),
            ),
        )
