"""Hostile and broken OTLP trace files: located errors (exit 2), bounded warnings, no lost case.

Spans come from the OpenTelemetry SDK (tests/importers/otel_spans.py); broken files are
those spans' files with the damage done to them.
"""

from __future__ import annotations

import gzip
import json
import subprocess
from pathlib import Path

import pytest
from opentelemetry.proto.trace.v1.trace_pb2 import TracesData
from otel_spans import PerTraceIds, Recorder, record_semconv

from agenteval.errors import ConfigError
from agenteval.importers.otel import map_spans
from agenteval.inputs.otlp_file import read_spans
from agenteval.schema.base import dump
from agenteval.schema.evalset import EvalCase, EvalSet, SessionInput
from cli_process import run_cli
from tests.importers.test_otel import ACTUAL, EXPECTED, METRICS


def agenteval(*args: str) -> subprocess.CompletedProcess[str]:
    """``python -m agenteval ARGS``."""
    return run_cli(args, timeout=300)


def _evalset(directory: Path, *sessions: str) -> Path:
    """A default-mode eval set with one case per session, the reference turns of EXPECTED."""
    cases: list[EvalCase | None] = [
        EvalCase(eval_id=s, conversation=list(EXPECTED), session_input=SessionInput())
        for s in sessions
    ]
    path = directory / "trip.evalset.json"
    path.write_text(json.dumps(dump(EvalSet(eval_set_id="trip", eval_cases=cases))))
    (directory / "trip.metrics.json").write_text(json.dumps(METRICS))
    return path


@pytest.fixture
def spans_json(tmp_path: Path) -> Path:
    recorder = Recorder()
    record_semconv(recorder.tracer, "trip-1", ACTUAL)
    return recorder.write_json(tmp_path / "spans.otlp.jsonl")


def test_a_bad_byte_in_a_json_trace_is_located(tmp_path: Path, spans_json: Path) -> None:
    lines = spans_json.read_bytes().splitlines(keepends=True)
    column = lines[1].index(b"Louvre") + 1
    lines[1] = lines[1].replace(b"Louvre", b"\xffouvre", 1)
    spans_json.write_bytes(b"".join(lines))
    where = f"{spans_json}: line 2: not UTF-8 text: byte 0xff at line 1 column {column}"
    done = agenteval("import", "otel", str(spans_json), "-o", str(tmp_path / "out"))
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.startswith(f"error: {where} (invalid start byte)"), done.stderr
    evalset = _evalset(tmp_path, "trip-1")
    done = agenteval("run", "-e", str(evalset), "--traces", str(spans_json), "--no-cache")
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"error: {where} (invalid start byte)" in done.stderr
    assert "protobuf" not in done.stderr


def test_a_bad_byte_in_a_one_document_trace_is_located(tmp_path: Path) -> None:
    recorder = Recorder()
    record_semconv(recorder.tracer, "trip-1", ACTUAL)
    path = recorder.write_json(tmp_path / "spans.otlp.json", per_trace_lines=False)
    text = json.dumps(json.loads(path.read_text()), indent=2).encode()
    line = text[: text.index(b"Paris")].count(b"\n") + 1
    path.write_bytes(text.replace(b"Paris", b"P\xc3(ris", 1))
    done = agenteval("import", "otel", str(path), "-o", str(tmp_path / "out"))
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"error: {path}: not UTF-8 text: byte 0xc3 at line {line} column " in done.stderr


def test_a_gzip_trace_says_decompress_first(tmp_path: Path, spans_json: Path) -> None:
    packed = tmp_path / "spans.otlp.jsonl.gz"
    packed.write_bytes(gzip.compress(spans_json.read_bytes()))
    records = tmp_path / "traces.jsonl.gz"
    records.write_bytes(gzip.compress(b'{"evalId": "trip-1", "actualConversation": []}\n'))
    evalset = _evalset(tmp_path, "trip-1")
    for path in (packed, records):
        done = agenteval("run", "-e", str(evalset), "--traces", str(path), "--no-cache")
        assert done.returncode == 2, done.stdout + done.stderr
        assert f"error: {path}: gzip file: decompress first\n" in done.stderr
    done = agenteval("import", "otel", str(packed), "-o", str(tmp_path / "out"))
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr == f"error: {packed}: gzip file: decompress first\n1 problem found.\n"


def test_a_truncated_protobuf_trace_is_a_protobuf_error(tmp_path: Path) -> None:
    recorder = Recorder()
    record_semconv(recorder.tracer, "trip-1", ACTUAL)
    whole = recorder.write_protobuf(tmp_path / "whole.otlp.pb").read_bytes()
    cut = tmp_path / "cut.otlp.pb"
    cut.write_bytes(whole[: len(whole) // 2])
    evalset = _evalset(tmp_path, "trip-1")
    want = (
        f"error: {cut}: not a readable OTLP protobuf trace message (Error parsing message "
        "with type 'opentelemetry.proto.trace.v1.TracesData': "
    )
    for args in (["run", "-e", str(evalset), "--traces"], ["import", "otel"]):
        done = agenteval(*args, str(cut), "-o", str(tmp_path / "out"))
        assert done.returncode == 2, done.stdout + done.stderr
        assert want in done.stderr, done.stderr
        assert "UTF-8" not in done.stderr


def test_a_bad_byte_in_a_protobuf_string_is_located(tmp_path: Path) -> None:
    """Was protobuf's "String field had bad UTF-8", no place, and "is the file cut short, or
    not OTLP?"; now the field and the byte's place in it, in one message or a stream of them."""
    recorder = Recorder()
    record_semconv(recorder.tracer, "trip-1", ACTUAL)
    with recorder.tracer.start_as_current_span("note", attributes={"place": "Montmartre"}):
        pass
    whole = recorder.write_protobuf(tmp_path / "whole.otlp.pb").read_bytes()
    (where,) = [
        f"resourceSpans[{r}].scopeSpans[{s}].spans[{i}].attributes[{a}].value.stringValue"
        for r, resource in enumerate(TracesData.FromString(whole).resource_spans)
        for s, scope in enumerate(resource.scope_spans)
        for i, span in enumerate(scope.spans)
        for a, pair in enumerate(span.attributes)
        if pair.value.string_value == "Montmartre"
    ]
    bad = whole.replace(b"Montmartre", b"M\xffntmartre", 1)
    one = tmp_path / "bad.otlp.pb"
    one.write_bytes(bad)
    # The collector file exporter's stream: each message behind its 4-byte length.
    stream = tmp_path / "stream.otlp.pb"
    stream.write_bytes(b"".join(len(m).to_bytes(4, "big") + m for m in (whole, bad)))
    evalset = _evalset(tmp_path, "trip-1")
    for path, at in ((one, where), (stream, f"message 2: {where}")):
        want = f"error: {path}: {at}: not UTF-8 text: byte 0xff at byte 2 of the string "
        for args in (["run", "-e", str(evalset), "--traces"], ["import", "otel"]):
            done = agenteval(*args, str(path), "-o", str(tmp_path / "out"))
            assert done.returncode == 2, done.stdout + done.stderr
            assert f"{want}(invalid start byte)\n" in done.stderr, done.stderr
            assert "cut short" not in done.stderr and "Traceback" not in done.stderr


def _deep_kvlist(levels: int) -> str:
    value = '{"stringValue": "x"}'
    for _ in range(levels):
        value = '{"kvlistValue": {"values": [{"key": "k", "value": ' + value + "}]}}"
    span = (
        '{"traceId": "0af7651916cd43dd8448eb211c80319c", "spanId": "b7ad6b7169203331", '
        '"name": "invoke_agent a", "attributes": [{"key": "gen_ai.conversation.id", '
        '"value": {"stringValue": "trip-1"}}, {"key": "deep", "value": ' + value + "}]}"
    )
    return '{"resourceSpans": [{"scopeSpans": [{"spans": [' + span + "]}]}]}\n"


@pytest.mark.parametrize("levels", [120, 300, 900])
def test_deep_kvlist_values_are_located_errors(tmp_path: Path, levels: int) -> None:
    path = tmp_path / "deep.otlp.jsonl"
    path.write_text(_deep_kvlist(levels))
    evalset = _evalset(tmp_path, "trip-1")
    for args in (["import", "otel", str(path), "-o", str(tmp_path / "out")],
                 ["run", "-e", str(evalset), "--traces", str(path)]):  # fmt: skip
        done = agenteval(*args)
        assert done.returncode == 2, done.stdout + done.stderr
        assert "internal error" not in done.stderr
        if levels < 200:  # orjson reads it, protobuf refuses the depth
            assert (
                f"error: {path}: line 1: resourceSpans[0].scopeSpans[0].spans[0].attributes."
                "value.values.value.values.value.…: not OTLP trace JSON: nesting too deep to read "
                "(protobuf reads at most 100 levels)\n" in done.stderr
            ), done.stderr
        else:  # too deep for the JSON parser itself
            assert f"error: {path}: invalid JSON: depth limit exceeded: line 1 column " in (
                done.stderr
            )


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("get_forecast", "expected an AnyValue object, got a string"),
        ({"stringVal": "get_forecast"}, "no AnyValue field (got 'stringVal')"),
    ],
)
def test_an_attribute_value_that_is_no_anyvalue_is_located(
    tmp_path: Path, spans_json: Path, value: object, problem: str
) -> None:
    """json_format read a bare or misspelt value as an empty one: the tool lost its name."""
    document = json.loads(spans_json.read_text().splitlines()[0])
    spans = document["resourceSpans"][0]["scopeSpans"][0]["spans"]
    index, tool = next((i, s) for i, s in enumerate(spans) if s["name"].startswith("execute_tool"))
    names = [a["key"] for a in tool["attributes"]]
    at = names.index("gen_ai.tool.name")
    tool["attributes"][at]["value"] = value
    path = tmp_path / "bad.otlp.jsonl"
    path.write_text(json.dumps(document) + "\n")
    evalset = _evalset(tmp_path, "trip-1")
    for args in (["import", "otel", str(path), "-o", str(tmp_path / "out")],
                 ["run", "-e", str(evalset), "--traces", str(path)]):  # fmt: skip
        done = agenteval(*args)
        assert done.returncode == 2, done.stdout + done.stderr
        assert (
            f"error: {path}: line 1: resourceSpans[0].scopeSpans[0].spans[{index}].attributes"
            f'[{at}].value: not OTLP trace JSON: {problem} (expected {{"stringValue": …}}, or '
            "intValue, doubleValue, boolValue, arrayValue…)\n"
        ) in done.stderr, done.stderr
    assert not (tmp_path / "out").exists()


def test_a_deeply_nested_json_attribute_stays_text(tmp_path: Path) -> None:
    recorder = Recorder()
    nested = "[" * 5000 + "]" * 5000
    with (
        recorder.tracer.start_as_current_span(
            "invoke_agent a",
            attributes={
                "gen_ai.operation.name": "invoke_agent",
                "gen_ai.conversation.id": "s",
                "gen_ai.input.messages": nested,
            },
        ),
        recorder.tracer.start_as_current_span(
            "execute_tool t",
            attributes={
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": "t",
                "gen_ai.tool.call.arguments": nested,
            },
        ),
    ):
        pass
    path = recorder.write_protobuf(tmp_path / "deep.otlp.pb")
    out = tmp_path / "out"
    done = agenteval("import", "otel", str(path), "-o", str(out))
    assert done.returncode == 0, done.stdout + done.stderr
    (case,) = json.loads((out / "deep.evalset.json").read_text())["evalCases"]
    assert case["actualConversation"][0]["tools"][0]["arguments"] == nested


def test_numbers_json_cannot_hold_stay_text(tmp_path: Path) -> None:
    recorder = Recorder()
    with (
        recorder.tracer.start_as_current_span(
            "invoke_agent a",
            attributes={"gen_ai.operation.name": "invoke_agent", "gen_ai.conversation.id": "s"},
        ),
        recorder.tracer.start_as_current_span(
            "execute_tool t",
            attributes={
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": "t",
                "gen_ai.tool.call.arguments": '{"x": Infinity}',
                "gen_ai.tool.call.result": float("nan"),
            },
        ),
    ):
        pass
    path = recorder.write_protobuf(tmp_path / "inf.otlp.pb")
    out = tmp_path / "out"
    done = agenteval("import", "otel", str(path), "-o", str(out))
    assert done.returncode == 0, done.stdout + done.stderr
    (case,) = json.loads((out / "inf.evalset.json").read_text())["evalCases"]
    (tool,) = case["actualConversation"][0]["tools"]
    assert (tool["arguments"], tool["result"]) == ('{"x": Infinity}', "nan")


def test_span_ids_numbered_per_trace_keep_every_session(tmp_path: Path) -> None:
    # Each turn is a trace of its own, and every trace numbers its spans 1, 2, 3 …
    recorder = Recorder(id_generator=PerTraceIds())
    record_semconv(recorder.tracer, "trip-1", ACTUAL)
    record_semconv(recorder.tracer, "trip-2", ACTUAL)
    path = recorder.write_protobuf(tmp_path / "numbered.otlp.pb")
    out = tmp_path / "out"
    done = agenteval("import", "otel", str(path), "-o", str(out))
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stderr == ""
    cases = json.loads((out / "numbered.evalset.json").read_text())["evalCases"]
    assert sorted(c["evalId"] for c in cases) == ["trip-1", "trip-2"]
    assert all(len(c["actualConversation"]) == 2 for c in cases)
    read = read_spans(path)
    assert len({s.span_id for s in read.spans}) == 4  # 12 spans share four span ids
    mapping = map_spans(read.spans)
    assert mapping.unmapped == []
    assert {
        k: [t.user_content.content for t in s.turns if t.user_content]
        for k, s in mapping.sessions.items()
    } == {
        "trip-1": [t.user_content.content for t in ACTUAL if t.user_content],
        "trip-2": [t.user_content.content for t in ACTUAL if t.user_content],
    }
    # Scored through --traces, both cases get their turns (none asks for an agent run).
    evalset = _evalset(tmp_path, "trip-1", "trip-2")
    done = agenteval("run", "-e", str(evalset), "--traces", str(path), "--no-cache")
    assert done.returncode == 1, done.stdout + done.stderr  # turn 2's tool differs
    assert "needs an agent run" not in done.stdout
    assert done.stdout.count("tool_trajectory_avg_score        1        0") == 2, done.stdout


def test_a_repeated_span_is_named_with_the_session_it_loses(tmp_path: Path) -> None:
    recorder = Recorder()
    record_semconv(recorder.tracer, "trip-1", ACTUAL[:1])
    root = next(s for s in recorder.spans() if s.parent is None)
    assert root.context is not None
    span, trace = f"{root.context.span_id:016x}", f"{root.context.trace_id:032x}"
    line = recorder.write_json(tmp_path / "t.otlp.jsonl").read_text().splitlines()[0]
    # The same trace exported twice (a retry): the copies are left out, nothing is lost.
    twice = tmp_path / "twice.otlp.jsonl"
    twice.write_text(f"{line}\n{line}\n")
    done = agenteval("import", "otel", str(twice), "-o", str(tmp_path / "out"))
    assert done.returncode == 0, done.stdout + done.stderr
    (warning,) = done.stderr.splitlines()
    assert warning.startswith(
        f"warning: {twice}: 4 spans: repeats the trace and span id of an earlier span; "
        f"not used (the first: span "
    ), warning
    # A second turn under the same ids but another session: that session is named.
    clash = tmp_path / "clash.otlp.jsonl"
    clash.write_text(f"{line}\n{line.replace('trip-1', 'trip-9')}\n")
    done = agenteval("import", "otel", str(clash), "-o", str(tmp_path / "out2"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert (
        f"warning: {clash}: span {span} of trace {trace}: 'invoke_agent travel_agent' repeats "
        "the trace and span id of an earlier span (a turn of session 'trip-9' is not "
        "imported); not used" in done.stderr.splitlines()
    ), done.stderr


def test_a_flood_of_empty_spans_is_one_warning(tmp_path: Path) -> None:
    path = tmp_path / "flood.otlp.json"
    spans = ",".join(["{}"] * 300_000)
    path.write_text('{"resourceSpans": [{"scopeSpans": [{"spans": [' + spans + "]}]}]}")
    out = tmp_path / "out"
    done = agenteval("import", "otel", str(path), "-o", str(out))
    # No case to import: an error, not an eval set of 0 cases.
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.splitlines() == [
        f"error: {path}: holds 300,000 spans, none with a spanId: no case to import "
        "(each is warned of below)",
        f"warning: {path}: 300,000 spans: have no spanId (OTLP requires one); not used "
        "(the first: line 1: resourceSpans[0].scopeSpans[0].spans[0])",
        "1 problem found · 1 warning.",
    ]
    assert done.stdout == "" and not out.exists()
    # The same file given to a run: one warning line (it printed 300,001), counted in the
    # verdict line; the case without a turn is scored as such.
    evalset = _evalset(tmp_path, "trip-1")
    done = agenteval("run", "-e", str(evalset), "--traces", str(path), "--no-progress")
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stderr.splitlines() == [
        f"warning: {path}: 300,000 spans: have no spanId (OTLP requires one); not used "
        "(the first: line 1: resourceSpans[0].scopeSpans[0].spans[0])",
        f"warning: {path}: holds no traces: every case that needs one fails",
    ]
    assert " · 1 eval set · 2 warnings · " in done.stdout.splitlines()[-1], done.stdout


def test_spans_outside_every_turn_are_counted_past_three(tmp_path: Path) -> None:
    recorder = Recorder()
    record_semconv(recorder.tracer, "trip-1", ACTUAL)
    for index in range(1000):
        with recorder.tracer.start_as_current_span(f"GET /health/{index}"):
            pass
    stray = [s for s in recorder.spans() if s.name.startswith("GET")]
    path = recorder.write_json(tmp_path / "stray.otlp.jsonl")
    evalset = _evalset(tmp_path, "trip-1")
    done = agenteval("validate", "-e", str(evalset), "--traces", str(path))
    assert done.returncode == 0, done.stdout + done.stderr
    first = ", ".join(
        f"span {s.context.span_id:016x} 'GET /health/{i}'"
        for i, s in enumerate(stray[:3])
        if s.context is not None
    )
    assert [line for line in done.stderr.splitlines() if "health" in line] == [
        f"warning: {path}: 1,000 spans: belongs to no agent turn (no invoke_agent or "
        f"invocation span above it); not used (the first: {first})"
    ]


def test_every_file_is_checked_before_one_is_written(tmp_path: Path, spans_json: Path) -> None:
    broken = tmp_path / "broken.otlp.jsonl"
    broken.write_text('{"resourceSpans": 5}\n')
    packed = tmp_path / "packed.otlp.gz"
    packed.write_bytes(gzip.compress(spans_json.read_bytes()))
    out = tmp_path / "out"
    done = agenteval("import", "otel", str(broken), str(spans_json), str(packed), "-o", str(out))
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.splitlines() == [
        f"error: {broken}: line 1: resourceSpans: not OTLP trace JSON: expected an array, got "
        "a number (expected {resourceSpans: [{scopeSpans: [{spans: [...]}]}]})",
        f"error: {packed}: gzip file: decompress first",
        "2 problems found.",
    ]
    assert not out.exists()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            json.dumps({"evalSetId": "e", "evalCases": []}),
            "not OTLP trace JSON (looks like an eval set)",
        ),
        (
            json.dumps({"evalSetId": "e", "evalCases": []}, indent=2),
            "not OTLP trace JSON (looks like an eval set)",
        ),
        (json.dumps([{"metricName": "m"}]), "not OTLP trace JSON (looks like a metric file)"),
        (
            json.dumps({"agentevalVersion": "1", "evalSetResults": []}),
            "not OTLP trace JSON (looks like an agenteval --json run document)",
        ),
        (json.dumps({"foo": 1}), "not OTLP trace JSON: no resourceSpans"),
    ],
)
def test_a_json_file_of_another_kind_is_refused_not_read_as_no_spans(
    tmp_path: Path, text: str, message: str
) -> None:
    # import otel wrote an empty eval set (exit 0) from an eval set given by mistake.
    path = tmp_path / "x.json"
    path.write_text(text)
    with pytest.raises(ConfigError) as caught:
        read_spans(path)
    assert [p.message for p in caught.value.problems] == [message]


def test_an_empty_export_is_no_spans(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    path.write_text("{}")
    assert read_spans(path).spans == []
