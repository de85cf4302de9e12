"""What the session driver needs from an agent adapter (``cmd:`` or ``agui:``), and what the two share.

Tested in tests/agents/test_cmd_agent.py and tests/agents/test_agui_agent.py.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from typing import Any, Protocol

from agenteval import settings
from agenteval.agents.recorder import TurnRecorder
from agenteval.errors import CaseError
from agenteval.inputs.safe_text import printable
from agenteval.schema.evalset import Invocation, Message

# (tool name, decoded arguments) -> the mocked result; raises ToolMockError
MockAnswer = Callable[[str, Any], Awaitable[Any]]


class AgentTurnError(CaseError):
    """A turn could not finish: crash, timeout, protocol error, agent-reported error."""

    def __init__(self, message: str, *, not_started: bool = False) -> None:
        super().__init__(message)
        # The agent could not be started or reached at all (the run is incomplete, exit 3).
        self.not_started = not_started


class AgentLimitError(AgentTurnError):
    """The agent sent more than a cap allows (an event, a line or a whole turn)."""


def ran_mocked_tool(name: str, what: str) -> AgentTurnError:
    """The error of an agent that sent its own result (``what``) for a call a tool mock
    answers: that result would replace the mock's, so the turn fails instead."""
    return AgentTurnError(f"the agent ran mocked tool {printable(name)!r} itself ({what})")


@dataclass(frozen=True, slots=True)
class AgentLimits:
    """How long a turn may take and how much the agent may send in it."""

    # --agent-timeout: one turn, every write to the agent and every read included.
    timeout: float
    # --agent-max-event-bytes: one reply line (cmd:) or one SSE event (agui:).
    event_bytes: int = settings.AGENT_MAX_EVENT_BYTES
    # --agent-max-turn-bytes: everything the agent sends during one turn.
    turn_bytes: int = settings.AGENT_MAX_TURN_BYTES

    def event_too_long(self, what: str) -> AgentLimitError:
        """The error of a line or event above the cap."""
        return AgentLimitError(
            f"protocol error: {what} is longer than {self.event_bytes:,} bytes "
            "(--agent-max-event-bytes)"
        )

    def turn_too_long(self) -> AgentLimitError:
        """The error of a turn that sent more than the cap."""
        return AgentLimitError(
            f"protocol error: the agent sent more than {self.turn_bytes:,} bytes in one turn "
            "(--agent-max-turn-bytes)"
        )


@dataclass(frozen=True, slots=True)
class SessionStart:
    """What a new session is told: formats.md §2.6 plus context messages and mocked tools."""

    session_id: str
    app_name: str
    user_id: str
    state: dict[str, Any] | None
    context_messages: list[Message] = field(default_factory=list)
    mocked_tools: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class TurnInput:
    """One user turn, how to answer the mocked tools it may call, and where it is recorded
    (the driver's recorder: what the agent did is counted even when the turn fails)."""

    number: int
    message: Message
    mocked_tools: list[str]
    answer_mock: MockAnswer
    recorder: TurnRecorder


class AgentSession(Protocol):
    """One conversation with the agent."""

    async def turn(self, turn: TurnInput) -> Invocation:
        """Send a user turn and record what the agent did; AgentTurnError on faults."""


class AgentAdapter(Protocol):
    """A way to reach an agent; sessions may run concurrently up to its own limit."""

    description: str

    def session(self, start: SessionStart) -> AbstractAsyncContextManager[AgentSession]:
        """Open a session (waiting for a free worker or connection slot)."""

    async def aclose(self) -> None:
        """Stop every worker and close every connection."""


class SlottedAdapter:
    """What the built-in adapters share: their description, limits and session slots."""

    def __init__(self, description: str, *, concurrency: int, limits: AgentLimits) -> None:
        self.description = description
        self.limits = limits
        # At most ``concurrency`` sessions at once: session() waits for a free slot.
        self._slots = asyncio.Semaphore(concurrency)
