"""Forked workers computing a share and shipping it back (results/share_workers.py)."""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import time

import pytest

from agenteval.results.share_workers import ShareWorker, can_fork, cpu_count

pytestmark = pytest.mark.skipif(not can_fork(), reason="forked workers are Linux only")


def test_a_worker_ships_what_it_computed_in_its_own_process() -> None:
    parent = os.getpid()
    worker = ShareWorker.start(lambda: (os.getpid(), os.getppid(), [1.5, "x"]))
    try:
        shipped = worker.result()
    finally:
        worker.close()
    assert isinstance(shipped, tuple)
    pid, ppid, data = shipped
    assert pid == worker.pid != parent and ppid == parent and data == [1.5, "x"]


def test_a_worker_that_fails_ships_nothing(capfd: pytest.CaptureFixture[str]) -> None:
    def fails() -> object:
        print("from the worker")
        raise RuntimeError("a bug")

    worker = ShareWorker.start(fails)
    try:
        assert worker.result() is None
    finally:
        worker.close()
    captured = capfd.readouterr()
    assert "worker" not in captured.out + captured.err  # it prints nowhere


def test_a_worker_ignores_the_signals_its_parent_decides_on() -> None:
    worker = ShareWorker.start(lambda: time.sleep(0.3) or "done")
    try:
        time.sleep(0.1)
        os.kill(worker.pid, signal.SIGINT)
        os.kill(worker.pid, signal.SIGTERM)
        polls: list[int] = []
        assert worker.result(lambda: polls.append(1)) == "done"
        assert polls  # the progress was polled while it waited
    finally:
        worker.close()


def test_closing_a_running_worker_kills_and_reaps_it() -> None:
    worker = ShareWorker.start(lambda: time.sleep(60))
    started = time.monotonic()
    worker.close()
    assert time.monotonic() - started < 10
    with pytest.raises(ChildProcessError):
        os.waitpid(worker.pid, os.WNOHANG)  # reaped: no zombie left


def test_cpu_count_is_the_cores_this_process_may_use() -> None:
    assert 1 <= cpu_count() <= (os.cpu_count() or 1)
    assert cpu_count() == len(os.sched_getaffinity(0))


def test_the_signals_wait_only_while_the_worker_is_made() -> None:
    """Blocked around the fork (a signal landing in between would run this process's
    handler in the worker), unblocked after: here at once, in the worker once ignored."""
    before = signal.pthread_sigmask(signal.SIG_BLOCK, [])
    worker = ShareWorker.start(
        lambda: (
            signal.getsignal(signal.SIGINT) is signal.SIG_IGN,
            signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, []),
        )
    )
    try:
        assert signal.pthread_sigmask(signal.SIG_BLOCK, []) == before
        assert worker.result() == (True, False)
    finally:
        worker.close()


def test_a_worker_that_cannot_be_made_is_a_failed_share(monkeypatch: pytest.MonkeyPatch) -> None:
    """fork's EAGAIN (a process limit) or ENOMEM: the caller computes the share itself, as
    for a worker that died, instead of the run failing where one process would not."""

    def no_process() -> int:
        raise BlockingIOError(errno.EAGAIN, "Resource temporarily unavailable")

    monkeypatch.setattr(os, "fork", no_process)
    before = signal.pthread_sigmask(signal.SIG_BLOCK, [])
    worker = ShareWorker.start(lambda: "never")
    assert worker.result() is None
    worker.close()
    worker.close()
    assert signal.pthread_sigmask(signal.SIG_BLOCK, []) == before


def test_a_worker_its_caller_never_held_is_killed_at_exit() -> None:
    # A signal between the fork and the caller holding the worker (as start returns) left it
    # out of the clean-up: the exit waited while it did its whole share.
    code = (
        "import sys, time\n"
        "from agenteval.results.share_workers import ShareWorker\n"
        "worker = ShareWorker.start(lambda: time.sleep(600))\n"
        "print(worker.pid, flush=True)\n"
        "sys.exit(3)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 3, done.stderr
    pid = int(done.stdout)
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)  # gone (killed and reaped), not left running under init
