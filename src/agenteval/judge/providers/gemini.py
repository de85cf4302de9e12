"""Gemini API ``generateContent`` judge backend (``providerName: "gemini"``).

``POST {baseURL}/v1beta/models/{model}:generateContent`` with
``x-goog-api-key``.  Messages become ``contents`` (roles ``user``/``model``),
system messages ``systemInstruction``; ``generationConfig`` carries
``temperature``, ``topP``, ``maxOutputTokens``, ``stopSequences``, the
penalties and ``thinkingConfig`` as trpc-agent-go's ``model/gemini`` sets
them.  A scorer's schema goes to ``responseJsonSchema`` with
``responseMimeType: application/json``; ``logprobs``/``top_logprobs`` become
``responseLogprobs``/``logprobs`` and the reply's ``logprobsResult`` is read
back for ``llm_verifier_pairwise``.  A 429 ``RESOURCE_EXHAUSTED`` waits the
``retryDelay`` of its ``RetryInfo``; a blocked prompt or candidate is a judge
error naming the block reason.
"""

from __future__ import annotations

import re
from typing import Any

import httpx

from agenteval.judge.backend import (
    JudgeReply,
    JudgeRequest,
    TokenLogprob,
    TokenUsage,
    TopLogprob,
)
from agenteval.judge.errors import JudgeReplyError
from agenteval.judge.limits import parse_retry_after
from agenteval.judge.provider import LOGPROBS, STRUCTURED_OUTPUT, register_judge_provider
from agenteval.judge.wire import (
    JsonJudgeBackend,
    decode_json,
    given,
    reported_usage,
    system_and_turns,
    token_count,
)

# Finish reasons that mean the candidate was withheld rather than finished.
_BLOCKED = frozenset(
    {"SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY"}
)
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)s\s*$")


def endpoint(base_url: str, model: str) -> str:
    """``{baseURL}/v1beta/models/{model}:generateContent`` (a ``models/`` prefix is dropped)."""
    name = model.removeprefix("models/")
    return base_url.rstrip("/") + f"/v1beta/models/{name}:generateContent"


# go-genai's Gemini API backend: GOOGLE_API_KEY wins over GEMINI_API_KEY.
@register_judge_provider(
    "gemini",
    endpoint=endpoint,
    default_base_url="https://generativelanguage.googleapis.com",
    base_url_env=("GOOGLE_GEMINI_BASE_URL",),
    key_env=("GOOGLE_API_KEY", "GEMINI_API_KEY"),
    capabilities=(LOGPROBS, STRUCTURED_OUTPUT),
)
class GeminiBackend(JsonJudgeBackend):
    """One Gemini model over the Gemini API (not Vertex AI)."""

    key_header = "x-goog-api-key"
    key_prefix = ""

    def build_body(self, request: JudgeRequest) -> dict[str, Any]:
        """The ``generateContent`` body of ``request``."""
        gen = request.settings.generation
        system, turns = system_and_turns(request)
        body: dict[str, Any] = {
            "contents": [
                {"role": "model" if role == "assistant" else "user", "parts": [{"text": text}]}
                for role, text in turns
            ]
        }
        if system:
            body["systemInstruction"] = {"parts": [{"text": text} for text in system]}
        thinking = given(
            {
                "thinkingLevel": None if gen.thinking_level is None else gen.thinking_level.strip(),
                "thinkingBudget": gen.thinking_tokens if gen.thinking_level is None else None,
                "includeThoughts": gen.thinking_enabled,
            }
        )
        schema = request.structured_output
        config = given(
            {
                "temperature": gen.temperature,
                "topP": gen.top_p,
                "maxOutputTokens": (
                    min(gen.max_tokens, 2**31 - 1)
                    if gen.max_tokens is not None and gen.max_tokens >= 1
                    else None
                ),
                "stopSequences": list(gen.stop) if gen.stop else None,
                "presencePenalty": gen.presence_penalty,
                "frequencyPenalty": gen.frequency_penalty,
                "thinkingConfig": thinking or None,
                "responseMimeType": None if schema is None else "application/json",
                "responseJsonSchema": None if schema is None else schema.schema,
                "responseLogprobs": gen.logprobs,
                "logprobs": gen.top_logprobs,
            }
        )
        if config:
            body["generationConfig"] = config
        return body

    def retry_hint(self, response: httpx.Response) -> float | None:
        """``RetryInfo.retryDelay`` of a ``RESOURCE_EXHAUSTED`` body, else ``Retry-After``."""
        try:
            data = response.json()
        except ValueError:
            data = None
        error = data.get("error") if isinstance(data, dict) else None
        details = error.get("details") if isinstance(error, dict) else None
        for item in details if isinstance(details, list) else []:
            if isinstance(item, dict) and str(item.get("@type", "")).endswith("RetryInfo"):
                found = _DURATION.match(str(item.get("retryDelay", "")))
                if found:
                    return float(found.group(1))
        return parse_retry_after(response.headers)

    def parse_reply(self, payload: bytes) -> JudgeReply:
        """First candidate's text parts (thoughts skipped), its logprobs and ``usageMetadata``."""
        who = self._settings.describe()
        data = decode_json(payload, self._settings)
        error = data.get("error")
        if isinstance(error, dict):
            raise JudgeReplyError(f"response error: {error.get('message')} ({who})")
        candidates = data.get("candidates")
        feedback = data.get("promptFeedback")
        # A blocked prompt or candidate is paid for: the error carries the reply's usage.
        used = _usage(data.get("usageMetadata"))
        if not candidates:
            reason = feedback.get("blockReason") if isinstance(feedback, dict) else None
            if reason:
                raise JudgeReplyError(
                    f"no final response ({who} blocked the prompt: {reason})", used
                )
            raise JudgeReplyError(f"no final response ({who} sent no candidates)")
        first = candidates[0] if isinstance(candidates, list) else None
        if not isinstance(first, dict):
            raise JudgeReplyError(f"response error: malformed candidates in reply from {who}")
        finish = first.get("finishReason")
        content = first.get("content")
        parts = content.get("parts") if isinstance(content, dict) else None
        if finish in _BLOCKED and not parts:
            raise JudgeReplyError(
                f"no final response ({who} blocked the candidate: {finish})", used
            )
        if parts is None:
            parts = []
        if not isinstance(parts, list) or not all(isinstance(p, dict) for p in parts):
            raise JudgeReplyError(f"response error: malformed content parts from {who}")
        text = "".join(
            str(p.get("text", "")) for p in parts if "text" in p and not p.get("thought")
        )
        return JudgeReply(
            text=text, logprobs=_logprobs(first.get("logprobsResult"), who), usage=used
        )


def _usage(usage: Any) -> TokenUsage:
    """A reply's ``usageMetadata``."""
    # Gemini's JSON leaves out counts that are 0 (an empty answer, no thoughts).
    answer = token_count(usage, "candidatesTokenCount", required=False)
    thoughts = token_count(usage, "thoughtsTokenCount", required=False)
    return reported_usage(
        token_count(usage, "promptTokenCount"),
        None if answer is None or thoughts is None else answer + thoughts,
        # Part of promptTokenCount, read from a context cache.
        token_count(usage, "cachedContentTokenCount", required=False),
    )


def _logprobs(result: Any, who: str) -> tuple[TokenLogprob, ...]:
    """``logprobsResult`` (chosen tokens and per-position top candidates) as token logprobs."""
    if result is None:
        return ()
    chosen = result.get("chosenCandidates") if isinstance(result, dict) else None
    tops = result.get("topCandidates") if isinstance(result, dict) else None
    if not isinstance(chosen, list) or not isinstance(tops or [], list):
        raise JudgeReplyError(f"response error: malformed logprobsResult from {who}")
    tokens: list[TokenLogprob] = []
    for index, item in enumerate(chosen):
        token, logprob = _candidate(item, who)
        alternatives: tuple[TopLogprob, ...] = ()
        if tops and index < len(tops):
            position = tops[index]
            listed = position.get("candidates") if isinstance(position, dict) else None
            if not isinstance(listed, list):
                raise JudgeReplyError(f"response error: malformed topCandidates from {who}")
            alternatives = tuple(TopLogprob(*_candidate(c, who)) for c in listed)
        tokens.append(TokenLogprob(token, logprob, None, alternatives))
    return tuple(tokens)


def _candidate(item: Any, who: str) -> tuple[str, float]:
    token = item.get("token") if isinstance(item, dict) else None
    # proto3 JSON leaves out a zero logProbability.
    logprob = item.get("logProbability", 0.0) if isinstance(item, dict) else None
    if not isinstance(token, str):
        raise JudgeReplyError(f"response error: a logprobs candidate from {who} has no token")
    if isinstance(logprob, bool) or not isinstance(logprob, int | float):
        raise JudgeReplyError(
            f"response error: token {token!r} from {who} has no numeric logProbability"
        )
    return token, float(logprob)
