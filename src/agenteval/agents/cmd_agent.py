"""``--agent cmd:COMMAND``: worker processes speaking the JSON-lines protocol of ``protocol.py``.

``--agent-concurrency`` workers at most; each serves one session at a time and
is reused for the next.  A worker that crashed, hung past the turn timeout or
broke the protocol is killed and a fresh one is started for the next session.
Workers run in their own process group, so the terminal's Ctrl-C reaches only
agenteval, which then stops starting sessions.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections import deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import orjson
from pydantic import ValidationError

from agenteval.agents.adapter import AgentSession, AgentTurnError, SessionStart, TurnInput
from agenteval.agents.protocol import (
    ErrorReply,
    FinalReply,
    MessageReply,
    ToolCallReply,
    ToolResultReply,
    reply_adapter,
)
from agenteval.agents.recorder import TurnRecorder
from agenteval.agents.text import printable
from agenteval.agents.tool_mocks import ToolMockError
from agenteval.schema.base import dump
from agenteval.schema.evalset import Invocation

_LINE_LIMIT = 64 * 1024 * 1024
_STDERR_KEEP = 4096


class CmdWorker:
    """One agent process and the tail of its stderr."""

    def __init__(self, command: str) -> None:
        self.command = command
        self.proc: asyncio.subprocess.Process | None = None
        self._stderr: deque[bytes] = deque()
        self._stderr_size = 0
        self._stderr_task: asyncio.Task[None] | None = None
        self._queued: list[bytes] = []
        self.replied = False

    async def start(self) -> None:
        """Start the process (its own process group, pipes on all three streams)."""
        self.proc = await asyncio.create_subprocess_shell(
            self.command,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            limit=_LINE_LIMIT,
            start_new_session=True,
        )
        self._stderr_task = asyncio.create_task(self._drain_stderr())

    @property
    def alive(self) -> bool:
        """Whether the process is still running."""
        return self.proc is not None and self.proc.returncode is None

    async def _drain_stderr(self) -> None:
        assert self.proc is not None and self.proc.stderr is not None
        while chunk := await self.proc.stderr.read(65536):
            self._stderr.append(chunk)
            self._stderr_size += len(chunk)
            while self._stderr_size > _STDERR_KEEP and len(self._stderr) > 1:
                self._stderr_size -= len(self._stderr.popleft())

    def clear_stderr(self) -> None:
        """Forget stderr so far: a session's error shows only its own output."""
        self._stderr.clear()
        self._stderr_size = 0

    async def stderr_tail(self) -> str:
        """The last few KB the process wrote to stderr, made printable."""
        if self._stderr_task is not None and not self.alive:
            with contextlib.suppress(asyncio.TimeoutError, Exception):
                await asyncio.wait_for(asyncio.shield(self._stderr_task), 1.0)
        data = b"".join(self._stderr)[-_STDERR_KEEP:]
        return printable(data.decode("utf-8", "replace").strip())

    def queue(self, message: dict[str, Any]) -> None:
        """Hold a line that needs no answer until the next ``send`` (one write, one wake-up)."""
        self._queued.append(orjson.dumps(message) + b"\n")

    async def send(self, message: dict[str, Any] | None = None) -> None:
        """Write the queued lines and ``message``; AgentTurnError when the process is gone."""
        assert self.proc is not None and self.proc.stdin is not None
        if message is not None:
            self.queue(message)
        data, self._queued = b"".join(self._queued), []
        try:
            self.proc.stdin.write(data)
            await self.proc.stdin.drain()
        except (BrokenPipeError, ConnectionResetError):
            raise await self.gone() from None

    async def receive(self, deadline: float) -> Any:
        """The next reply line, parsed; AgentTurnError on EOF, timeout or garbage."""
        assert self.proc is not None and self.proc.stdout is not None
        try:
            # timeout_at cancels the read in place; wait_for would wrap it in a task per line.
            async with asyncio.timeout_at(deadline):
                line = await self.proc.stdout.readline()
        except TimeoutError:
            raise AgentTurnError("timed out") from None
        except ValueError:
            raise AgentTurnError("protocol error: a reply line is longer than 64 MiB") from None
        if not line:
            raise await self.gone()
        self.replied = True
        try:
            return reply_adapter.validate_json(line)
        except ValidationError as exc:
            shown = printable(line.decode("utf-8", "replace").strip()[:200])
            problem = exc.errors()[0]
            where = ".".join(str(p) for p in problem["loc"])
            detail = f"{where}: {problem['msg']}" if where else problem["msg"]
            raise AgentTurnError(f"protocol error: {detail} in reply line {shown!r}") from None

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
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self.proc.wait(), 2.0)
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
        """Kill the process group and reap it."""
        if self.proc is None:
            return
        if self.proc.returncode is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self.proc.wait(), 5.0)
        if self._stderr_task is not None:
            self._stderr_task.cancel()
            with contextlib.suppress(BaseException):
                await self._stderr_task


class CmdSession:
    """A session on one worker."""

    def __init__(self, worker: CmdWorker, session_id: str, timeout: float) -> None:
        self.worker = worker
        self.session_id = session_id
        self.timeout = timeout
        self.broken = False

    async def turn(self, turn: TurnInput) -> Invocation:
        """Send the user turn and follow the agent's replies until ``final`` or ``error``."""
        try:
            return await self._turn(turn)
        except AgentTurnError:
            self.broken = True
            raise
        except ToolMockError:
            # The agent waits for a result that will not come: the worker cannot be reused.
            self.broken = True
            raise

    async def _turn(self, turn: TurnInput) -> Invocation:
        worker = self.worker
        deadline = asyncio.get_running_loop().time() + self.timeout
        await worker.send(
            {
                "type": "user_turn",
                "sessionId": self.session_id,
                "turn": turn.number,
                "message": dump(turn.message),
                "mockedTools": turn.mocked_tools,
            }
        )
        recorder = TurnRecorder(turn.message)
        mocked = set(turn.mocked_tools)
        while True:
            try:
                reply = await worker.receive(deadline)
            except AgentTurnError as exc:
                if str(exc) == "timed out":
                    raise AgentTurnError(
                        f"no final reply within {self.timeout:g} s (--agent-timeout)"
                    ) from None
                raise
            if isinstance(reply, ToolCallReply):
                recorder.tool_call(reply.id, reply.name, reply.arguments)
                if reply.name in mocked:
                    result = await turn.answer_mock(reply.name, reply.arguments)
                    recorder.tool_result(reply.id, result)
                    await worker.send(
                        {
                            "type": "tool_result",
                            "sessionId": self.session_id,
                            "id": reply.id,
                            "result": result,
                        }
                    )
            elif isinstance(reply, ToolResultReply):
                if not recorder.has_call(reply.id):
                    raise AgentTurnError(
                        f"protocol error: tool_result for unknown call id {printable(reply.id)!r}"
                    )
                recorder.tool_result(reply.id, reply.result)
            elif isinstance(reply, MessageReply):
                recorder.message(reply.content)
            elif isinstance(reply, FinalReply):
                return recorder.finish(reply.content)
            elif isinstance(reply, ErrorReply):
                raise AgentTurnError(f"agent reported an error: {printable(reply.message)}")


class CmdAgent:
    """A pool of reusable worker processes running one command."""

    def __init__(self, command: str, *, concurrency: int, timeout: float) -> None:
        self.command = command
        self.description = f"cmd:{command}"
        self.timeout = timeout
        self._slots = asyncio.Semaphore(concurrency)
        self._idle: list[CmdWorker] = []
        self._all: set[CmdWorker] = set()
        self.started = 0

    @asynccontextmanager
    async def session(self, start: SessionStart) -> AsyncIterator[AgentSession]:
        """A session on an idle (or new) worker; a broken worker is killed afterwards."""
        async with self._slots:
            worker = await self._worker()
            worker.clear_stderr()
            session = CmdSession(worker, start.session_id, self.timeout)
            try:
                # Sent with the first user turn; the previous session's end goes with it too.
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
                if not session.broken:
                    worker.queue({"type": "session_end", "sessionId": start.session_id})
            except BaseException:
                session.broken = True
                raise
            finally:
                if session.broken or not worker.alive:
                    await self._discard(worker)
                else:
                    self._idle.append(worker)

    async def _worker(self) -> CmdWorker:
        while self._idle:
            worker = self._idle.pop()
            if worker.alive:
                return worker
            await self._discard(worker)
        worker = CmdWorker(self.command)
        await worker.start()
        self._all.add(worker)
        self.started += 1
        return worker

    async def _discard(self, worker: CmdWorker) -> None:
        self._all.discard(worker)
        await worker.kill()

    async def aclose(self) -> None:
        """Close every worker's stdin (a polite end) and kill what is left."""
        workers = list(self._all)
        self._idle.clear()
        for worker in workers:
            if worker.proc is not None and worker.proc.stdin is not None:
                with contextlib.suppress(Exception):
                    await worker.send()  # the last session_end
                    worker.proc.stdin.close()
        # The workers exit in parallel: one wait for all of them, not one after another.
        waits = [w.proc.wait() for w in workers if w.proc is not None and w.alive]
        if waits:
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(asyncio.gather(*waits), 1.0)
        await asyncio.gather(*(self._discard(worker) for worker in workers))
