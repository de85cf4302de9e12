"""--traces records get the eval set's up-front checks: unknown keys and non-finite numbers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agenteval.checks.trace_records import TraceRecordChecks
from agenteval.inputs.loading import read_traces
from agenteval.inputs.unknown_keys import Strictness

TURN = {
    "userContent": {"role": "user", "content": "q"},
    "finalResponse": {"role": "assistant", "content": "a"},
    "qqq": 2,
    "tools": [{"id": "c1", "nmae": "get_weather", "arguments": {"days": float("nan")}}],
}
RECORD = {"evalId": "c1", "zzz": 1, "actualConversation": [TURN]}


def write(tmp_path: Path, layout: str) -> Path:
    path = tmp_path / f"t.{layout}"
    text = json.dumps(RECORD)  # writes NaN, as a Python recorder would
    path.write_text(text + "\n" if layout == "jsonl" else f"[{text}]")
    return path


@pytest.mark.parametrize(("layout", "where"), [("jsonl", "line 1"), ("json", "[0]")])
def test_unknown_keys_and_nan_in_a_record_are_found_where_they_are(
    tmp_path: Path, layout: str, where: str
) -> None:
    path = write(tmp_path, layout)
    checks = TraceRecordChecks(str(path))
    traces, problems = read_traces(path, checks)
    assert problems == [] and list(traces) == ["c1"]
    errors, warnings = checks.sorted(Strictness.DEFAULT)
    turn = f"{where}.actualConversation[0]"
    assert [(p.path, p.message) for p in errors] == [
        (f"{turn}.tools[0].arguments.days", errors[0].message),
        (f"{turn}.tools[0].nmae", "'nmae' is not a field of Tool"),
    ]
    assert "nan is not a finite number" in errors[0].message
    assert [(p.path, p.message) for p in warnings] == [
        (f"{where}.zzz", "'zzz' is not a field of trace record"),
        (f"{turn}.qqq", "'qqq' is not a field of Invocation"),
    ]
    strict_errors, strict_warnings = checks.sorted(Strictness.STRICT)
    assert (len(strict_errors), strict_warnings) == (4, [])
    lenient_errors, lenient_warnings = checks.sorted(Strictness.LENIENT)
    assert (len(lenient_errors), len(lenient_warnings)) == (1, 3)


def test_a_clean_record_gives_nothing(tmp_path: Path) -> None:
    clean = {"evalId": "c1", "runId": 2, "errorMessage": "agent died", "actualConversation": [
        {"userContent": {"role": "user", "content": "q"}, "usage": {"inputTokens": 3}}]}  # fmt: skip
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps(clean) + "\n")
    checks = TraceRecordChecks(str(path))
    read_traces(path, checks)
    assert checks.sorted(Strictness.STRICT) == ([], [])


@pytest.mark.parametrize(("layout", "where"), [("jsonl", "line 1"), ("json", "[0]")])
@pytest.mark.parametrize("spelled", ["evalid", "evalId ", "EvalId"])
def test_a_misspelled_evalid_is_named_not_only_missing(
    tmp_path: Path, layout: str, where: str, spelled: str
) -> None:
    # Only valid records were checked: "evalId is missing or not a string" alone, the
    # near miss that made it missing never said.
    record = {spelled: "c1", "actualConversation": []}
    path = tmp_path / f"t.{layout}"
    text = json.dumps(record)
    path.write_text(text + "\n" if layout == "jsonl" else f"[{text}]")
    checks = TraceRecordChecks(str(path))
    _, problems = read_traces(path, checks)
    errors, _ = checks.sorted(Strictness.DEFAULT)
    assert [(p.path, p.message) for p in problems] == [
        (f"{where}.evalId", "evalId is missing or not a string")
    ]
    assert [(p.path, p.message, p.hint) for p in errors] == [
        (
            f"{where}.{spelled}",
            f"{spelled!r} is not a field of trace record",
            "did you mean 'evalId'?",
        )
    ]


def test_a_key_given_twice_in_a_json_line_is_a_warning_unless_strict(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    line = json.dumps(
        {
            "evalId": "c1",
            "actualConversation": [{k: TURN[k] for k in TURN if k != "qqq" and k != "tools"}],
        }
    )
    path.write_text("\n" + line.replace('"content": "a"', '"content": "b", "content": "a"') + "\n")
    checks = TraceRecordChecks(str(path))
    traces, problems = read_traces(path, checks)
    assert problems == [] and list(traces) == ["c1"]
    repeated = (
        "line 2.actualConversation[0].finalResponse.content",
        'key "content" given twice; the last value ("a") is used',
    )
    errors, warnings = checks.sorted(Strictness.DEFAULT)
    assert errors == [] and [(p.path, p.message) for p in warnings] == [repeated]
    errors, warnings = checks.sorted(Strictness.STRICT)
    assert warnings == [] and [(p.path, p.message) for p in errors] == [repeated]
