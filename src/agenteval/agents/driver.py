"""Drive cases through an agent: default-mode turns, simulated users, mocks, records, stats.

``AgentDriver.drive`` runs one case run in one agent session and returns the
captured actual turns (and, with ``--expected-agent``, the expected ones).  Any
fault becomes ``AgentRunError`` whose text is the case's ``errorMessage``,
naming the turn and what happened.

A stop (the first Ctrl-C) cancels the agent work in flight — turns, tool mocks, the
simulated user — instead of waiting up to ``--agent-timeout`` for it; those case runs
are not finished and ``--resume`` drives them again.  ``--record`` lines are built when
a case's driving ends (its error included) and written by the runner when it delivers
the case (``record_slot``/``commit``), so the record holds exactly the delivered cases.

Tested in tests/agents/test_user_simulator.py and tests/agents/test_cmd_agent.py.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from agenteval.agents.adapter import (
    AgentAdapter,
    AgentSession,
    AgentTurnError,
    SessionStart,
    TurnInput,
)
from agenteval.agents.recorder import TraceRecordFile, TurnRecorder, parse_json_text
from agenteval.agents.tool_mocks import ToolMockError, ToolMocks, parse_tool_mocks
from agenteval.agents.user_simulator import ChatCall, ScenarioError, UserSimulator
from agenteval.errors import CaseError, JudgeError
from agenteval.judge.stop_refusals import note_refusal
from agenteval.schema.evalset import EvalCase, Invocation, Message
from agenteval.schema.metric import EvalMetric

if TYPE_CHECKING:
    from agenteval.judge.config import JudgeSettings
    from agenteval.judge.session import JudgeSession


class AgentRunError(CaseError):
    """A case run could not be driven; the text is the case's errorMessage."""

    # The actual turns finished before the fault, and the failing one as far as it got when
    # the agent reported what it spent in it: what they spent is still the agent's.
    finished: Sequence[Invocation] = ()
    # That failing actual turn (TurnRecorder.unfinished), set where the turn failed.
    unfinished: Invocation | None = None


class AgentStopped(AgentRunError):
    """The run is stopping: no new session or turn starts, those in flight are cancelled."""


class AgentIncomplete(AgentRunError):
    """The case run could not be driven through no fault of the agent: incomplete, not failed."""


class AgentNotStarted(AgentIncomplete):
    """The agent could not be started or reached: the case run is incomplete, not failed."""


class _GeneratorJudgeError(ToolMockError):
    """The judge that writes an ``llmGenerator`` mock's result failed (not the agent)."""


def _run_error(message: str, exc: AgentTurnError) -> AgentRunError:
    """The case's error for a failed agent turn or session; incomplete when it never started."""
    return AgentNotStarted(message) if exc.not_started else AgentRunError(message)


@dataclass(slots=True)
class AgentStats:
    """What the agent did during a run (printed in the summary).

    Everything counts as it happens, failed turns included: a session that was opened, a
    turn that was sent, every tool call the agent made, and the calls a tool mock answered
    (the agent's own tools are never "mocked").  Time is measured two ways: ``wall`` —
    while at least one session was open — and ``session`` — every session's own time
    summed, which with ``--agent-concurrency N`` can be up to N times the wall time.
    """

    sessions: int = 0
    turns: int = 0
    tool_calls: int = 0
    mocked_calls: int = 0
    failures: int = 0
    # Case runs whose agent could not be started or reached: the run is incomplete (exit 3).
    not_started: int = 0
    wall_seconds: float = 0.0
    session_seconds: float = 0.0
    first_failure: str = ""
    _open: int = 0
    _open_since: float = 0.0

    def session_opened(self) -> float:
        """A session opened; returns its start time."""
        now = time.perf_counter()
        if self._open == 0:
            self._open_since = now
        self._open += 1
        self.sessions += 1
        return now

    def session_closed(self, started: float) -> None:
        """The session opened at ``started`` closed."""
        now = time.perf_counter()
        self.session_seconds += now - started
        self._open -= 1
        if self._open == 0:
            self.wall_seconds += now - self._open_since

    def to_json(self) -> dict[str, Any]:
        """The stats under the run document's ``agent`` key."""
        return {
            "sessions": self.sessions,
            "turns": self.turns,
            "toolCalls": self.tool_calls,
            "mockedToolCalls": self.mocked_calls,
            "failures": self.failures,
            "notStarted": self.not_started,
            "wallSeconds": round(self.wall_seconds, 3),
            "sessionSeconds": round(self.session_seconds, 3),
        }


class PendingRecord:
    """The ``--record`` line of one case run, waiting for the runner to deliver the case."""

    __slots__ = ("line", "run")

    def __init__(self) -> None:
        self.line: str | None = None
        self.run: tuple[str, int] = ("", 1)  # the line's (evalId, runId)


# The case run's slot, set by the runner in the case's own task (like stop_refusals' count).
_pending_record: ContextVar[PendingRecord | None] = ContextVar(
    "agenteval_pending_record", default=None
)


def needs_agent(case: EvalCase) -> bool:
    """Whether a case is driven live: default mode, reference turns or a scenario, no trace."""
    if case.eval_mode == "trace" or case.actual_conversation:
        return False
    return bool(case.conversation) != (case.conversation_scenario is not None)


def judge_settings_for(metrics: Sequence[EvalMetric]) -> JudgeSettings | None:
    """The model of the first metric with ``criterion.llmJudge.judgeModel``: it also plays the
    simulated user and writes ``llmGenerator`` tool results."""
    from agenteval.judge.config import resolve_settings

    for metric in metrics:
        judge = metric.criterion.llm_judge if metric.criterion else None
        if judge is not None and judge.judge_model is not None and judge.judge_model.model_name:
            return resolve_settings(judge.judge_model)
    return None


def case_needs_judge(case: EvalCase) -> bool:
    """Whether driving the case may call an LLM (simulated user or llmGenerator mocks)."""
    scenario = case.conversation_scenario
    if scenario is not None and not (
        scenario.starting_prompt and scenario.max_allowed_invocations == 1
    ):
        return True
    for turn in case.conversation or []:
        mock = turn.tool_mock if turn is not None else None
        if isinstance(mock, Mapping) and "llmGenerator" in json.dumps(mock):
            return True
    return False


def check_case(case: EvalCase, expected_agent: bool) -> list[str]:
    """Problems that would stop a driven case (for ``validate --agent``)."""
    problems: list[str] = []
    for index, turn in enumerate(case.conversation or []):
        if turn is None:
            continue
        if turn.user_content is None:
            problems.append(f"conversation[{index}].userContent: a driven turn needs user content")
        for side in ("actual", "expected"):
            try:
                parse_tool_mocks(turn.tool_mock, side, f"conversation[{index}].toolMock")
            except ToolMockError as exc:
                problems.append(str(exc))
                break
    scenario = case.conversation_scenario
    if scenario is not None:
        try:
            UserSimulator(scenario, None)
        except ScenarioError as exc:
            problems.append(str(exc))
        if scenario.driver == "expected" and not expected_agent:
            problems.append('conversationScenario.driver "expected" needs --expected-agent')
    if case.expected_runner_enabled and not expected_agent:
        problems.append("expectedRunnerEnabled needs --expected-agent")
    return problems


@dataclass(slots=True)
class AgentDriver:
    """Drives cases through the agent (and the optional expected agent)."""

    adapter: AgentAdapter
    expected_adapter: AgentAdapter | None = None
    record: TraceRecordFile | None = None
    stats: AgentStats = field(default_factory=AgentStats)
    on_turn: Callable[[], None] | None = None
    stopping: Callable[[], bool] = lambda: False
    # Tasks driving a case right now, and those a stop cancelled.
    _active: set[asyncio.Task[Any]] = field(default_factory=set)
    _stopped: set[asyncio.Task[Any]] = field(default_factory=set)

    def record_slot(self) -> PendingRecord | None:
        """A slot for the calling case task's ``--record`` line (None without ``--record``)."""
        if self.record is None:
            return None
        slot = PendingRecord()
        _pending_record.set(slot)
        return slot

    def commit(self, slot: PendingRecord) -> None:
        """Write a delivered case's ``--record`` line (and flush it)."""
        if slot.line is not None and self.record is not None:
            self.record.append(slot.line, slot.run)

    def cancel_in_flight(self) -> None:
        """Cancel every case being driven (the loop calls this once a stop is requested)."""
        for task in self._active:
            if not task.done():
                self._stopped.add(task)
                task.cancel()

    def needs_judge(self, plans: Sequence[Any]) -> bool:
        """Whether a planned case may call an LLM while it is driven (the judge client opens)."""
        return any(
            needs_agent(case) and case_needs_judge(case) for plan in plans for case in plan.cases
        )

    def wants(self, case: EvalCase, recorded: bool) -> bool:
        """Whether this case run is driven (a trace from ``--traces`` wins)."""
        return needs_agent(case) and not recorded

    async def drive(
        self,
        case: EvalCase,
        run_id: int,
        metrics: Sequence[EvalMetric],
        judge: JudgeSession | None,
    ) -> tuple[list[Invocation], list[Invocation] | None]:
        """(actual turns, expected turns or None) of one case run; AgentRunError on faults."""
        settings = judge_settings_for(metrics) if judge is not None else None
        chat = _chat_call(judge, settings) if judge is not None and settings is not None else None
        task = asyncio.current_task()
        if task is not None:
            self._active.add(task)
        actuals: list[Invocation] = []  # filled turn by turn: kept when a later one fails
        try:
            expecteds = await self._drive(case, chat, actuals)
        except asyncio.CancelledError:
            if task is None or task not in self._stopped:
                raise
            task.uncancel()
            note_refusal()  # not finished: the runner drops it, --resume drives it again
            raise AgentStopped("run interrupted during the agent session") from None
        except AgentRunError as exc:
            exc.finished = [*actuals, *([exc.unfinished] if exc.unfinished else [])]
            if not isinstance(exc, AgentStopped):
                self.stats.failures += 1
                self.stats.first_failure = self.stats.first_failure or f"{case.eval_id}: {exc}"
                self._keep(case.eval_id, run_id, list(exc.finished), exc)
            raise
        finally:
            if task is not None:
                self._active.discard(task)
                self._stopped.discard(task)
        self._keep(case.eval_id, run_id, actuals, None, expecteds)
        return actuals, expecteds

    def _keep(
        self,
        eval_id: str,
        run_id: int,
        turns: list[Invocation],
        error: AgentRunError | None,
        expected: list[Invocation] | None = None,
    ) -> None:
        """Build the case run's ``--record`` line for the runner to write on delivery (with
        the expected agent's turns, when it produced them: a replay scores against those)."""
        slot = _pending_record.get()
        if slot is not None and self.record is not None:
            slot.line = self.record.line(
                eval_id,
                run_id,
                turns,
                None if error is None else str(error),
                incomplete=isinstance(error, AgentIncomplete),
                expected=expected,
            )
            slot.run = (eval_id, run_id)

    async def _drive(
        self, case: EvalCase, chat: ChatCall | None, actuals: list[Invocation]
    ) -> list[Invocation] | None:
        """Fill ``actuals``; return the expected turns (None when the case has none driven)."""
        scenario = case.conversation_scenario
        if scenario is not None:
            if scenario.driver == "expected":
                expected_adapter = self._expected('conversationScenario.driver "expected"')
                expecteds: list[Invocation] = []
                await self._simulate(expected_adapter, case, chat, "expected", expecteds)
                said = [t.user_content for t in expecteds if t.user_content is not None]
                await self._replay(self.adapter, case, said, [None] * len(said), "actual", actuals)
                return expecteds
            await self._simulate(self.adapter, case, chat, "actual", actuals)
            return await self._expected_for(case, actuals, [None] * len(actuals))
        turns = [t for t in case.conversation or [] if t is not None]
        inputs: list[Message] = []
        for index, turn in enumerate(turns):
            if turn.user_content is None:
                raise AgentRunError(f"conversation[{index}].userContent is missing")
            inputs.append(turn.user_content)
        mocks = [t.tool_mock for t in turns]
        await self._replay(self.adapter, case, inputs, mocks, "actual", actuals, chat)
        return await self._expected_for(case, actuals, mocks, chat)

    def _expected(self, why: str) -> AgentAdapter:
        if self.expected_adapter is None:
            raise AgentRunError(f"{why} needs --expected-agent to produce the expected turns")
        return self.expected_adapter

    async def _expected_for(
        self,
        case: EvalCase,
        actuals: list[Invocation],
        mocks: list[Any],
        chat: ChatCall | None = None,
    ) -> list[Invocation] | None:
        has_expected_mocks = any(isinstance(m, Mapping) and m.get("expected") for m in mocks)
        if not case.expected_runner_enabled and not (
            has_expected_mocks and self.expected_adapter is not None
        ):
            return None
        adapter = self._expected("expectedRunnerEnabled")
        inputs = [t.user_content for t in actuals if t.user_content is not None]
        expecteds: list[Invocation] = []
        await self._replay(adapter, case, inputs, mocks, "expected", expecteds, chat)
        return expecteds

    def _start(self, case: EvalCase, mocked: list[str]) -> SessionStart:
        if self.stopping():
            note_refusal()
            raise AgentStopped("run interrupted before the agent session started")
        session_input = case.session_input
        return SessionStart(
            session_id=str(uuid.uuid4()),
            app_name=session_input.app_name if session_input else "",
            user_id=session_input.user_id if session_input else "",
            state=session_input.state if session_input else None,
            context_messages=list(case.context_messages or []),
            mocked_tools=mocked,
        )

    @asynccontextmanager
    async def _session(
        self, adapter: AgentAdapter, start: SessionStart
    ) -> AsyncIterator[AgentSession]:
        """A session of ``adapter``, counted and timed while it is open."""
        async with adapter.session(start) as session:
            opened = self.stats.session_opened()
            try:
                yield session
            finally:
                self.stats.session_closed(opened)

    async def _replay(
        self,
        adapter: AgentAdapter,
        case: EvalCase,
        inputs: list[Message],
        raw_mocks: list[Any],
        side: str,
        captured: list[Invocation],
        chat: ChatCall | None = None,
    ) -> None:
        """Send fixed user turns in order in one session; each turn goes into ``captured``."""
        parsed: list[ToolMocks] = []
        for index, raw in enumerate(raw_mocks):
            try:
                parsed.append(parse_tool_mocks(raw, side, f"conversation[{index}].toolMock"))
            except ToolMockError as exc:
                raise AgentRunError(str(exc)) from None
        names = sorted({name for mocks in parsed for name in mocks.names})
        start = self._start(case, names)
        total = len(inputs)
        try:
            async with self._session(adapter, start) as session:
                for index, (message, mocks) in enumerate(zip(inputs, parsed, strict=True)):
                    if self.stopping():
                        note_refusal()
                        raise AgentStopped("run interrupted between agent turns")
                    captured.append(
                        await self._turn(session, index + 1, total, message, mocks, chat, side)
                    )
        except AgentTurnError as exc:  # raised while opening or closing the session
            raise _run_error(f"{_who(side)}agent session: {exc}", exc) from None

    async def _simulate(
        self,
        adapter: AgentAdapter,
        case: EvalCase,
        chat: ChatCall | None,
        side: str,
        captured: list[Invocation],
    ) -> None:
        """A simulated user talks to the agent until it stops; each turn goes into ``captured``."""
        assert case.conversation_scenario is not None
        try:
            simulator = UserSimulator(case.conversation_scenario, chat)
        except ScenarioError as exc:
            raise AgentRunError(str(exc)) from None
        reply: str | None = None
        try:
            async with self._session(adapter, self._start(case, [])) as session:
                while True:
                    if self.stopping():
                        note_refusal()
                        raise AgentStopped("run interrupted between agent turns")
                    try:
                        text = await simulator.next(reply)
                    except ScenarioError as exc:
                        raise AgentRunError(
                            f"user simulator before turn {len(captured) + 1}: {exc}"
                        ) from None
                    except JudgeError as exc:  # the judge failed, not the agent: incomplete
                        raise AgentIncomplete(
                            f"user simulator before turn {len(captured) + 1}: {exc}"
                        ) from None
                    except Exception as exc:  # the user could not be simulated
                        raise AgentRunError(
                            f"user simulator before turn {len(captured) + 1}: {exc}"
                        ) from None
                    if text is None:
                        break
                    message = Message(role="user", content=text)
                    turn = await self._turn(
                        session, len(captured) + 1, 0, message, ToolMocks(), chat, side
                    )
                    captured.append(turn)
                    reply = turn.final_response.content if turn.final_response else ""
        except AgentTurnError as exc:
            raise _run_error(f"{_who(side)}agent session: {exc}", exc) from None
        if not captured:
            raise AgentRunError("the simulated user stopped before the first turn")

    async def _turn(
        self,
        session: AgentSession,
        number: int,
        total: int,
        message: Message,
        mocks: ToolMocks,
        chat: ChatCall | None,
        side: str,
    ) -> Invocation:
        async def answer(name: str, arguments: Any) -> Any:
            return await mocks.answer(name, arguments, _generator(chat))

        of = f" of {total}" if total else ""
        recorder = TurnRecorder(message)
        self.stats.turns += 1
        try:
            turn = await session.turn(TurnInput(number, message, mocks.names, answer, recorder))
        except AgentTurnError as exc:
            if exc.not_started:
                self.stats.not_started += 1
                self.stats.turns -= 1  # never reached the agent
            error = _run_error(f"{_who(side)}agent turn {number}{of}: {exc}", exc)
            raise _spent(error, recorder, side) from None
        except ToolMockError as exc:
            # A judge that failed to write a mock's result leaves the case incomplete.
            kind = AgentIncomplete if isinstance(exc, _GeneratorJudgeError) else AgentRunError
            raise _spent(
                kind(f"{_who(side)}agent turn {number}{of}: {exc}"), recorder, side
            ) from None
        finally:
            self.stats.tool_calls += len(recorder.tools)
            self.stats.mocked_calls += recorder.mocked
        if self.on_turn is not None:
            self.on_turn()
        return turn


def _spent(error: AgentRunError, recorder: TurnRecorder, side: str) -> AgentRunError:
    """``error`` carrying the failed actual turn as far as it got, when the agent reported
    usage in it (the expected agent's turns are not the spend of the agent under test)."""
    if side == "actual":
        error.unfinished = recorder.unfinished()
    return error


def _who(side: str) -> str:
    return "expected " if side == "expected" else ""


def _generator(chat: ChatCall | None) -> Any:
    if chat is None:
        return None

    async def generate(prompt: str, arguments: str) -> Any:
        try:
            text = await chat([("system", prompt), ("user", arguments)])
        except JudgeError as exc:  # ends the turn like a failed mock, the case incomplete
            raise _GeneratorJudgeError(f"llmGenerator: {exc}") from None
        except Exception as exc:
            raise ToolMockError(f"llmGenerator: {exc}") from None
        value = parse_json_text(text, empty=None)
        if value is None:
            raise ToolMockError("llmGenerator: the generated result is empty or null")
        return value

    return generate


def _chat_call(judge: JudgeSession, settings: JudgeSettings) -> ChatCall:
    from agenteval.judge.backend import ChatMessage, JudgeRequest

    async def chat(messages: Sequence[tuple[str, str]]) -> str:
        request = JudgeRequest(settings, tuple(ChatMessage(role, text) for role, text in messages))
        try:
            reply = await judge.client.complete(request, metric_name="agent-driving")
        except JudgeError as exc:
            # Like a judge turn left not_evaluated: the run could not finish (exit 3).
            judge.record_failure("agent-driving", str(exc))
            raise
        return reply.text

    return chat
