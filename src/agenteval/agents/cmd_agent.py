"""``--agent cmd:COMMAND``: worker processes speaking the JSON-lines protocol of ``protocol.py``.

``--agent-concurrency`` workers at most; each serves one session at a time and
is reused for the next.  A worker that crashed, hung past the turn timeout or
broke the protocol is killed and a fresh one is started for the next session.
Workers run in their own process group, so the terminal's Ctrl-C reaches only
agenteval, which then stops starting sessions; when a worker is let go its whole
group is killed, and so is every process carrying its environment's tag, so a process
the agent started does not outlive it even when it left the group (``setsid``; see
``worker_tag.py`` for where that reach ends).

Everything an agent does is bounded: every write to it has the turn's deadline (an
agent that never reads its stdin fails the turn instead of hanging the run), one reply
line is capped by ``--agent-max-event-bytes`` and everything one turn sends by
``--agent-max-turn-bytes``.

The pipe is clean between sessions.  A turn ends with ``final`` or ``error``; the agent
must not write again before the next ``user_turn``.  ``session_end`` is sent when a
session ends and the case waits until the agent has read it (its stdin pipe is empty):
a sequential agent writes anything after its last ``final`` before it reads the next
line, so whatever it wrote is on our side of the pipe by then, and fails the case whose
session it belongs to (the worker is replaced).  Between two turns of one session and
when an idle worker is taken again, output already waiting is caught the same way, so a
stray line never reaches another session.  (An agent that reads its stdin ahead in
another thread defeats the wait; output it writes later than that is read as the next
turn's.)
"""

from __future__ import annotations

import array
import asyncio
import contextlib
import fcntl
import os
import signal
import termios
from collections import deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, cast

import orjson
from pydantic import ValidationError

from agenteval.agents.adapter import (
    AgentLimits,
    AgentTurnError,
    SessionStart,
    SlottedAdapter,
    TurnInput,
    ran_mocked_tool,
)
from agenteval.agents.env_secrets import environment_secrets
from agenteval.agents.protocol import (
    ErrorReply,
    FinalReply,
    MessageReply,
    ToolCallReply,
    ToolResultReply,
    reply_adapter,
    usage_of,
)
from agenteval.agents.tool_mocks import ToolMockError
from agenteval.agents.worker_tag import kill_tagged, new_tag, tagged_environment
from agenteval.errors import ControlFlow
from agenteval.inputs.finite_numbers import non_finite_numbers
from agenteval.inputs.safe_text import printable
from agenteval.judge.errors import redact_all
from agenteval.schema.base import dump
from agenteval.schema.evalset import Invocation

_STDERR_KEEP = 4096
# How long a worker's stray output is awaited for the error message, and how long the end
# of the run waits for the workers to exit after their stdin closed.
_SHOW_WAIT = 0.5
_EXIT_WAIT = 1.0


class _LineTooLong(ControlFlow):
    """A reply line passed the cap before its newline."""


def _unread(fd: int) -> int:
    """Bytes waiting in the pipe ``fd`` (either end), as the kernel counts them."""
    count = array.array("i", [0])
    try:
        fcntl.ioctl(fd, termios.FIONREAD, count)
    except OSError:
        return 0
    return count[0]


class AgentOutput(asyncio.Protocol):
    """The agent's stdout, read back line by line, with what is waiting unread in view.

    asyncio's ``StreamReader`` keeps its buffer to itself; the checks between sessions need
    to know whether the agent wrote anything nobody asked for, hence this small reader.
    Reading pauses while more than a line's cap is buffered.
    """

    def __init__(self, line_limit: int) -> None:
        self._buffer = bytearray()
        self._scanned = 0  # the buffer's first bytes already known to hold no newline
        self._limit = line_limit
        self._waiter: asyncio.Future[None] | None = None
        self._eof = False
        self._paused = False
        self.transport: asyncio.ReadTransport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        """The pipe is open."""
        self.transport = cast(asyncio.ReadTransport, transport)

    def data_received(self, data: bytes) -> None:
        """Buffer ``data``; stop reading while more than a line's cap waits."""
        self._buffer += data
        if len(self._buffer) > self._limit and not self._paused and self.transport is not None:
            self.transport.pause_reading()
            self._paused = True
        self._wake()

    def eof_received(self) -> bool | None:
        """The agent closed its stdout."""
        self._eof = True
        self._wake()
        return None

    def connection_lost(self, exc: Exception | None) -> None:
        """The pipe is closed."""
        self._eof = True
        self._wake()

    def _wake(self) -> None:
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    @property
    def pending(self) -> int:
        """Bytes received and not read yet."""
        return len(self._buffer)

    @property
    def ended(self) -> bool:
        """Whether the pipe ended (its file descriptor is closed or about to be)."""
        return self._eof

    def peek(self, limit: int) -> bytes:
        """The first ``limit`` bytes received and not read yet."""
        return bytes(self._buffer[:limit])

    async def wait_data(self) -> None:
        """Return once something is buffered or the pipe ended."""
        while not self._buffer and not self._eof:
            await self._wait()

    async def readline(self) -> bytes:
        """The next line with its newline; the rest at the end of the pipe (b"" when none)."""
        while True:
            index = self._buffer.find(b"\n", self._scanned)
            if index >= 0:
                if index >= self._limit:
                    raise _LineTooLong
                line = bytes(self._buffer[: index + 1])
                del self._buffer[: index + 1]
                self._scanned = 0
                if self._paused and len(self._buffer) <= self._limit and self.transport:
                    self._paused = False
                    self.transport.resume_reading()
                return line
            self._scanned = len(self._buffer)
            if self._scanned > self._limit:
                raise _LineTooLong
            if self._eof:
                line = bytes(self._buffer)
                self._buffer.clear()
                self._scanned = 0
                return line
            await self._wait()

    async def _wait(self) -> None:
        self._waiter = asyncio.get_running_loop().create_future()
        try:
            await self._waiter
        finally:
            self._waiter = None


class _StderrTail(asyncio.Protocol):
    """The last few KB the agent wrote to stderr."""

    def __init__(self) -> None:
        self.chunks: deque[bytes] = deque()
        self.size = 0
        self.closed = asyncio.get_running_loop().create_future()
        self.transport: asyncio.BaseTransport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        """The pipe is open."""
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        """Keep ``data``, dropping the oldest chunks past the tail's size."""
        self.chunks.append(data)
        self.size += len(data)
        while self.size > _STDERR_KEEP and len(self.chunks) > 1:
            self.size -= len(self.chunks.popleft())

    def connection_lost(self, exc: Exception | None) -> None:
        """The pipe is closed."""
        if not self.closed.done():
            self.closed.set_result(None)


def _shown(line: bytes) -> str:
    """The start of a reply line, printable, for an error message."""
    return printable(line.decode("utf-8", "replace").strip()[:200])


def _check_finite(reply: Any, line: bytes) -> None:
    """AgentTurnError for NaN, Infinity or 1e400 in a call's arguments or result: JSON has
    none, pydantic's reader takes them, and --record would write them as null (a replay
    would then score other values than the live run)."""
    if isinstance(reply, ToolCallReply):
        field, value = "arguments", reply.arguments
    elif isinstance(reply, ToolResultReply):
        field, value = "result", reply.result
    else:
        return
    found = non_finite_numbers(value, "", text=line, base=[field])
    if found:
        problem = found[0]
        raise AgentTurnError(
            f"protocol error: {problem.path}: {problem.message} ({problem.hint}) "
            f"in reply line {_shown(line)!r}"
        )


class CmdWorker:
    """One agent process: its stdin, its stdout read line by line, the tail of its stderr."""

    def __init__(self, command: str, limits: AgentLimits) -> None:
        self.command = command
        self.limits = limits
        self.proc: asyncio.subprocess.Process | None = None
        self.output = AgentOutput(limits.event_bytes)
        self._stdout_fd = -1
        self._stdin_fd = -1
        self._stderr: _StderrTail | None = None
        self._queued: list[bytes] = []
        self.replied = False
        self.turn_bytes = 0
        # In the environment of the worker and everything it starts: kill() finds them by it.
        self.tag = new_tag()
        # The API keys it inherits: never in an error message made of what it wrote.
        self.secrets = environment_secrets(os.environ)

    async def start(self) -> None:
        """Start the process (its own process group, a pipe on each of its three streams)."""
        loop = asyncio.get_running_loop()
        out_read, out_write = os.pipe()
        err_read, err_write = os.pipe()
        try:
            self.proc = await asyncio.create_subprocess_shell(
                self.command,
                stdin=asyncio.subprocess.PIPE,
                stdout=out_write,
                stderr=err_write,
                start_new_session=True,
                env=tagged_environment(self.tag),
            )
        except BaseException:
            for fd in (out_read, err_read):
                os.close(fd)
            raise
        finally:
            os.close(out_write)
            os.close(err_write)
        self._stdout_fd = out_read
        await loop.connect_read_pipe(lambda: self.output, os.fdopen(out_read, "rb", 0))
        self._stderr = _StderrTail()
        stderr = self._stderr
        await loop.connect_read_pipe(lambda: stderr, os.fdopen(err_read, "rb", 0))
        assert self.proc.stdin is not None
        pipe = self.proc.stdin.get_extra_info("pipe")
        with contextlib.suppress(ValueError, AttributeError):  # closed: the agent exited
            self._stdin_fd = pipe.fileno()

    @property
    def alive(self) -> bool:
        """Whether the process is still running."""
        return self.proc is not None and self.proc.returncode is None

    def clear_stderr(self) -> None:
        """Forget stderr so far: a session's error shows only its own output."""
        if self._stderr is not None:
            self._stderr.chunks.clear()
            self._stderr.size = 0

    async def stderr_tail(self) -> str:
        """The last few KB the process wrote to stderr, made printable."""
        if self._stderr is None:
            return ""
        if not self.alive:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(1.0):
                    await asyncio.shield(self._stderr.closed)
        data = b"".join(self._stderr.chunks)[-_STDERR_KEEP:]
        return printable(data.decode("utf-8", "replace").strip())

    def queue(self, message: dict[str, Any]) -> None:
        """Hold a line that needs no answer until the next ``send`` (one write, one wake-up)."""
        self._queued.append(orjson.dumps(message) + b"\n")

    async def send(self, message: dict[str, Any] | None, deadline: float) -> None:
        """Write the queued lines and ``message`` by ``deadline``; AgentTurnError when the
        process is gone or does not read them in time."""
        assert self.proc is not None and self.proc.stdin is not None
        if message is not None:
            self.queue(message)
        data, self._queued = b"".join(self._queued), []
        stdin = self.proc.stdin
        try:
            stdin.write(data)
            if stdin.transport.get_write_buffer_size() == 0 and not stdin.transport.is_closing():
                return  # all in the pipe already: nothing to wait for
            async with asyncio.timeout_at(deadline):
                await stdin.drain()
        except TimeoutError:
            raise AgentTurnError(
                f"the agent did not read its input within {self.limits.timeout:g} s "
                "(--agent-timeout)"
            ) from None
        except (BrokenPipeError, ConnectionResetError):
            raise await self.gone() from None

    def all_read(self) -> bool | None:
        """Whether the agent has read everything written to it (its stdin pipe is empty);
        None once the pipe is closing (nothing more will be read)."""
        assert self.proc is not None and self.proc.stdin is not None
        transport = self.proc.stdin.transport
        if transport.is_closing():
            return None
        return transport.get_write_buffer_size() == 0 and (
            self._stdin_fd < 0 or _unread(self._stdin_fd) == 0
        )

    async def wait_all_read(self, deadline: float) -> bool:
        """Wait until the agent has read all its input; False if it died or took too long."""
        loop = asyncio.get_running_loop()
        delay = 0.0
        while not (done := self.all_read()):
            if done is None or not self.alive or loop.time() + delay > deadline:
                return False
            # A loop pass or two first (the agent usually reads within one), then backing off.
            await asyncio.sleep(delay)
            delay = 0.0002 if delay == 0.0 else min(delay * 2, 0.001)
        return True

    def unasked(self) -> bool:
        """Whether output is waiting that no request asked for (buffered or in the pipe)."""
        if self.output.pending:
            return True
        # Once the pipe ended its descriptor is closed and may already name another file.
        return not self.output.ended and self._stdout_fd >= 0 and _unread(self._stdout_fd) > 0

    def forget_queued(self) -> None:
        """Drop lines never sent (a session that ended before its first turn)."""
        self._queued.clear()

    async def unasked_text(self) -> str:
        """The start of the unasked output, printable, for the error message."""
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(_SHOW_WAIT):
                await self.output.wait_data()
        text = self.output.peek(400).decode("utf-8", "replace").strip()
        return printable(text.split("\n", 1)[0][:200])

    async def receive(self, deadline: float) -> Any:
        """The next reply line, parsed; AgentTurnError on EOF, timeout, garbage or a cap."""
        try:
            # timeout_at cancels the read in place; wait_for would wrap it in a task per line.
            async with asyncio.timeout_at(deadline):
                line = await self.output.readline()
        except TimeoutError:
            raise AgentTurnError("timed out") from None
        except _LineTooLong:
            raise self.limits.event_too_long("a reply line") from None
        if not line:
            raise await self.gone()
        self.turn_bytes += len(line)
        if self.turn_bytes > self.limits.turn_bytes:
            raise self.limits.turn_too_long()
        self.replied = True
        try:
            reply = reply_adapter.validate_json(line)
        except ValidationError as exc:
            problem = exc.errors()[0]
            where = ".".join(str(p) for p in problem["loc"])
            detail = f"{where}: {problem['msg']}" if where else problem["msg"]
            raise AgentTurnError(
                f"protocol error: {detail} in reply line {_shown(line)!r}"
            ) from None
        _check_finite(reply, line)
        return reply

    async def gone(self) -> AgentTurnError:
        """The error for a process that stopped answering (stdout closed or stdin broken)."""
        reason = await self.exit_reason()
        assert self.proc is not None
        # 126/127: the shell could not run the command at all.
        never = not self.replied and self.proc.returncode in (126, 127)
        return AgentTurnError(reason, not_started=never)

    async def exit_reason(self) -> str:
        """Why the process stopped answering: its exit code and stderr."""
        assert self.proc is not None
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(2.0):
                await self.proc.wait()
        code = self.proc.returncode
        what = (
            "agent process closed its stdout"
            if code is None
            else f"agent process exited with code {code}"
        )
        if code is not None and code < 0:
            with contextlib.suppress(ValueError):
                what = f"agent process killed by {signal.Signals(-code).name}"
        tail = await self.stderr_tail()
        return f"{what}; stderr: {tail}" if tail else what

    async def kill(self) -> None:
        """Kill the process group — even when the agent itself exited, a process it started
        may live on in it — and every process carrying the worker's tag (one that left the
        group), close every pipe, then reap the agent.

        The group's kill and the pipes' closing happen before the first await, so a
        cancellation (a second Ctrl-C) cannot leave a pipe open; the tagged processes are
        found in a thread (a scan of /proc: ~7 µs a process, every worker's calls waited on
        it), which runs to its end even when the await is cancelled; ``CmdAgent.aclose``
        reaps what is left.
        """
        if self.proc is None:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        for transport in (
            self.output.transport,
            self._stderr.transport if self._stderr else None,
        ):
            if transport is not None:
                transport.close()
        await asyncio.to_thread(kill_tagged, self.tag)
        await self.reap()

    async def reap(self) -> None:
        """Wait (a few seconds at most) for the killed process to be collected."""
        if self.proc is not None:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(5.0):
                    await self.proc.wait()


class CmdSession:
    """A session on one worker."""

    def __init__(self, worker: CmdWorker, session_id: str, limits: AgentLimits) -> None:
        self.worker = worker
        self.session_id = session_id
        self.limits = limits
        self.broken = False
        self.turns = 0

    async def turn(self, turn: TurnInput) -> Invocation:
        """Send the user turn and follow the agent's replies until ``final`` or ``error``."""
        try:
            return await self._turn(turn)
        except AgentTurnError as exc:
            self.broken = True
            self.hidden(exc)
            raise
        except ToolMockError:
            # The agent waits for a result that will not come: the worker cannot be reused.
            self.broken = True
            raise

    async def _turn(self, turn: TurnInput) -> Invocation:
        worker = self.worker
        deadline = asyncio.get_running_loop().time() + self.limits.timeout
        if self.turns and worker.unasked():
            raise AgentTurnError(await self.stray(self.turns))
        self.turns += 1
        worker.turn_bytes = 0
        await worker.send(
            {
                "type": "user_turn",
                "sessionId": self.session_id,
                "turn": turn.number,
                "message": dump(turn.message),
                "mockedTools": turn.mocked_tools,
            },
            deadline,
        )
        recorder = turn.recorder
        mocked = set(turn.mocked_tools)
        while True:
            try:
                reply = await worker.receive(deadline)
            except AgentTurnError as exc:
                if str(exc) == "timed out":
                    raise AgentTurnError(
                        f"no final reply within {self.limits.timeout:g} s (--agent-timeout)"
                    ) from None
                raise
            if isinstance(reply, ToolCallReply):
                recorder.tool_call(reply.id, reply.name, reply.arguments)
                if reply.name in mocked:
                    result = await self._answer(turn, reply, deadline)
                    recorder.mock_result(reply.id, reply.name, result)
                    await worker.send(
                        {
                            "type": "tool_result",
                            "sessionId": self.session_id,
                            "id": reply.id,
                            "result": result,
                        },
                        deadline,
                    )
            elif isinstance(reply, ToolResultReply):
                name = recorder.mocked_tool(reply.id)
                if name is not None:
                    # Its own result would replace the mock's and be scored as the call's.
                    raise ran_mocked_tool(name, "a tool_result line for a mocked call")
                if not recorder.has_call(reply.id):
                    raise AgentTurnError(
                        f"protocol error: tool_result for unknown call id {printable(reply.id)!r}"
                    )
                recorder.tool_result(reply.id, reply.result)
            elif isinstance(reply, MessageReply):
                recorder.message(reply.content)
                if reply.usage is not None:
                    recorder.model_usage(usage_of(reply.usage))
            elif isinstance(reply, FinalReply):
                if reply.usage is not None:
                    recorder.model_usage(usage_of(reply.usage))
                return recorder.finish(reply.content)
            elif isinstance(reply, ErrorReply):
                raise AgentTurnError(f"agent reported an error: {printable(reply.message)}")

    async def _answer(self, turn: TurnInput, call: ToolCallReply, deadline: float) -> Any:
        """The mock's result for ``call``, within the turn's deadline (an ``llmGenerator``
        mock asks the judge, which may take longer than the turn may)."""
        try:
            async with asyncio.timeout_at(deadline):
                return await turn.answer_mock(call.name, call.arguments)
        except TimeoutError:
            raise AgentTurnError(
                f"no final reply within {self.limits.timeout:g} s (--agent-timeout; the mock of "
                f"{printable(call.name)!r} was still being answered)"
            ) from None

    async def stray(self, turn: int) -> str:
        """The error of output written after the final reply to ``turn``."""
        self.broken = True
        shown = await self.worker.unasked_text()
        return f"protocol error: the agent wrote after its final reply to turn {turn}: {shown!r}"

    async def end(self) -> None:
        """Send ``session_end``, wait until the agent read it, then check it wrote nothing
        since its last ``final``; AgentTurnError (the case fails) if it did."""
        worker = self.worker
        deadline = asyncio.get_running_loop().time() + self.limits.timeout
        try:
            await worker.send({"type": "session_end", "sessionId": self.session_id}, deadline)
        except AgentTurnError:
            self.broken = True  # gone or not reading: the turns are done, the worker goes
            return
        if not await worker.wait_all_read(deadline):
            self.broken = True
            return
        if worker.unasked():
            raise self.hidden(AgentTurnError(await self.stray(self.turns)))

    def hidden(self, exc: AgentTurnError) -> AgentTurnError:
        """``exc`` with the worker's inherited credentials hidden in its message, which quotes
        the agent's stderr, its error line or a reply line (env_secrets.py)."""
        secrets = self.worker.secrets
        exc.args = tuple(redact_all(a, secrets) if isinstance(a, str) else a for a in exc.args)
        return exc


class CmdAgent(SlottedAdapter):
    """A pool of reusable worker processes running one command."""

    def __init__(self, command: str, *, concurrency: int, limits: AgentLimits) -> None:
        super().__init__(f"cmd:{command}", concurrency=concurrency, limits=limits)
        self.command = command
        self._idle: list[CmdWorker] = []
        self._all: set[CmdWorker] = set()
        # Killed workers not reaped yet (a cancellation cut their wait short).
        self._dying: set[CmdWorker] = set()
        self.started = 0

    @asynccontextmanager
    async def session(self, start: SessionStart) -> AsyncIterator[CmdSession]:
        """A session on an idle (or new) worker; a broken worker is killed afterwards."""
        async with self._slots:
            worker = await self._worker()
            worker.clear_stderr()
            session = CmdSession(worker, start.session_id, self.limits)
            try:
                # Sent with the first user turn.
                worker.queue(
                    {
                        "type": "session_start",
                        "sessionId": start.session_id,
                        "appName": start.app_name,
                        "userId": start.user_id,
                        "state": start.state,
                        "contextMessages": [dump(m) for m in start.context_messages],
                        "mockedTools": start.mocked_tools,
                    }
                )
                yield session
                if not session.turns:
                    worker.forget_queued()  # the agent never heard of this session
                elif not session.broken:
                    await session.end()
            except BaseException:
                session.broken = True
                raise
            finally:
                if session.broken or not worker.alive or worker.unasked():
                    await self._discard(worker)
                else:
                    self._idle.append(worker)

    async def _worker(self) -> CmdWorker:
        while self._idle:
            worker = self._idle.pop()
            # Output written while it sat idle belongs to no session: the worker goes.
            if worker.alive and not worker.unasked():
                return worker
            await self._discard(worker)
        worker = CmdWorker(self.command, self.limits)
        self._all.add(worker)
        await worker.start()
        self.started += 1
        return worker

    async def _discard(self, worker: CmdWorker) -> None:
        self._all.discard(worker)
        self._dying.add(worker)
        await worker.kill()
        self._dying.discard(worker)

    async def aclose(self) -> None:
        """Close every worker's stdin (a polite end), then kill each process group."""
        workers = list(self._all)
        self._idle.clear()
        for worker in workers:
            if worker.proc is not None and worker.proc.stdin is not None:
                worker.proc.stdin.close()
        # The workers exit in parallel: one wait for all of them, not one after another.
        waits = [w.proc.wait() for w in workers if w.proc is not None and w.alive]
        if waits:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(_EXIT_WAIT):
                    await asyncio.gather(*waits)
        await asyncio.gather(*(self._discard(worker) for worker in workers))
        # Reaped before the event loop closes: asyncio warns about a child it cannot report.
        await asyncio.gather(*(worker.reap() for worker in list(self._dying)))
        self._dying.clear()
