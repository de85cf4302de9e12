"""The outcome of one criterion check.

Tested in tests/criteria/test_json_compare.py.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, TypeVar

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


class Ignorable(Protocol):
    """A criterion that ``ignore: true`` switches off."""

    @property
    def ignore(self) -> bool: ...


C = TypeVar("C", bound=Ignorable)


def check_text_criterion(
    step: str,
    criterion: C | None,
    text: str,
    check: Callable[[C, str], Verdict],
    inputs: Callable[[C, str], dict[str, object]],
) -> Verdict:
    """``check`` applied to ``text`` (an absent or ignored criterion matches), recorded as ``step``.

    When a step record is on, a given criterion (an ignored one too) adds ``inputs``, ``ok``
    and ``reason``.
    """
    if criterion is None:
        return MATCH
    verdict = MATCH if criterion.ignore else check(criterion, text)
    recorder = listening()
    if recorder is not None:
        recorder.add(step, {**inputs(criterion, text), "ok": verdict.ok, "reason": verdict.reason})
    return verdict
