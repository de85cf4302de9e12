"""Forked workers, each computing one share of a job and shipping it back as plain data.

``--jobs N`` splits two jobs this way: the up-front checks of a large eval set
(checks/evalset_stream.py) and the scoring of its cases (run/case_split.py).  A worker is
forked from the process that needs the share, so it starts with everything that process
loaded; it ships one picklable value through an unnamed temp file (no pipe to fill, and
the process reading it is busy with its own share meanwhile) and leaves through
``os._exit``: no handler, buffer or temp file of the process it was forked from is run,
flushed or removed twice.

A worker ignores SIGINT and SIGTERM (a terminal sends them to the whole process group:
the process that forked it decides what a signal means) and writes nothing to the
terminal (its standard output and error go to ``/dev/null``).  Whatever goes wrong in it
(an exception, being killed) is a failed share: :meth:`ShareWorker.result` returns None
and the caller computes that share itself.  Linux only (``fork``).

Tested in tests/results/test_share_workers.py.
"""

from __future__ import annotations

import os
import pickle
import select
import signal
import sys
import tempfile
import time
from collections.abc import Callable
from typing import IO

# What a terminal sends the whole process group; the process that forks decides on them.
_HANDLED = {signal.SIGINT, signal.SIGTERM}


def can_fork() -> bool:
    """Whether shares can be computed in forked workers here (Linux)."""
    return sys.platform == "linux"


def cpu_count() -> int:
    """The cores this process may run on (its affinity, not the machine's count)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


class ShareWorker:
    """A forked worker computing one share; :meth:`result` waits for what it shipped."""

    def __init__(self, pid: int, handoff: IO[bytes], pidfd: int | None) -> None:
        self.pid = pid
        self._handoff = handoff
        self._pidfd = pidfd
        self._exited = False

    @classmethod
    def start(cls, work: Callable[[], object]) -> ShareWorker:
        """Fork a worker that ships ``work()`` (run in the worker) and exits."""
        handoff = tempfile.TemporaryFile()  # noqa: SIM115 - closed by close()
        # The signals wait while the worker is made: one landing between the fork and the
        # worker ignoring them would run this process's handler in the worker.
        blocked = signal.pthread_sigmask(signal.SIG_BLOCK, _HANDLED)
        try:
            pid = os.fork()
            if pid == 0:
                _ship(work, handoff)  # never returns
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
        try:
            pidfd: int | None = os.pidfd_open(pid)
        except OSError:  # a kernel before 5.3: waitpid alone
            pidfd = None
        return cls(pid, handoff, pidfd)

    def result(self, poll: Callable[[], None] | None = None) -> object | None:
        """What the worker shipped once it exits (None: it failed); ``poll`` is called
        about ten times a second meanwhile (a progress bar)."""
        status = 0
        while not self._exited:
            if poll is not None:
                if self._pidfd is not None:
                    select.select([self._pidfd], [], [], 0.1)
                else:
                    time.sleep(0.05)
            pid, status = os.waitpid(self.pid, os.WNOHANG if poll is not None else 0)
            if poll is not None:
                poll()
            self._exited = pid != 0
        if not os.WIFEXITED(status) or os.WEXITSTATUS(status) != 0:
            return None
        try:
            self._handoff.seek(0)
            shipped: object = pickle.load(self._handoff)
        except (OSError, EOFError, pickle.UnpicklingError):
            return None
        return shipped

    def close(self) -> None:
        """Kill the worker if it still runs (the caller was interrupted, or does not need
        the share any more) and let it go."""
        if not self._exited:
            try:
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
            except (ProcessLookupError, ChildProcessError):
                pass
            self._exited = True
        if self._pidfd is not None:
            os.close(self._pidfd)
            self._pidfd = None
        self._handoff.close()


def _ship(work: Callable[[], object], handoff: IO[bytes]) -> None:
    """The worker's life: ``work()`` pickled into ``handoff``, then exit (0: shipped)."""
    code = 1
    try:
        for handled in _HANDLED:
            signal.signal(handled, signal.SIG_IGN)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _HANDLED)
        quiet = os.open(os.devnull, os.O_WRONLY)
        os.dup2(quiet, 1)
        os.dup2(quiet, 2)
        # And the streams Python writes through, which may not be descriptors 1 and 2.
        sys.stdout = sys.stderr = os.fdopen(quiet, "w")
        pickle.dump(work(), handoff, protocol=pickle.HIGHEST_PROTOCOL)
        handoff.flush()
        code = 0
    except BaseException:  # any failure: the share is computed again, never trusted
        pass
    finally:
        os._exit(code)


__all__ = ["ShareWorker", "can_fork", "cpu_count"]
