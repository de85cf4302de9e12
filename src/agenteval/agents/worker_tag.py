"""Find every process a ``cmd:`` worker started, also those that left its process group.

A worker runs in its own process group, and killing the group reaches what it started
there; a process that left the group — ``setsid``, ``setpgid``, a daemon's double fork —
does not get that signal and outlives the run.  So each worker's environment carries a
tag of its own (``AGENTEVAL_AGENT_WORKER=<random hex>``), which every process it starts
inherits wherever it goes, and a kill also signals every process whose environment
holds the tag.  Linux only (``/proc/PID/environ``); elsewhere, and for a process started
with an emptied environment (``env -i``), the process group is all that is reached.

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


def tagged_pids(tag: str) -> list[int]:
    """The processes (of this user: others' environments cannot be read) carrying ``tag``.

    ``environ`` is what a process was started with; a zombie has none, and is gone anyway.
    """
    entry = f"{TAG_VARIABLE}={tag}".encode()
    try:
        names = os.listdir("/proc")
    except OSError:
        return []
    found: list[int] = []
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as environ:
                if entry in environ.read().split(b"\0"):
                    found.append(int(name))
        except OSError:
            continue  # gone, or another user's
    return found


def kill_tagged(tag: str) -> None:
    """SIGKILL every process carrying ``tag``, until none is left (a few rounds at most)."""
    for _ in range(_ROUNDS):
        pids = tagged_pids(tag)
        if not pids:
            return
        for pid in pids:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
