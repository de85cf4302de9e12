"""Judge calls a stop refused, counted per case.

A case that finishes after a stop (its judge replies were already on the way) is kept,
so a reply paid for is never thrown away, even with ``--no-cache``; a case for which a
call was refused is incomplete and left for ``--resume``.  The count lives in a context
variable: the runner sets a fresh counter in each case's task, and the judge client,
deep below, notes a refusal without knowing about cases.
"""

from __future__ import annotations

from contextvars import ContextVar


class RefusalCount:
    """How many judge calls of one case a stop refused."""

    __slots__ = ("count",)

    def __init__(self) -> None:
        self.count = 0


_current: ContextVar[RefusalCount | None] = ContextVar("agenteval_refusals", default=None)


def count_refusals() -> RefusalCount:
    """A fresh counter for the calling task (and the tasks it starts)."""
    counter = RefusalCount()
    _current.set(counter)
    return counter


def note_refusal() -> None:
    """A stop refused a judge call of the current case."""
    counter = _current.get()
    if counter is not None:
        counter.count += 1


__all__ = ["RefusalCount", "count_refusals", "note_refusal"]
