"""What judge calls cost: calls, cache hits, failures, retries and tokens, per metric and per run.

The client records into one :class:`UsageLedger` per run; result files carry it
as ``judgeUsage`` (an extra key trpc-agent-go ignores) and the console prints it.

Tested in tests/judge/test_limits.py (counted through the client) and tests/judge/test_providers.py.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from agenteval.judge.backend import TokenUsage


@dataclass
class Usage:
    """Judge usage of one metric or of a whole run."""

    calls: int = 0
    cache_hits: int = 0
    failed_calls: int = 0
    retries: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        """Prompt plus completion tokens."""
        return self.prompt_tokens + self.completion_tokens

    def to_json(self) -> dict[str, int]:
        """camelCase JSON for result files (an extra field Go readers ignore)."""
        return {
            "calls": self.calls,
            "cacheHits": self.cache_hits,
            "failedCalls": self.failed_calls,
            "retries": self.retries,
            "promptTokens": self.prompt_tokens,
            "completionTokens": self.completion_tokens,
        }


@dataclass
class UsageLedger:
    """Usage per metric name and for the run; ``calls`` counts calls sent (not cache hits)."""

    total: Usage = field(default_factory=Usage)
    by_metric: dict[str, Usage] = field(default_factory=dict)

    def _both(self, metric: str) -> tuple[Usage, Usage]:
        return self.total, self.by_metric.setdefault(metric, Usage())

    def record_call(self, metric: str) -> None:
        """A call was sent to the backend."""
        for usage in self._both(metric):
            usage.calls += 1

    def record_cache_hit(self, metric: str) -> None:
        """A call was answered from the cache."""
        for usage in self._both(metric):
            usage.cache_hits += 1

    def record_retry(self, metric: str) -> None:
        """A call is being attempted again."""
        for usage in self._both(metric):
            usage.retries += 1

    def record_failure(self, metric: str) -> None:
        """A sent call failed for good."""
        for usage in self._both(metric):
            usage.failed_calls += 1

    def record_tokens(self, metric: str, tokens: TokenUsage) -> None:
        """Add the tokens a reply reported."""
        for usage in self._both(metric):
            usage.prompt_tokens += tokens.prompt_tokens
            usage.completion_tokens += tokens.completion_tokens

    def to_json(self) -> dict[str, object]:
        """``{"total": {...}, "byMetric": {name: {...}}}``."""
        return {
            "total": self.total.to_json(),
            "byMetric": {name: u.to_json() for name, u in sorted(self.by_metric.items())},
        }
