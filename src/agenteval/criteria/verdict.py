"""The outcome of one criterion check.

Tested in tests/criteria/test_json_compare.py.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from agenteval.steps.record import listening


@dataclass(frozen=True, slots=True)
class Verdict:
    """Whether a criterion matched, and why not when it did not."""

    ok: bool
    reason: str = ""

    def __bool__(self) -> bool:
        return self.ok


MATCH = Verdict(True)


def mismatch(reason: str) -> Verdict:
    """A failed check with its reason."""
    return Verdict(False, reason)


def recorded(step: str, verdict: Verdict, inputs: Callable[[], dict[str, object]]) -> Verdict:
    """``verdict``, added to the step record (when one is on) as ``step``: inputs, ok, reason."""
    recorder = listening()
    if recorder is not None:
        recorder.add(step, {**inputs(), "ok": verdict.ok, "reason": verdict.reason})
    return verdict
