"""Find every process a ``cmd:`` worker started, also those that left its process group.

A worker runs in its own process group, and killing the group reaches what it started
there; a process that left the group — ``setsid``, ``setpgid``, a daemon's double fork —
does not get that signal and outlives the run.  So each worker's environment carries a
tag of its own (``AGENTEVAL_AGENT_WORKER=<random hex>``), which every process it starts
inherits wherever it goes, and a kill also signals every process whose environment
holds the tag.  Linux only (``/proc/PID/environ``, and a pidfd for each kill: Linux 5.3 and
later); elsewhere, and for a process started with an emptied environment (``env -i``), the
process group is all that is reached.  A daemon the agent started on demand (a gpg-agent, a
build server) carries the tag too, and is killed with the worker.

Tested in tests/agents/test_cmd_agent.py.
"""

from __future__ import annotations

import contextlib
import os
import signal
import uuid

TAG_VARIABLE = "AGENTEVAL_AGENT_WORKER"
# Rounds of finding and killing: a process may start another between a scan and its kill.
_ROUNDS = 3


def new_tag() -> str:
    """A tag no other worker has."""
    return uuid.uuid4().hex


def tagged_environment(tag: str) -> dict[str, str]:
    """agenteval's environment with the worker's tag added (what the worker is started with)."""
    return {**os.environ, TAG_VARIABLE: tag}


def _carries(pid: int, entry: bytes) -> bool:
    """Whether process ``pid`` was started with the environment entry ``entry``."""
    try:
        with open(f"/proc/{pid}/environ", "rb") as environ:
            return entry in environ.read().split(b"\0")
    except OSError:
        return False  # gone, or another user's


def tagged_pids(tag: str) -> list[int]:
    """The processes (of this user: others' environments cannot be read) carrying ``tag``.

    ``environ`` is what a process was started with; a zombie has none, and is gone anyway.
    """
    entry = f"{TAG_VARIABLE}={tag}".encode()
    try:
        names = os.listdir("/proc")
    except OSError:
        return []
    return [int(name) for name in names if name.isdigit() and _carries(int(name), entry)]


def _kill(pid: int, entry: bytes) -> None:
    """SIGKILL ``pid`` if it still carries ``entry``.  Through a pidfd, which holds on to the
    process it names: a tagged process that exited after the scan, its pid then given to
    another, is never the one signalled (the environment is read again through the pin)."""
    try:
        handle = os.pidfd_open(pid)
    except (AttributeError, OSError):
        return  # gone (or no pidfd on this system: then the process group is all that is reached)
    try:
        if _carries(pid, entry):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                signal.pidfd_send_signal(handle, signal.SIGKILL)
    finally:
        os.close(handle)


def kill_tagged(tag: str) -> None:
    """SIGKILL every process carrying ``tag``, until none is left (a few rounds at most)."""
    entry = f"{TAG_VARIABLE}={tag}".encode()
    for _ in range(_ROUNDS):
        pids = tagged_pids(tag)
        if not pids:
            return
        for pid in pids:
            _kill(pid, entry)
