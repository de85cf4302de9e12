"""Client CPU that the judge's retry gate adds to a call that succeeds at once.

``CallLimiter.call`` (judge/limits.py) runs the first attempt itself and hands
only a failed call to tenacity's ``AsyncRetrying``.  This prints microseconds
per call, the median of ``--repeat`` rounds of ``--calls`` calls of an attempt
that returns at once, for: the bare attempt (the reference), ``CallLimiter.call``
as it is, and the same attempt inside a fresh ``AsyncRetrying`` (what routing
every call through tenacity would cost).  bench/judge_throughput.py shows what
that costs end to end: about 0.6 ms of client CPU per judge call in all.

    .venv/bin/python bench/judge_limiter.py
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from collections.abc import Awaitable, Callable

from tenacity import AsyncRetrying, retry_if_exception_type, stop_after_attempt

from agenteval.judge.errors import JudgeTransientError
from agenteval.judge.limits import CallLimiter, RetryPolicy


async def attempt() -> int:
    """A judge attempt that answers at once."""
    return 1


async def per_call(calls: int, one: Callable[[], Awaitable[int]]) -> float:
    """Microseconds per call of ``one``."""
    started = time.process_time()
    for _ in range(calls):
        await one()
    return (time.process_time() - started) / calls * 1e6


async def measure(calls: int) -> dict[str, float]:
    """One round: microseconds per call for each way."""
    policy = RetryPolicy()
    limiter = CallLimiter(64, policy)

    async def gated() -> int:
        return await limiter.call(attempt, who="bench", label="bench")

    async def tenacity_every_call() -> int:
        retrying = AsyncRetrying(
            stop=stop_after_attempt(policy.attempts),
            retry=retry_if_exception_type(JudgeTransientError),
        )
        return await retrying(attempt)

    return {
        "bare attempt": await per_call(calls, attempt),
        "CallLimiter.call": await per_call(calls, gated),
        "AsyncRetrying each call": await per_call(calls, tenacity_every_call),
    }


def main() -> int:
    """Print the median microseconds per call of each way."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--calls", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    rounds = [asyncio.run(measure(args.calls)) for _ in range(args.repeat)]
    for name in rounds[0]:
        median = statistics.median(r[name] for r in rounds)
        print(f"{name:>24}  {median:7.1f} µs per call")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
