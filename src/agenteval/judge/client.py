"""``JudgeClient``: cache + limits + backend behind one ``complete`` call.

One client per run: it owns the shared HTTP client (pool sized to the
concurrency), the cache connection, the call limiter (global concurrency,
rate limit, timeout, retries), the budgets and the usage ledger.  It makes
each judge model's backend from the provider registry
(:data:`agenteval.judge.provider.judge_providers`): built-in and plugin
providers alike, none of them imported here.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import random
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from types import TracebackType

import httpx

from agenteval import settings as defaults
from agenteval.errors import JudgeError
from agenteval.judge.aiohttp_client import open_http_client
from agenteval.judge.backend import (
    UNREPORTED_USAGE,
    JudgeBackend,
    JudgeReply,
    JudgeRequest,
    PreparedCall,
    TokenUsage,
)
from agenteval.judge.cache import DEFAULT_CACHE_PATH, JudgeCache
from agenteval.judge.config import JudgeSettings
from agenteval.judge.errors import (
    JudgeBudgetExhausted,
    JudgeCacheMiss,
    JudgeConfigError,
    JudgeInterrupted,
    JudgeReplyError,
    redact_all,
)
from agenteval.judge.limits import Budget, CallKind, CallLimiter, CostBudget, RetryPolicy
from agenteval.judge.prices import (
    CallCost,
    PriceTable,
    builtin_prices,
    price_key,
)
from agenteval.judge.provider import provider_spec
from agenteval.judge.stop_refusals import note_refusal
from agenteval.judge.usage import UsageLedger
from agenteval.judge.wire import JsonJudgeBackend

# Why --max-judge-cost stops once a sent call was cancelled (a second Ctrl-C): counting it
# as $0 would leave its cost free for the calls after it.
CANCELLED_UNKNOWN_COST = "a call was cancelled after it was sent (its cost is unknown)"


@dataclass(frozen=True)
class JudgeOptions:
    """Run-wide judge settings (the ``--concurrency``, ``--judge-*``, cache and budget flags)."""

    concurrency: int = defaults.JUDGE_CONCURRENCY
    rate_limit_rpm: float | None = None
    retries: int = defaults.JUDGE_RETRIES
    timeout: float = defaults.JUDGE_TIMEOUT_SECONDS
    max_calls: int | None = None
    max_tokens: int | None = None
    cache_path: Path | None = DEFAULT_CACHE_PATH
    offline: bool = False
    backoff_base: float = defaults.JUDGE_BACKOFF_BASE_SECONDS
    backoff_max: float = defaults.JUDGE_BACKOFF_MAX_SECONDS
    max_reply_bytes: int = defaults.JUDGE_MAX_REPLY_BYTES
    # What calls cost (None: the built-in table) and --max-judge-cost in USD.
    prices: PriceTable | None = None
    max_cost: Decimal | None = None

    def __post_init__(self) -> None:
        if self.concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        if self.retries < 0:
            raise ValueError("judge retries must not be negative")
        if self.max_reply_bytes < 1:
            raise ValueError("the judge reply cap must be at least 1 byte")
        if not self.timeout > 0:
            raise ValueError("judge timeout must be positive")
        if self.rate_limit_rpm is not None and not self.rate_limit_rpm > 0:
            raise ValueError("rate limit must be positive")
        for name in ("max_calls", "max_tokens", "max_cost"):
            value = getattr(self, name)
            if value is not None and value < 0:
                raise ValueError(f"{name} must not be negative")

    @property
    def retry_policy(self) -> RetryPolicy:
        """The retry policy these options describe."""
        return RetryPolicy(
            retries=self.retries,
            timeout=self.timeout,
            backoff_base=self.backoff_base,
            backoff_max=self.backoff_max,
        )


class JudgeClient:
    """Answers judge requests from the cache or a backend, within the run's limits."""

    def __init__(
        self,
        options: JudgeOptions | None = None,
        *,
        backend: JudgeBackend | None = None,
        http: httpx.AsyncClient | None = None,
        seed: int | None = None,
    ) -> None:
        self.options = options or JudgeOptions()
        self.usage = UsageLedger()
        self._override = backend
        self._backends: dict[JudgeSettings, JudgeBackend] = {}
        self._budget = Budget(self.options.max_calls, self.options.max_tokens)
        self.prices = self.options.prices if self.options.prices is not None else builtin_prices()
        max_cost = self.options.max_cost
        self._cost_budget = CostBudget(max_cost) if max_cost is not None else None
        # What the run should be told once, in order, as (what it concerns, note): a cost
        # bound counted an upper bound, a model's replies reported no token usage.
        self.notes: list[tuple[str, str]] = []
        self._bounded_models: set[str] = set()
        self._unreported_models: set[str] = set()
        self._limiter = CallLimiter(
            self.options.concurrency,
            self.options.retry_policy,
            self.options.rate_limit_rpm,
            random.Random(seed),
        )
        self._cache: JudgeCache | None = None
        # A caller-supplied HTTP client (another transport, a proxy setup) is not closed by us.
        self._http: httpx.AsyncClient | None = http
        self._owns_http = http is None
        self._open = False
        self._stopping = False
        # The loop the calls run in (a stop, from a signal handler, wakes their waits there).
        self._loop: asyncio.AbstractEventLoop | None = None

    async def __aenter__(self) -> JudgeClient:
        await self.open()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def open(self) -> None:
        """Open the cache and the shared HTTP client."""
        if self._open:
            return
        if self.options.cache_path is not None:
            self._cache = await JudgeCache.open(self.options.cache_path)
        if self._http is None and not self.options.offline and self._override is None:
            self._http = open_http_client(self.options.concurrency, self.options.timeout)
        self._open = True

    async def aclose(self) -> None:
        """Close the HTTP client and the cache."""
        if self._http is not None and self._owns_http:
            await self._http.aclose()
            self._http = None
        if self._cache is not None:
            await self._cache.close()
            self._cache = None
        self._open = False

    @property
    def budget(self) -> Budget:
        """The run's call and token budget (counters included)."""
        return self._budget

    async def complete(
        self,
        request: JudgeRequest,
        *,
        metric_name: str,
        sample_index: int = 0,
        on_sent: Callable[[], None] | None = None,
        turn_failed: asyncio.Event | None = None,
    ) -> JudgeReply:
        """One judge sample: from the cache, else from the backend with retries.

        ``on_sent`` is called when the call's first request goes out (from then on the
        call is paid for, and a turn that fails lets it finish: ``collect_samples``);
        once ``turn_failed`` is set, the request on the wire finishes but no retry is
        made (``JudgeAbandoned``).
        Raises a ``JudgeError`` subclass: ``JudgeRequestError`` (nothing sent),
        ``JudgeCacheMiss`` (offline), ``JudgeBudgetExhausted``, ``JudgeRejected``,
        ``JudgeReplyError`` or ``JudgeUnavailable``.
        """
        if not self._open:
            raise RuntimeError("JudgeClient is not open; use 'async with JudgeClient(...)'")
        secrets = request.settings.secrets()
        self._loop = asyncio.get_running_loop()
        try:
            sent = _SentCall(metric_name, "", on_sent, turn_failed)
            return await self._complete(request, sample_index, sent)
        except JudgeError as exc:
            # A plugin backend's message may quote the key, a transport error the URL with
            # a key in its query: every message leaves here with the credentials hidden.
            exc.args = tuple(redact_all(a, secrets) if isinstance(a, str) else a for a in exc.args)
            raise

    async def _complete(
        self, request: JudgeRequest, sample_index: int, sent: _SentCall
    ) -> JudgeReply:
        metric_name = sent.metric_name
        backend = self._backend_for(request.settings)
        call = backend.prepare(request, sample_index)
        if call.provider != request.settings.provider and self._override is None:
            # The cache key names the provider whatever a plugin backend put in its call.
            call = dataclasses.replace(call, provider=request.settings.provider)
        key = _cache_key(call, request.settings) if self._cache is not None else ""
        if self._cache is not None:
            hit = await self._cache.get(key)
            if hit is not None:
                self.usage.count(metric_name, "cache_hits")
                return hit
        who = request.settings.describe()
        if self._stopping:
            note_refusal()
            raise JudgeInterrupted(f"run interrupted before judge call for metric {metric_name!r}")
        if self.options.offline:
            raise JudgeCacheMiss(
                f"offline: no cached judge reply for metric {metric_name!r}, "
                f"sample {sample_index} ({who})"
            )
        settings = request.settings
        sent.price_key = price_key(settings.provider, settings.model)
        await self._reserve_cost(settings.provider, settings.model, sent)
        spent = Decimal(0)
        try:
            self._budget.reserve_call()
            try:
                answer = await self._call(backend, call, sent, who)
            except JudgeReplyError as exc:
                # A refused or filtered reply was paid for: its tokens and cost count.
                if exc.usage is not None:
                    _, spent = self._account(JudgeReply("", usage=exc.usage), settings, metric_name)
                raise
            reply, spent = self._account(answer, settings, metric_name)
        finally:
            if self._cost_budget is not None:
                self._cost_budget.settle(sent.kind, spent)
        # A judge that echoes the key (or a long part of it): it must reach neither the
        # cache nor any report.
        redacted = redact_all(reply.text, request.settings.secrets())
        if redacted != reply.text:
            reply = dataclasses.replace(reply, text=redacted)
        if self._cache is not None:
            await self._cache.put(key, reply)
        return reply

    def _account(
        self, reply: JudgeReply, settings: JudgeSettings, metric_name: str
    ) -> tuple[JudgeReply, Decimal]:
        """Count a reply's tokens and cost (the reply with its usage as counted, and what
        ``--max-judge-cost`` counts for it)."""
        reply = self._refuse_impossible_usage(reply, settings)
        cost = self.prices.cost(settings.provider, settings.model, reply.usage)
        spent = cost.usd if cost.usd is not None else self._bounded(settings, reply, cost)
        self.usage.record_tokens(metric_name, reply.usage, cost.usd, cost.key)
        self._note_unreported(reply, cost)
        self._budget.spend(reply.usage)
        return reply, spent

    async def _reserve_cost(self, provider: str, model: str, sent: _SentCall) -> None:
        """Under ``--max-judge-cost``: wait for room in the budget for a call of this model
        (reserved by its kind, model and metric: each costs its own; a model needs a price)."""
        budget = self._cost_budget
        if budget is None:
            return
        metric_name = sent.metric_name
        if self.prices.lookup(provider, model) is None:
            raise JudgeBudgetExhausted(
                f"no price for {sent.price_key}, so --max-judge-cost cannot count "
                f"the calls of metric {metric_name!r} (give its price with --prices FILE)"
            )
        if not await budget.reserve(sent.kind):  # a stop came while it waited for room
            note_refusal()
            raise JudgeInterrupted(f"run interrupted before judge call for metric {metric_name!r}")

    def _bounded(self, settings: JudgeSettings, reply: JudgeReply, cost: CallCost) -> Decimal:
        """What ``--max-judge-cost`` counts for a reply whose cost is unknown.

        Never $0: its upper bound (cached tokens at the input price), said once as a
        warning; with no bound at all the budget stops, as if reached.  Without a cost
        bound the reply only counts as unpriced in the reports.
        """
        budget = self._cost_budget
        if budget is None:
            return Decimal(0)
        price = self.prices.lookup(settings.provider, settings.model)
        bound = price.upper_bound(reply.usage) if price is not None else None
        if bound is None:
            budget.close(f"the cost of a reply could not be computed ({cost.why})")
            return Decimal(0)
        if cost.key not in self._bounded_models:
            self._bounded_models.add(cost.key)
            self.notes.append(
                (
                    "--max-judge-cost",
                    f"{cost.why}: --max-judge-cost counts its cached input tokens at the "
                    "input price (an upper bound); give cachedInputPerMillion with --prices "
                    "FILE for the exact cost",
                )
            )
        return bound

    def _refuse_impossible_usage(self, reply: JudgeReply, settings: JudgeSettings) -> JudgeReply:
        """A reply whose token counts cannot be true (a plugin backend's negative count): its
        usage is unknown, said once per model, so it never takes tokens or dollars off a total."""
        usage = reply.usage
        if not usage.reported or usage.usable:
            return reply
        key = price_key(settings.provider, settings.model)
        if key not in self._unreported_models:
            self._unreported_models.add(key)
            counts = (
                f"prompt {usage.prompt_tokens!r}, completion {usage.completion_tokens!r}, "
                f"cached {usage.cached_prompt_tokens!r}, cache writes {usage.cache_write_tokens!r}"
            )
            self.notes.append(
                (
                    "judge",
                    f"{key}: the judge backend reported impossible token usage ({counts}), "
                    "refused: its tokens are not counted and its cost is unknown (no price "
                    "can give it)",
                )
            )
        return dataclasses.replace(reply, usage=TokenUsage(reported=False))

    def _note_unreported(self, reply: JudgeReply, cost: CallCost) -> None:
        """Say once per model that its replies' tokens and cost are unknown (not $0)."""
        if reply.usage.reported or cost.key in self._unreported_models:
            return
        self._unreported_models.add(cost.key)
        self.notes.append(
            (
                "judge",
                f"{cost.key}: {UNREPORTED_USAGE}: its tokens are not counted and its cost "
                "is unknown (no price can give it)",
            )
        )

    @property
    def cost_budget(self) -> CostBudget | None:
        """The ``--max-judge-cost`` budget (spend so far), None without one."""
        return self._cost_budget

    def stop_new_calls(self) -> None:
        """Send no further request (a signal arrived); calls already on the wire finish and are
        cached, and a call waiting out a retry's backoff is refused now, not when it ends.

        Safe in a signal handler: the waits are woken by a callback handed to the loop."""
        self._stopping = True
        loop = self._loop
        if loop is not None:
            with contextlib.suppress(RuntimeError):  # the loop is closed: nothing waits
                loop.call_soon_threadsafe(self._wake)

    def _wake(self) -> None:
        """End every wait for a retry, the rate limit or room in the cost budget (a stop)."""
        self._limiter.wake()
        if self._cost_budget is not None:
            self._cost_budget.wake()

    async def _call(
        self, backend: JudgeBackend, call: PreparedCall, sent: _SentCall, who: str
    ) -> JudgeReply:
        """The call with its retries, counted once its first request goes out.

        A call that ends before that (cancelled with its turn's other samples while it
        waited for a slot, or refused by a stop) was never made: it is no call in the
        reports and gives its place in ``--max-judge-calls`` back.  One cancelled after
        it (a second Ctrl-C) was paid for at a price no reply told: its tokens and cost
        are unknown, never $0, and a token or cost bound stops (no later call starts).
        """
        metric_name = sent.metric_name

        async def attempt() -> JudgeReply:
            # Checked per attempt, after waiting for a concurrency slot: queued calls and
            # retries stop too.
            if self._stopping:
                note_refusal()
                raise JudgeInterrupted(
                    f"run interrupted before judge call for metric {metric_name!r}"
                )
            if not sent.out:
                sent.out = True
                self.usage.count(metric_name, "calls")
                if sent.on_sent is not None:
                    sent.on_sent()
            else:
                # A retry counts here, when it is sent: one a stop refused was never made.
                self.usage.count(metric_name, "retries")
            return await backend.send(call)

        try:
            return await self._limiter.call(
                attempt,
                who=who,
                label=metric_name,
                give_up=sent.turn_failed,
            )
        except JudgeError:
            if not sent.out:
                self._budget.refund_call()
            else:
                self.usage.count(metric_name, "failed_calls")
            raise
        except asyncio.CancelledError:
            if not sent.out:
                self._budget.refund_call()
            else:
                unknown = TokenUsage(reported=False)
                self.usage.record_tokens(metric_name, unknown, None, sent.price_key)
                self._budget.spend(unknown)
                if self._cost_budget is not None:
                    # Its most is unknowable before the reply (no prompt token count, no
                    # sure output cap), so no later call can be kept within the bound.
                    self._cost_budget.close(CANCELLED_UNKNOWN_COST)
            raise

    def _backend_for(self, settings: JudgeSettings) -> JudgeBackend:
        if self._override is not None:
            return self._override
        backend = self._backends.get(settings)
        if backend is None:
            spec = provider_spec(settings.provider)
            if spec is None:
                raise JudgeConfigError(
                    f"create model instance: unknown provider: {settings.provider}"
                )
            backend = spec.backend(settings, self._http)
            if isinstance(backend, JsonJudgeBackend):
                backend.max_reply_bytes = self.options.max_reply_bytes
            self._backends[settings] = backend
        return backend


@dataclass
class _SentCall:
    """One call on its way: its metric, its model's price key, whether a request went out,
    and its turn's failure (then no retry)."""

    metric_name: str
    price_key: str
    on_sent: Callable[[], None] | None
    turn_failed: asyncio.Event | None = None
    out: bool = False

    @property
    def kind(self) -> CallKind:
        """What ``--max-judge-cost`` reserves and settles the call under."""
        return (self.price_key, self.metric_name)


def _cache_key(call: PreparedCall, settings: JudgeSettings) -> str:
    """The call's cache key, made with the endpoint as shown: a key in the URL stays out."""
    if settings.shown_endpoint != call.endpoint and call.endpoint == settings.endpoint:
        call = dataclasses.replace(call, endpoint=settings.shown_endpoint)
    return call.cache_key()
