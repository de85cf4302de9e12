"""Forked workers, each computing one share of a job and shipping it back as plain data.

``--jobs N`` shares three jobs out this way: the up-front checks of a large eval set
(checks/evalset_stream.py), the scoring of its cases (run/case_split.py) and writing the
result files (report/run_reports.py).  A worker is
forked from the process that needs the share, so it starts with everything that process
loaded; it ships one picklable value through an unnamed temp file (no pipe to fill, and
the process reading it is busy with its own share meanwhile) and leaves through
``os._exit``: no handler, buffer or temp file of the process it was forked from is run,
flushed or removed twice.

A worker ignores SIGINT and SIGTERM (a terminal sends them to the whole process group:
the process that forked it decides what a signal means) and writes nothing to the
terminal (its standard output and error go to ``/dev/null``).  Whatever goes wrong in it
(an exception, being killed, no process to be had) is a failed share:
:meth:`ShareWorker.result` returns None and the caller computes that share itself.
Linux only (``fork``).

Tested in tests/results/test_share_workers.py.
"""

from __future__ import annotations

import atexit
import os
import pickle
import signal
import sys
import tempfile
from collections.abc import Callable
from typing import IO, TYPE_CHECKING

if TYPE_CHECKING:
    from multiprocessing.process import BaseProcess

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
    """A forked worker computing one share; :meth:`result` waits for what it shipped.

    The process is the standard library's (``multiprocessing``'s fork context: no pickling
    of ``work``, which may be a closure over the run's state); what is ours is the signal
    mask around its start and what the worker does (:func:`_ship`).
    """

    def __init__(self, process: BaseProcess, handoff: IO[bytes]) -> None:
        assert process.pid is not None, "a started worker has a pid"
        # Kept: a closed process object no longer says it (None: none was made, _Unmade).
        self.pid: int | None = process.pid
        self._process = process
        self._handoff = handoff

    @classmethod
    def start(cls, work: Callable[[], object]) -> ShareWorker:
        """Fork a worker that ships ``work()`` (run in the worker) and exits; one that
        cannot be made ships nothing (:class:`_Unmade`)."""
        # Imported here: only a run that shares work out pays for it (~9 ms at start-up).
        import multiprocessing
        import multiprocessing.util  # registers its exit function, which waits for children

        # (Again) after multiprocessing's exit function, so that it runs before that one.
        atexit.unregister(_close_live)
        atexit.register(_close_live)

        try:
            handoff = tempfile.TemporaryFile()  # noqa: SIM115 - closed by close()
        except OSError:
            return _Unmade()
        fork = multiprocessing.get_context("fork")
        process = fork.Process(target=_ship, args=(work, handoff), daemon=False)
        # The signals wait while the worker is made: one landing between the fork and the
        # worker ignoring them would run this process's handler in the worker.
        blocked = signal.pthread_sigmask(signal.SIG_BLOCK, _HANDLED)
        try:
            process.start()
            worker = cls(process, handoff)
            _live.add(worker)  # before a signal can land: see _close_live
        except OSError:
            handoff.close()
            return _Unmade()
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
        return worker

    def result(self, poll: Callable[[], None] | None = None) -> object | None:
        """What the worker shipped once it exits (None: it failed); ``poll`` is called
        about ten times a second meanwhile (a progress bar)."""
        process = self._process
        while process.exitcode is None:
            process.join(0.1 if poll is not None else None)
            if poll is not None:
                poll()
        if process.exitcode != 0:
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
        if self._handoff.closed:
            return  # closed already (a second close is a no-op, as a file's is)
        _live.discard(self)
        process = self._process
        if process.exitcode is None:
            process.kill()
            process.join()
        process.close()
        self._handoff.close()


# Workers started and not closed yet.  A signal may land after a worker is started and
# before its caller holds it (as ``start`` returns): that worker would be left out of the
# caller's clean-up, and the exit would wait for it (multiprocessing waits for its children;
# a worker ignores SIGTERM) while it scored its whole share.  At exit every one left is killed.
_live: set[ShareWorker] = set()


def _close_live() -> None:
    for worker in list(_live):
        worker.close()


class _Unmade(ShareWorker):
    """A worker that could not be made (no process or temp file to be had: fork's EAGAIN
    or ENOMEM, a full temp directory): a failed share, which the caller computes itself
    as it does a share whose worker died; with one process the run needed neither."""

    def __init__(self) -> None:
        self.pid = None

    def result(self, poll: Callable[[], None] | None = None) -> object | None:
        return None

    def close(self) -> None:
        return None


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
