"""Judge-call failures, one class per reason a runner must tell apart.

Every message names the judge (model and endpoint) and never holds the API
key: messages pass through :func:`redact`, which hides the key, and
the original transport exception is not chained (it may hold the request,
whose headers carry the key).

Tested in tests/judge/test_client.py.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from agenteval.errors import JudgeError
from agenteval.exit_codes import ExitCode

if TYPE_CHECKING:
    from agenteval.judge.backend import TokenUsage


class JudgeConfigError(JudgeError):
    """The judge model config cannot be used (unknown provider, bad generationConfig)."""

    exit_code = ExitCode.BAD_INPUT


class JudgeRequestError(JudgeError):
    """The request could not be built; nothing was sent (Go: ``generate response: ...``)."""


class JudgeRejected(JudgeError):
    """The endpoint refused the request with a non-retryable status (400, 401, 403, 404, ...)."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


class JudgeUnavailable(JudgeError):
    """The judge could not be reached, or kept failing until the retries ran out."""


class JudgeReplyError(JudgeError):
    """The endpoint answered 200 but the reply is unusable (error body, bad JSON, no choices).

    ``usage`` is what a readable reply without a verdict (a refusal, a filtered reply)
    said it took: it was paid for, so its tokens and cost are counted like a reply's.
    """

    def __init__(self, message: str, usage: TokenUsage | None = None) -> None:
        super().__init__(message)
        self.usage = usage


class JudgeBudgetExhausted(JudgeError):
    """``max_judge_calls`` or ``max_judge_tokens`` is reached; no new call is issued."""


class JudgeCacheMiss(JudgeError):
    """Offline mode and the cache holds no reply for this request."""


class JudgeTransientError(JudgeError):
    """One attempt failed in a way worth retrying; ``retry_after`` is the server's hint in seconds.

    Backends raise it for a single attempt; the client retries and, when the
    retries run out, raises :class:`JudgeUnavailable` with this message.
    """

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


# The shortest part of a key that is hidden when it appears on its own.
_SHORTEST_PART = 8


def redact(text: str, secret: str) -> str:
    """Replace every occurrence of ``secret`` (and of its long prefixes and suffixes) in ``text``."""
    if not secret:
        return text
    text = text.replace(secret, "***")
    # Servers often echo a truncated key ("sk-abc...xyz"); hide long leading parts too.
    if secret[:_SHORTEST_PART] in text:
        for size in range(len(secret) - 1, _SHORTEST_PART - 1, -1):
            text = text.replace(secret[:size], "***")
    # And long trailing ones: a key echoed without its "sk-" prefix, or hunyuan's
    # SecretKey, the secret part of its "SecretId:SecretKey" apiKey.
    if secret[-_SHORTEST_PART:] in text:
        for size in range(len(secret) - 1, _SHORTEST_PART - 1, -1):
            text = text.replace(secret[-size:], "***")
    return text


def redact_all(text: str, secrets: Iterable[str]) -> str:
    """``text`` with each of ``secrets`` hidden as :func:`redact` hides one."""
    for secret in secrets:
        text = redact(text, secret)
    return text


class JudgeInterrupted(JudgeError):
    """The run is stopping (a signal): no new judge call is sent."""


class JudgeAbandoned(JudgeError):
    """A sample's turn failed through another sample: it makes no further attempt (its
    request on the wire was let finish; the turn's own failure is what is reported)."""
