"""Captured turns (formats.md §2.4 rules) and the --record file."""

from __future__ import annotations

import json
from pathlib import Path

from agent_cli import EXACT_FINAL, FAULT_AGENT, echo_case, run_cli, write_evalset

from agenteval.agents.recorder import TraceRecordFile, TurnRecorder, parse_json_text
from agenteval.inputs.loading import parse_traces
from agenteval.schema.base import dump
from agenteval.schema.evalset import Message, Usage


def test_json_text_rules() -> None:
    assert parse_json_text('  {"a": 1} ', empty={}) == {"a": 1}
    assert parse_json_text("   ", empty={}) == {}
    assert parse_json_text("not json", empty={}) == "not json"
    # Not JSON either (Go's decoder refuses them): kept as the text, never read as numbers.
    for text in ('{"x": NaN}', "Infinity", "[-Infinity]", '{"big": 1e400}'):
        assert parse_json_text(text, empty={}) == text
    assert parse_json_text("[1e308, 0.5]", empty={}) == [1e308, 0.5]


def test_results_attach_to_calls_by_id() -> None:
    recorder = TurnRecorder(Message(role="user", content="hi"))
    recorder.tool_call("a", "first", {"x": 1})
    recorder.tool_call("b", "second", {})
    assert recorder.tool_result("b", 2) and not recorder.tool_result("zzz", 3)
    recorder.message("thinking")
    turn = recorder.finish("done")
    assert [(t.id, t.name, t.arguments, t.result) for t in turn.tools or []] == [
        ("a", "first", {"x": 1}, None),
        ("b", "second", {}, 2),
    ]
    assert turn.final_response is not None and turn.final_response.content == "done"
    assert [m.content for m in turn.intermediate_responses or []] == ["thinking"]


def test_the_recorder_knows_which_calls_a_mock_answered() -> None:
    """The one record of a mock's answer: its result, its count and the call's tool name."""
    recorder = TurnRecorder(Message(role="user", content="hi"))
    recorder.tool_call("m", "get_weather", {})
    recorder.tool_call("own", "calculator", {})
    recorder.mock_result("m", "get_weather", {"condition": "snow"})
    assert recorder.mocked_tool("m") == "get_weather"
    assert recorder.mocked_tool("own") is None and recorder.mocked_tool("zzz") is None
    assert recorder.mocked == 1
    turn = recorder.finish("done")
    assert [t.result for t in turn.tools or []] == [{"condition": "snow"}, None]


def recorded_usage(*calls: tuple[int, int, int, str]) -> Usage | None:
    recorder = TurnRecorder(Message(role="user", content="hi"))
    for tokens_in, tokens_out, cached, model in calls:
        recorder.model_usage(
            Usage(
                input_tokens=tokens_in,
                output_tokens=tokens_out,
                cached_input_tokens=cached,
                model=model,
            )
        )
    return recorder.finish("done").usage


def test_model_calls_add_up_and_two_models_have_no_single_price() -> None:
    usage = recorded_usage((100, 20, 40, "openai:gpt-4o"), (50, 10, 0, "openai:gpt-4o"))
    assert usage is not None
    assert (usage.input_tokens, usage.output_tokens, usage.cached_input_tokens) == (150, 30, 40)
    assert (usage.inference_calls, usage.model) == (2, "openai:gpt-4o")
    mixed = recorded_usage((100, 20, 0, "openai:gpt-4o"), (1, 0, 0, "anthropic:claude"))
    assert mixed is not None and (mixed.inference_calls, mixed.model) == (2, "")
    assert recorded_usage() is None


def test_cache_writes_add_up_and_stay_out_of_a_turn_without_them() -> None:
    recorder = TurnRecorder(Message(role="user", content="hi"))
    first = Usage(input_tokens=100, output_tokens=20, cached_input_tokens=40)
    recorder.model_usage(first)
    written = Usage(input_tokens=50, output_tokens=10)
    written.cache_write_input_tokens = 30
    recorder.model_usage(written)
    recorder.model_usage(written)
    usage = recorder.finish("done").usage
    assert usage is not None
    assert (usage.input_tokens, usage.cached_input_tokens, usage.cache_write_input_tokens) == (
        200,
        40,
        60,
    )
    assert dump(usage)["cacheWriteInputTokens"] == 60
    # A turn whose calls wrote nothing is written as before: no cacheWriteInputTokens key.
    plain = recorded_usage((100, 20, 40, "openai:gpt-4o"), (50, 10, 0, "openai:gpt-4o"))
    assert plain is not None and "cacheWriteInputTokens" not in dump(plain)


def test_record_file_reads_back_as_traces(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    record = TraceRecordFile(path)
    recorder = TurnRecorder(Message(role="user", content="hi"))
    recorder.tool_call("a", "t", {"x": 1})
    turn = recorder.finish("done")
    record.write("case", 1, [turn])
    record.write("case", 2, [turn])
    record.close()
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert [line.get("runId") for line in lines] == [None, 2]
    traces, problems = parse_traces(path.read_text(), str(path))
    assert problems == []
    assert len(traces) == 2 and traces["case"][0].tools == turn.tools


def test_resume_refuses_a_record_file_that_is_no_utf8_before_driving(tmp_path: Path) -> None:
    """--resume --record rewrote the file with its bad bytes read as U+FFFD (errors="replace"),
    exit 0: the user's "caf\\xe9" became "caf\\ufffd". Now it is refused before the agent
    runs, located, and the file is left as it was."""
    evalset = write_evalset(
        tmp_path, "again", [echo_case("one", "hi"), echo_case("two", "a")], EXACT_FINAL
    )
    record, first, second = tmp_path / "record.jsonl", tmp_path / "first", tmp_path / "second"
    proc = run_cli(
        "run", "--evalset", str(evalset), "--agent", f"cmd:{tmp_path / 'missing_agent'}",
        "--no-cache", "--record", str(record), "--output", str(first),
    )  # fmt: skip
    assert proc.returncode == 3, proc.stdout + proc.stderr  # both incomplete: driven again
    # A case of another eval set, its answer edited in a Latin-1 editor.
    edited = b'{"evalId":"elsewhere","actualConversation":[{"finalResponse":"caf\xe9"}]}\n'
    with record.open("ab") as handle:
        handle.write(edited)
    before, column = record.read_bytes(), edited.index(b"\xe9") + 1
    proc = run_cli(
        "run", "--evalset", str(evalset), "--agent", f"cmd:{FAULT_AGENT}", "--no-cache",
        "--record", str(record), "--resume", str(first), "--output", str(second),
    )  # fmt: skip
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stderr.startswith(
        f"error: {record}: line 3: not UTF-8 text: byte 0xe9 at column "
        f"{column} (invalid continuation byte) (--resume appends to the "
        "--record file and may rewrite it: save it as UTF-8)\n"
    ), proc.stderr
    assert "Traceback" not in proc.stderr
    assert record.read_bytes() == before
    assert not second.exists()


def test_a_rewrite_keeps_every_other_line_as_it_was(tmp_path: Path) -> None:
    """Read as text, the old line of a case run driven again survived when a string held
    U+2028 (str.splitlines cut it in two pieces, neither a record: a duplicate the replay
    refused), and \\r\\n became \\n."""
    path = tmp_path / "r.jsonl"
    path.write_bytes('{"evalId":"a","note":"l\u2028m"}\r\n{"evalId":"b"}\r\n'.encode())
    record = TraceRecordFile(path, append=True)
    record.append('{"evalId":"a"}', ("a", 1))
    assert record.close() == '{"evalId":"b"}\r\n{"evalId":"a"}\n'
