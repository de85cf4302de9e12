"""What judge calls cost: calls, cache hits, failures, retries, tokens and dollars.

The client records into one :class:`UsageLedger` per run, per metric and for the
run; result files carry it as ``judgeUsage`` (an extra key trpc-agent-go ignores) and
the console prints it.  A judge call is also counted for the case it was made for:
the runner opens a :func:`case_usage` counter in each case's task (a context
variable, like :mod:`agenteval.judge.stop_refusals`), and the case result carries it as its
own ``judgeUsage``.

Dollars come from :mod:`agenteval.judge.prices`: ``costUsd`` adds up the calls whose
cost is known; a reply whose model has no price (or whose usage the price cannot
cover) is counted in ``unpricedCalls`` and its model in ``unpricedModels``, so a
report never shows a partial sum as the whole; those of them whose reply reported no
token usage are also counted in ``unreportedCalls`` (written when not 0), so a report
says why their cost is unknown.  Cache hits cost nothing and are
counted apart (``cacheHits``).

Tested in tests/judge/test_usage.py (and through the client in tests/judge/test_limits.py).
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Literal

from agenteval.judge.backend import TokenUsage

# Dollar amounts are written with at most this many decimals (a cost is tokens times a
# price of at most three decimals per million tokens, so nothing real is rounded away).
COST_DECIMALS = 12


def cost_json(amount: Decimal) -> float:
    """A dollar amount as the JSON number result files hold."""
    return float(round(amount, COST_DECIMALS))


@dataclass
class Usage:
    """Judge usage of one metric, one case or a whole run."""

    calls: int = 0
    cache_hits: int = 0
    failed_calls: int = 0
    retries: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_prompt_tokens: int = 0
    cost_usd: Decimal = field(default_factory=Decimal)
    unpriced_calls: int = 0
    unpriced_models: set[str] = field(default_factory=set)
    # Those of the unpriced calls whose reply reported no usable token usage: no price
    # would give their cost (the reports say so rather than ask for --prices).
    unreported_calls: int = 0

    @property
    def total_tokens(self) -> int:
        """Prompt plus completion tokens."""
        return self.prompt_tokens + self.completion_tokens

    @property
    def active(self) -> bool:
        """Whether any judge call was made or answered from the cache."""
        return bool(self.calls or self.cache_hits)

    def to_json(self) -> dict[str, Any]:
        """camelCase JSON for result files (an extra field Go readers ignore)."""
        data: dict[str, Any] = {
            "calls": self.calls,
            "cacheHits": self.cache_hits,
            "failedCalls": self.failed_calls,
            "retries": self.retries,
            "promptTokens": self.prompt_tokens,
            "completionTokens": self.completion_tokens,
            "cachedPromptTokens": self.cached_prompt_tokens,
            "costUsd": cost_json(self.cost_usd),
            "unpricedCalls": self.unpriced_calls,
        }
        if self.unpriced_models:
            data["unpricedModels"] = sorted(self.unpriced_models)
        if self.unreported_calls:
            data["unreportedCalls"] = self.unreported_calls
        return data

    def add_reply(self, tokens: TokenUsage, cost: Decimal | None, model: str) -> None:
        """Count a reply's tokens and its cost (``None``: unknown, ``model`` is unpriced)."""
        self.prompt_tokens += tokens.prompt_tokens
        self.completion_tokens += tokens.completion_tokens
        self.cached_prompt_tokens += tokens.cached_prompt_tokens
        if cost is None:
            self.unpriced_calls += 1
            self.unpriced_models.add(model)
            if not tokens.reported:
                self.unreported_calls += 1
        else:
            self.cost_usd += cost


# What happens to a judge call, each counted in the Usage field of that name.
CallEvent = Literal["calls", "cache_hits", "retries", "failed_calls"]

_current_case: ContextVar[Usage | None] = ContextVar("agenteval_case_usage", default=None)


def case_usage() -> Usage:
    """A fresh counter for the calling task's case (and the tasks it starts)."""
    usage = Usage()
    _current_case.set(usage)
    return usage


@dataclass
class UsageLedger:
    """Usage per metric name and for the run; ``calls`` counts calls sent (not cache hits).

    Every record also goes to the current case's counter, when the runner opened one.
    """

    total: Usage = field(default_factory=Usage)
    by_metric: dict[str, Usage] = field(default_factory=dict)
    # The ledger of the eval set being scored (eval sets run one after the other).
    scope: UsageLedger | None = None

    def _metric(self, metric: str) -> Usage:
        usage = self.by_metric.get(metric)
        if usage is None:
            usage = self.by_metric[metric] = Usage()
        return usage

    def _all(self, metric: str) -> list[Usage]:
        found = [self.total, self._metric(metric)]
        if self.scope is not None:
            found += [self.scope.total, self.scope._metric(metric)]
        case = _current_case.get()
        if case is not None:
            found.append(case)
        return found

    def begin_scope(self) -> UsageLedger:
        """From now on also count into a fresh ledger (one eval set's usage), returned."""
        self.scope = UsageLedger()
        return self.scope

    def end_scope(self) -> None:
        """Stop counting into the scope ledger."""
        self.scope = None

    def count(self, metric: str, event: CallEvent) -> None:
        """One more ``event``: a call sent (``calls``, cache hits not included), answered
        from the cache, attempted again, or failed for good."""
        for usage in self._all(metric):
            setattr(usage, event, getattr(usage, event) + 1)

    def record_tokens(
        self, metric: str, tokens: TokenUsage, cost: Decimal | None, model: str
    ) -> None:
        """Add the tokens a reply reported and what it cost (``None``: no price for ``model``)."""
        for usage in self._all(metric):
            usage.add_reply(tokens, cost, model)

    def to_json(self) -> dict[str, object]:
        """``{"total": {...}, "byMetric": {name: {...}}}``."""
        return {
            "total": self.total.to_json(),
            "byMetric": {name: u.to_json() for name, u in sorted(self.by_metric.items())},
        }


__all__ = ["COST_DECIMALS", "Usage", "UsageLedger", "case_usage", "cost_json"]
