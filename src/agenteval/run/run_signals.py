"""SIGINT/SIGTERM during a run: what happens depends on how far the run got.

* Loading and file discovery (nothing scored yet): stop at once ("interrupted", exit 3).
* Scoring, first signal: no new case, judge call or agent session starts; agent work in
  flight is cancelled (a hung turn is not awaited up to --agent-timeout); judge calls in
  flight finish and their cases are kept.  The reports are then written as usual (exit 3).
* Scoring, second signal: what is still in flight (judge calls too) is cancelled; the
  cases that finished are written all the same (exit 3).
* Writing the reports: the file being written is finished and the remaining reports are
  written too, then exit 3 — for the first signal and the second alike, so that the
  result files, the run document and the ``--record`` file hold the same finished cases.
* A third signal aborts at once; an interrupted write removes its temp file, so only
  whole files are ever left.

Where the handler raises ``KeyboardInterrupt`` (loading, a third signal), compiled code that
called the interrupted Python may hand it back as an error of its own (pydantic-core building a
validator: ``SchemaError``); :func:`run_signal_policy` turns that back into the interrupt.

The handlers stay in force until the last report is written: before, a signal after
scoring killed the process (SIGTERM) or skipped every report (SIGINT).
"""

from __future__ import annotations

import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from enum import Enum
from types import FrameType

from agenteval.run.runner import StopSignal

HANDLED = (signal.SIGINT, signal.SIGTERM)


class Phase(Enum):
    """How far the run got."""

    LOADING = "loading"
    SCORING = "scoring"
    WRITING = "writing"


class RunSignals:
    """The signal policy of one run (see the module docstring)."""

    def __init__(self, stop: StopSignal, notify: Callable[[str], None]) -> None:
        self.stop = stop
        self.notify = notify
        self.phase = Phase.LOADING
        self.signals = 0
        # Set when a signal arrived while the reports were being written.
        self.during_writing = False
        # Set when the handler raised KeyboardInterrupt (whatever became of it).
        self.aborted = False
        stop.on_start(self._scoring)

    def _scoring(self) -> None:
        if self.phase is not Phase.LOADING:
            return
        if self.signals:
            # The handler's KeyboardInterrupt can be swallowed (raised inside a weakref
            # callback or __del__); the count is not.
            raise KeyboardInterrupt
        self.phase = Phase.SCORING

    def writing(self) -> None:
        """Scoring is over; the reports are about to be written."""
        self.phase = Phase.WRITING

    @property
    def interrupted(self) -> bool:
        """True once any signal arrived."""
        return self.signals > 0

    def handle(self, signum: int, frame: FrameType | None) -> None:
        """The signal handler."""
        self.signals += 1
        if self.signals > 2 or self.phase is Phase.LOADING:
            self.aborted = True
            raise KeyboardInterrupt
        if self.phase is Phase.WRITING:
            self.during_writing = True
            self.notify("stopping: finishing the reports (press Ctrl-C again to abort)")
            self.stop.request()
        elif self.signals == 1:
            self.notify(
                "stopping: no new cases or judge calls; agent turns cancelled, judge calls "
                "in flight finish (press Ctrl-C again to cancel them too)"
            )
            self.stop.request()
        else:
            self.notify(
                "stopping now: cancelling what is in flight, keeping what finished "
                "(press Ctrl-C again to abort without writing)"
            )
            self.stop.halt()


@contextmanager
def run_signal_policy(policy: RunSignals) -> Iterator[RunSignals]:
    """Install ``policy``'s handler for SIGINT and SIGTERM; restore the previous ones after."""
    previous = {sig: signal.getsignal(sig) for sig in HANDLED}
    for sig in HANDLED:
        signal.signal(sig, policy.handle)
    try:
        yield policy
    except Exception as exc:
        if policy.aborted:  # the handler's KeyboardInterrupt, come back as another error
            raise KeyboardInterrupt from exc
        raise
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


__all__ = ["HANDLED", "Phase", "RunSignals", "run_signal_policy"]
