"""Limits on judge calls: concurrency, retries, rate limit and budgets (calls, tokens, dollars).

What the calls cost is counted in :mod:`agenteval.judge.usage`.

Retries follow the OpenAI SDKs: connection errors, timeouts, 408, 409, 429 and
5xx are retried with exponential backoff (0.5 s doubling, capped at 8 s,
minus up to 25 % jitter); a server hint in ``retry-after-ms`` or
``Retry-After`` (seconds or an HTTP date, or a provider's own such as
Gemini's ``retryDelay``) wins when it is between 0 and 60 s.  The retry loop
is tenacity's (``AsyncRetrying``: stop after the attempts, retry only
``JudgeTransientError``, wait per :meth:`RetryPolicy.delay`); the rate limit
is aiolimiter's leaky bucket; concurrency is an ``asyncio.Semaphore`` held
only while an attempt runs.

A call's first attempt runs before tenacity is involved, and a failed one is
handed to ``AsyncRetrying`` (which replays that failure as its own first
attempt): tenacity's bookkeeping costs 35–50 µs of CPU per call
(bench/judge_limiter.py on the shared 2-core machine: ``CallLimiter.call``
10–11 µs per call, as the hand-written loop before it; a fresh
``AsyncRetrying`` around every call 44–60 µs), against about 0.6 ms of client
CPU per judge call in all at 64 in flight (bench/judge_throughput.py), where
that would have slowed the run.
"""

from __future__ import annotations

import asyncio
import logging
import math
import random
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from email.utils import parsedate_to_datetime
from typing import TypeVar

from aiolimiter import AsyncLimiter
from tenacity import (
    AsyncRetrying,
    RetryCallState,
    RetryError,
    retry_if_exception_type,
)
from tenacity.wait import wait_base

from agenteval import settings as defaults
from agenteval.judge.backend import UNREPORTED_USAGE, TokenUsage
from agenteval.judge.errors import (
    JudgeAbandoned,
    JudgeBudgetExhausted,
    JudgeTransientError,
    JudgeUnavailable,
)

_log = logging.getLogger("agenteval.judge")
T = TypeVar("T")

_RETRYABLE_4XX = frozenset({408, 409, 429})


def is_retryable_status(status: int) -> bool:
    """Whether an HTTP status is worth another attempt (408, 409, 429, 5xx)."""
    return status in _RETRYABLE_4XX or status >= 500


def parse_retry_after(headers: Mapping[str, str], now: float | None = None) -> float | None:
    """Seconds the server asks us to wait, from ``retry-after-ms`` or ``Retry-After``.

    ``headers`` must look keys up case-insensitively (``httpx.Headers`` does).
    ``now`` is the wall-clock time used for HTTP dates (default: ``time.time()``).
    """
    millis = headers.get("retry-after-ms")
    if millis is not None:
        try:
            value = float(millis) / 1000.0
        except ValueError:
            value = math.nan
        if math.isfinite(value):
            return value
    text = headers.get("retry-after")
    if text is None:
        return None
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if math.isfinite(value):
        return value
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    current = time.time() if now is None else now
    return when.timestamp() - current


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how patiently one judge call is retried."""

    retries: int = defaults.JUDGE_RETRIES
    timeout: float = defaults.JUDGE_TIMEOUT_SECONDS
    backoff_base: float = defaults.JUDGE_BACKOFF_BASE_SECONDS
    backoff_max: float = defaults.JUDGE_BACKOFF_MAX_SECONDS
    retry_after_max: float = defaults.JUDGE_RETRY_AFTER_MAX_SECONDS

    @property
    def attempts(self) -> int:
        """Total attempts of one call: the first plus the retries."""
        return self.retries + 1

    def delay(self, retry: int, retry_after: float | None, rng: random.Random) -> float:
        """Seconds to wait before retry number ``retry`` (0-based)."""
        if retry_after is not None and 0.0 <= retry_after <= self.retry_after_max:
            return retry_after
        if retry_after is not None and retry_after < 0.0:
            # An HTTP date in the past: the server is ready now.
            return 0.0
        backoff = min(self.backoff_base * 2.0**retry, self.backoff_max)
        return backoff * (1.0 - 0.25 * rng.random())


def rate_limiter(rpm: float) -> AsyncLimiter:
    """At most ``rpm`` call starts per minute, spread evenly: a bucket of one, so no bursts.

    A bucket of capacity 1 holds no credit for idle time, so a pause is not
    followed by a burst; each start waits until the previous one has leaked out.
    """
    if not rpm > 0:
        raise ValueError("rate limit must be a positive number of requests per minute")
    return AsyncLimiter(1, 60.0 / rpm)


class _PolicyWait(wait_base):
    """tenacity's wait: the policy's delay for the failed attempt's server hint."""

    def __init__(self, policy: RetryPolicy, rng: random.Random) -> None:
        self.policy = policy
        self.rng = rng

    def __call__(self, retry_state: RetryCallState) -> float:
        failure = retry_state.outcome.exception() if retry_state.outcome else None
        hint = failure.retry_after if isinstance(failure, JudgeTransientError) else None
        return self.policy.delay(retry_state.attempt_number - 1, hint, self.rng)


class CallLimiter:
    """The run-wide gate for judge attempts: concurrency, rate limit, timeout and retries."""

    def __init__(
        self,
        concurrency: int,
        policy: RetryPolicy,
        rate_limit_rpm: float | None = None,
        rng: random.Random | None = None,
    ) -> None:
        self.policy = policy
        self._semaphore = asyncio.Semaphore(concurrency)
        self._rate = rate_limiter(rate_limit_rpm) if rate_limit_rpm else None
        self._wait = _PolicyWait(policy, rng or random.Random())
        # Set by wake() (a stop): every backoff under way ends now; made in the loop.
        self._woken: asyncio.Event | None = None

    def wake(self) -> None:
        """End every backoff and rate-limit wait under way, and any later one, at once (a
        stop: the attempt that follows is refused by the caller's attempt, so the run does
        not wait out a Retry-After of up to a minute, or one rate-limit interval per queued
        call, to end).  Call it in the limiter's event loop."""
        self._woken_event().set()

    def _woken_event(self) -> asyncio.Event:
        if self._woken is None:
            self._woken = asyncio.Event()
        return self._woken

    async def call(
        self,
        attempt: Callable[[], Awaitable[T]],
        *,
        who: str,
        label: str,
        give_up: asyncio.Event | None = None,
    ) -> T:
        """Run ``attempt`` until it succeeds, fails for good, or the retries run out.

        ``attempt`` raises ``JudgeTransientError`` for a failure worth retrying;
        any other exception ends the call at once.  Running out of retries
        raises ``JudgeUnavailable`` naming ``who`` and the last error.  Once ``give_up``
        is set (the call's turn failed), no further attempt is made, a backoff under way
        ends early, and ``JudgeAbandoned`` is raised; an attempt under way finishes.
        """
        try:
            return await self._once(attempt)
        except JudgeTransientError as failure:
            if give_up is not None and give_up.is_set():
                raise _abandoned(who, failure) from failure
            return await self._retry(attempt, failure, who, label, give_up)

    async def _retry(
        self,
        attempt: Callable[[], Awaitable[T]],
        failure: JudgeTransientError,
        who: str,
        label: str,
        give_up: asyncio.Event | None,
    ) -> T:
        """tenacity's retry loop after a first failed attempt; only failed calls pay for it.

        Its first attempt replays ``failure``, so waits and the final message are those of
        a loop that made every attempt itself.  The caller's ``attempt`` counts a retry
        when it sends it: a backoff that ``give_up`` or :meth:`wake` cut short, and a retry
        the caller then refuses, count nothing.
        """
        policy = self.policy
        pending: JudgeTransientError | None = failure
        last: BaseException | None = failure

        def abandoned() -> bool:
            return give_up is not None and give_up.is_set()

        async def again() -> T:
            nonlocal pending
            if pending is not None:
                replayed, pending = pending, None
                raise replayed
            if abandoned():
                raise _abandoned(who, last)
            return await self._once(attempt)

        async def backoff(seconds: float) -> None:
            await _until_any((self._woken_event(), give_up), seconds)

        def announce(state: RetryCallState) -> None:
            nonlocal last
            delay = state.next_action.sleep if state.next_action else 0.0
            last = state.outcome.exception() if state.outcome else None
            _log.info(
                "judge retry %d/%d for metric %s (%s) in %.3f s after: %s",
                state.attempt_number,
                policy.retries,
                label,
                who,
                delay,
                last,
            )

        def stop(state: RetryCallState) -> bool:
            return state.attempt_number >= policy.attempts or abandoned()

        retrying = AsyncRetrying(
            stop=stop,
            retry=retry_if_exception_type(JudgeTransientError),
            wait=self._wait,
            before_sleep=announce,
            sleep=backoff,
        )
        try:
            return await retrying(again)
        except RetryError as exc:
            last = exc.last_attempt.exception()
        if abandoned():
            raise _abandoned(who, last) from last
        raise JudgeUnavailable(
            f"response error: {who} failed after {policy.attempts} attempt(s); last error: {last}"
        )

    async def _once(self, attempt: Callable[[], Awaitable[T]]) -> T:
        # A call waiting out its backoff holds no slot, so others keep the pool busy.
        async with self._semaphore:
            if self._rate is not None:
                await self._rate_turn(self._rate)
            try:
                async with asyncio.timeout(self.policy.timeout):
                    return await attempt()
            except TimeoutError:
                raise JudgeTransientError(f"no reply within {self.policy.timeout:g} s") from None

    async def _rate_turn(self, rate: AsyncLimiter) -> None:
        """Wait for the rate limit's next start, or for a stop: a call queued behind the rate
        limit then goes on to its attempt at once, which refuses it unsent, instead of
        keeping the stopped run waiting one interval per queued call."""
        if rate.has_capacity():
            await rate.acquire()
            return
        turn = asyncio.ensure_future(rate.acquire())
        woken = asyncio.ensure_future(self._woken_event().wait())
        try:
            await asyncio.wait((turn, woken), return_when=asyncio.FIRST_COMPLETED)
        finally:
            turn.cancel()
            woken.cancel()


async def _until_any(events: tuple[asyncio.Event | None, ...], seconds: float) -> None:
    """Wait ``seconds``, or until one of ``events`` is set."""
    waiters = [asyncio.ensure_future(event.wait()) for event in events if event is not None]
    try:
        await asyncio.wait(waiters, timeout=seconds, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for waiter in waiters:
            waiter.cancel()


def _abandoned(who: str, last: BaseException | None) -> JudgeAbandoned:
    return JudgeAbandoned(f"{who}: not retried, its turn failed; last error: {last}")


class Budget:
    """``max_judge_calls`` / ``max_judge_tokens``: once reached, no new call starts."""

    def __init__(self, max_calls: int | None = None, max_tokens: int | None = None) -> None:
        self.max_calls = max_calls
        self.max_tokens = max_tokens
        self.calls = 0
        self.tokens = 0
        # Set when a reply's tokens are unknown: the token bound can no longer be kept.
        self.closed = ""

    def reserve_call(self) -> None:
        """Count one more call, or raise ``JudgeBudgetExhausted`` if a limit is reached."""
        if self.closed:
            raise JudgeBudgetExhausted(
                f"judge budget stopped: {self.closed}, so max_judge_tokens="
                f"{self.max_tokens} could no longer be kept"
            )
        if self.max_calls is not None and self.calls >= self.max_calls:
            raise JudgeBudgetExhausted(
                f"judge budget exhausted: max_judge_calls={self.max_calls} reached"
            )
        if self.max_tokens is not None and self.tokens >= self.max_tokens:
            raise JudgeBudgetExhausted(
                f"judge budget exhausted: max_judge_tokens={self.max_tokens} reached "
                f"({self.tokens} tokens used)"
            )
        self.calls += 1

    def refund_call(self) -> None:
        """A reserved call was never sent: its place is free again."""
        self.calls -= 1

    def spend_tokens(self, tokens: int) -> None:
        """Add the tokens of a finished call."""
        self.tokens += tokens

    def spend(self, usage: TokenUsage) -> None:
        """Add a finished call's usage; one whose tokens are unknown stops a token bound
        (counting it as 0 tokens would let every further call through)."""
        self.spend_tokens(usage.total)
        if not usage.reported and self.max_tokens is not None:
            self.closed = self.closed or UNREPORTED_USAGE


# A judge call's kind for --max-judge-cost: its model's price key and its metric (one
# metric's calls on one model have prompts of one template, so they cost about the same).
CallKind = tuple[str, str]


class CostBudget:
    """``--max-judge-cost USD``: no call starts once the dollars spent reach the bound.

    A call's cost is known only when its reply arrives, so calls in flight are counted
    ahead, each kind of call (:data:`CallKind`: its model's price key and its metric) apart:
    a call in flight holds a reservation as large as its own kind's costliest call so far, and a call starts
    only when the spend plus the reservations, its own included, stays within the
    bound; otherwise it waits for a call in flight to finish.  With nothing in flight a
    call always starts while the spend is under the bound.  A kind with no priced reply
    yet costs an unknown amount, so its call starts only when nothing else is in flight,
    and nothing else starts while it is (before the run's first reply, one call is in
    flight at a time).  One costliest call for the whole run would let the calls of a
    dear model (or of a metric with long prompts) reserve a cheap one's cost, and many of
    them overshoot the bound together.  The spend so ends within one call's cost above the
    bound (one metric's calls on one model cost about the same): the last call to start
    began below it, as with ``--max-judge-calls``.

    Its state changes only between awaits of the one event loop, so it needs no lock:
    a waiter is woken by the ``_changed`` event every change sets (and replaces).
    """

    def __init__(self, max_usd: Decimal) -> None:
        if max_usd < 0:
            raise ValueError("max judge cost must not be negative")
        self.max_usd = max_usd
        self.spent = Decimal(0)
        # Per kind of call: its costliest priced call so far, and its calls in flight.
        self.largest: dict[CallKind, Decimal] = {}
        self._flying: dict[CallKind, int] = {}
        # Why no further call may start although the bound is not reached ("" while open).
        self.closed = ""
        # Set by wake() (a stop): no call is admitted any more, waiting or not.
        self.stopped = False
        self._changed = asyncio.Event()

    @property
    def in_flight(self) -> int:
        """Calls reserved and not settled yet."""
        return sum(self._flying.values())

    def _fits(self, key: CallKind) -> bool:
        if not self._flying:
            return True
        own = self.largest.get(key)
        if own is None:
            return False
        reserved = own
        for flying, count in self._flying.items():
            most = self.largest.get(flying)
            if most is None:  # a call of an unpriced model is in flight: its cost is unknown
                return False
            reserved += count * most
        return self.spent + reserved <= self.max_usd

    def _exhausted(self) -> JudgeBudgetExhausted:
        return JudgeBudgetExhausted(
            f"judge budget exhausted: max_judge_cost={self.max_usd} USD reached "
            f"({float(self.spent):.6g} USD spent)"
        )

    async def reserve(self, key: CallKind) -> bool:
        """Wait until a call of kind ``key`` fits and count it in flight
        (True); False once a stop came (:meth:`wake`: the call is to be refused unsent);
        raise ``JudgeBudgetExhausted`` once the bound is reached or the budget closed."""
        while not self.stopped:
            if self.closed:
                raise JudgeBudgetExhausted(
                    f"judge budget stopped: {self.closed}, so max_judge_cost="
                    f"{self.max_usd} USD could no longer be kept"
                )
            if self.spent >= self.max_usd:
                raise self._exhausted()
            if self._fits(key):
                self._flying[key] = self._flying.get(key, 0) + 1
                return True
            await self._changed.wait()
        return False

    def _notify(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()

    def wake(self) -> None:
        """A stop: the calls waiting for room, and any later one, are not admitted, so the
        stopped run does not wait for the calls on the wire to end.  Call it in the loop."""
        self.stopped = True
        self._notify()

    def close(self, why: str) -> None:
        """Start no further call: a call's cost is unknown, so the spend cannot be bounded."""
        self.closed = self.closed or why
        self._notify()

    def settle(self, key: CallKind, cost: Decimal) -> None:
        """A call reserved under ``key`` ended: add what it cost (0 when it failed or was
        not sent)."""
        left = self._flying[key] - 1
        if left:
            self._flying[key] = left
        else:
            del self._flying[key]
        self.spent += cost
        if cost > self.largest.get(key, Decimal(0)):
            self.largest[key] = cost
        self._notify()
