"""``--agent agui:URL``: an AG-UI agent over HTTP + SSE (the ``ag-ui-protocol`` event types).

Each case session is one AG-UI thread (``threadId`` = session id).  A turn
POSTs a ``RunAgentInput`` holding the history so far plus the new user message
and ``state`` from ``sessionInput.state``, and reads the SSE event stream.
Mocked tools are declared as client-side tools: when the run ends with calls of
them, agenteval computes the mock results and continues with a new run that
carries the tool messages, as AG-UI clients do.

The event stream is capped like a ``cmd:`` agent's lines: one event may be at most
``--agent-max-event-bytes`` and everything the runs of one turn send at most
``--agent-max-turn-bytes`` (decoded bytes, counted as they arrive), so an endless
stream or a giant event ends the turn instead of filling memory.

Tool-call events are held to AG-UI's order (its client's event verifier says the same):
a call still open at ``RUN_FINISHED``, or any event of a call after its ``TOOL_CALL_END``,
fails the turn as a protocol error, so no call the agent made is dropped or altered.
"""

from __future__ import annotations

import asyncio
import codecs
import json
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, cast

import httpx
from ag_ui.core import (
    AssistantMessage,
    Event,
    EventType,
    FunctionCall,
    Message,
    RunAgentInput,
    SystemMessage,
    Tool,
    ToolCall,
    ToolMessage,
    UserMessage,
)
from httpx_sse import EventSource, SSEError, aconnect_sse
from pydantic import TypeAdapter, ValidationError

from agenteval.agents import adapter
from agenteval.agents.adapter import (
    AgentLimits,
    AgentTurnError,
    SessionStart,
    SlottedAdapter,
    TurnInput,
)
from agenteval.agents.recorder import TurnRecorder, parse_json_text
from agenteval.inputs.safe_text import printable
from agenteval.inputs.url_secrets import shown_base_url
from agenteval.judge.aiohttp_client import JudgeHttpClient, open_http_client
from agenteval.judge.errors import redact_all
from agenteval.schema.evalset import Invocation, Usage
from agenteval.schema.evalset import Message as EvalMessage

_events: TypeAdapter[Event] = TypeAdapter(Event)
# A turn that keeps asking for client-side tools ends here rather than looping for ever.
_MAX_RUNS_PER_TURN = 32
# Every request is a RunAgentInput POST: the client's default headers say so once.
_HEADERS = {"Accept": "text/event-stream", "Content-Type": "application/json"}


class _NoCookies(httpx.Cookies):
    """A cookie store that stays empty: an AG-UI run carries its state in the thread, and
    httpx's per-response cookie extraction cost a sizeable share of a turn's CPU."""

    def extract_cookies(self, response: httpx.Response) -> None:
        """Keep nothing."""


class AguiHttpClient(JudgeHttpClient):
    """The judge's HTTP client with cookies switched off at the httpx layer too (aiohttp's
    layer already keeps none), so a response costs no cookie-jar work."""

    @property
    def cookies(self) -> httpx.Cookies:
        """Always the empty store."""
        return _NO_COOKIES

    @cookies.setter
    def cookies(self, cookies: Any) -> None:
        pass


_NO_COOKIES = _NoCookies()


@dataclass(slots=True)
class _Call:
    id: str
    name: str
    parent: str | None
    args: list[str] = field(default_factory=list)
    # TOOL_CALL_END came (or the call came as TOOL_CALL_CHUNKs, which need none).
    ended: bool = False
    # Built from TOOL_CALL_CHUNKs (only such a call takes more chunks).
    chunked: bool = False


@dataclass(slots=True)
class _Run:
    """What one run's event stream said."""

    texts: dict[str, list[str]] = field(default_factory=dict)
    calls: dict[str, _Call] = field(default_factory=dict)
    ended: list[_Call] = field(default_factory=list)
    results: list[tuple[str, str, Any]] = field(
        default_factory=list
    )  # message id, call id, content
    finished: bool = False
    last_text: str | None = None
    # RUN_FINISHED.usage entries, one a model call ("provider:model" or "" as the model).
    usage: list[Usage] = field(default_factory=list)


class _CappedBody:
    """A streamed response as httpx-sse's ``EventSource`` reads it, its bytes counted.

    ``EventSource`` needs only ``headers`` and ``aiter_text``; this one decodes the
    response's (content-decoded) bytes itself so that it can count them: past the turn's
    cap, or past the event cap since the last event was handed out, the read stops.
    """

    def __init__(self, response: httpx.Response, limits: AgentLimits, turn_bytes: int) -> None:
        self._response = response
        self._limits = limits
        self.turn_bytes = turn_bytes
        self.event_bytes = 0

    @property
    def headers(self) -> httpx.Headers:
        """The response headers (the content type is checked)."""
        return self._response.headers

    async def aiter_text(self) -> AsyncIterator[str]:
        """The body as text, chunk by chunk, within the caps."""
        decoder = codecs.getincrementaldecoder(self._response.encoding or "utf-8")("replace")
        limits = self._limits
        async for chunk in self._response.aiter_bytes():
            self.turn_bytes += len(chunk)
            self.event_bytes += len(chunk)
            if self.turn_bytes > limits.turn_bytes:
                raise limits.turn_too_long()
            if self.event_bytes > limits.event_bytes:
                raise limits.event_too_long("an event")
            text = decoder.decode(chunk)
            if text:
                yield text
        tail = decoder.decode(b"", True)
        if tail:
            yield tail


def _history_message(message: EvalMessage) -> Message:
    """A context message of the case as an AG-UI message."""
    new_id = str(uuid.uuid4())
    if message.role == "system":
        return SystemMessage(id=new_id, content=message.content)
    if message.role == "assistant":
        return AssistantMessage(id=new_id, content=message.content)
    return UserMessage(id=new_id, content=message.content)


def _tool_text(result: Any) -> str:
    return result if isinstance(result, str) else json.dumps(result, ensure_ascii=False)


class AguiSession:
    """One AG-UI thread."""

    def __init__(self, agent: AguiAgent, start: SessionStart) -> None:
        self.agent = agent
        self.start = start
        self.context = [_history_message(m) for m in start.context_messages]
        self.history: list[Message] = []
        self.turn_bytes = 0

    async def turn(self, turn: TurnInput) -> Invocation:
        """Run the agent on one user message, answering mocked client-side tools."""
        timeout = self.agent.limits.timeout
        self.turn_bytes = 0
        try:
            async with asyncio.timeout(timeout):
                return await self._turn(turn)
        except TimeoutError:
            raise AgentTurnError(
                f"no RUN_FINISHED within {timeout:g} s (--agent-timeout)"
            ) from None
        except AgentTurnError as exc:
            # The message becomes the case's errorMessage (results, --record): an HTTP
            # library's text may quote the URL, and the URL may hold the agent's credential.
            exc.args = tuple(self.agent.hide(a) if isinstance(a, str) else a for a in exc.args)
            raise

    async def _turn(self, turn: TurnInput) -> Invocation:
        recorder = turn.recorder
        self.history.append(UserMessage(id=str(uuid.uuid4()), content=turn.message.content))
        tools = [
            Tool(
                name=name,
                description=f"{name} (answered by agenteval's tool mock)",
                parameters={"type": "object", "additionalProperties": True},
            )
            for name in turn.mocked_tools
        ]
        mocked = set(turn.mocked_tools)
        texts: list[str] = []
        for _ in range(_MAX_RUNS_PER_TURN):
            run = _Run()
            try:
                await self._run(tools, run)
            except BaseException:
                # The calls of a run that failed (RUN_ERROR, a timeout) were made all the
                # same: recorded, the run's counters count them as a cmd: agent's are.
                for call in run.calls.values():
                    recorder.tool_call(call.id, call.name, None)
                raise
            pending: list[_Call] = []
            for call in run.ended:
                arguments = parse_json_text("".join(call.args), empty={})
                recorder.tool_call(call.id, call.name, arguments)
                if call.name in mocked:
                    pending.append(call)
            self._own_results(run, recorder, mocked)
            texts.extend("".join(parts) for parts in run.texts.values())
            for spent in run.usage:
                recorder.model_usage(spent)  # each usage entry: one model call
            self._remember(run)
            if not pending:
                break
            for call in pending:
                arguments = parse_json_text("".join(call.args), empty={})
                result = await turn.answer_mock(call.name, arguments)
                recorder.mock_result(call.id, call.name, result)
                self.history.append(
                    ToolMessage(
                        id=str(uuid.uuid4()), tool_call_id=call.id, content=_tool_text(result)
                    )
                )
        else:
            raise AgentTurnError(f"more than {_MAX_RUNS_PER_TURN} runs for one user turn")
        final = texts.pop() if texts else ""
        for text in texts:
            recorder.message(text)
        return recorder.finish(final)

    def _own_results(self, run: _Run, recorder: TurnRecorder, mocked: set[str]) -> None:
        """Record the run's TOOL_CALL_RESULTs, the results of the agent's own tools.

        A result that repeats, word for word, a tool message the thread already holds for a
        call not made in this run is an echo (a server re-announcing earlier results in a
        follow-up run): it is dropped, so it cannot replace a mock's result, nor another
        turn's result a later call with the same id got, and the history keeps it once.
        Any other result for a call a tool mock answers means the agent ran that tool itself.
        """
        earlier = {(m.tool_call_id, m.content) for m in self.history if isinstance(m, ToolMessage)}
        kept: list[tuple[str, str, Any]] = []
        for message_id, call_id, content in run.results:
            if call_id not in run.calls and (call_id, content) in earlier:
                continue
            call = run.calls.get(call_id)
            name = call.name if call is not None and call.name in mocked else None
            name = name or recorder.mocked_tool(call_id)
            if name is not None:
                raise adapter.ran_mocked_tool(name, "TOOL_CALL_RESULT for a client-side tool")
            if not recorder.tool_result(call_id, parse_json_text(content, empty="")):
                raise AgentTurnError(
                    f"protocol error: TOOL_CALL_RESULT for unknown call {printable(call_id)!r}"
                )
            kept.append((message_id, call_id, content))
        run.results = kept

    def _remember(self, run: _Run) -> None:
        """Add what the agent said and called to the thread's history."""
        by_parent: dict[str, list[_Call]] = {}
        for call in run.ended:
            by_parent.setdefault(call.parent or call.id, []).append(call)
        for message_id, parts in run.texts.items():
            calls = by_parent.pop(message_id, [])
            self.history.append(
                AssistantMessage(
                    id=message_id,
                    content="".join(parts),
                    tool_calls=[_tool_call(c) for c in calls] or None,
                )
            )
        for message_id, calls in by_parent.items():
            self.history.append(
                AssistantMessage(id=message_id, tool_calls=[_tool_call(c) for c in calls])
            )
        for message_id, call_id, content in run.results:
            self.history.append(ToolMessage(id=message_id, tool_call_id=call_id, content=content))

    async def _run(self, tools: list[Tool], run: _Run) -> None:
        """POST one RunAgentInput and fold its event stream into ``run``."""
        body = RunAgentInput(
            thread_id=self.start.session_id,
            run_id=str(uuid.uuid4()),
            state=self.start.state or {},
            messages=[*self.context, *self.history],
            tools=tools,
            context=[],
            forwarded_props={},
        ).model_dump_json(by_alias=True)
        agent = self.agent
        try:
            # pydantic-core writes the JSON body (httpx's json= would dump the model to Python
            # objects first and then through the json module).
            async with aconnect_sse(agent.client, "POST", agent.url, content=body) as source:
                response = source.response
                if response.status_code != 200:
                    shown = b""
                    async for chunk in response.aiter_bytes():
                        shown += chunk
                        if len(shown) > 300:
                            break
                    raise AgentTurnError(
                        f"HTTP {response.status_code} from {agent.shown_url}: "
                        f"{printable(shown[:300].decode('utf-8', 'replace'))}"
                    )
                body_read = _CappedBody(response, agent.limits, self.turn_bytes)
                try:
                    async for sse in EventSource(cast(httpx.Response, body_read)).aiter_sse():
                        body_read.event_bytes = 0
                        if not sse.data:
                            continue
                        try:
                            event = _events.validate_json(sse.data)
                        except ValidationError as exc:
                            problem = exc.errors()[0]["msg"]
                            raise AgentTurnError(
                                f"protocol error: not an AG-UI event ({problem}): "
                                f"{printable(sse.data[:200])!r}"
                            ) from None
                        _apply(run, event)
                        if run.finished:
                            break
                finally:
                    self.turn_bytes = body_read.turn_bytes
        except SSEError as exc:
            raise AgentTurnError(f"protocol error: {exc}") from None
        except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
            raise AgentTurnError(
                f"cannot reach {agent.shown_url}: {exc}", not_started=True
            ) from None
        except httpx.TransportError as exc:
            raise AgentTurnError(f"connection to {agent.shown_url} failed: {exc}") from None
        except httpx.HTTPError as exc:
            raise AgentTurnError(f"HTTP error: {exc}") from None
        if not run.finished:
            raise AgentTurnError("the event stream ended without RUN_FINISHED")


def _tool_call(call: _Call) -> ToolCall:
    return ToolCall(id=call.id, function=FunctionCall(name=call.name, arguments="".join(call.args)))


_TOOL_CALL_EVENTS = frozenset(
    {
        EventType.TOOL_CALL_START,
        EventType.TOOL_CALL_ARGS,
        EventType.TOOL_CALL_CHUNK,
        EventType.TOOL_CALL_END,
    }
)


def _protocol_error(what: str, call_id: str) -> AgentTurnError:
    return AgentTurnError(f"protocol error: {what} for call {printable(call_id)!r}")


def _apply_tool_call(run: _Run, event: Any) -> None:
    """Fold one TOOL_CALL_START/ARGS/CHUNK/END into the run, in AG-UI's order: a call is
    recorded at its TOOL_CALL_END, and nothing of it may follow that END."""
    kind = event.type
    call = run.calls.get(event.tool_call_id) if event.tool_call_id else None
    if kind is EventType.TOOL_CALL_CHUNK:
        _apply_chunk(run, event)
    elif kind is EventType.TOOL_CALL_START:
        if call is not None and not call.ended:
            raise _protocol_error("TOOL_CALL_START while the call is in progress", call.id)
        run.calls[event.tool_call_id] = _Call(
            event.tool_call_id, event.tool_call_name, event.parent_message_id
        )
    elif call is None:
        raise _protocol_error(f"{kind.value} before TOOL_CALL_START", event.tool_call_id)
    elif call.ended:
        raise _protocol_error(f"{kind.value} after TOOL_CALL_END", call.id)
    elif kind is EventType.TOOL_CALL_ARGS:
        call.args.append(event.delta)
    else:  # TOOL_CALL_END
        call.ended = True
        run.ended.append(call)


def _apply_chunk(run: _Run, event: Any) -> None:
    """A TOOL_CALL_CHUNK: the first of a call names it (id and tool), the next ones continue
    it (their id that call's or none), as AG-UI's client expands them.  A chunk that would
    add to a call of TOOL_CALL_START, or start a call without a name, is a protocol error."""
    last = run.ended[-1] if run.ended else None
    call_id = event.tool_call_id or (last.id if last is not None and last.chunked else None)
    if call_id is None:
        raise AgentTurnError(
            "protocol error: TOOL_CALL_CHUNK without toolCallId and no call to continue"
        )
    call = run.calls.get(call_id)
    if call is None:
        if not event.tool_call_name:
            raise _protocol_error("first TOOL_CALL_CHUNK without toolCallName", call_id)
        call = _Call(
            call_id, event.tool_call_name, event.parent_message_id, ended=True, chunked=True
        )
        run.calls[call_id] = call
        run.ended.append(call)
    elif not call.chunked:
        after = "after TOOL_CALL_END" if call.ended else "inside TOOL_CALL_START/END"
        raise _protocol_error(f"TOOL_CALL_CHUNK {after}", call_id)
    call.args.append(event.delta or "")


def _check_calls_ended(run: _Run) -> None:
    """A call without TOOL_CALL_END at RUN_FINISHED: the agent called a tool that would go
    unrecorded (a trajectory could pass without it), so the turn fails."""
    for call in run.calls.values():
        if not call.ended:
            raise AgentTurnError(
                f"protocol error: RUN_FINISHED before TOOL_CALL_END of call "
                f"{printable(call.id)!r} ({printable(call.name)!r})"
            )


def _check_outcome(outcome: Any) -> None:
    """A run that finished cancelled produced no result, and one paused on interrupts waits
    for answers agenteval cannot give: either fails the turn instead of scoring what the
    run said so far as its answer.  (``getattr``: releases before 1.0 have no outcome.)"""
    kind = getattr(outcome, "type", "success")
    if kind == "cancelled":
        raise AgentTurnError('the agent\'s run was cancelled (RUN_FINISHED outcome "cancelled")')
    if kind == "interrupt":
        interrupts = getattr(outcome, "interrupts", None) or []
        first = interrupts[0] if interrupts else None
        what = getattr(first, "message", None) or getattr(first, "reason", None) or ""
        shown = f": {printable(what, 200)!r}" if what else ""
        raise AgentTurnError(
            f"the agent's run paused on {len(interrupts)} interrupt(s){shown} "
            '(RUN_FINISHED outcome "interrupt"); agenteval cannot answer interrupts'
        )


def _apply(run: _Run, event: Any) -> None:
    """Fold one event into the run."""
    kind = event.type
    if kind is EventType.TEXT_MESSAGE_START:
        run.texts.setdefault(event.message_id, [])
        run.last_text = event.message_id
    elif kind is EventType.TEXT_MESSAGE_CONTENT:
        run.texts.setdefault(event.message_id, []).append(event.delta)
        run.last_text = event.message_id
    elif kind is EventType.TEXT_MESSAGE_CHUNK:
        message_id = event.message_id or run.last_text or str(uuid.uuid4())
        run.texts.setdefault(message_id, []).append(event.delta or "")
        run.last_text = message_id
    elif kind in _TOOL_CALL_EVENTS:
        _apply_tool_call(run, event)
    elif kind is EventType.TOOL_CALL_RESULT:
        content = (
            event.content
            if isinstance(event.content, str)
            else json.dumps([part.model_dump(mode="json", by_alias=True) for part in event.content])
        )
        run.results.append((event.message_id, event.tool_call_id, content))
    elif kind is EventType.RUN_ERROR:
        code = f" (code {printable(event.code)})" if event.code else ""
        raise AgentTurnError(f"agent sent RUN_ERROR: {printable(event.message)}{code}")
    elif kind is EventType.RUN_FINISHED:
        _check_calls_ended(run)
        _check_outcome(getattr(event, "outcome", None))
        run.finished = True
        for entry in getattr(event, "usage", None) or ():
            model = f"{entry.provider}:{entry.model}" if entry.provider and entry.model else ""
            # AG-UI's counts are totals and their named parts: cachedInputTokens and
            # cacheWriteInputTokens are parts of inputTokens, as in a turn's usage.
            spent = Usage(
                input_tokens=entry.input_tokens or 0,
                output_tokens=entry.output_tokens or 0,
                cached_input_tokens=min(entry.cached_input_tokens or 0, entry.input_tokens or 0),
                model=model,
                inference_calls=1,
            )
            # Not capped at inputTokens: capping could erase a reported write, which leaves
            # the call's cost unknown unless its price gives cacheWriteInputPerMillion.
            # getattr: ag-ui-protocol releases before the field have none.  Set only when
            # non-zero: the turn is written as before.
            written = getattr(entry, "cache_write_input_tokens", None)
            if written:
                spent.cache_write_input_tokens = written
            run.usage.append(spent)


class AguiAgent(SlottedAdapter):
    """An AG-UI endpoint; ``concurrency`` sessions at once over one pooled HTTP client."""

    def __init__(self, url: str, *, concurrency: int, limits: AgentLimits) -> None:
        # agenteval sends no header of the user's, so a key rides in the URL's query
        # (``?token=``): messages show it as ``***``, as a judge base URL's.
        shown = shown_base_url(url)
        self.shown_url, self._secrets = shown.shown, shown.secrets
        super().__init__(f"agui:{self.shown_url}", concurrency=concurrency, limits=limits)
        self.url = url
        # The judge's client: httpx's API over the aiohttp transport, which keeps up with
        # many short streamed runs where httpx's own transport did not (bench/agent_overhead.py).
        self.client = open_http_client(
            concurrency,
            limits.timeout,
            headers=_HEADERS,
            client_class=AguiHttpClient,
        )

    def hide(self, text: str) -> str:
        """``text`` with the URL's credentials as ``***``."""
        return redact_all(text, self._secrets)

    @asynccontextmanager
    async def session(self, start: SessionStart) -> AsyncIterator[AguiSession]:
        """A new thread (waits for a free slot)."""
        async with self._slots:
            yield AguiSession(self, start)

    async def aclose(self) -> None:
        """Close the HTTP client."""
        await self.client.aclose()
