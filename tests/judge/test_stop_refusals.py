"""agenteval.judge.stop_refusals: one counter per case task, shared with the tasks it starts."""

from __future__ import annotations

import asyncio

from agenteval.judge.stop_refusals import count_refusals, note_refusal


def test_counts_stay_with_their_case() -> None:
    async def case(refusals: int) -> int:
        counter = count_refusals()

        async def sample() -> None:
            note_refusal()

        await asyncio.gather(*(sample() for _ in range(refusals)))
        return counter.count

    async def run() -> list[int]:
        return list(await asyncio.gather(case(0), case(2), case(3)))

    assert asyncio.run(run()) == [0, 2, 3]
    note_refusal()  # outside any case: nothing to count, no error
