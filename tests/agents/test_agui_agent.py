"""``--agent agui:URL`` against a scripted AG-UI server: streamed arguments, a client-side
tool round trip, a server-side tool, RUN_ERROR and garbage; the log is the server's own."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from ag_ui.core import (
    RunAgentInput,
    RunErrorEvent,
    RunFinishedEvent,
    RunStartedEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallChunkEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)
from ag_ui.encoder import EventEncoder
from agent_cli import EXACT_FINAL, case_results, echo_case, run_cli, write_evalset
from agui_server import LoopbackServer
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

TRAJECTORY = [{"metricName": "tool_trajectory_avg_score", "threshold": 1.0}, *EXACT_FINAL]


class ScriptedAgent:
    """Answers by the last message of each run; logs what it did per user turn."""

    def __init__(self) -> None:
        self.log: list[dict[str, Any]] = []
        self.real_tool_runs: list[str] = []
        self.inputs: list[dict[str, Any]] = []

    async def endpoint(self, request: Request) -> StreamingResponse:
        raw = await request.json()
        self.inputs.append(raw)
        data = RunAgentInput.model_validate(raw)
        return StreamingResponse(self.events(data), media_type="text/event-stream")

    async def events(self, data: RunAgentInput) -> AsyncIterator[str]:
        encoder = EventEncoder()
        yield encoder.encode(RunStartedEvent(thread_id=data.thread_id, run_id=data.run_id))
        for event in self.script(data):
            if isinstance(event, str):
                yield event
            else:
                yield encoder.encode(event)
        last = data.messages[-1]
        outcome = OUTCOMES.get(str(last.content)) if last.role == "user" else None
        yield encoder.encode(
            RunFinishedEvent(thread_id=data.thread_id, run_id=data.run_id, outcome=outcome)
        )

    def text(self, message_id: str, *parts: str) -> list[Any]:
        return [
            TextMessageStartEvent(message_id=message_id, role="assistant"),
            *(TextMessageContentEvent(message_id=message_id, delta=p) for p in parts),
            TextMessageEndEvent(message_id=message_id),
        ]

    def script(self, data: RunAgentInput) -> list[Any]:
        last = data.messages[-1]
        mocked = {tool.name for tool in data.tools or []}
        if last.role == "tool":
            # The client answered our client-side tool: finish the turn with its result.
            weather = json.loads(last.content)
            final = f"{weather['city']}: {weather['condition']}"
            turn = next(
                t for t in self.log if t["tools"] and t["tools"][0]["id"] == last.tool_call_id
            )
            turn["tools"][0]["result"] = weather
            turn["final"] = final
            return self.text("m-final", final)
        text = last.content
        turn = {"user": text, "threadId": data.thread_id, "tools": [], "final": None}
        self.log.append(turn)
        if text.startswith("weather in "):
            city = text.removeprefix("weather in ")
            args = json.dumps({"city": city, "days": 2})
            call_id = f"tc-{len(self.log)}"
            turn["tools"].append(
                {"id": call_id, "name": "get_weather", "arguments": json.loads(args)}
            )
            if "get_weather" not in mocked:
                self.real_tool_runs.append("get_weather")
            cut = [args[:5], args[5:14], args[14:]]
            return [
                *self.text("m-1", "Checking ", "the weather."),
                ToolCallStartEvent(
                    tool_call_id=call_id, tool_call_name="get_weather", parent_message_id="m-1"
                ),
                *(ToolCallArgsEvent(tool_call_id=call_id, delta=part) for part in cut),
                ToolCallEndEvent(tool_call_id=call_id),
            ]
        if text.startswith("calc add "):
            a, b = (int(x) for x in text.split()[2:])
            call_id = f"tc-{len(self.log)}"
            result = {"sum": a + b}
            self.real_tool_runs.append("calculator")
            turn["tools"].append(
                {
                    "id": call_id,
                    "name": "calculator",
                    "arguments": {"a": a, "b": b},
                    "result": result,
                }
            )
            turn["final"] = f"calc result: {a + b}"
            return [
                ToolCallStartEvent(tool_call_id=call_id, tool_call_name="calculator"),
                ToolCallArgsEvent(tool_call_id=call_id, delta=json.dumps({"a": a})[:-1]),
                ToolCallArgsEvent(tool_call_id=call_id, delta=f', "b": {b}}}'),
                ToolCallEndEvent(tool_call_id=call_id),
                ToolCallResultEvent(
                    message_id=f"r-{call_id}", tool_call_id=call_id, content=json.dumps(result)
                ),
                *self.text("m-2", turn["final"]),
            ]
        if text == "explode":
            return [RunErrorEvent(message="model backend unavailable", code="UPSTREAM")]
        if text == "garbage":
            return ['data: {"type": "NOT_AN_EVENT"}\n\n']
        turn["final"] = f"echo: {text}"
        if text in OUT_OF_ORDER:
            return [*OUT_OF_ORDER[text], *self.text("m-4", "echo: ", text)]
        return self.text("m-3", "echo: ", text)


def _call_events(*kinds: str) -> list[Any]:
    """Events of one call ``tc-x`` of ``delete_all`` with arguments ``{}``, in ``kinds`` order."""
    make = {
        "start": lambda: ToolCallStartEvent(tool_call_id="tc-x", tool_call_name="delete_all"),
        "args": lambda: ToolCallArgsEvent(tool_call_id="tc-x", delta="{}"),
        "end": lambda: ToolCallEndEvent(tool_call_id="tc-x"),
    }
    return [make[kind]() for kind in kinds]


# User texts whose RUN_FINISHED carries an outcome other than success (the text is echoed).
OUTCOMES: dict[str, Any] = {
    "cancel": {"type": "cancelled"},
    "approve": {"type": "interrupt", "interrupts": [{"id": "i1", "reason": "ok?"}]},
}

# User texts whose run sends its tool call's events against AG-UI's order.
OUT_OF_ORDER = {
    "unended": _call_events("start", "args"),
    "ended twice": _call_events("start", "args", "end", "end"),
    "args after end": _call_events("start", "end", "args"),
    "in order": _call_events("start", "args", "end"),
    # TOOL_CALL_CHUNKs: the first names the call, the next continue it.
    "chunks": [
        ToolCallChunkEvent(tool_call_id="tc-x", tool_call_name="delete_all", delta='{"a"'),
        ToolCallChunkEvent(delta=": 1}"),
    ],
    # The call ends with half its arguments; a chunk after its END completed them, and the
    # altered call matched the reference.
    "chunk after end": [
        ToolCallStartEvent(tool_call_id="tc-x", tool_call_name="delete_all"),
        ToolCallArgsEvent(tool_call_id="tc-x", delta='{"a"'),
        ToolCallEndEvent(tool_call_id="tc-x"),
        ToolCallChunkEvent(tool_call_id="tc-x", delta=": 1}"),
    ],
    "chunk continuing nothing": [
        *_call_events("start", "args", "end"),
        ToolCallChunkEvent(delta='{"a": 1}'),
    ],
    "chunk without a name": [ToolCallChunkEvent(tool_call_id="tc-y", delta="{}")],
}


@pytest.fixture
def scripted() -> Iterator[tuple[ScriptedAgent, str]]:
    agent = ScriptedAgent()
    app = Starlette(routes=[Route("/agent", agent.endpoint, methods=["POST"])])
    with LoopbackServer(app) as server:
        yield agent, server.url + "agent"


def _weather_case() -> dict[str, Any]:
    case = echo_case("weather_mocked", "weather in Oslo")
    turn = case["conversation"][0]
    turn["finalResponse"]["content"] = "Oslo: snow"
    turn["tools"] = [
        {
            "name": "get_weather",
            "arguments": {"city": "Oslo", "days": 2},
            "result": {"city": "Oslo", "condition": "snow"},
        }
    ]
    turn["toolMock"] = {
        "actual": [
            {
                "name": "get_weather",
                "arguments": {"expected": {"city": "Oslo"}, "onlyTree": {"city": True}},
                "result": {"city": "Oslo", "condition": "snow"},
            }
        ]
    }
    return case


def _calc_case() -> dict[str, Any]:
    case = echo_case("calc", "calc add 2 3", "thanks")
    case["conversation"][0]["finalResponse"]["content"] = "calc result: 5"
    case["conversation"][0]["tools"] = [
        {"name": "calculator", "arguments": {"a": 2, "b": 3}, "result": {"sum": 5}}
    ]
    case["sessionInput"]["state"] = {"tier": "gold"}
    return case


def test_captured_turns_equal_the_servers_log(
    tmp_path: Path, scripted: tuple[ScriptedAgent, str]
) -> None:
    agent, url = scripted
    evalset = write_evalset(tmp_path, "agui", [_weather_case(), _calc_case()], TRAJECTORY)
    out = tmp_path / "run.json"
    proc = run_cli(
        "run", "--evalset", str(evalset), "--agent", f"agui:{url}", "--no-cache", "--json", str(out)
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    results = case_results(out)
    by_user = {entry["user"]: entry for entry in agent.log}
    for case in results.values():
        for turn in case["evalMetricResultPerInvocation"]:
            actual = turn["actualInvocation"]
            entry = by_user[actual["userContent"]["content"]]
            assert actual["finalResponse"]["content"] == entry["final"]
            assert actual.get("tools", []) == entry["tools"]
    weather = results["weather_mocked"]["evalMetricResultPerInvocation"][0]["actualInvocation"]
    assert weather["intermediateResponses"] == [
        {"role": "assistant", "content": "Checking the weather."}
    ]
    # The mocked tool was declared client-side and never run by the agent.
    assert agent.real_tool_runs == ["calculator"]
    assert [t["name"] for t in agent.inputs[0]["tools"]] == ["get_weather"]
    # One thread per case session; the second turn carries the first turn's history and the state.
    calc_inputs = [i for i in agent.inputs if i["state"] == {"tier": "gold"}]
    assert len(calc_inputs) == 2 and calc_inputs[0]["threadId"] == calc_inputs[1]["threadId"]
    roles = [m["role"] for m in calc_inputs[1]["messages"]]
    assert roles == ["user", "assistant", "assistant", "tool", "user"]


def test_run_error_and_garbage_fail_only_their_case(
    tmp_path: Path, scripted: tuple[ScriptedAgent, str]
) -> None:
    _, url = scripted
    cases = [
        echo_case("fine", "hi"),
        echo_case("errors", "hi", "explode"),
        echo_case("garbage", "garbage"),
    ]
    evalset = write_evalset(tmp_path, "agui_faults", cases, EXACT_FINAL)
    out = tmp_path / "run.json"
    proc = run_cli(
        "run", "--evalset", str(evalset), "--agent", f"agui:{url}", "--no-cache", "--json", str(out)
    )
    assert proc.returncode == 1
    results = case_results(out)
    assert results["fine"]["finalEvalStatus"] == "passed"
    assert results["errors"]["errorMessage"] == (
        "agent turn 2 of 2: agent sent RUN_ERROR: model backend unavailable (code UPSTREAM)"
    )
    assert results["garbage"]["errorMessage"].startswith(
        "agent turn 1 of 1: protocol error: not an AG-UI event"
    )


def test_tool_call_events_out_of_order_fail_their_case(
    tmp_path: Path, scripted: tuple[ScriptedAgent, str]
) -> None:
    """A call never ended would go unrecorded (the no-tool reference would pass), and events
    after a call's TOOL_CALL_END would change or repeat a call already recorded."""
    _, url = scripted
    one_call = [{"name": "delete_all", "arguments": {}}]
    cases = [echo_case("unended", "unended")]
    for eval_id in ("ended twice", "args after end", "in order"):
        case = echo_case(eval_id.replace(" ", "_"), eval_id)
        case["conversation"][0]["tools"] = one_call
        cases.append(case)
    evalset = write_evalset(tmp_path, "agui_order", cases, TRAJECTORY)
    out = tmp_path / "run.json"
    proc = run_cli(
        "run", "--evalset", str(evalset), "--agent", f"agui:{url}", "--no-cache", "--json", str(out)
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    # A call made in a run that then failed still counts (as it does for a cmd: agent).
    assert "agent: 4 sessions, 4 turns, 4 tool calls (0 mocked), 3 failed" in proc.stdout
    results = case_results(out)
    assert results["in_order"]["finalEvalStatus"] == "passed"
    assert {eval_id: r.get("errorMessage") for eval_id, r in results.items()} == {
        "unended": "agent turn 1 of 1: protocol error: RUN_FINISHED before TOOL_CALL_END"
        " of call 'tc-x' ('delete_all')",
        "ended_twice": "agent turn 1 of 1: protocol error: TOOL_CALL_END after TOOL_CALL_END"
        " for call 'tc-x'",
        "args_after_end": "agent turn 1 of 1: protocol error: TOOL_CALL_ARGS after"
        " TOOL_CALL_END for call 'tc-x'",
        "in_order": None,
    }


def test_a_cancelled_or_interrupted_run_fails_its_case(
    tmp_path: Path, scripted: tuple[ScriptedAgent, str]
) -> None:
    """Its text so far matches the reference, but the run produced no result (cancelled) or
    waits for an answer (interrupt): the case fails instead of passing on that text."""
    _, url = scripted
    cases = [echo_case("cancel", "cancel"), echo_case("approve", "approve"), echo_case("ok", "hi")]
    evalset = write_evalset(tmp_path, "agui_outcomes", cases, EXACT_FINAL)
    out = tmp_path / "run.json"
    proc = run_cli(
        "run", "--evalset", str(evalset), "--agent", f"agui:{url}", "--no-cache", "--json", str(out)
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    results = case_results(out)
    assert results["ok"]["finalEvalStatus"] == "passed"
    assert results["cancel"]["errorMessage"] == (
        'agent turn 1 of 1: the agent\'s run was cancelled (RUN_FINISHED outcome "cancelled")'
    )
    assert results["approve"]["errorMessage"] == (
        "agent turn 1 of 1: the agent's run paused on 1 interrupt(s): 'ok?' "
        '(RUN_FINISHED outcome "interrupt"); agenteval cannot answer interrupts'
    )


def test_unreachable_agent_fails_cases_with_the_reason(tmp_path: Path) -> None:
    evalset = write_evalset(tmp_path, "agui_down", [echo_case("one", "hi")], EXACT_FINAL)
    out = tmp_path / "run.json"
    proc = run_cli(
        "run",
        "--evalset",
        str(evalset),
        "--agent",
        "agui:http://127.0.0.1:9/agent",
        "--no-cache",
        "--json",
        str(out),
    )
    assert proc.returncode == 3  # incomplete: the agent was never reached
    assert "the agent could not be started or reached for 1 case run(s)" in proc.stdout
    assert case_results(out)["one"]["errorMessage"].startswith(
        "agent turn 1 of 1: cannot reach http://127.0.0.1:9/agent: "
    )


class HostileAgent:
    """An AG-UI endpoint that floods: an endless stream, or one event of ``size`` bytes."""

    def __init__(self) -> None:
        self.sent = 0

    async def endpoint(self, request: Request) -> StreamingResponse:
        data = RunAgentInput.model_validate(await request.json())
        text = data.messages[-1].content
        return StreamingResponse(self.events(data, str(text)), media_type="text/event-stream")

    async def events(self, data: RunAgentInput, text: str) -> AsyncIterator[str]:
        encoder = EventEncoder()
        yield encoder.encode(RunStartedEvent(thread_id=data.thread_id, run_id=data.run_id))
        yield encoder.encode(TextMessageStartEvent(message_id="m", role="assistant"))
        if text.startswith("huge "):
            delta = "z" * int(text.split()[1])
            yield encoder.encode(TextMessageContentEvent(message_id="m", delta=delta))
        else:  # endless
            chunk = encoder.encode(TextMessageContentEvent(message_id="m", delta="w" * 1000)) * 64
            while True:
                self.sent += len(chunk)
                yield chunk
                await asyncio.sleep(0)  # lets the server see the client go away
        yield encoder.encode(TextMessageEndEvent(message_id="m"))
        yield encoder.encode(RunFinishedEvent(thread_id=data.thread_id, run_id=data.run_id))


@pytest.fixture
def hostile() -> Iterator[tuple[HostileAgent, str]]:
    agent = HostileAgent()
    app = Starlette(routes=[Route("/agent", agent.endpoint, methods=["POST"])])
    with LoopbackServer(app) as server:
        yield agent, server.url + "agent"


def test_event_and_turn_byte_caps(tmp_path: Path, hostile: tuple[HostileAgent, str]) -> None:
    """An endless stream ends at the turn cap, a huge event at the event cap, both long before
    --agent-timeout; an event under the caps is read whole."""
    agent, url = hostile
    cases = [echo_case("endless", "endless"), echo_case("huge", "huge 3000000")]
    small = echo_case("small", "huge 100000")
    small["conversation"][0]["finalResponse"]["content"] = "z" * 100000
    evalset = write_evalset(tmp_path, "flood", [*cases, small], EXACT_FINAL)
    out = tmp_path / "run.json"
    proc = run_cli(
        "run", "--evalset", str(evalset), "--agent", f"agui:{url}", "--agent-timeout", "60",
        "--agent-max-event-bytes", "1000000", "--agent-max-turn-bytes", "20000000",
        "--no-cache", "--json", str(out), timeout=60,
    )  # fmt: skip
    sent = agent.sent
    assert proc.returncode == 1, proc.stdout + proc.stderr
    results = case_results(out)
    assert results["endless"]["errorMessage"] == (
        "agent turn 1 of 1: protocol error: the agent sent more than 20,000,000 bytes in one "
        "turn (--agent-max-turn-bytes)"
    )
    assert results["huge"]["errorMessage"] == (
        "agent turn 1 of 1: protocol error: an event is longer than 1,000,000 bytes "
        "(--agent-max-event-bytes)"
    )
    assert results["small"]["finalEvalStatus"] == "passed"
    assert sent < 200_000_000  # the stream was dropped, not read for 60 s


def test_counters_count_own_and_mocked_calls(
    tmp_path: Path, scripted: tuple[ScriptedAgent, str]
) -> None:
    """A mocked call answered by agenteval and an own tool run by the agent: 2 calls, 1 mocked;
    a turn that fails with RUN_ERROR still counts as a turn."""
    _, url = scripted
    cases = [_weather_case(), _calc_case(), echo_case("errors", "explode")]
    evalset = write_evalset(tmp_path, "agui_counts", cases, TRAJECTORY)
    out = tmp_path / "run.json"
    proc = run_cli(
        "run", "--evalset", str(evalset), "--agent", f"agui:{url}", "--no-cache", "--json", str(out)
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "agent: 3 sessions, 4 turns, 2 tool calls (1 mocked), 1 failed" in proc.stdout
    agent = json.loads(out.read_text())["agent"]
    assert (agent["turns"], agent["toolCalls"], agent["mockedToolCalls"]) == (4, 2, 1)


class EchoingAgent:
    """Calls ``get_weather`` as ``tc-1`` in every turn (its ids count per turn); a follow-up
    run first re-announces the tool results of the earlier turns as TOOL_CALL_RESULTs, as a
    server replaying its thread does, then answers with the tool message it got."""

    def __init__(self) -> None:
        self.inputs: list[RunAgentInput] = []

    async def endpoint(self, request: Request) -> StreamingResponse:
        data = RunAgentInput.model_validate(await request.json())
        self.inputs.append(data)
        return StreamingResponse(self.events(data), media_type="text/event-stream")

    async def events(self, data: RunAgentInput) -> AsyncIterator[str]:
        encoder = EventEncoder()
        yield encoder.encode(RunStartedEvent(thread_id=data.thread_id, run_id=data.run_id))
        last = data.messages[-1]
        if last.role == "tool":
            last_user = max(i for i, m in enumerate(data.messages) if m.role == "user")
            for earlier in data.messages[:last_user]:
                if earlier.role == "tool":
                    yield encoder.encode(
                        ToolCallResultEvent(
                            message_id=earlier.id,
                            tool_call_id=earlier.tool_call_id,
                            content=earlier.content,
                        )
                    )
            weather = json.loads(last.content)
            final = f"{weather['city']}: {weather['condition']}"
            for event in ScriptedAgent().text("m-final", final):
                yield encoder.encode(event)
        else:
            city = str(last.content).removeprefix("weather in ")
            yield encoder.encode(
                ToolCallStartEvent(tool_call_id="tc-1", tool_call_name="get_weather")
            )
            yield encoder.encode(
                ToolCallArgsEvent(tool_call_id="tc-1", delta=json.dumps({"city": city}))
            )
            yield encoder.encode(ToolCallEndEvent(tool_call_id="tc-1"))
        yield encoder.encode(RunFinishedEvent(thread_id=data.thread_id, run_id=data.run_id))


def test_an_echoed_earlier_result_does_not_replace_a_mocked_one(tmp_path: Path) -> None:
    """Turn 2's mock says rain; the follow-up run echoes turn 1's result (snow) for the same
    call id: the echo is dropped, so turn 2 keeps the mock's rain, and the thread's history
    holds each tool message once."""
    agent = EchoingAgent()
    case = echo_case("two_days", "weather in Oslo", "weather in Oslo")
    for turn, condition in zip(case["conversation"], ("snow", "rain"), strict=True):
        weather = {"city": "Oslo", "condition": condition}
        turn["finalResponse"]["content"] = f"Oslo: {condition}"
        turn["tools"] = [{"name": "get_weather", "arguments": {"city": "Oslo"}, "result": weather}]
        turn["toolMock"] = {"actual": [{"name": "get_weather", "result": weather}]}
    evalset = write_evalset(tmp_path, "echo", [case], TRAJECTORY)
    out = tmp_path / "run.json"
    app = Starlette(routes=[Route("/agent", agent.endpoint, methods=["POST"])])
    with LoopbackServer(app) as server:
        proc = run_cli(
            "run", "--evalset", str(evalset), "--agent", f"agui:{server.url}agent",
            "--no-cache", "--json", str(out),
        )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    turns = case_results(out)["two_days"]["evalMetricResultPerInvocation"]
    results = [t["actualInvocation"]["tools"][0]["result"]["condition"] for t in turns]
    assert results == ["snow", "rain"]
    assert len(agent.inputs) == 4  # two runs a turn: the call, then the mock's result
    tool_messages = [m.content for m in agent.inputs[-1].messages if m.role == "tool"]
    assert [json.loads(m)["condition"] for m in tool_messages] == ["snow", "rain"]


async def _refuse_token(request: Request) -> Response:
    """A gateway that refuses the key in the query and quotes it, as many do."""
    return Response(f"invalid token {request.query_params['token']!r}", status_code=401)


def test_a_key_in_the_agent_url_stays_out_of_results_and_records(tmp_path: Path) -> None:
    """An AG-UI endpoint's key rides in the URL (agenteval sends no header of the user's):
    the case's errorMessage, the run document and the --record line show it as ***."""
    key = "agui-key-5f3c9e1d2b"
    evalset = write_evalset(tmp_path, "keyed", [echo_case("one", "hi")], EXACT_FINAL)
    out, record = tmp_path / "run.json", tmp_path / "record.jsonl"
    app = Starlette(routes=[Route("/agent", _refuse_token, methods=["POST"])])
    with LoopbackServer(app) as server:
        proc = run_cli(
            "run", "--evalset", str(evalset), "--agent", f"agui:{server.url}agent?token={key}",
            "--no-cache", "--json", str(out), "--record", str(record),
        )  # fmt: skip
        url = f"{server.url}agent?token=***"
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert case_results(out)["one"]["errorMessage"] == (
        f"agent turn 1 of 1: HTTP 401 from {url}: invalid token '***'"
    )
    for text in (proc.stdout, proc.stderr, out.read_text(), record.read_text()):
        assert key not in text
    assert "HTTP 401" in record.read_text()


def test_credentials_in_the_agent_url_are_a_usage_error(tmp_path: Path) -> None:
    """``user:password@`` would be sent beside agenteval's own headers (the HTTP client
    refused that with an internal error) and shown in every message: exit 2, one line."""
    evalset = write_evalset(tmp_path, "creds", [echo_case("one", "hi")], EXACT_FINAL)
    proc = run_cli(
        "run", "--evalset", str(evalset), "--agent", "agui:http://bob:hunter2pw@127.0.0.1:9/",
        "--no-cache",
    )  # fmt: skip
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr
    assert "hunter2pw" not in proc.stdout + proc.stderr
    assert "error: --agent: agui:http://127.0.0.1: the URL holds credentials" in proc.stderr


def test_tool_call_chunks_build_a_call_and_never_change_an_ended_one(
    tmp_path: Path, scripted: tuple[ScriptedAgent, str]
) -> None:
    """Chunks joined into one call pass; a chunk after a call's TOOL_CALL_END altered that
    recorded call (or, without an id, recorded a nameless one): the turn fails instead."""
    _, url = scripted
    texts = ["chunks", "chunk after end", "chunk continuing nothing", "chunk without a name"]
    cases = []
    for text in texts:
        case = echo_case(text.replace(" ", "_"), text)
        case["conversation"][0]["tools"] = [{"name": "delete_all", "arguments": {"a": 1}}]
        cases.append(case)
    evalset = write_evalset(tmp_path, "agui_chunks", cases, TRAJECTORY)
    out = tmp_path / "run.json"
    proc = run_cli(
        "run", "--evalset", str(evalset), "--agent", f"agui:{url}", "--no-cache", "--json", str(out)
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    results = case_results(out)
    assert results["chunks"]["finalEvalStatus"] == "passed"
    assert results["chunk_after_end"]["finalEvalStatus"] == "failed"
    assert {eval_id: r.get("errorMessage") for eval_id, r in results.items()} == {
        "chunks": None,
        "chunk_after_end": "agent turn 1 of 1: protocol error: TOOL_CALL_CHUNK after"
        " TOOL_CALL_END for call 'tc-x'",
        "chunk_continuing_nothing": "agent turn 1 of 1: protocol error: TOOL_CALL_CHUNK"
        " without toolCallId and no call to continue",
        "chunk_without_a_name": "agent turn 1 of 1: protocol error: first TOOL_CALL_CHUNK"
        " without toolCallName for call 'tc-y'",
    }
