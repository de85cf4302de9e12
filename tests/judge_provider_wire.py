"""Each judge provider's wire format, as the loopback judge server speaks it.

For every provider: the path it answers, how the prompt is read out of a
request body (for scripted rules), the body of a successful reply and of an
error, and how a rate limit carries its retry hint.  Shapes follow each
provider's published API reference: OpenAI chat completions, Anthropic
Messages, Gemini ``generateContent``, Ollama ``/api/chat`` and Tencent Cloud
API 3.0 ``ChatCompletions`` (errors as HTTP 200 with ``Response.Error``), and Cohere's v2
Chat API, which no built-in provider speaks: the test plugin
``tests/plugins/cohere_judge_provider.py`` adds it.
"""

from __future__ import annotations

import json
import re
import time
from typing import Any

# Built-in providers first; "cohere" is the test plugin's.
PROVIDERS = ("openai", "anthropic", "gemini", "ollama", "hunyuan", "cohere")

_GEMINI_PATH = re.compile(r"^/v1beta/models/[^/:]+:generateContent$")


def route_ok(provider: str, method: str, path: str, headers: dict[str, str]) -> bool:
    """Whether a request goes to the endpoint ``provider`` answers."""
    if method != "POST":
        return False
    if provider == "anthropic":
        return path == "/v1/messages"
    if provider == "gemini":
        return bool(_GEMINI_PATH.match(path))
    if provider == "ollama":
        return path == "/api/chat"
    if provider == "hunyuan":
        return path == "/" and headers.get("x-tc-action") == "ChatCompletions"
    if provider == "cohere":
        return path == "/v2/chat"
    return path.rstrip("/") == "/v1/chat/completions"


def base_path(provider: str) -> str:
    """What follows ``http://host:port`` in a judge config's base URL."""
    return {"openai": "/v1", "hunyuan": "/"}.get(provider, "")


def prompt_of(body: Any, provider: str = "openai") -> str:
    """The texts of a request body's messages, joined by newlines."""
    if not isinstance(body, dict):
        return ""
    parts: list[Any] = []
    if provider == "gemini":
        system = body.get("systemInstruction")
        contents = [system] if isinstance(system, dict) else []
        contents += body.get("contents") or []
        for content in contents:
            if isinstance(content, dict):
                parts += [p.get("text") for p in content.get("parts") or [] if isinstance(p, dict)]
    elif provider == "hunyuan":
        parts = [m.get("Content") for m in body.get("Messages") or [] if isinstance(m, dict)]
    else:
        if provider == "anthropic" and isinstance(body.get("system"), list):
            parts += [b.get("text") for b in body["system"] if isinstance(b, dict)]
        for message in body.get("messages") or []:
            if isinstance(message, dict):
                content = message.get("content")
                if isinstance(content, list):
                    parts += [b.get("text") for b in content if isinstance(b, dict)]
                else:
                    parts.append(content)
    return "\n".join(p for p in parts if isinstance(p, str))


def success_body(
    provider: str,
    content: str,
    logprobs: list[dict[str, Any]] | None,
    prompt_tokens: int,
    completion_tokens: int,
    reasoning: str | None = None,
    block_reason: str | None = None,
    cached_tokens: int = 0,
) -> bytes:
    """A successful reply carrying ``content`` in ``provider``'s shape.

    ``cached_tokens`` is the part of ``prompt_tokens`` the provider's prompt cache served
    (OpenAI ``prompt_tokens_details``, Anthropic ``cache_read_input_tokens``, Gemini
    ``cachedContentTokenCount``).
    """
    if provider == "anthropic":
        blocks: list[dict[str, Any]] = []
        if reasoning is not None:
            blocks.append({"type": "thinking", "thinking": reasoning, "signature": "sig"})
        blocks.append({"type": "text", "text": content})
        data: dict[str, Any] = {
            "id": "msg_loopback",
            "type": "message",
            "role": "assistant",
            "model": "loopback-judge",
            "content": blocks,
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": prompt_tokens, "output_tokens": completion_tokens},
        }
        if cached_tokens:
            # Anthropic's input_tokens leaves out what the cache served.
            data["usage"] = {
                "input_tokens": prompt_tokens - cached_tokens,
                "cache_read_input_tokens": cached_tokens,
                "output_tokens": completion_tokens,
            }
    elif provider == "gemini":
        data = _gemini_body(content, logprobs, prompt_tokens, completion_tokens, block_reason)
        if cached_tokens:
            data["usageMetadata"]["cachedContentTokenCount"] = cached_tokens
    elif provider == "ollama":
        data = {
            "model": "loopback-judge",
            "created_at": "2026-01-01T00:00:00Z",
            "message": {"role": "assistant", "content": content},
            "done": True,
            "done_reason": "stop",
            "prompt_eval_count": prompt_tokens,
            "eval_count": completion_tokens,
        }
        if reasoning is not None:
            data["message"]["thinking"] = reasoning
        if logprobs is not None:
            data["logprobs"] = logprobs
    elif provider == "cohere":
        data = {
            "id": "loopback",
            "finish_reason": "COMPLETE",
            "message": {"role": "assistant", "content": [{"type": "text", "text": content}]},
            "usage": {
                "billed_units": {"input_tokens": prompt_tokens, "output_tokens": completion_tokens},
                "tokens": {"input_tokens": prompt_tokens, "output_tokens": completion_tokens},
            },
        }
    elif provider == "hunyuan":
        data = {
            "Response": {
                "Id": "loopback",
                "Created": int(time.time()),
                "Choices": [
                    {
                        "Index": 0,
                        "FinishReason": "stop",
                        "Message": {"Role": "assistant", "Content": content},
                    }
                ],
                "Usage": {
                    "PromptTokens": prompt_tokens,
                    "CompletionTokens": completion_tokens,
                    "TotalTokens": prompt_tokens + completion_tokens,
                },
                "RequestId": "loopback-request",
            }
        }
    else:
        message: dict[str, Any] = {"role": "assistant", "content": content}
        if reasoning is not None:
            message["reasoning_content"] = reasoning
        choice: dict[str, Any] = {"index": 0, "message": message, "finish_reason": "stop"}
        choice["logprobs"] = {"content": logprobs} if logprobs is not None else None
        data = {
            "id": "chatcmpl-loopback",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": "loopback-judge",
            "choices": [choice],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }
        if cached_tokens:
            data["usage"]["prompt_tokens_details"] = {"cached_tokens": cached_tokens}
    return json.dumps(data).encode()


def _gemini_body(
    content: str,
    logprobs: list[dict[str, Any]] | None,
    prompt_tokens: int,
    completion_tokens: int,
    block_reason: str | None,
) -> dict[str, Any]:
    usage = {
        "promptTokenCount": prompt_tokens,
        "candidatesTokenCount": completion_tokens,
        "totalTokenCount": prompt_tokens + completion_tokens,
    }
    if block_reason is not None:
        return {"promptFeedback": {"blockReason": block_reason}, "usageMetadata": usage}
    candidate: dict[str, Any] = {
        "content": {"role": "model", "parts": [{"text": content}]},
        "finishReason": "STOP",
        "index": 0,
    }
    if logprobs is not None:
        candidate["logprobsResult"] = {
            "chosenCandidates": [_gemini_token(t) for t in logprobs],
            "topCandidates": [
                {"candidates": [_gemini_token(t) for t in item.get("top_logprobs", [])]}
                for item in logprobs
            ],
        }
    return {"candidates": [candidate], "usageMetadata": usage, "modelVersion": "loopback"}


def _gemini_token(item: dict[str, Any]) -> dict[str, Any]:
    return {"token": item["token"], "logProbability": item["logprob"]}


_ANTHROPIC_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}
_GEMINI_STATUS = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
}
_HUNYUAN_CODES = {
    400: "InvalidParameter",
    401: "AuthFailure.SecretIdNotFound",
    403: "UnauthorizedOperation",
    429: "RequestLimitExceeded",
}


def error_reply(
    provider: str, status: int, message: str, retry_after: str | None
) -> tuple[int, bytes, dict[str, str]]:
    """Status, body and headers of a failure in ``provider``'s shape (with its retry hint)."""
    headers: dict[str, str] = {}
    if provider == "anthropic":
        kind = _ANTHROPIC_TYPES.get(status, "api_error")
        data: dict[str, Any] = {"type": "error", "error": {"type": kind, "message": message}}
        if retry_after is not None:
            headers["retry-after"] = retry_after
    elif provider == "gemini":
        error: dict[str, Any] = {
            "code": status,
            "message": message,
            "status": _GEMINI_STATUS.get(status, "INTERNAL"),
        }
        if retry_after is not None:
            error["details"] = [
                {
                    "@type": "type.googleapis.com/google.rpc.RetryInfo",
                    "retryDelay": f"{retry_after}s",
                }
            ]
        data = {"error": error}
    elif provider == "ollama":
        data = {"error": message}
        if retry_after is not None:
            headers["Retry-After"] = retry_after
    elif provider == "cohere":
        data = {"id": "loopback-error", "message": message}
        if retry_after is not None:
            headers["Retry-After"] = retry_after
    elif provider == "hunyuan":
        # Tencent Cloud API 3.0 answers API errors with HTTP 200 and Response.Error.
        code = _HUNYUAN_CODES.get(status, "InternalError" if status >= 500 else "FailedOperation")
        data = {
            "Response": {
                "Error": {"Code": code, "Message": message},
                "RequestId": "loopback-request",
            }
        }
        status = 200
    else:
        data = {"error": {"message": message, "type": "error", "code": status}}
        if retry_after is not None:
            headers["Retry-After"] = retry_after
    return status, json.dumps(data).encode(), headers
