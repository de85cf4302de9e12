"""``python -m agenteval ARGS`` as a real process, without paying the imports each time.

Most end-to-end tests run the command line as a process and check its exit status and its
two streams.  A fresh interpreter spends most of such a run importing the command line
(typer, rich, pydantic and agenteval's schema: ~0.5 s of CPU on the 2-core test machine,
paid by hundreds of runs in the suite).  :func:`run_cli` gives the same result from a fork
of an interpreter that imported every command once (``cli.program.full_app``; a "zygote",
one per pytest process, so one per xdist worker): each command is still its own process, with its own
pid, environment, working directory, stdin/stdout/stderr (files, as pipes would be: not a
terminal), exit status (a signal's death is a negative return code, as in ``subprocess``)
and no state left behind for the next command.  It runs through ``agenteval.__main__``, so
the console script's signal guard (``agenteval.entry``) is in place as in a fresh process.

What a fork does not reproduce, and where tests keep ``subprocess`` with a fresh
interpreter: which modules a command imports (tests/cli/test_startup_imports.py), signals
at start-up or at chosen moments and streaming output (the signal trials, ``Popen``
tests), and anything the interpreter reads from the environment when it starts: a request
whose ``PYTHON*`` or locale variables differ from the zygote's runs as a fresh interpreter
here too.

The zygote (this file run as a script) listens on a Unix socket; for each connection it
forks a waiter, which receives the request (JSON, and the three stdio descriptors by
SCM_RIGHTS), forks the command, sends back its pid and then its wait status.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import selectors
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

AGENTEVAL = [sys.executable, "-m", "agenteval"]
# Read by the interpreter when it starts: a request that sets them differently from the
# zygote's environment gets a fresh interpreter.
_STARTUP_VARIABLES = ("LANG", "LC_ALL", "LC_CTYPE")
_MESSAGE = 1 << 20


class _Zygote:
    """The preloaded interpreter of this process, started on first use."""

    def __init__(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="agz-", dir="/tmp"))
        self.address = str(self.root / "socket")
        self.environment = dict(os.environ)
        self.process = subprocess.Popen(
            [sys.executable, __file__, self.address],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=self.environment,
        )
        assert self.process.stdout is not None
        ready = self.process.stdout.readline()
        if ready != b"ready\n":
            raise RuntimeError(f"the agenteval zygote did not start: {ready!r}")
        atexit.register(self.close)

    def close(self) -> None:
        """Closing its stdin ends the zygote."""
        if self.process.poll() is None:
            assert self.process.stdin is not None
            self.process.stdin.close()
            self.process.wait(timeout=30)
        shutil.rmtree(self.root, ignore_errors=True)

    def serves(self, env: Mapping[str, str]) -> bool:
        """Whether a fork of the zygote starts as ``python`` would with ``env``."""
        names = {n for n in (*env, *self.environment) if _read_at_startup(n)}
        return all(env.get(n) == self.environment.get(n) for n in names)


def _read_at_startup(name: str) -> bool:
    """Whether a new interpreter reads the variable ``name`` when it starts."""
    return name.startswith("PYTHON") or name in _STARTUP_VARIABLES


def startup_environment() -> dict[str, str]:
    """This process's variables that a new interpreter reads when it starts (``PYTHON*``,
    the locale's).  A test that runs a command in a minimal environment builds it on
    these: the command sees nothing else of this process, and the zygote can serve it
    (a request whose startup variables differ runs as a fresh interpreter, ~0.5 s more)."""
    return {name: value for name, value in os.environ.items() if _read_at_startup(name)}


_zygote: list[_Zygote] = []


def _the_zygote() -> _Zygote:
    if not _zygote or _zygote[0].process.poll() is not None:
        _zygote[:] = [_Zygote()]
    return _zygote[0]


def run_cli(
    args: Sequence[str],
    *,
    env: Mapping[str, str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
    timeout: float | None = None,
    text: bool = True,
    encoding: str | None = None,
    errors: str | None = None,
) -> subprocess.CompletedProcess[Any]:
    """``subprocess.run([python, -m, agenteval, *args], capture_output=True)``, forked.

    stdin is /dev/null; stdout and stderr are pipes; ``env`` (default: this process's
    environment) and ``cwd`` as for ``subprocess.run``.  Raises ``subprocess.TimeoutExpired``
    after killing the command, like ``subprocess.run``.
    """
    argv = [*AGENTEVAL, *map(str, args)]
    environment = dict(os.environ if env is None else env)
    zygote = _the_zygote()
    if not zygote.serves(environment):
        return subprocess.run(
            argv,
            env=environment,
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=timeout,
            check=False,
            text=text,
            encoding=encoding,
            errors=errors,
        )
    request = {
        "argv": [str(a) for a in args],
        "env": environment,
        "cwd": os.fspath(cwd) if cwd is not None else os.getcwd(),
    }
    out, err, status = _run(zygote, request, timeout, argv)
    decoding = (encoding, errors) if text or encoding or errors else None
    stdout, stderr = _decoded(out, decoding), _decoded(err, decoding)
    if status is None:
        raise subprocess.TimeoutExpired(argv, timeout or 0, stdout, stderr)
    return subprocess.CompletedProcess(argv, os.waitstatus_to_exitcode(status), stdout, stderr)


def _run(
    zygote: _Zygote, request: dict[str, Any], timeout: float | None, argv: list[str]
) -> tuple[bytes, bytes, int | None]:
    """The command's stdout, stderr and wait status (None: killed for running past ``timeout``).

    As ``subprocess.run`` does, both pipes are read to their end (the command's children
    may hold them) and the command's end is awaited.
    """
    deadline = None if timeout is None else time.monotonic() + timeout
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    with (
        socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn,
        open(os.devnull, "rb") as stdin,
        selectors.DefaultSelector() as selector,
    ):
        try:
            conn.connect(zygote.address)
            socket.send_fds(conn, [json.dumps(request).encode()], [stdin.fileno(), out_w, err_w])
        finally:
            os.close(out_w)
            os.close(err_w)
        conn.shutdown(socket.SHUT_WR)
        output: dict[int, bytearray] = {
            out_r: bytearray(),
            err_r: bytearray(),
            conn.fileno(): bytearray(),
        }
        for fd in output:
            os.set_blocking(fd, False)
            selector.register(fd, selectors.EVENT_READ)
        killed = False
        while selector.get_map():
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            events = selector.select(left)
            if not events and not killed and b"\n" in output[conn.fileno()]:
                os.kill(
                    int(json.loads(output[conn.fileno()].split(b"\n")[0])["pid"]), signal.SIGKILL
                )
                killed, deadline = True, None
            for key, _ in events:
                data = os.read(key.fd, 65536)
                if data:
                    output[key.fd] += data
                else:
                    selector.unregister(key.fd)
        os.close(out_r)
        os.close(err_r)
        replies = bytes(output[conn.fileno()]).splitlines()
    if len(replies) < 2:
        raise RuntimeError(f"the agenteval zygote lost the command {argv}")
    status = int(json.loads(replies[1])["status"])
    return bytes(output[out_r]), bytes(output[err_r]), None if killed else status


def _decoded(data: bytes, decoding: tuple[str | None, str | None] | None) -> Any:
    """As ``subprocess.run`` decodes in text mode: ``encoding`` (default: the locale's) and
    ``errors`` (default: strict), universal newlines."""
    if decoding is None:
        return data
    import locale

    encoding, errors = decoding
    decoded = data.decode(encoding or locale.getencoding(), errors or "strict")
    return decoded.replace("\r\n", "\n").replace("\r", "\n")


# --- the zygote -------------------------------------------------------------------------


def _serve(address: str) -> None:
    """Preload the command line, then fork a waiter per connection until stdin closes."""
    import agenteval.entry  # noqa: F401  (its signal guard, as ``python -m agenteval`` has)
    from agenteval.cli.program import full_app

    full_app()  # every command's imports, paid once here instead of by each command
    _preload()

    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(address)
    listener.listen(64)
    sys.stdout.buffer.write(b"ready\n")
    sys.stdout.flush()
    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ)
    selector.register(sys.stdin.buffer, selectors.EVENT_READ)
    while True:
        # Waiters are reaped here (not by SIGCHLD=SIG_IGN), so their CPU time and their
        # command's add up to the zygote's and so to the pytest process's children.
        with contextlib.suppress(ChildProcessError):
            while os.waitpid(-1, os.WNOHANG)[0]:
                pass
        for key, _ in selector.select(timeout=1):
            if key.fileobj is not listener:
                return  # stdin closed: the pytest process is gone
            conn, _ = listener.accept()
            if os.fork() == 0:
                listener.close()
                selector.close()
                _wait_on(conn)
            conn.close()


# Libraries agenteval imports inside functions, only when a command needs them (JSON
# Schema for a criterion's schema, the store's database drivers, ...): a fresh process
# must not pay for them up front, but each forked command that needed one paid its import
# again (jsonschema alone ~0.12 s of a 0.37 s run on the 2-core machine).
_LAZY_LIBRARIES = (
    "google.protobuf.message",
    "jsonpath_ng",
    "jsonschema",
    "nltk.tokenize.punkt",
    "psycopg",
    "referencing.jsonschema",
    "sqlalchemy.engine",
    "sqlalchemy.exc",
    "watchfiles",
)


def _preload() -> None:
    """Import every agenteval module and the libraries its commands import lazily.

    Only the zygote does this: which modules a fresh command imports is its own (and
    tested with fresh interpreters), a forked command simply finds them loaded.  A module
    that cannot be imported here (an optional library missing) is left to the command.
    """
    import importlib
    import pkgutil

    import agenteval

    names = [m.name for m in pkgutil.walk_packages(agenteval.__path__, "agenteval.")]
    for name in [*names, *_LAZY_LIBRARIES]:
        if name == "agenteval.__main__":  # importing it runs the command line
            continue
        with contextlib.suppress(ImportError):
            importlib.import_module(name)


def _wait_on(conn: socket.socket) -> None:
    """The waiter: fork the command, send its pid, then its wait status."""
    code = 1
    try:
        chunks, fds, _, _ = socket.recv_fds(conn, _MESSAGE, 3)
        data = chunks
        while chunk := conn.recv(_MESSAGE):
            data += chunk
        request = json.loads(data)
        pid = os.fork()
        if pid == 0:
            conn.close()
            _command(request, fds)
        for fd in fds:
            os.close(fd)
        conn.sendall(json.dumps({"pid": pid}).encode() + b"\n")
        _, status = os.waitpid(pid, 0)
        conn.sendall(json.dumps({"status": status}).encode() + b"\n")
        code = 0
    finally:
        os._exit(code)


def _command(request: dict[str, Any], fds: list[int]) -> None:
    """The forked command: the request's stdio, environment, directory and argv; then run."""
    import io
    import random
    import runpy
    import traceback

    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    os.environ.clear()
    os.environ.update(request["env"])
    os.chdir(request["cwd"])
    random.seed()  # a fresh interpreter's seed, not the zygote's state
    encoding, errors = sys.stdout.encoding, sys.stdout.errors
    sys.stdin = sys.__stdin__ = io.TextIOWrapper(
        io.BufferedReader(io.FileIO(0, "r", closefd=False)), encoding, errors
    )
    sys.stdout = sys.__stdout__ = io.TextIOWrapper(
        io.BufferedWriter(io.FileIO(1, "w", closefd=False)), encoding, errors
    )
    sys.stderr = sys.__stderr__ = io.TextIOWrapper(
        io.BufferedWriter(io.FileIO(2, "w", closefd=False)),
        encoding,
        "backslashreplace",
        line_buffering=True,
    )
    # As ``python -m``: the working directory first on sys.path, argv[0] the module's file.
    sys.path[0] = os.getcwd()
    sys.argv = ["-m", *request["argv"]]
    status: object = 0
    try:
        runpy.run_module("agenteval", run_name="__main__", alter_sys=True)
    except SystemExit as exc:
        status = exc.code
    except BaseException:
        traceback.print_exc()
        status = 1
    # The interpreter's way out: a message status printed, exit functions run (agenteval's
    # own ends the process there with the command's status), streams flushed.
    if isinstance(status, str):
        sys.stderr.write(status + "\n")
        status = 1
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(0 if status is None else status if isinstance(status, int) else 1)


if __name__ == "__main__":
    try:
        _serve(sys.argv[1])
    finally:
        # Its pytest process may end without running exit functions (a killed xdist worker).
        shutil.rmtree(os.path.dirname(sys.argv[1]), ignore_errors=True)
