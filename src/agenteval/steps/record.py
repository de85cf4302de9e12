"""The step recorder: a context variable holding the recording in progress, if any.

Hooks in the evaluators' own code paths call :func:`listening` and, when it returns
a recorder, add a :class:`Step` with the values they computed, so that what
``agenteval explain`` shows are the evaluators' numbers, not a second implementation.

Tested in tests/steps/test_record.py.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

_CURRENT: ContextVar[Recorder | None] = ContextVar("agenteval_step_recorder", default=None)


@dataclass(frozen=True, slots=True)
class Step:
    """One recorded step: its kind (``rouge``, ``judge.sample``, ...), turn and values."""

    kind: str
    # 0-based turn the evaluator was scoring, None before the first turn began.
    turn: int | None
    data: dict[str, Any]


@dataclass(slots=True)
class Recorder:
    """The steps of one recording, in the order the code took them."""

    steps: list[Step] = field(default_factory=list)
    turn: int | None = None
    # Nested comparisons a caller records itself in a better shape (trajectory pairs).
    muted: int = 0

    def add(self, kind: str, data: dict[str, Any]) -> None:
        """Keep a step of ``kind`` for the current turn (nothing while muted)."""
        if not self.muted:
            self.steps.append(Step(kind, self.turn, data))

    @contextmanager
    def quiet(self) -> Iterator[None]:
        """Record nothing inside (the caller records the outcome in one step)."""
        self.muted += 1
        try:
            yield
        finally:
            self.muted -= 1


def listening() -> Recorder | None:
    """The recording in progress, or None (the usual case: record nothing)."""
    recorder = _CURRENT.get()
    if recorder is None or recorder.muted:
        return None
    return recorder


def at_turn(index: int) -> None:
    """Mark the start of turn ``index`` (0-based) for the steps that follow."""
    recorder = _CURRENT.get()
    if recorder is not None:
        recorder.turn = index


@contextmanager
def unrecorded() -> Iterator[None]:
    """Record nothing inside (work redone after the fact, e.g. a prompt rendered again)."""
    recorder = _CURRENT.get()
    if recorder is None:
        yield
        return
    with recorder.quiet():
        yield


@contextmanager
def recording() -> Iterator[Recorder]:
    """Record every step taken inside the block (tasks started inside share it)."""
    recorder = Recorder()
    token = _CURRENT.set(recorder)
    try:
        yield recorder
    finally:
        _CURRENT.reset(token)


__all__ = ["Recorder", "Step", "at_turn", "listening", "recording", "unrecorded"]
