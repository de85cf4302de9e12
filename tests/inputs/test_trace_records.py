"""agenteval.inputs.trace_records: ``--traces`` JSON lines checked line by line, indexed, read on access."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from agenteval.errors import ConfigError
from agenteval.inputs.loading import read_traces
from agenteval.inputs.trace_records import (
    TraceRecords,
    read_trace_lines,
    runs_past_num_runs,
    unmatched_records,
)
from cli_process import run_cli


def turn(user: str, answer: str = "a") -> dict[str, Any]:
    return {"userContent": {"role": "user", "content": user},
            "finalResponse": {"role": "assistant", "content": answer}}  # fmt: skip


def write_lines(path: Path, records: list[Any]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def agenteval(*args: str) -> subprocess.CompletedProcess[str]:
    """``python -m agenteval ARGS``."""
    return run_cli(args, timeout=120)


def test_records_are_indexed_and_read_when_asked_for(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "t.jsonl", [
        {"evalId": "a", "actualConversation": [turn("q1"), None, turn("q2")]},
        {"evalId": "a", "runId": 2, "actualConversation": [turn("q3")]},
        {"evalId": "b", "actualConversation": []},
    ])  # fmt: skip
    traces, problems = read_traces(path)
    assert problems == []
    assert isinstance(traces, TraceRecords)
    assert list(traces) == ["a", "a\x00run 2", "b"] and len(traces) == 3
    assert [t.user_content.content for t in traces["a"] if t.user_content] == ["q1", "q2"]
    assert (traces.where("b"), traces.turn_count("a"), traces.turn_count("a\x00run 2")) == (
        "line 3",
        2,
        1,
    )
    # Nothing of a record is kept but where it is: the file is read again on access.
    text = path.read_text()
    path.write_text(text.replace('"q3"', '"q4"'))
    assert traces["a\x00run 2"][0].user_content is not None
    assert traces["a\x00run 2"][0].user_content.content == "q4"
    path.write_text(text.replace('"evalId": "b"', '"evalId": "c"'))
    with pytest.raises(ConfigError) as caught:
        traces["b"]
    assert str(caught.value) == f"{path}: line 3: the file changed while the run read it"


def test_every_record_problem_is_located_at_its_line(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "t.jsonl", [
        [1], {"actualConversation": []}, {"evalId": "c", "runId": 0},
        {"evalId": "c", "actualConversation": [{"userContent": 5}]},
        {"evalId": "d"}, {"evalId": "d", "runId": 1},
    ])  # fmt: skip
    traces, problems = read_trace_lines(path)
    assert list(traces) == ["d"]
    assert [str(p) for p in problems] == [
        f"{path}: line 1: expected an object, got an array",
        f"{path}: line 2.evalId: evalId is missing or not a string",
        f"{path}: line 3.runId: runId must be an integer >= 1",
        f"{path}: line 4.actualConversation[0].userContent: expected an object, got a number",
        f"{path}: line 6.evalId: duplicate evalId 'd'",
    ]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (b'{"evalId": "c\xff"}', "not UTF-8 text: byte 0xff at column 14 (invalid start byte)"),
        (b'{"evalId": "c", "x": ' + b"[" * 5000 + b"]" * 5000 + b"}",
         "nesting too deep to read (RecursionError)"),
        (b'{"evalId": "c", "n": ' + b"9" * 5000 + b"}",
         "a number with 5,000 digits at line 1 column 22 (at most 4,300 are read)"),
        (b'{"evalId": "c",', "invalid JSON: Expecting property name enclosed in double quotes"),
    ],
    ids=["bad byte", "nesting", "long number", "broken"],
)  # fmt: skip
def test_a_line_no_parser_can_read_is_located(tmp_path: Path, line: bytes, message: str) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"evalId": "a"}\n' + line + b"\n")
    with pytest.raises(ConfigError) as caught:
        read_traces(path)
    assert str(caught.value) == f"{path}: line 2: {message}"


def test_a_result_file_and_a_json_array_are_read_whole(tmp_path: Path) -> None:
    array = tmp_path / "t.json"
    array.write_text(json.dumps([{"evalId": "a", "actualConversation": [turn("q")]}]))
    traces, problems = read_traces(array)
    assert problems == [] and isinstance(traces, dict) and list(traces) == ["a"]


def test_records_no_case_asks_for_are_named_then_counted(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "t.jsonl", [
        {"evalId": "known", "actualConversation": [turn("q")]},
        {"evalId": "typo", "actualConversation": [turn("q"), turn("r")]},
        {"evalId": "known", "runId": 3, "actualConversation": []},
    ])  # fmt: skip
    traces, _ = read_trace_lines(path)
    assert [str(p) for p in unmatched_records(str(path), traces, {"known"})] == [
        f"{path}: line 2: no case has evalId 'typo'; its 2 turn(s) are not scored"
    ]
    many = write_lines(tmp_path / "many.jsonl", [
        {"evalId": f"other-{i}", "actualConversation": []} for i in range(1000)
    ])  # fmt: skip
    traces, _ = read_trace_lines(many)
    assert [str(p) for p in unmatched_records(str(many), traces, {"known"})] == [
        f"{many}: 1,000 records: no case has their evalId; their turns are not scored (the "
        "first: line 1 'other-0', line 2 'other-1', line 3 'other-2')"
    ]
    assert unmatched_records("r.json", {"typo": []}, set())[0].path == "evalId 'typo'"


def one_case_suite(tmp_path: Path) -> Path:
    """An eval set of one default-mode case ``c`` (its turn from --traces) and its metric."""
    evalset = tmp_path / "s.evalset.json"
    evalset.write_text(json.dumps({"evalSetId": "s", "evalCases": [
        {"evalId": "c", "conversation": [turn("q")], "sessionInput": {}}]}))  # fmt: skip
    (tmp_path / "s.metrics.json").write_text(
        json.dumps([{"metricName": "response_match_score", "threshold": 0.5}])
    )
    return evalset


def test_run_warns_about_records_no_case_asks_for(tmp_path: Path) -> None:
    evalset = one_case_suite(tmp_path)
    traces = write_lines(tmp_path / "t.jsonl", [
        {"evalId": "c", "actualConversation": [turn("q")]},
        {"evalId": "c-renamed", "actualConversation": [turn("q")]},
    ])  # fmt: skip
    done = agenteval("run", "-e", str(evalset), "--traces", str(traces))
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stderr.splitlines() == [
        f"warning: {traces}: line 2: no case has evalId 'c-renamed'; its 1 turn(s) are not scored"
    ]


def test_run_warns_about_records_of_runs_past_num_runs(tmp_path: Path) -> None:
    """A record of run 3 with --num-runs 2 was never scored, without a word (--quiet too)."""
    evalset = one_case_suite(tmp_path)
    traces = write_lines(tmp_path / "t.jsonl", [
        {"evalId": "c", "runId": run, "actualConversation": [turn("q"), turn("r")][:run]}
        for run in (1, 2, 3)
    ])  # fmt: skip
    done = agenteval(
        "run", "-e", str(evalset), "--traces", str(traces), "--num-runs", "2", "--quiet"
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stderr.splitlines() == [
        f"warning: {traces}: line 3: case 'c' run 3 is past --num-runs 2: its 2 turn(s) are "
        "not scored (--num-runs 3 scores every run)"
    ]
    # Every recorded run scored: nothing to say.
    done = agenteval("run", "-e", str(evalset), "--traces", str(traces), "--num-runs", "3")
    assert done.returncode == 0 and done.stderr == "", done.stdout + done.stderr


def test_runs_past_num_runs_are_named_then_counted(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "t.jsonl", [
        {"evalId": case, "runId": run, "actualConversation": []}
        for case in ("a", "b", "gone") for run in (1, 2, 3)
    ])  # fmt: skip
    traces, _ = read_trace_lines(path)
    assert [str(p) for p in runs_past_num_runs(str(path), traces, {"a", "b"}, 1)] == [
        f"{path}: 4 records: runs past --num-runs 1: their turns are not scored (the first: "
        "line 2 'a' run 2, line 3 'a' run 3, line 5 'b' run 2; --num-runs 3 scores every run)"
    ]
    assert runs_past_num_runs(str(path), traces, {"a", "b"}, 3) == []
    # Read whole (a result file as --traces): named by evalId and run.
    (warned,) = runs_past_num_runs("r.json", {"a": [], "a\x00run 2": []}, {"a"}, 1)
    assert warned.path == "evalId 'a' run 2"


RECORD_TURN = {"userContent": {"role": "user", "content": "q"}}


@pytest.mark.parametrize(
    ("name", "text", "looks_like"),
    [
        ("evalset-one-line.jsonl", json.dumps({"evalSetId": "e", "evalCases": []}), "an eval set"),
        ("evalset.json", json.dumps({"evalSetId": "e", "evalCases": []}, indent=2), "an eval set"),
        ("metrics.json", json.dumps([{"metricName": "m", "threshold": 1}]), "a metric file"),
        (
            "run.json",
            json.dumps({"agentevalVersion": "1", "evalSetResults": [{"evalCaseResults": []}]}),
            "an agenteval --json run document",
        ),
        (
            # What run --json writes: its overallStatus was read as an unknown key of a
            # result file ("did you mean 'summary.overallStatus'?").
            "run-written.json",
            json.dumps(
                {
                    "agentevalVersion": "0.1.0",
                    "overallStatus": "failed",
                    "caseStatusCounts": {"passed": 0, "failed": 2, "notEvaluated": 0},
                    "evalSetResults": [{"evalSetResultId": "r", "evalCaseResults": []}],
                },
                indent=2,
            ),
            "an agenteval --json run document",
        ),
    ],
)
def test_a_file_of_another_kind_is_named(
    tmp_path: Path, name: str, text: str, looks_like: str
) -> None:
    path = tmp_path / name
    path.write_text(text)
    traces, problems = read_traces(path)
    assert not traces
    assert [p.message for p in problems] == [f"not a traces file (looks like {looks_like})"]


def test_a_pretty_printed_record_is_read_as_one_record(tmp_path: Path) -> None:
    path = tmp_path / "one.json"
    path.write_text(json.dumps({"evalId": "c1", "actualConversation": [RECORD_TURN]}, indent=2))
    traces, problems = read_traces(path)
    assert problems == []
    assert [turn.user_content.content for turn in traces["c1"] if turn.user_content] == ["q"]
    # A broken one is still reported at its first bad line, as JSON lines are.
    path.write_text('{\n  "evalId": "c1",\n  "actualConversation": [\n')
    assert [p.path for p in read_traces(path)[1]] == ["line 1"]


def test_a_lone_surrogate_escape_reads_as_u_fffd_as_go_reads_it(tmp_path: Path) -> None:
    # A --traces line kept it as a lone surrogate: the eval set's U+FFFD (as Go reads it) did
    # not match its trace ("the --traces user message of turn 1 differs").
    path = tmp_path / "t.jsonl"
    path.write_text('{"evalId": "a\\ud800", "actualConversation": [{"userContent": '
                    '{"role": "user", "content": "q\\udc00"}}]}\n')  # fmt: skip
    traces, problems = read_traces(path)
    assert problems == [] and list(traces) == ["a\ufffd"]
    (only,) = traces["a\ufffd"]
    assert only.user_content is not None and only.user_content.content == "q\ufffd"
