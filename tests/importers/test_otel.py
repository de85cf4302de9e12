"""OTLP traces from the OpenTelemetry SDK, scored through ``--traces`` and ``import otel``."""

from __future__ import annotations

import json
import subprocess
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from otel_spans import DIALECTS, OP, Recorder, record_semconv

from agenteval.importers.otel import TracesMatch, map_spans
from agenteval.inputs.otlp_file import read_protobuf_spans, read_spans
from agenteval.judge.backend import TokenUsage
from agenteval.judge.prices import builtin_prices, usage_cost
from agenteval.schema.base import dump
from agenteval.schema.evalset import (
    EvalCase,
    EvalSet,
    Invocation,
    Message,
    SessionInput,
    Tool,
    Usage,
)
from cli_process import run_cli

SESSION = "trip-42"


def _turn(user: str, final: str, tool: Tool) -> Invocation:
    return Invocation(
        user_content=Message(role="user", content=user),
        final_response=Message(role="assistant", content=final),
        tools=[tool],
    )


ACTUAL = [
    _turn(
        "What's the weather in Paris tomorrow?",
        "Tomorrow Paris will be dry with a high of 18°C.",
        Tool(
            id="call_1",
            name="get_forecast",
            arguments={"city": "Paris", "days": 1},
            result={"high": 18, "rain": 0.1},
        ),
    ),
    _turn(
        "Book me a table near the Louvre at 8pm.",
        "Booked Le Fumoir near the Louvre for 8pm.",
        Tool(
            id="call_2",
            name="book_restaurant",
            arguments={"area": "Louvre", "time": "20:00"},
            result={"confirmed": True, "name": "Le Fumoir"},
        ),
    ),
]
EXPECTED = [
    _turn(
        "What's the weather in Paris tomorrow?",
        "Paris will stay dry tomorrow with highs of 18°C.",
        Tool(name="get_forecast", arguments={"city": "Paris", "days": 1}),
    ),
    _turn(
        "Book me a table near the Louvre at 8pm.",
        "Your table at Le Fumoir near the Louvre is booked for 8:30pm.",
        Tool(name="book_restaurant", arguments={"area": "Louvre", "time": "20:30"}),
    ),
]
METRICS = [
    {
        "metricName": "tool_trajectory_avg_score",
        "threshold": 1.0,
        "criterion": {
            "toolTrajectory": {
                "orderSensitive": True,
                "defaultStrategy": {"name": {"matchStrategy": "exact"}, "arguments": {}},
            }
        },
    },
    {"metricName": "response_match_score", "threshold": 0.5},
]


def agenteval(*args: str) -> subprocess.CompletedProcess[str]:
    """``python -m agenteval ARGS``."""
    return run_cli(args, timeout=120)


def _write_set(directory: Path, name: str, case: EvalCase) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{name}.evalset.json"
    path.write_text(
        json.dumps(dump(EvalSet(eval_set_id=name, eval_cases=[case]))), encoding="utf-8"
    )
    (directory / f"{name}.metrics.json").write_text(json.dumps(METRICS), encoding="utf-8")
    return path


def _scores(document: dict[str, Any]) -> list[tuple[str, str, float, str, list[float]]]:
    """(evalId, metric, score, status, per-turn scores) of a run document."""
    out = []
    for result in document["evalSetResults"]:
        for case in result["evalCaseResults"]:
            per_turn = case["evalMetricResultPerInvocation"]
            for metric in case["overallEvalMetricResults"]:
                turns = [
                    m["score"]
                    for p in per_turn
                    for m in p["evalMetricResults"]
                    if m["metricName"] == metric["metricName"]
                ]
                out.append(
                    (
                        case["evalId"],
                        metric["metricName"],
                        metric["score"],
                        metric["evalStatus"],
                        turns,
                    )
                )
    return sorted(out)


def _run(tmp_path: Path, evalset: Path, *extra: str) -> tuple[list[Any], str]:
    report = tmp_path / f"run-{len(list(tmp_path.glob('run-*.json')))}.json"
    proc = agenteval("run", "--evalset", str(evalset), "--json", str(report), "--no-cache", *extra)
    assert proc.returncode == 1, proc.stdout + proc.stderr  # the second turn's tool differs
    return _scores(json.loads(report.read_text(encoding="utf-8"))), proc.stderr


@pytest.fixture
def recorded(tmp_path: Path) -> Recorder:
    recorder = Recorder()
    record_semconv(recorder.tracer, SESSION, ACTUAL)
    # A span outside every agent turn: reported, never silently dropped.
    with recorder.tracer.start_as_current_span("db.query"):
        pass
    return recorder


def test_traces_score_like_the_equivalent_trace_mode_evalset(
    tmp_path: Path, recorded: Recorder
) -> None:
    default_mode = _write_set(
        tmp_path / "default",
        "trip",
        EvalCase(
            eval_id=SESSION,
            conversation=list(EXPECTED),
            session_input=SessionInput(app_name="travel"),
        ),
    )
    trace_mode = _write_set(
        tmp_path / "trace",
        "trip",
        EvalCase(
            eval_id=SESSION,
            eval_mode="trace",
            actual_conversation=list(ACTUAL),
            conversation=list(EXPECTED),
            session_input=SessionInput(app_name="travel"),
        ),
    )
    reference, _ = _run(tmp_path, trace_mode)
    # Real numbers: turn 1 matches, turn 2 books the wrong time; ROUGE-1 between 0 and 1.
    trajectory = next(r for r in reference if r[1] == "tool_trajectory_avg_score")
    assert trajectory[2:] == (0.5, "failed", [1.0, 0.0])
    rouge = next(r for r in reference if r[1] == "response_match_score")
    assert 0.2 < rouge[4][1] < rouge[4][0] < 1.0

    json_file = recorded.write_json(tmp_path / "spans.otlp.jsonl")
    # json_format's own rendering: one document, ids in base64.
    one_document = recorded.write_json(
        tmp_path / "spans.otlp.json", per_trace_lines=False, hex_ids=False
    )
    protobuf = recorded.write_protobuf(tmp_path / "spans.otlp.pb")
    assert (
        len(json_file.read_text(encoding="utf-8").splitlines()) == 3
    )  # two turns + the stray trace
    for traces in (json_file, one_document, protobuf):
        scores, stderr = _run(tmp_path, default_mode, "--traces", str(traces))
        assert scores == reference, traces
        (stray,) = [s for s in recorded.spans() if s.name == "db.query"]
        assert stray.context is not None
        assert f"span {stray.context.span_id:016x}: 'db.query' belongs to no agent turn" in stderr

    out = tmp_path / "imported"
    proc = agenteval("import", "otel", str(protobuf), "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    imported = json.loads((out / "spans.evalset.json").read_text(encoding="utf-8"))
    (case,) = imported["evalCases"]
    assert case["evalId"] == SESSION and case["evalMode"] == "trace"
    case["conversation"] = [dump(t) for t in EXPECTED]
    (out / "spans.evalset.json").write_text(json.dumps(imported), encoding="utf-8")
    (out / "spans.metrics.json").write_text(json.dumps(METRICS), encoding="utf-8")
    imported_scores, _ = _run(tmp_path, out / "spans.evalset.json")
    assert [s[1:] for s in imported_scores] == [s[1:] for s in reference]


@pytest.mark.parametrize("dialect", sorted(DIALECTS))
def test_every_dialect_maps_to_the_same_turns(tmp_path: Path, dialect: str) -> None:
    recorder = Recorder()
    DIALECTS[dialect](recorder.tracer, SESSION, ACTUAL)
    mapping = map_spans(read_spans(recorder.write_json(tmp_path / "t.jsonl")).spans)
    assert mapping.unmapped == []
    turns = mapping.sessions[SESSION].turns
    assert [t.user_content.content for t in turns if t.user_content] == [
        t.user_content.content for t in ACTUAL if t.user_content
    ]
    assert [t.final_response.content for t in turns if t.final_response] == [
        t.final_response.content for t in ACTUAL if t.final_response
    ]
    got = [(tool.name, tool.arguments, tool.result) for t in turns for tool in t.tools or []]
    want = [(tool.name, tool.arguments, tool.result) for t in ACTUAL for tool in t.tools or []]
    assert want and all(arguments is not None for _, arguments, _ in want)
    assert got == want
    if dialect in ("semconv", "trpc", "trpc_tool_keys"):  # those that record call ids
        assert [tool.id for t in turns for tool in t.tools or []] == [
            tool.id for t in ACTUAL for tool in t.tools or []
        ]


def test_sessions_split_and_match_keys(tmp_path: Path) -> None:
    recorder = Recorder()
    record_semconv(recorder.tracer, "s-1", ACTUAL[:1])
    record_semconv(recorder.tracer, "s-2", ACTUAL[1:])
    with recorder.tracer.start_as_current_span(
        "invoke_agent x",
        attributes={"gen_ai.operation.name": "invoke_agent", "agenteval.eval_id": "case-9"},
    ) as keyed:
        pass
    spans = read_spans(recorder.write_protobuf(tmp_path / "t.pb")).spans
    by_session = map_spans(spans, TracesMatch.SESSION)
    assert sorted(by_session.sessions) == ["s-1", "s-2"]
    assert [len(s.turns) for s in by_session.sessions.values()] == [1, 1]
    # The keyed turn has no session id: reported by its span id, not dropped.
    (missing,) = by_session.unmapped
    assert missing.span_id == f"{keyed.get_span_context().span_id:016x}"
    assert "gen_ai.conversation.id" in missing.reason
    by_eval_id = map_spans(spans, TracesMatch.EVAL_ID)
    assert list(by_eval_id.sessions) == ["case-9"]
    assert len(by_eval_id.unmapped) == 2
    assert sorted(map_spans(spans, TracesMatch.CONVERSATION).sessions) == ["s-1", "s-2"]


def test_broken_otlp_json_is_a_located_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.otlp.jsonl"
    bad.write_text(
        '{"resourceSpans": []}\n{"resourceSpans": [{"scopeSpans": 5}]}\n', encoding="utf-8"
    )
    evalset = _write_set(
        tmp_path / "d",
        "trip",
        EvalCase(eval_id=SESSION, conversation=list(EXPECTED), session_input=SessionInput()),
    )
    proc = agenteval("run", "--evalset", str(evalset), "--traces", str(bad), "--no-cache")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert (
        f"{bad}: line 2: resourceSpans[0].scopeSpans: not OTLP trace JSON: expected an array, "
        "got a number" in proc.stderr
    )
    assert "Traceback" not in proc.stderr


REPO = Path(__file__).resolve().parents[2]


def test_the_shipped_example_holds_the_replay_agents_turns() -> None:
    mapping = map_spans(read_spans(REPO / "evalsets" / "otel" / "travel-agent.otlp.jsonl").spans)
    assert mapping.unmapped == []
    recorded = [
        json.loads(line)
        for line in (REPO / "evalsets" / "replay" / "agent-v1.traces.jsonl")
        .read_text(encoding="utf-8")
        .splitlines()
        if line.strip()
    ]
    assert sorted(mapping.sessions) == sorted(r["evalId"] for r in recorded)
    for record in recorded:
        want = [Invocation.model_validate(t) for t in record["actualConversation"]]
        got = mapping.sessions[record["evalId"]].turns
        assert [(t.user_content, t.final_response, t.tools) for t in got] == [
            (t.user_content, t.final_response, t.tools) for t in want
        ]


def test_length_prefixed_protobuf_stream(tmp_path: Path) -> None:
    # The collector's file exporter with format: proto writes each message behind its length.
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans

    recorder = Recorder()
    record_semconv(recorder.tracer, SESSION, ACTUAL)
    spans = list(recorder.spans())
    chunks = [
        encode_spans(spans[:3]).SerializeToString(),
        encode_spans(spans[3:]).SerializeToString(),
    ]
    data = b"".join(len(c).to_bytes(4, "big") + c for c in chunks)
    records = read_protobuf_spans(data, "stream.pb").spans
    assert len(records) == len(spans) == 8  # per turn: invoke_agent, two chat, one tool
    assert [len(s.turns) for s in map_spans(records).sessions.values()] == [2]


def test_sessions_no_case_names_are_warned(tmp_path: Path) -> None:
    recorder = Recorder()
    record_semconv(recorder.tracer, SESSION, ACTUAL)
    record_semconv(recorder.tracer, "someone-else", ACTUAL[:1])
    evalset = _write_set(
        tmp_path / "d",
        "trip",
        EvalCase(eval_id=SESSION, conversation=list(EXPECTED), session_input=SessionInput()),
    )
    traces = recorder.write_protobuf(tmp_path / "t.pb")
    proc = agenteval("validate", "--evalset", str(evalset), "--traces", str(traces))
    assert proc.returncode == 0, proc.stderr
    assert (
        "session someone-else: no case has evalId 'someone-else'; its 1 turn(s) are not scored"
        in proc.stderr
    )
    assert f"session {SESSION}:" not in proc.stderr


def test_import_otel_refuses_to_replace_a_file_without_force(tmp_path: Path) -> None:
    """Issue 21 item 10: ``import otel -o DIR`` replaces an existing file only with --force."""
    shipped = REPO / "evalsets" / "otel" / "travel-agent.otlp.jsonl"
    out = tmp_path / "out"
    proc = agenteval("import", "otel", str(shipped), "-o", str(out))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (written,) = out.iterdir()
    written.write_text("hand-edited\n")
    proc = agenteval("import", "otel", str(shipped), "-o", str(out))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert f"error: {written}: already exists; not replaced (pass --force to replace it)" in (
        proc.stderr
    )
    assert written.read_text() == "hand-edited\n"
    proc = agenteval("import", "otel", str(shipped), "-o", str(out), "--force")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert json.loads(written.read_text())["evalCases"]


CLAUDE = "claude-sonnet-4-20250514"  # $3 input, $0.30 cached input, $15 output per million


def _cached_turn_usage(tmp_path: Path, written: int | None) -> Usage | None:
    """One turn of two ``chat`` spans on Claude, the first writing ``written`` of its 1,200
    input tokens to the prompt cache (None: no such attribute), the second reading 1,000."""
    recorder = Recorder()
    tracer = recorder.tracer
    with tracer.start_as_current_span(
        "invoke_agent travel_agent",
        attributes={
            OP: "invoke_agent",
            "gen_ai.conversation.id": SESSION,
            "gen_ai.input.messages": json.dumps(
                [{"role": "user", "parts": [{"type": "text", "content": "Paris?"}]}]
            ),
        },
    ):
        for tokens_in, tokens_out, read, wrote in ((1200, 50, 0, written), (1300, 40, 1000, None)):
            attributes: dict[str, Any] = {
                OP: "chat",
                "gen_ai.provider.name": "anthropic",
                "gen_ai.response.model": CLAUDE,
                "gen_ai.usage.input_tokens": tokens_in,
                "gen_ai.usage.output_tokens": tokens_out,
                "gen_ai.usage.cache_read.input_tokens": read,
            }
            if wrote is not None:
                attributes["gen_ai.usage.cache_creation.input_tokens"] = wrote
            with tracer.start_as_current_span(f"chat {CLAUDE}", attributes=attributes):
                pass
    spans = read_spans(recorder.write_json(tmp_path / f"t-{written}.jsonl")).spans
    (turn,) = map_spans(spans).sessions[SESSION].turns
    return turn.usage


def test_cache_creation_tokens_leave_the_turn_unpriced(tmp_path: Path) -> None:
    usage = _cached_turn_usage(tmp_path, 1000)
    assert usage is not None
    assert (usage.input_tokens, usage.cached_input_tokens, usage.cache_write_input_tokens) == (
        2500,
        1000,
        1000,
    )
    assert dump(usage)["cacheWriteInputTokens"] == 1000
    cost = usage_cost(usage)
    assert (cost.usd, cost.key) == (None, f"anthropic:{CLAUDE}")
    # The reason a judge reply with cache writes gets, word for word.
    judge = builtin_prices().cost(
        "anthropic", CLAUDE, TokenUsage(1200, 50, cache_write_tokens=1000)
    )
    assert (
        cost.why
        == judge.why
        == f"anthropic:{CLAUDE}: prompt-cache writes have no price in the table"
    )


@pytest.mark.parametrize("written", [None, 0])
def test_a_turn_without_cache_writes_is_priced_as_before(
    tmp_path: Path, written: int | None
) -> None:
    usage = _cached_turn_usage(tmp_path, written)
    assert usage is not None and "cacheWriteInputTokens" not in dump(usage)
    # (1,500 fresh × $3 + 1,000 cached × $0.30 + 90 output × $15) / 1e6
    assert usage_cost(usage).usd == Decimal("0.00615")


def test_a_model_call_inside_another_is_counted_once(tmp_path: Path) -> None:
    """ADK's ``call_llm`` span around the google-genai instrumentation's ``generate_content``
    span: one inference whose tokens both spans carry (it was counted twice: 2,400 input
    tokens, 2 calls).  A second, separate call in the same turn still adds up."""
    recorder = Recorder()
    tracer = recorder.tracer
    gemini = {"gen_ai.provider.name": "gcp.gemini", "gen_ai.response.model": "gemini-2.5-flash"}
    root = {OP: "invoke_agent", "gen_ai.conversation.id": SESSION}
    with tracer.start_as_current_span("invoke_agent travel_agent", attributes=root):
        for tokens_in, tokens_out in ((1200, 50), (1300, 40)):
            spent = {"gen_ai.usage.input_tokens": tokens_in, "gen_ai.usage.output_tokens": tokens_out}  # fmt: skip
            with (
                tracer.start_as_current_span("call_llm", attributes=spent),
                tracer.start_as_current_span("retry"),  # a span between the two calls
                tracer.start_as_current_span(
                    "generate_content gemini-2.5-flash",
                    attributes={OP: "generate_content", **gemini, **spent},
                ),
            ):
                pass
    spans = read_spans(recorder.write_json(tmp_path / "nested.jsonl")).spans
    (turn,) = map_spans(spans).sessions[SESSION].turns
    assert turn.usage is not None
    assert (turn.usage.input_tokens, turn.usage.output_tokens) == (1200 + 1300, 50 + 40)
    assert turn.usage.inference_calls == 2
    assert turn.usage.model == "gcp.gemini:gemini-2.5-flash"


def test_a_span_name_with_an_escape_sequence_is_escaped_once(tmp_path: Path) -> None:
    """The name was escaped, then quoted with repr, which escaped the backslash again:
    ESC [2J showed as '\\\\x1b[2J', the name of a span that does not exist."""
    span = {"traceId": "0af7651916cd43dd8448eb211c80319c", "spanId": "b7ad6b7169203332",
            "name": "stray \x1b[2J", "startTimeUnixNano": "1", "endTimeUnixNano": "2"}  # fmt: skip
    path = tmp_path / "t.otlp.json"
    path.write_text(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}))
    done = agenteval("import", "otel", str(path), "-o", str(tmp_path / "out"))
    # No case to import: exit 2 (test_import_otel_of_a_file_with_no_session_is_an_error).
    assert done.returncode == 2, done.stdout + done.stderr
    # The error first (why nothing was written), then the warning beside it, then the count.
    assert done.stderr.splitlines()[1] == (
        f"warning: {path}: span b7ad6b7169203332: 'stray \\x1b[2J' belongs to no agent turn "
        "(no invoke_agent or invocation span above it); not used"
    )


def _two_call_turn(tmp_path: Path, second: dict[str, Any]) -> Usage | None:
    """The usage of one turn of two ``chat`` calls: 1,200 in / 50 out, then ``second``."""
    recorder = Recorder()
    tracer = recorder.tracer
    root = {OP: "invoke_agent", "gen_ai.conversation.id": SESSION}
    with tracer.start_as_current_span("invoke_agent travel_agent", attributes=root):
        first = {"gen_ai.usage.input_tokens": 1200, "gen_ai.usage.output_tokens": 50}
        for attributes in (first, second):
            with tracer.start_as_current_span("chat gpt-4o", attributes={OP: "chat", **attributes}):
                pass
    spans = read_spans(recorder.write_json(tmp_path / "calls.jsonl")).spans
    (turn,) = map_spans(spans).sessions[SESSION].turns
    return turn.usage


def test_a_model_call_without_tokens_leaves_the_turn_usage_unknown(tmp_path: Path) -> None:
    """The second call's tokens are unknown: the turn said 1,200 tokens and 1 call, so a
    token budget passed on half of what was spent; now its usage is unknown (not evaluated)."""
    assert _two_call_turn(tmp_path, {}) is None


def test_token_counts_written_as_doubles_are_counted(tmp_path: Path) -> None:
    """An exporter writing 300.0 (a double): the call was dropped from the sum."""
    second = {"gen_ai.usage.input_tokens": 300.0, "gen_ai.usage.output_tokens": 20.0}
    usage = _two_call_turn(tmp_path, second)
    assert usage is not None
    assert (usage.input_tokens, usage.output_tokens, usage.inference_calls) == (1200 + 300, 50 + 20, 2)  # fmt: skip


def _otlp_line(*spans: dict[str, Any]) -> str:
    return json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": list(spans)}]}]}) + "\n"


def _span(span_id: str, name: str, **attributes: str) -> dict[str, Any]:
    return {
        "traceId": "0102030405060708090a0b0c0d0e0f10",
        "spanId": span_id,
        "name": name,
        "startTimeUnixNano": "1",
        "endTimeUnixNano": "2",
        "attributes": [{"key": k, "value": {"stringValue": v}} for k, v in attributes.items()],
    }


def test_import_otel_of_a_file_with_no_session_is_an_error(tmp_path: Path) -> None:
    """An export without one session wrote an eval set of 0 cases (exit 0): a run of it
    scores nothing.  Each such file is a located error, nothing is written, and the
    warnings that say why its spans were not used are printed beside it."""
    empty = tmp_path / "empty.json"
    empty.write_text('{"resourceSpans": []}\n', encoding="utf-8")
    health = tmp_path / "health.json"
    health.write_text(_otlp_line(_span("0000000000000001", "GET /health")), encoding="utf-8")
    no_key = tmp_path / "nokey.json"
    no_key.write_text(_otlp_line(_span("0000000000000002", "invoke_agent a")), encoding="utf-8")
    shipped = REPO / "evalsets" / "otel" / "travel-agent.otlp.jsonl"
    out = tmp_path / "out"
    proc = agenteval(
        "import", "otel", str(shipped), str(empty), str(health), str(no_key), "-o", str(out)
    )
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert not out.exists()  # the good file is not written either: every file is checked first
    errors = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
    assert errors == [
        f"error: {empty}: holds no spans: no case to import (an empty export?)",
        f"error: {health}: holds 1 span, none in an agent turn (an invoke_agent or invocation "
        "span): no case to import (export the agent's OpenTelemetry GenAI spans)",
        f"error: {no_key}: holds 1 agent turn, none with attribute gcp.vertex.agent.session_id / "
        "trpc.go.agent.runner.session_id / gen_ai.conversation.id: no case to "
        "import (each is warned of below; another --traces-match?)",
    ]
    assert (
        f"warning: {health}: span 0000000000000001: 'GET /health' belongs to no agent turn"
        in proc.stderr
    )
    assert f"warning: {no_key}: span 0000000000000002: 'invoke_agent a' turn has no" in proc.stderr
    # The key the turn lacks for sessions is the one --traces-match evalId reads: also none.
    proc = agenteval("import", "otel", str(no_key), "-o", str(out), "--traces-match", "evalId")
    assert proc.returncode == 2 and "none with attribute agenteval.eval_id:" in proc.stderr


SESSION_KEYS = [
    ("gen_ai.operation.name", "invoke_agent"),
    ("gen_ai.conversation.id", "conv-1"),
    ("gcp.vertex.agent.session_id", "adk-1"),
    ("trpc.go.agent.runner.session_id", "trpc-1"),
]


def _import_keys(
    tmp_path: Path, name: str, pairs: list[tuple[str, str]], match: str
) -> tuple[list[str], str]:
    """(the evalIds ``import otel`` gives one turn span with ``pairs`` in that order, stderr)."""
    span = _span("0000000000000003", "invoke_agent a")
    span["attributes"] = [{"key": k, "value": {"stringValue": v}} for k, v in pairs]
    path = tmp_path / f"{name}.json"
    path.write_text(_otlp_line(span), encoding="utf-8")
    out = tmp_path / f"out-{name}-{match}"
    proc = agenteval("import", "otel", str(path), "-o", str(out), "--traces-match", match)
    if proc.returncode != 0:
        return [], proc.stderr
    document = json.loads((out / f"{name}.evalset.json").read_text(encoding="utf-8"))
    return [case["evalId"] for case in document["evalCases"]], proc.stderr


@pytest.mark.parametrize(
    ("match", "key"), [("session", "adk-1"), ("conversation", "conv-1"), ("evalId", "")]
)
def test_the_session_key_does_not_depend_on_the_order_of_attributes(
    tmp_path: Path, match: str, key: str
) -> None:
    """--traces-match reads its keys in their own order (ADK's session id, trpc-agent-go's,
    then gen_ai.conversation.id), never in the order a span lists its attributes."""
    forward = _import_keys(tmp_path, "forward", SESSION_KEYS, match)
    backward = _import_keys(tmp_path, "backward", SESSION_KEYS[::-1], match)
    assert forward[0] == backward[0] == ([key] if key else [])
    # A key given twice with different values (OTLP allows one): the last one won, so the
    # order picked the case.  Neither is used, whichever comes first, and it is said.
    twice = [*SESSION_KEYS, ("gen_ai.conversation.id", "conv-2")]
    for name, pairs in (("last", twice), ("first", [twice[-1], *twice[:-1]])):
        ids, stderr = _import_keys(tmp_path, name, pairs, match)
        assert ids == ([] if match != "session" else ["adk-1"]), stderr
        assert (
            f"warning: {tmp_path / f'{name}.json'}: span 0000000000000003: 'invoke_agent a' "
            "gives attribute 'gen_ai.conversation.id' more than once with different values "
            "(OTLP allows one); not used"
        ) in stderr.splitlines()
    # The same value twice is no conflict.
    same = [*SESSION_KEYS, ("gen_ai.conversation.id", "conv-1")]
    ids, stderr = _import_keys(tmp_path, "same", same, match)
    assert ids == ([key] if key else []) and "more than once" not in stderr


def test_a_span_naming_a_tool_that_is_no_execute_tool_span_is_warned(tmp_path: Path) -> None:
    """A tool span whose operation was misspelt (``execute_tools``) was no tool call and no
    warning: a call the agent should not have made vanished from its trajectory."""
    recorder = Recorder()
    tracer = recorder.tracer
    root = {OP: "invoke_agent", "gen_ai.conversation.id": SESSION}
    with tracer.start_as_current_span("invoke_agent travel_agent", attributes=root):
        tool = {OP: "execute_tools", "gen_ai.tool.name": "delete_booking"}
        with tracer.start_as_current_span("delete_booking", attributes=tool) as span:
            span_id = f"{span.get_span_context().span_id:016x}"
    path = recorder.write_json(tmp_path / "t.otlp.jsonl")
    done = agenteval("import", "otel", str(path), "-o", str(tmp_path / "out"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert (
        f"warning: {path}: span {span_id}: 'delete_booking' has gen_ai.tool.name but operation "
        "'execute_tools', not execute_tool: no tool call of its turn; not used"
    ) in done.stderr.splitlines()


# A misspelt key's value is read as absent: the tool call lost its arguments, its name
# came from the span name, its operation from the span name's first word.
# (the key, the key meant, the tool call as read)
CALL = {"id": "call_1", "name": "get_forecast", "arguments": {"city": "Paris"}}
MISSPELT = [
    ("gen_ai.tool.call.argument", "gen_ai.tool.call.arguments", {"id": "call_1", "name": "get_forecast"}),
    ("gen_ai.tool.nmae", "gen_ai.tool.name", CALL),
    ("gen_ai.operation.nam", "gen_ai.operation.name", CALL),
    ("gen_ai.tool.call_id", "gen_ai.tool.call.id", {**CALL, "id": ""}),
]  # fmt: skip


def _tool_span_file(path: Path, tool: dict[str, Any]) -> tuple[Path, str]:
    """An OTLP JSON file of one turn whose one tool span has the ``tool`` attributes."""
    recorder = Recorder()
    tracer = recorder.tracer
    root = {OP: "invoke_agent", "gen_ai.conversation.id": SESSION}
    with (
        tracer.start_as_current_span("invoke_agent travel_agent", attributes=root),
        tracer.start_as_current_span("execute_tool get_forecast", attributes=tool) as span,
    ):
        span_id = f"{span.get_span_context().span_id:016x}"
    return recorder.write_json(path), span_id


@pytest.mark.parametrize(("key", "meant", "call"), MISSPELT)
def test_a_misspelt_genai_attribute_is_warned(
    tmp_path: Path, key: str, meant: str, call: dict[str, Any]
) -> None:
    """``gen_ai.tool.call.argument`` was read as no arguments at all, without a word."""
    tool = {
        OP: "execute_tool",
        "gen_ai.tool.name": "get_forecast",
        "gen_ai.tool.call.id": "call_1",
        "gen_ai.tool.call.arguments": '{"city": "Paris"}',
    }
    value = tool.pop(meant)
    path, span_id = _tool_span_file(tmp_path / "t.otlp.jsonl", {**tool, key: value})
    out = tmp_path / "out"
    done = agenteval("import", "otel", str(path), "-o", str(out))
    assert done.returncode == 0, done.stdout + done.stderr
    assert (
        f"warning: {path}: span {span_id}: 'execute_tool get_forecast' has attribute {key!r} "
        f"(did you mean {meant!r}?); not used"
    ) in done.stderr.splitlines()
    (case,) = json.loads((out / "t.evalset.json").read_text(encoding="utf-8"))["evalCases"]
    assert case["actualConversation"][0]["tools"] == [call]


def test_genai_attributes_of_other_conventions_stay_silent(tmp_path: Path) -> None:
    """Keys the reader does not read and that misspell none it does: the conventions' own
    (gen_ai.agent.name, gen_ai.system_instructions, gen_ai.response.id …) and extensions."""
    others = {
        "gen_ai.agent.name": "travel_agent",
        "gen_ai.system_instructions": "[]",
        "gen_ai.response.id": "r1",
        "gen_ai.request.model_id": "m",
        "gen_ai.tool.type": "function",
        "gen_ai.tool.call.arguments.size": "17",
        "gen_ai.usage.total_tokens": "30",
    }
    tool = {OP: "execute_tool", "gen_ai.tool.name": "get_forecast", **others}
    path, _ = _tool_span_file(tmp_path / "t.otlp.jsonl", tool)
    done = agenteval("import", "otel", str(path), "-o", str(tmp_path / "out"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "warning" not in done.stderr, done.stderr
