"""What a judge call is: the request, the reply, and the ``JudgeBackend`` protocol.

A backend turns a :class:`JudgeRequest` into a :class:`PreparedCall` (pure:
validation and the exact request body, which also keys the cache) and sends a
prepared call once.  Retries, timeouts, concurrency, budgets and caching are
the client's job (:mod:`agenteval.judge.client`), so a plugin backend only
implements these two methods.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from agenteval.errors import FormatError
from agenteval.judge.config import JudgeSettings


@dataclass(frozen=True)
class ChatMessage:
    """One chat message sent to the judge; built-in prompts are a single user message."""

    role: str
    content: str

    def to_json(self) -> dict[str, str]:
        """The message as it appears in a chat-completions body."""
        return {"role": self.role, "content": self.content}


@dataclass(frozen=True)
class StructuredOutput:
    """A JSON-schema constraint on the reply (llm-evaluators.md §3.5)."""

    name: str
    schema: Mapping[str, Any]
    strict: bool = True
    description: str = ""


@dataclass(frozen=True)
class JudgeRequest:
    """One judge prompt for one judge model: messages, optional schema and settings."""

    settings: JudgeSettings
    messages: Sequence[ChatMessage]
    structured_output: StructuredOutput | None = None

    @classmethod
    def user_prompt(
        cls, settings: JudgeSettings, prompt: str, schema: StructuredOutput | None = None
    ) -> JudgeRequest:
        """The usual shape: a single user message."""
        return cls(settings, (ChatMessage("user", prompt),), schema)


@dataclass(frozen=True)
class TopLogprob:
    """One alternative token at a position, with its log probability."""

    token: str
    logprob: float
    bytes: tuple[int, ...] | None = None


@dataclass(frozen=True)
class TokenLogprob:
    """One generated token with its log probability and the top alternatives."""

    token: str
    logprob: float
    bytes: tuple[int, ...] | None = None
    top_logprobs: tuple[TopLogprob, ...] = ()


# Why a reply without usable token counts has no cost and stops a token budget
# (:attr:`TokenUsage.reported`; judge/prices.py, judge/limits.py).
UNREPORTED_USAGE = "a reply reported no usable token usage"


@dataclass(frozen=True)
class TokenUsage:
    """Tokens a reply cost, as the endpoint reported them.

    ``cached_prompt_tokens`` is the part of ``prompt_tokens`` the provider read from its
    own prompt cache (billed at the cached-input price); ``cache_write_tokens`` the part it
    wrote to that cache (Anthropic bills those above the input price).  ``reported`` is
    False when the reply carried no usable usage (none, a negative or non-integer count):
    its tokens are then 0 here but unknown, so its cost is unknown too, never $0.
    """

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_prompt_tokens: int = 0
    cache_write_tokens: int = 0
    reported: bool = True

    @property
    def total(self) -> int:
        """Prompt plus completion tokens."""
        return self.prompt_tokens + self.completion_tokens

    @property
    def usable(self) -> bool:
        """Whether the counts can be true: whole numbers, none negative, and no more cached
        and written tokens than the prompt (a plugin backend may build any ``TokenUsage``)."""
        counts = (
            self.prompt_tokens,
            self.completion_tokens,
            self.cached_prompt_tokens,
            self.cache_write_tokens,
        )
        if not all(type(count) is int and count >= 0 for count in counts):
            return False
        return self.cached_prompt_tokens + self.cache_write_tokens <= self.prompt_tokens


@dataclass(frozen=True)
class JudgeReply:
    """The judge's answer: text (``choices[0].message.content``), logprobs and usage."""

    text: str
    logprobs: tuple[TokenLogprob, ...] = ()
    usage: TokenUsage = field(default_factory=TokenUsage)
    cached: bool = False

    def logprobs_json(self) -> list[dict[str, Any]]:
        """The logprobs in the chat-completions JSON shape (for the cache and for scorers)."""
        return [_token_json(t) for t in self.logprobs]


def _token_json(token: TokenLogprob | TopLogprob) -> dict[str, Any]:
    data: dict[str, Any] = {"token": token.token, "logprob": token.logprob}
    if token.bytes is not None:
        data["bytes"] = list(token.bytes)
    if isinstance(token, TokenLogprob):
        data["top_logprobs"] = [_token_json(t) for t in token.top_logprobs]
    return data


class LogprobsFormatError(FormatError):
    """Logprobs JSON that does not have the chat-completions shape."""


def logprobs_from_json(data: Any) -> tuple[TokenLogprob, ...]:
    """Decode ``choices[0].logprobs.content``; ``None`` or ``[]`` mean "no logprobs"."""
    if data is None:
        return ()
    if not isinstance(data, list):
        raise LogprobsFormatError("logprobs content is not an array")
    tokens: list[TokenLogprob] = []
    for item in data:
        token, logprob, raw_bytes = _token_fields(item)
        tops = item.get("top_logprobs") or []
        if not isinstance(tops, list):
            raise LogprobsFormatError("top_logprobs is not an array")
        alternatives = tuple(TopLogprob(*_token_fields(top)) for top in tops)
        tokens.append(TokenLogprob(token, logprob, raw_bytes, alternatives))
    return tuple(tokens)


def _token_fields(item: Any) -> tuple[str, float, tuple[int, ...] | None]:
    if not isinstance(item, dict):
        raise LogprobsFormatError("a logprobs entry is not an object")
    token = item.get("token")
    logprob = item.get("logprob")
    raw_bytes = item.get("bytes")
    if not isinstance(token, str):
        raise LogprobsFormatError("a logprobs entry has no string token")
    if isinstance(logprob, bool) or not isinstance(logprob, int | float):
        raise LogprobsFormatError(f"token {token!r} has no numeric logprob")
    if raw_bytes is not None and not (
        isinstance(raw_bytes, list) and all(type(b) is int for b in raw_bytes)
    ):
        raise LogprobsFormatError(f"token {token!r} has malformed bytes")
    return token, float(logprob), None if raw_bytes is None else tuple(raw_bytes)


@dataclass(frozen=True)
class PreparedCall:
    """A request ready to send: where, which model, the exact body, and the sample index."""

    endpoint: str
    model: str
    body: Mapping[str, Any]
    sample_index: int = 0
    # The body already encoded for the wire, when the backend made it while validating.
    payload: bytes | None = field(default=None, compare=False, repr=False)
    # Which provider's wire format the body is in; part of the cache key.
    provider: str = "openai"

    def cache_key(self) -> str:
        """sha256 of provider, endpoint, model, full body and sample index; never the API key."""
        material_fields: dict[str, Any] = {
            "endpoint": self.endpoint,
            "model": self.model,
            "body": self.body,
            "sample": self.sample_index,
        }
        if self.provider != "openai":
            # Only other providers add the field, so keys cached by earlier versions still hit.
            material_fields["provider"] = self.provider
        material = json.dumps(
            material_fields,
            sort_keys=True,
            separators=(",", ":"),
            ensure_ascii=False,
        )
        return hashlib.sha256(material.encode("utf-8")).hexdigest()


@runtime_checkable
class JudgeBackend(Protocol):
    """A way to ask a judge model; the OpenAI-compatible HTTP backend is the built-in one."""

    def prepare(self, request: JudgeRequest, sample_index: int) -> PreparedCall:
        """Validate and build the exact call; raise ``JudgeRequestError`` to refuse it unsent."""
        ...

    async def send(self, call: PreparedCall) -> JudgeReply:
        """Make one attempt; raise ``JudgeTransientError`` when a retry may succeed."""
        ...
