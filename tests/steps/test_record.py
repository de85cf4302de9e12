"""The step recorder: nothing kept outside a recording, turns and quiet blocks inside."""

from __future__ import annotations

import asyncio

from agenteval.steps.record import at_turn, listening, recording


def test_nothing_listens_outside_a_recording() -> None:
    assert listening() is None
    at_turn(3)  # a no-op, not an error
    assert listening() is None


def test_steps_carry_their_turn_and_quiet_blocks_record_nothing() -> None:
    with recording() as recorder:
        listener = listening()
        assert listener is recorder
        recorder.add("before", {})
        at_turn(1)
        with recorder.quiet():
            assert listening() is None
            recorder.add("hidden", {})
        recorder.add("after", {"x": 1})
    assert [(s.kind, s.turn, s.data) for s in recorder.steps] == [
        ("before", None, {}),
        ("after", 1, {"x": 1}),
    ]
    assert listening() is None


def test_tasks_started_inside_share_the_recording() -> None:
    async def note(kind: str) -> None:
        found = listening()
        assert found is not None
        found.add(kind, {})

    async def main() -> None:
        await asyncio.gather(note("a"), note("b"))

    with recording() as recorder:
        asyncio.run(main())
    assert sorted(s.kind for s in recorder.steps) == ["a", "b"]
